"""job error codes: the stable code of a failed job beside its message (ingest/failures.py)

Revision ID: 0010_job_error_code
Revises: 0009_entity_mentions
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0010_job_error_code"
down_revision = "0009_entity_mentions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.add_column(sa.Column("error_code", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.drop_column("error_code")
