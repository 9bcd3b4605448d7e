"""sources, source_files and source_folders: folders and mailboxes kept in sync (issue 50)

Revision ID: 0019_sources
Revises: 0018_chunk_boxes
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0019_sources"
down_revision = "0018_chunk_boxes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sources",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("source_id", sa.String(40), nullable=False, unique=True),
        sa.Column("client_id", sa.String(36), sa.ForeignKey("clients.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("on_delete", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sync_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_report", sa.JSON, nullable=True),
        sa.Column("config", sa.JSON, nullable=True),
        sa.Column("secret", sa.LargeBinary, nullable=True),
        sa.Column("every_s", sa.Integer, nullable=True),
        sa.Column("sync_lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("progress", sa.JSON, nullable=True))
    op.create_index("ix_sources_client_id", "sources", ["client_id"])
    op.create_table(
        "source_folders",
        sa.Column("source_pk", sa.Integer, sa.ForeignKey("sources.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("folder", sa.String(512), primary_key=True),
        sa.Column("uidvalidity", sa.BigInteger, nullable=False),
        sa.Column("last_uid", sa.BigInteger, nullable=False))
    op.create_table(
        "source_files",
        sa.Column("source_pk", sa.Integer, sa.ForeignKey("sources.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("rel_path", sa.String(1024), primary_key=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mtime_ns", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("document_id", sa.String(200), nullable=False))


def downgrade() -> None:
    op.drop_table("source_folders")
    op.drop_table("source_files")
    op.drop_index("ix_sources_client_id", "sources")
    op.drop_table("sources")
