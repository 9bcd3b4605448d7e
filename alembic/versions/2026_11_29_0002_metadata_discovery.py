"""metadata discovery: per-client switch, typed leaves, version entities

Revision ID: 0002_metadata_discovery
Revises: 0001_registry
Create Date: 2026-11-29
"""
import sqlalchemy as sa
from alembic import op

revision = "0002_metadata_discovery"
down_revision = "0001_registry"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.add_column(sa.Column("entities", sa.JSON, nullable=True))
        batch.add_column(sa.Column("leaves_indexed", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "metadata_discovery",
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "metadata_leaves",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False),
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("key", sa.String(300), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("value", sa.JSON, nullable=False),
        sa.Column("value_folded", sa.Text, nullable=False),
    )
    op.create_index("ix_leaves_client_key", "metadata_leaves", ["client_id", "key"])


def downgrade() -> None:
    op.drop_table("metadata_leaves")
    op.drop_table("metadata_discovery")
    with op.batch_alter_table("document_versions") as batch:
        batch.drop_column("leaves_indexed")
        batch.drop_column("entities")
