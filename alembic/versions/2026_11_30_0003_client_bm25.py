"""per-client BM25 statistics: document frequencies per client, term counts per version

Revision ID: 0003_client_bm25
Revises: 0002_metadata_discovery
Create Date: 2026-11-30
"""
import sqlalchemy as sa
from alembic import op

revision = "0003_client_bm25"
down_revision = "0002_metadata_discovery"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.add_column(sa.Column("term_df", sa.JSON, nullable=True))
    op.create_table(
        "bm25_terms",
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("term", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("df", sa.Integer, nullable=False),
    )
    op.create_table(
        "bm25_corpus",
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("chunk_count", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bm25_corpus")
    op.drop_table("bm25_terms")
    with op.batch_alter_table("document_versions") as batch:
        batch.drop_column("term_df")
