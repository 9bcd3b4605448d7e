"""chunk_boxes: where a paged version's chunk's words stand on their pages (issue 49)

Revision ID: 0018_chunk_boxes
Revises: 0017_access_groups
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0018_chunk_boxes"
down_revision = "0017_access_groups"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chunk_boxes",
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("chunk_index", sa.Integer, primary_key=True),
        sa.Column("words", sa.JSON, nullable=False))


def downgrade() -> None:
    op.drop_table("chunk_boxes")
