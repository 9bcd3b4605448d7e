"""The engine folder's own lock (app/store/edge._lock_folder): a second process that tries the
engine while a server holds it gets StoreLocked without touching a file, so the holder's next
flush never fails (the "tracker_journal.dat is shorter than expected" of issue 38); a soak of
ordinary ingestion with such attempts logs no engine failure; the lock dies with its holder."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.domain.errors import StoreLocked
from app.store.edge import EdgeStore
from tests.conftest import REPO, make_settings
from tests.fakes import fake_models
from tests.service import running_service

ATTEMPT = """
import sys
sys.path.insert(0, {repo!r})
from app.store.edge import EdgeStore
try:
    held = EdgeStore({path!r}, dense_model="fake/dense", dense_dim=384)
    print("opened")
except Exception as exc:
    print(type(exc).__name__)
"""


def _attempt_from_another_process(path: Path) -> str:
    """What `evidence search` in another shell meets: the engine folder, already held."""
    done = subprocess.run([sys.executable, "-c", ATTEMPT.format(repo=str(REPO), path=str(path))],
                          capture_output=True, text=True, timeout=120)
    return done.stdout.strip() or done.stderr[-300:]


def _files(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def test_another_process_is_refused_before_it_touches_a_file(tmp_path: Path) -> None:
    """Before the lock, one such attempt rewrote 32 of the holder's files and removed its
    payload tracker journals (qdrant-edge loads the segments before its own lock refuses)."""
    with running_service(tmp_path, fake_models(), settings=make_settings(tmp_path)) as svc:
        svc.ingest("a.txt", "alpha beta gamma " * 50)
        engine = tmp_path / "qdrant"
        before = _files(engine)
        assert _attempt_from_another_process(engine) == "StoreLocked"
        assert _files(engine) == before


def test_a_soak_of_ingestion_with_such_attempts_logs_no_engine_failure(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Ordinary use: new versions supersede old ones (their points deleted), a document is
    deleted, the worker compacts, and between rounds another process tries the engine."""
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    settings = make_settings(tmp_path, keep_superseded=0)
    caplog.set_level(logging.WARNING, logger="app.store.edge")
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        for round_ in range(6):
            for d in range(8):
                paragraphs = [" ".join(words[(d + round_ + i + j) % len(words)]
                                       for j in range(40)) for i in range(1 + (d + round_) % 6)]
                svc.upload(f"d{d}.txt", "\n\n".join(paragraphs), document_id=f"d{d}")
            svc.worker.drain()
            if round_ % 2:
                svc.http.delete("/documents/d0", headers=svc.auth())
            assert _attempt_from_another_process(tmp_path / "qdrant") == "StoreLocked"
            svc.runtime.store.compact()
    failures = [r.getMessage() for r in caplog.records if r.name == "app.store.edge"]
    assert failures == []


def test_the_lock_is_released_on_close_and_with_a_killed_holder(tmp_path: Path) -> None:
    store = EdgeStore(tmp_path, dense_model="fake/dense", dense_dim=384)
    with pytest.raises(StoreLocked):  # a second opening, even in the same process
        EdgeStore(tmp_path, dense_model="fake/dense", dense_dim=384)
    store.close()
    EdgeStore(tmp_path, dense_model="fake/dense", dense_dim=384).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", ATTEMPT.format(repo=str(REPO), path=str(tmp_path))
         + "\nimport time\nprint('holding', flush=True)\ntime.sleep(120)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "opened"
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(StoreLocked):
            EdgeStore(tmp_path, dense_model="fake/dense", dense_dim=384)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
    finally:
        holder.kill()
    EdgeStore(tmp_path, dense_model="fake/dense", dense_dim=384).close()
