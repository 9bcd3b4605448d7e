"""POST /search, as pure stages over frozen dataclasses; only lanes.py touches the store."""
