"""Access groups (issue 48): api_keys.groups and may_delegate, document_access, the key a
watch runs as

Revision ID: 0017_access_groups
Revises: 0016_job_declared_bytes
Create Date: 2026-12-04
"""
import sqlalchemy as sa
from alembic import op

revision = "0017_access_groups"
down_revision = "0016_job_declared_bytes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("groups", sa.JSON, nullable=True))
        batch.add_column(sa.Column("may_delegate", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "document_access",
        sa.Column("document_pk", sa.Integer,
                  sa.ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("group_name", sa.String(64), primary_key=True))
    op.create_index("ix_document_access_group_name", "document_access", ["group_name"])
    with op.batch_alter_table("watches") as batch:
        batch.add_column(sa.Column("key_id", sa.String(36), nullable=True))
        batch.add_column(sa.Column("narrowed", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("watches") as batch:
        batch.drop_column("narrowed")
        batch.drop_column("key_id")
    op.drop_index("ix_document_access_group_name", "document_access")
    op.drop_table("document_access")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("may_delegate")
        batch.drop_column("groups")
