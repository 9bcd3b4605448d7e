"""ingestion_jobs.declared_bytes: a job's cost class, declared by its upload before any work

Revision ID: 0016_job_declared_bytes
Revises: 0015_calibration_runs
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op

revision = "0016_job_declared_bytes"
down_revision = "0015_calibration_runs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.add_column(sa.Column("declared_bytes", sa.Integer, nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.drop_column("declared_bytes")
