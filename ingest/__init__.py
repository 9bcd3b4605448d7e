"""Ingestion. Importing it binds a spawned child's life to its parent's (app/ops/lifeline.py)."""

import app  # noqa: F401 - first: binds a spawned child to its parent
