"""entity mentions: how many of a version's chunks name each entity (GET /entities)

Revision ID: 0009_entity_mentions
Revises: 0008_job_crashes
Create Date: 2026-12-02
"""
import sqlalchemy as sa
from alembic import op

revision = "0009_entity_mentions"
down_revision = "0008_job_crashes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.add_column(sa.Column("entity_mentions", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.drop_column("entity_mentions")
