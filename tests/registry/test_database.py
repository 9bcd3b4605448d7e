"""The registry's schema revision read without Alembic, as Alembic reads it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, text

from app.registry import database
from app.registry.database import _alembic_config, migrate, schema_revision


def test_the_head_read_from_the_files_is_alembics() -> None:
    from alembic.script import ScriptDirectory

    database._head_revision.cache_clear()
    assert database._head_revision() == ScriptDirectory.from_config(
        _alembic_config()).get_current_head()


def test_an_empty_registry_has_no_revision_and_a_migrated_one_has_the_head(
        tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'r.db'}")
    current, head = schema_revision(engine)
    assert current is None and head.startswith("00")
    migrate(engine)
    assert schema_revision(engine) == (head, head)
    with engine.begin() as conn:  # a registry one revision behind reads as such
        conn.execute(text("UPDATE alembic_version SET version_num = '0013_watches'"))
    assert schema_revision(engine) == ("0013_watches", head)
