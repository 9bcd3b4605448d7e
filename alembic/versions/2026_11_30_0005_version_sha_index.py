"""index versions by content hash: an upload without a document_id finds its twin at once

Revision ID: 0005_version_sha_index
Revises: 0004_job_checkpoint
Create Date: 2026-11-30
"""
from alembic import op

revision = "0005_version_sha_index"
down_revision = "0004_job_checkpoint"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_versions_sha256", "document_versions", ["content_sha256"])


def downgrade() -> None:
    op.drop_index("ix_versions_sha256", "document_versions")
