"""search_batches, search_batch_hits and audit_events: batch search and the audit trail
(issue 51)

Revision ID: 0020_batches_audit
Revises: 0019_sources
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0020_batches_audit"
down_revision = "0019_sources"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "search_batches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("batch_id", sa.String(40), nullable=False, unique=True),
        sa.Column("client_id", sa.String(36), sa.ForeignKey("clients.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("key_id", sa.String(36), nullable=True),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("queries", sa.JSON, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.Column("failed_queries", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_search_batches_client_id", "search_batches", ["client_id"])
    op.create_index("ix_search_batches_status", "search_batches", ["status"])
    op.create_table(
        "search_batch_queries",
        sa.Column("batch_pk", sa.Integer,
                  sa.ForeignKey("search_batches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("query_index", sa.Integer, primary_key=True),
        sa.Column("total", sa.Integer, nullable=True),
        sa.Column("total_is_lower_bound", sa.Boolean, nullable=False),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error", sa.Text, nullable=True))
    op.create_table(
        "search_batch_hits",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("batch_pk", sa.Integer,
                  sa.ForeignKey("search_batches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("query_index", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("document_id", sa.String(200), nullable=False),
        sa.Column("version_id", sa.String(64), nullable=False),
        sa.Column("filename", sa.Text, nullable=True),
        sa.Column("page", sa.Integer, nullable=True),
        sa.Column("chunk_id", sa.String(300), nullable=True),
        sa.Column("snippet", sa.Text, nullable=True),
        sa.Column("score", sa.Float, nullable=True))
    op.create_index("ix_search_batch_hits_batch", "search_batch_hits",
                    ["batch_pk", "query_index", "rank"])
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(36), sa.ForeignKey("clients.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("key_id", sa.String(36), nullable=True),
        sa.Column("actor", sa.String(200), nullable=True),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("target", sa.String(300), nullable=True),
        sa.Column("query", sa.Text, nullable=True),
        sa.Column("details", sa.JSON, nullable=True))
    op.create_index("ix_audit_events_client_at", "audit_events", ["client_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_audit_events_client_at", "audit_events")
    op.drop_table("audit_events")
    op.drop_index("ix_search_batch_hits_batch", "search_batch_hits")
    op.drop_table("search_batch_hits")
    op.drop_table("search_batch_queries")
    op.drop_index("ix_search_batches_status", "search_batches")
    op.drop_index("ix_search_batches_client_id", "search_batches")
    op.drop_table("search_batches")
