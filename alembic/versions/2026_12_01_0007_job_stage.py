"""job stage: what a running job is doing, in units a person reads (pages, chunks); and an
attachment's e-mail on its document

Revision ID: 0007_job_stage
Revises: 0006_version_timeline
Create Date: 2026-12-01
"""
import sqlalchemy as sa
from alembic import op

revision = "0007_job_stage"
down_revision = "0006_version_timeline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.add_column(sa.Column("stage", sa.JSON, nullable=True))
    with op.batch_alter_table("documents") as batch:
        batch.add_column(sa.Column("attached_to_pk", sa.Integer, nullable=True))
        batch.create_index("ix_documents_attached_to_pk", ["attached_to_pk"])


def downgrade() -> None:
    with op.batch_alter_table("documents") as batch:
        batch.drop_index("ix_documents_attached_to_pk")
        batch.drop_column("attached_to_pk")
    with op.batch_alter_table("ingestion_jobs") as batch:
        batch.drop_column("stage")
