"""job checkpoints: a long job resumes where it stopped (a slice given up, a crash)

Revision ID: 0004_job_checkpoint
Revises: 0003_client_bm25
Create Date: 2026-11-30
"""
import sqlalchemy as sa
from alembic import op

revision = "0004_job_checkpoint"
down_revision = "0003_client_bm25"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.add_column(sa.Column("checkpoint", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.drop_column("checkpoint")
