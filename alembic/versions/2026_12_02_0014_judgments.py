"""judgments: a client's own relevance judgments, and the calibration they justified

Revision ID: 0014_judgments
Revises: 0013_watches
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0014_judgments"
down_revision = "0013_watches"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "judgments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False),
        sa.Column("query", sa.Text, nullable=False),
        sa.Column("document_id", sa.String(200), nullable=False),
        sa.Column("grade", sa.Integer, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("client_id", "query", "document_id", name="uq_judgment"))
    op.create_index("ix_judgments_client_id", "judgments", ["client_id"])
    op.create_table(
        "client_calibrations",
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("alpha", sa.Float, nullable=False),
        sa.Column("fusion", sa.String(16), nullable=False),
        sa.Column("report", sa.JSON, nullable=False),
        sa.Column("applied_at", TS, nullable=False))


def downgrade() -> None:
    op.drop_table("client_calibrations")
    op.drop_table("judgments")
