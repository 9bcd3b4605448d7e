"""calibration_runs: a client's calibration as a background run (202, progress, result)

Revision ID: 0015_calibration_runs
Revises: 0014_judgments
Create Date: 2026-12-03
"""
import sqlalchemy as sa
from alembic import op

revision = "0015_calibration_runs"
down_revision = "0014_judgments"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "calibration_runs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False),
        sa.Column("active_client", sa.String(36), nullable=True, unique=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("searches_done", sa.Integer, nullable=False),
        sa.Column("searches_total", sa.Integer, nullable=False),
        sa.Column("report", sa.JSON, nullable=True),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("heartbeat_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=True))
    op.create_index("ix_calibration_runs_client_id", "calibration_runs", ["client_id"])


def downgrade() -> None:
    op.drop_table("calibration_runs")
