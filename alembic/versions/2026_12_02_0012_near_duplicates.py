"""near duplicates: each version's MinHash signature and its LSH bands

Revision ID: 0012_near_duplicates
Revises: 0011_text_sha256
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0012_near_duplicates"
down_revision = "0011_text_sha256"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.add_column(sa.Column("minhash", sa.JSON, nullable=True))
    op.create_table(
        "near_bands",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(36), nullable=False),
        sa.Column("band", sa.Integer, nullable=False),
        sa.Column("digest", sa.String(16), nullable=False),
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), nullable=False))
    op.create_index("ix_near_bands_lookup", "near_bands", ["client_id", "band", "digest"])
    op.create_index("ix_near_bands_version_pk", "near_bands", ["version_pk"])


def downgrade() -> None:
    op.drop_table("near_bands")
    with op.batch_alter_table("document_versions") as batch:
        batch.drop_column("minhash")
