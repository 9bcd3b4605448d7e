"""Evidence Search. A spawned ingestion child binds its life to its parent's before anything
else is imported (app/ops/lifeline.py)."""

from app.ops.lifeline import bind_to_parent

bind_to_parent()
