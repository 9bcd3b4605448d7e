"""Evidence Search. A spawned ingestion child binds its life to its parent's before anything
else is imported (app/lifeline.py)."""

from app.lifeline import bind_to_parent

bind_to_parent()
