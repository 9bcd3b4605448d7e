"""watches: standing queries, the publications they have yet to see, their matches

Revision ID: 0013_watches
Revises: 0012_near_duplicates
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0013_watches"
down_revision = "0012_near_duplicates"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "watches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("watch_id", sa.String(40), nullable=False, unique=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("webhook_url", sa.Text, nullable=True),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("match_count", sa.Integer, nullable=False, server_default="0"))
    op.create_index("ix_watches_client_id", "watches", ["client_id"])
    op.create_table(
        "watch_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(36), nullable=False),
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("published_at", TS, nullable=False),
        sa.Column("claimed_at", TS, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"))
    op.create_index("ix_watch_events_client_id", "watch_events", ["client_id"])
    op.create_index("ix_watch_events_version_pk", "watch_events", ["version_pk"])
    op.create_table(
        "watch_matches",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("watch_pk", sa.Integer, sa.ForeignKey("watches.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), nullable=False),
        sa.Column("document_id", sa.String(200), nullable=False),
        sa.Column("version_id", sa.String(32), nullable=False),
        sa.Column("matched_at", TS, nullable=False),
        sa.Column("evidence", sa.JSON, nullable=False),
        sa.Column("delivery_state", sa.String(16), nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_attempt_at", TS, nullable=True),
        sa.Column("delivered_at", TS, nullable=True),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.UniqueConstraint("watch_pk", "version_pk", name="uq_watch_match"))
    op.create_index("ix_watch_matches_watch_pk", "watch_matches", ["watch_pk"])
    op.create_index("ix_watch_matches_version_pk", "watch_matches", ["version_pk"])
    op.create_index("ix_watch_matches_delivery_state", "watch_matches", ["delivery_state"])


def downgrade() -> None:
    op.drop_table("watch_matches")
    op.drop_table("watch_events")
    op.drop_table("watches")
