"""job crashes: attempts lost to a worker's death, counted apart from max_attempts

Revision ID: 0008_job_crashes
Revises: 0007_job_stage
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0008_job_crashes"
down_revision = "0007_job_stage"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.add_column(sa.Column("crashes", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.drop_column("crashes")
