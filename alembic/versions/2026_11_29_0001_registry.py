"""registry: clients, api keys, publication authorities, documents, versions, jobs

Revision ID: 0001_registry
Revises:
Create Date: 2026-11-29
"""
import sqlalchemy as sa
from alembic import op

revision = "0001_registry"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "clients",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("revoked_at", TS, nullable=True),
    )
    op.create_table(
        "publication_authorities",
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.CheckConstraint("status in ('active','suspended','revoked')",
                           name="ck_authority_status"),
    )
    op.create_table(
        "documents",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False),
        sa.Column("document_id", sa.String(200), nullable=False),
        sa.Column("source", sa.String(200), nullable=True),
        sa.Column("path", sa.Text, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("version_count", sa.Integer, nullable=False),
        sa.Column("current_version_id", sa.String(32), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.UniqueConstraint("client_id", "document_id"),
    )
    op.create_table(
        "document_versions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("document_pk", sa.Integer,
                  sa.ForeignKey("documents.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("version_id", sa.String(32), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("filename", sa.String(500), nullable=False),
        sa.Column("mime_type", sa.String(200), nullable=False),
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        sa.Column("content_sha256", sa.String(64), nullable=False),
        sa.Column("canonical_metadata", sa.JSON, nullable=False),
        sa.Column("chunk_count", sa.Integer, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("published_at", TS, nullable=True),
        sa.UniqueConstraint("document_pk", "version_id"),
        sa.CheckConstraint(
            "state in ('queued','indexing','published','superseded','failed')",
            name="ck_version_state"),
    )
    op.create_table(
        "version_contents",
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "ingestion_jobs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("client_id", sa.String(36),
                  sa.ForeignKey("clients.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("version_pk", sa.Integer,
                  sa.ForeignKey("document_versions.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("max_attempts", sa.Integer, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("progress", sa.Float, nullable=False),
        sa.Column("worker_id", sa.String(100), nullable=True),
        sa.Column("lease_expires_at", TS, nullable=True),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("finished_at", TS, nullable=True),
        sa.CheckConstraint("status in ('queued','running','succeeded','failed')",
                           name="ck_job_status"),
    )
    op.create_index("ix_jobs_claim", "ingestion_jobs", ["status", "next_attempt_at"])


def downgrade() -> None:
    for table in ("ingestion_jobs", "version_contents", "document_versions", "documents",
                  "publication_authorities", "api_keys", "clients"):
        op.drop_table(table)
