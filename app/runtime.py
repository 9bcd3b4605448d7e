"""The heavy things, built once per process: DB engine, sessions, models, vector store."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.models.loading import LoadedModels, load_models
from app.registry import clients as clients_registry
from app.registry.database import open_registry, transaction
from app.settings import INITIAL_KEY_FILE, Settings
from app.store import VectorStore, open_store

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    models: LoadedModels
    store: VectorStore

    def close(self) -> None:
        self.store.close()
        self.engine.dispose()


def private_data(settings: Settings) -> None:
    """Everything this process writes is readable by its user only (umask 077), and the
    embedded data (registry, engine, first key) is tightened if an older run left it open:
    folders 0700, files 0600. Any local user could otherwise read every client's text."""
    os.umask(0o077)
    roots = [Path(settings.data_dir)]
    if settings.qdrant.url is None:
        roots.append(Path(settings.qdrant.path))
    url = settings.database.url
    if url.startswith("sqlite") and url.split("///", 1)[-1] not in ("", ":memory:"):
        db = Path(url.split("///", 1)[-1])
        roots += [db.parent / (db.name + suffix) for suffix in ("", "-wal", "-shm")]
    for root in roots:
        if root.is_dir():
            _tighten(root)
            for path in root.rglob("*"):
                _tighten(path)
        elif root.exists():
            _tighten(root)


def _tighten(path: Path) -> None:
    if path.is_symlink():
        return
    try:
        path.chmod(0o700 if path.is_dir() else 0o600)
    except OSError as exc:  # not ours to change: say so, do not stop
        log.warning("could not make %s private: %s", path, exc)


def build_runtime(settings: Settings, *, models: LoadedModels | None = None,
                  store: VectorStore | None = None) -> Runtime:
    private_data(settings)
    Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
    engine, sessions = open_registry(settings)
    # With ingestion in its child process this process embeds queries only (query_threads).
    threads = (settings.models.query_threads if settings.ingest.child_process
               else settings.models.threads)
    models = models or load_models(settings.models.dir,
                                   batch_size=settings.models.embed_batch_size, threads=threads)
    store = store or open_store(settings.qdrant, dense_model=models.manifest.dense.model
                                if models.manifest.dense else "none",
                                dense_dim=models.manifest.dense_dim)
    return Runtime(settings=settings, engine=engine, sessions=sessions, models=models, store=store)


def ensure_first_client(settings: Settings, sessions: sessionmaker[Session]) -> str | None:
    """In a registry with no client, create 'default' and keep its key in the data directory
    (readable by this user only) so the CLI can use it; returns the new key, once."""
    with transaction(sessions) as s:
        if clients_registry.list_clients(s):
            return None
        _client, key = clients_registry.create_client(s, name="default")
    path = Path(settings.data_dir) / INITIAL_KEY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(key + "\n")
    os.chmod(path, 0o600)
    return key


