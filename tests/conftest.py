"""Shared fixtures: temp-dir settings, registries on SQLite and PostgreSQL, fake and real models."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from app.models.loading import LoadedModels, load_models
from app.registry.database import make_engine, make_sessionmaker, migrate
from app.settings import (
    DatabaseSettings,
    IngestSettings,
    QdrantSettings,
    Settings,
    WatchSettings,
)

REPO = Path(__file__).resolve().parents[1]
MODELS_DIR = Path(os.environ.get("EVIDENCE_MODELS__DIR", REPO / "models"))
PG_URL = os.environ.get("EVIDENCE_TEST_PG_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")
SCIFACT = REPO.parent / "shared" / "data" / "scifact"
METRICS_TOKEN = "operator-metrics-token"
METRICS_AUTH = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def make_settings(tmp: Path, db_url: str | None = None, **ingest: object) -> Settings:
    return Settings(
        data_dir=tmp / "data",
        database=DatabaseSettings(url=db_url or f"sqlite:///{tmp}/registry.db"),
        qdrant=QdrantSettings(path=tmp / "qdrant"),
        ingest=IngestSettings(**{"backoff_base_s": 0.0, "poll_interval_s": 0.05, **ingest}),
        embedded_worker=False,
        metrics_token=METRICS_TOKEN,
        watch=WatchSettings(webhook_hosts="127.0.0.1"),  # tests call 127.0.0.1 only
    )


def _pg_available() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL.replace("postgresql+psycopg", "postgresql"),
                             connect_timeout=2):
            return None
    except Exception as exc:  # noqa: BLE001
        return f"PostgreSQL not reachable at {PG_URL}: {type(exc).__name__}"


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    """Commands such as `evidence serve` configure the process's logging (app/ops/logs.py); each
    test gets it back as it was, so one test's handlers never write into another's output."""
    import logging

    root, access = logging.getLogger(), logging.getLogger("uvicorn.access")
    saved = root.handlers[:], root.level, access.disabled
    yield
    root.handlers[:], access.disabled = saved[0], saved[2]
    root.setLevel(saved[1])


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty registry on SQLite and on PostgreSQL (skipped, with the reason,
    where no PostgreSQL is reachable)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/registry.db"
        return
    with pg_schema() as url:
        yield url


@contextmanager
def pg_schema() -> Iterator[str]:
    """A PostgreSQL URL whose search path is a fresh schema, dropped afterwards; the test
    is skipped, with the reason, where no PostgreSQL is reachable."""
    reason = _pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    raw = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(raw, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(raw, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def sessions(db_url: str):  # type: ignore[no-untyped-def]
    engine = make_engine(db_url)
    migrate(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture(scope="session")
def real_models() -> LoadedModels:
    """The packaged offline models from ./models (`evidence models install` puts them there)."""
    if not (MODELS_DIR / "manifest.json").exists():
        pytest.skip(f"no models installed in {MODELS_DIR}: run `evidence models install`")
    return load_models(MODELS_DIR, batch_size=1)
