"""a version's timeline: when it was superseded and by which version; whether the engine's
points carry the timeline (the worker catches up older versions at start)

Revision ID: 0006_version_timeline
Revises: 0005_version_sha_index
Create Date: 2026-11-30
"""
import sqlalchemy as sa
from alembic import op

revision = "0006_version_timeline"
down_revision = "0005_version_sha_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.add_column(sa.Column("superseded_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("superseded_by", sa.String(32), nullable=True))
        batch.add_column(sa.Column("timeline_synced", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    # A superseded version was superseded when the next newer published one was published.
    versions = sa.table("document_versions", sa.column("id", sa.Integer),
                        sa.column("document_pk", sa.Integer), sa.column("version_id", sa.String),
                        sa.column("state", sa.String), sa.column("published_at", sa.DateTime),
                        sa.column("superseded_at", sa.DateTime),
                        sa.column("superseded_by", sa.String))
    conn = op.get_bind()
    rows = conn.execute(sa.select(versions.c.id, versions.c.document_pk, versions.c.version_id,
                                  versions.c.state, versions.c.published_at)
                        .where(versions.c.state.in_(("published", "superseded")))
                        .order_by(versions.c.document_pk, versions.c.id)).all()
    by_document: dict[int, list] = {}
    for row in rows:
        by_document.setdefault(row.document_pk, []).append(row)
    for history in by_document.values():
        for older, newer in zip(history, history[1:], strict=False):
            if older.state == "superseded":
                conn.execute(versions.update().where(versions.c.id == older.id).values(
                    superseded_at=newer.published_at or older.published_at,
                    superseded_by=newer.version_id))


def downgrade() -> None:
    with op.batch_alter_table("document_versions") as batch:
        batch.drop_column("timeline_synced")
        batch.drop_column("superseded_by")
        batch.drop_column("superseded_at")
