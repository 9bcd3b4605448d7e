"""text hashes: versions whose extracted text is the same form an exact duplicate group

Revision ID: 0011_text_sha256
Revises: 0010_job_error_code
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0011_text_sha256"
down_revision = "0010_job_error_code"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.add_column(sa.Column("text_sha256", sa.String(64), nullable=True))
        batch.create_index("ix_versions_text_sha256", ["text_sha256"])


def downgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.drop_index("ix_versions_text_sha256")
        batch.drop_column("text_sha256")
