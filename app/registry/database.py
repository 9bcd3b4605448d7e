"""Database engine, sessions and migrations (the only way the schema is made)."""

from __future__ import annotations

import functools
import logging
import random
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from app.domain.errors import Conflict

if TYPE_CHECKING:
    from app.settings import Settings

T = TypeVar("T")
log = logging.getLogger(__name__)
# Messages of the errors two writers racing for the same rows get; anything else is real.
CONTENTION = ("database is locked", "database is busy", "could not serialize",
              "deadlock detected")

ALEMBIC_INI = Path(__file__).resolve().parents[2] / "alembic.ini"


def make_engine(url: str) -> Engine:
    """An engine for SQLite (WAL, foreign keys on) or PostgreSQL."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            # deleted rows are overwritten with zeros, not left readable in free pages
            cur.execute("PRAGMA secure_delete=ON")
            cur.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)


def scrub_deleted(engine: Engine) -> None:
    """After a deletion: fold SQLite's write-ahead log into the (secure-delete) database and
    truncate it, so the deleted text is not left in the WAL file. Best effort: a checkpoint
    that a long reader blocks completes at the next deletion. PostgreSQL: nothing here
    (its VACUUM reclaims dead rows)."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def _alembic_config():  # type: ignore[no-untyped-def]
    from alembic.config import Config

    return Config(str(ALEMBIC_INI))


REVISION_LINE = re.compile(r'^(down_)?revision\s*(?::[^=]+)?=\s*["\']([^"\']+)["\']', re.M)


@functools.cache
def _head_revision() -> str:
    """The newest revision this code knows: the one no other revision names as its
    predecessor, read from alembic/versions' files once per process (/readyz asks on every
    probe) — without importing Alembic, which a CLI command that finds the registry current
    does not need (0.12 s of `evidence clients list`; tests/registry checks the two agree)."""
    revisions, predecessors = set(), set()
    for path in (ALEMBIC_INI.parent / "alembic" / "versions").glob("*.py"):
        for down, name in REVISION_LINE.findall(path.read_text(encoding="utf-8")):
            (predecessors if down else revisions).add(name)
    heads = revisions - predecessors
    if len(heads) != 1:  # a branch, or files this reading cannot follow: Alembic decides
        from alembic.script import ScriptDirectory

        return str(ScriptDirectory.from_config(_alembic_config()).get_current_head())
    return heads.pop()


def schema_revision(engine: Engine) -> tuple[str | None, str]:
    """(the registry's Alembic revision, the newest this code knows): the version table read
    with plain SQL (an empty registry has none: None)."""
    from sqlalchemy import inspect, text

    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None, _head_revision()
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return (rows[0] if len(rows) == 1 else None), _head_revision()


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision; a registry already there is left
    alone without a word (Alembic's own INFO lines only when it migrates; Alembic imported
    only then: 0.2 s of every CLI command that opens the registry)."""
    current, head = schema_revision(engine)
    if current == head:
        return
    from alembic import command

    log.info("migrating the registry from %s to %s", current or "an empty schema", head)
    cfg = _alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def open_registry(settings: Settings) -> tuple[Engine, sessionmaker[Session]]:
    """The registry's engine, migrated to this code's schema, and its sessions (here, not in
    app/runtime.py, so a CLI command that needs only the registry loads no model code)."""
    engine = make_engine(settings.database.url)
    migrate(engine)
    return engine, make_sessionmaker(engine)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    with factory() as session, session.begin():
        yield session


def commit_with_retry(session: Session, work: Callable[[], T], *, attempts: int = 8,
                      what: str = "this change") -> T:
    """Run ``work`` and commit, again from scratch when a concurrent writer won a race for the
    same rows (a unique key taken meanwhile, SQLite's busy snapshot, a PostgreSQL deadlock);
    a 409 CONCURRENT_UPDATE only if it keeps losing. Any other database error propagates."""
    for attempt in range(attempts):
        try:
            result = work()
            session.commit()
            return result
        except (IntegrityError, OperationalError, StaleDataError) as exc:
            # StaleDataError: a row this change updates was deleted meanwhile (an upload to a
            # document a DELETE removed): from scratch, the upload makes the document anew
            session.rollback()
            contended = isinstance(exc, IntegrityError | StaleDataError) or any(
                m in str(exc).lower() for m in CONTENTION)
            if not contended:
                raise
            time.sleep(random.uniform(0.002, 0.02) * (attempt + 1))
    raise Conflict(f"{what} kept colliding with concurrent changes; try again",
                   code="CONCURRENT_UPDATE")
