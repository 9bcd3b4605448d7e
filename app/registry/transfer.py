"""Copy a whole registry to another database (SQLite → PostgreSQL when moving to a cluster).

Tables go in dependency order, rows in batches, into a target migrated to the same schema
that must be empty (refused otherwise: never a merge of two registries). On PostgreSQL the
id sequences are moved past the copied ids afterwards, so new rows do not collide.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, Integer, func, select, text

from app.domain.errors import ServiceError
from app.registry.database import migrate
from app.registry.tables import Base


def copy_registry(source: Engine, target: Engine, *, batch: int = 1000,
                  on_table: Callable[[str, int], None] | None = None) -> dict[str, int]:
    migrate(source)
    migrate(target)
    tables = Base.metadata.sorted_tables
    with target.connect() as conn:
        holding = [t.name for t in tables if conn.scalar(select(func.count()).select_from(t))]
    if holding:
        raise ServiceError(f"the target registry is not empty ({', '.join(holding)}): copy "
                           "into a new database", code="REGISTRY_NOT_EMPTY")
    copied: dict[str, int] = {}
    with source.connect() as src, target.begin() as dst:
        for table in tables:
            rows = src.execution_options(stream_results=True).execute(select(table))
            count = 0
            while chunk := rows.fetchmany(batch):
                dst.execute(table.insert(), [dict(r._mapping) for r in chunk])
                count += len(chunk)
            copied[table.name] = count
            if on_table:
                on_table(table.name, count)
        if dst.dialect.name == "postgresql":
            for table in tables:
                pk = list(table.primary_key.columns)
                if len(pk) == 1 and isinstance(pk[0].type, Integer) and pk[0].autoincrement:
                    dst.execute(text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', '{pk[0].name}'),"
                        f" COALESCE((SELECT MAX({pk[0].name}) FROM {table.name}), 0) + 1, "
                        "false)"))
    return copied
