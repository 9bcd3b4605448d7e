"""The SQL registry: clients, keys, authorities, documents, versions, jobs.

Functions here are keyword-only ``(session, …)`` and never commit: the caller owns the
transaction. The schema is made only by the Alembic migrations under ``alembic/``.
"""
