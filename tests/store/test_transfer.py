"""From the embedded engine to a Qdrant server (qdrant-client's local mode stands in for it),
and the registry with it: every point moves, interrupted runs resume, and searches answer the
same before and after."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.domain.errors import ServiceError
from app.registry import clients as reg
from app.registry.database import make_engine, make_sessionmaker, transaction
from app.registry.transfer import copy_registry
from app.search.pipeline import SearchEngine
from app.search.service import SearchQuery, SearchService
from app.settings import SearchSettings
from app.store.server import ServerStore
from app.store.transfer import MANIFEST, export_points, import_points, read_manifest
from tests.fakes import fake_models
from tests.service import running_service

TEXTS = ["budget report for project apollo", "holiday rota for the spring term",
         "invoice PO-2231 was paid by transfer", "widget calibration happens weekly",
         "apollo budget overran in the third quarter", "spring cleaning of the archive"]
QUERIES = ["apollo budget", "spring holiday", "PO-2231 invoice", "calibration"]


def _answers(store, models, sessions) -> list[list[tuple]]:  # type: ignore[no-untyped-def]
    service = SearchService(SearchEngine(store, models, SearchSettings()), 0.5)
    with transaction(sessions) as s:
        client_id = reg.get_client(s, name="acme").id
        return [[(r.document_id, r.version_id, round(r.content.best.fused, 9),
                  [c.chunk_id for c in r.content.evidence])
                 for r in service.answer(s, client_id=client_id,
                                         query=SearchQuery(query=q, limit=10)).rows]
                for q in QUERIES]


class _Interrupted(Exception):
    pass


@pytest.fixture
def shell_umask() -> Iterator[None]:
    """A user's shell umask (0022): the export must not rely on the server's 0077."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_an_index_and_its_registry_move_to_a_server_and_answer_the_same(
        tmp_path: Path, db_url: str, shell_umask: None) -> None:
    models = fake_models()
    dump = tmp_path / "dump"
    from tests.conftest import make_settings

    settings = make_settings(tmp_path / "embedded")
    settings.qdrant.sentence_vectors = True  # they move too
    with running_service(tmp_path / "embedded", models, settings=settings) as svc:
        for i, text in enumerate(TEXTS):
            svc.ingest(f"d{i}.txt", text, document_id=f"d{i}")
        svc.ingest("d0.txt", "budget report for project apollo, revised", document_id="d0")
        assert svc.runtime.store.sentence_vectors
        before = _answers(svc.runtime.store, models, svc.runtime.sessions)
        assert before[0] and all(before)
        total = svc.runtime.store.count_all()  # v1 of d0 (hidden) moves too

        def stop_after_first(_points: int) -> None:
            raise _Interrupted

        with pytest.raises(_Interrupted):  # a crash after the first batch …
            export_points(svc.runtime.store, dump, dense_model="fake/dense", dense_dim=384,
                          batch=2, on_batch=stop_after_first)
        with pytest.raises(ServiceError, match="did not finish"):
            read_manifest(dump)
        done = export_points(svc.runtime.store, dump, dense_model="fake/dense",  # … resumed
                             dense_dim=384, batch=2)
        assert (done.points, done.complete) == (total, True)
        assert done.batches == len(list(dump.glob("points-*.jsonl.gz"))) == -(-total // 2)
        # issue 53: the whole corpus, its owner's alone — whatever the umask (0022 here)
        assert dump.stat().st_mode & 0o777 == 0o700
        assert {f.stat().st_mode & 0o777 for f in dump.iterdir()} == {0o600}
        source_url = svc.runtime.settings.database.url

    server = ServerStore(url=f"path:{tmp_path / 'server'}", api_key=None,
                         collection="evidence_chunks", dense_model="fake/dense", dense_dim=384,
                         sentence_vectors=True)
    upsert, calls = server.upsert, []

    def flaky(points):  # type: ignore[no-untyped-def]
        calls.append(len(points))
        if len(calls) == 2:
            raise _Interrupted
        upsert(points)

    server.upsert = flaky  # type: ignore[method-assign]
    with pytest.raises(_Interrupted):
        import_points(server, dump)
    report = import_points(server, dump)  # resumes at the batch that failed
    assert (report.points, report.missing, report.sentences_left_out) == (total, 0, False)
    assert len(calls) == done.batches + 1  # the first batch was not written twice
    assert server.count_all() == total
    # every chunk's sentence vectors moved with it (16-bit floats both sides)
    some = [p.id for p in server.export_points(None, 100)[0]]
    assert all(p.sentences for p in server.vectors(some).values())
    assert read_manifest(dump).sentence_vectors is True
    bare = ServerStore(url=":memory:", api_key=None, collection="bare", dense_model="fake/dense",
                       dense_dim=384)  # a collection made without them: they are left out
    assert import_points(bare, dump).sentences_left_out is True
    bare.close()

    source, target = make_engine(source_url), make_engine(db_url)
    copied = copy_registry(source, target)
    assert copied["documents"] == len(TEXTS) and copied["document_versions"] == len(TEXTS) + 1
    with pytest.raises(ServiceError, match="not empty"):
        copy_registry(source, target)
    after = _answers(server, models, make_sessionmaker(target))
    assert after == before
    with transaction(make_sessionmaker(target)) as s:  # new rows do not collide with copied
        reg.create_client(s, name="after-the-move")
    source.dispose()
    target.dispose()
    server.close()
    assert (dump / MANIFEST).exists()
