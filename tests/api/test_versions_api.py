"""Version-aware search: every published version, or those current at an instant; each row's
timeline; retention; and the publish crash window (fake models, real embedded engine)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.domain.errors import Unavailable
from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service

V1 = "travel policy economy class flights reimbursed within thirty days"
V2 = "travel policy business class trains reimbursed within ten days"
OTHER = ["holiday rota for the spring term", "invoice paid by bank transfer"]


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    with running_service(tmp_path, fake_models()) as service:
        for i, text in enumerate(OTHER):
            service.ingest(f"o{i}.txt", text, document_id=f"o{i}")
        yield service


def _rows(svc: Service, **body: object) -> list[tuple[str, str]]:
    r = svc.search(alpha=1.0, **body)
    assert r.status_code == 200, r.text
    return [(row["document_version"]["document_id"], row["document_version"]["version_id"])
            for row in r.json()["results"]]


def _published(svc: Service, document_id: str) -> dict[str, dict]:
    doc = svc.http.get(f"/documents/{document_id}", headers=svc.auth()).json()
    return {v["version_id"]: v for v in doc["versions"]}


def test_current_all_and_as_of_choose_among_versions(svc: Service) -> None:
    svc.ingest("policy.txt", V1, document_id="policy")
    time.sleep(0.02)
    svc.ingest("policy.txt", V2, document_id="policy")
    versions = _published(svc, "policy")
    t1 = datetime.fromisoformat(versions["v1"]["published_at"])
    t2 = datetime.fromisoformat(versions["v2"]["published_at"])
    assert t1 < t2
    assert (versions["v1"]["superseded_at"], versions["v1"]["superseded_by"]) == (
        versions["v2"]["published_at"], "v2")
    assert versions["v2"]["superseded_at"] is None

    query = "travel policy reimbursed flights trains"
    assert _rows(svc, query=query) == [("policy", "v2")]  # current, as before
    both = svc.search(query=query, alpha=1.0, versions="all").json()
    assert sorted((r["document_version"]["document_id"], r["document_version"]["version_id"])
                  for r in both["results"]) == [("policy", "v1"), ("policy", "v2")]
    assert both["meta"]["total"] == 2  # versions, not documents
    old = next(r for r in both["results"] if r["document_version"]["version_id"] == "v1")
    assert old["document_version"]["is_current"] is False
    assert old["document_version"]["superseded_by"] == "v2"
    assert V1.split()[2] in old["content_evidence"]["items"][0]["text"]  # its own evidence

    def at(instant: datetime) -> list[tuple[str, str]]:
        return _rows(svc, query=query, as_of=instant.isoformat())

    assert at(t1 - timedelta(days=1)) == []  # before any publication: empty, not an error
    assert at(t1 + (t2 - t1) / 2) == [("policy", "v1")]
    assert at(t2 + timedelta(seconds=1)) == [("policy", "v2")]
    assert at(datetime(9999, 12, 31, tzinfo=UTC)) == [("policy", "v2")]  # still current
    assert at(datetime(1, 1, 2, tzinfo=UTC)) == []
    # the same instant written with another offset is the same instant
    shifted = (t1 + (t2 - t1) / 2).astimezone(UTC).astimezone(
        datetime.now().astimezone().tzinfo)
    assert at(shifted) == [("policy", "v1")]

    current = svc.search(query=query, alpha=1.0).json()["results"][0]["document_version"]
    assert current["is_current"] is True and current["superseded_at"] is None


@pytest.mark.parametrize("body,code", [
    ({"versions": "all", "as_of": "2026-01-01T00:00:00Z"}, "INVALID_VERSIONS"),
    ({"versions": "some"}, "INVALID_VERSIONS"),
    ({"as_of": "2026-01-01T00:00:00"}, "INVALID_AS_OF"),  # no offset
    ({"as_of": "last march"}, "INVALID_AS_OF"),
    ({"as_of": 1767225600}, "INVALID_AS_OF"),  # a number is not a timestamp here
    ({"versions": "all", "scope": "metadata"}, "INVALID_VERSIONS")])
def test_version_requests_that_cannot_be_answered_are_422(svc: Service, body: dict,
                                                           code: str) -> None:
    if body.get("scope") == "metadata":  # past readiness, to reach the versions check
        svc.http.post("/clients/me/metadata/discovery", json={"enabled": True},
                      headers=svc.auth())
        svc.worker.drain()
    r = svc.search(query="travel", **body)
    assert r.status_code == 422 and r.json()["error"]["code"] == code, r.text


def test_a_deleted_document_is_gone_from_every_mode(svc: Service) -> None:
    svc.ingest("policy.txt", V1, document_id="policy")
    svc.ingest("policy.txt", V2, document_id="policy")
    assert svc.http.delete("/documents/policy", headers=svc.auth()).status_code == 204
    query = "travel policy reimbursed flights trains"
    assert _rows(svc, query=query) == _rows(svc, query=query, versions="all") == []
    assert _rows(svc, query=query, as_of=datetime.now(UTC).isoformat()) == []


def test_retention_keeps_the_newest_superseded_versions_only(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    settings.ingest.keep_superseded = 1
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        for i in range(3):
            svc.ingest("policy.txt", f"{V1} edition {i}", document_id="policy")
        assert list(_published(svc, "policy")) == ["v2", "v3"]  # v1's rows are gone …
        assert sorted(_rows(svc, query=V1, versions="all")) == [("policy", "v2"),
                                                                ("policy", "v3")]
        from app.store import ChunkFilter  # … and its chunks
        points = svc.runtime.store.scroll(ChunkFilter(client_id=_client(svc),
                                                      searchable_only=False))
        assert {p.payload["version_id"] for p in points} == {"v2", "v3"}


def _client(svc: Service) -> str:
    from app.registry import clients as reg
    from app.registry.database import transaction

    with transaction(svc.runtime.sessions) as s:
        return reg.caller_for_key(s, secret=svc.key).id


def test_a_publish_stopped_between_its_two_engine_calls_never_shows_two_versions(
        svc: Service, monkeypatch: pytest.MonkeyPatch) -> None:
    svc.ingest("policy.txt", V1, document_id="policy")
    svc.upload("policy.txt", V2, document_id="policy")
    store = svc.runtime.store
    flip = store.set_searchable
    calls: list[bool] = []

    def stopped(**kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs["searchable"])
        if len(calls) == 2:  # the first call went through; the process "dies" here
            raise Unavailable("the engine went away")
        flip(**kwargs)

    monkeypatch.setattr(store, "set_searchable", stopped)
    svc.worker.run_once()
    assert calls == [False, True]  # the old version was hidden first
    query = "travel policy reimbursed flights trains economy business"
    assert [d for d, _ in _rows(svc, query=query)].count("policy") <= 1
    monkeypatch.setattr(store, "set_searchable", flip)
    svc.worker.settings.backoff_base_s = 0.0
    svc.worker.drain()  # the retry publishes
    assert _rows(svc, query=query)[:1] == [("policy", "v2")]
    assert [d for d, _ in _rows(svc, query=query)].count("policy") == 1


def test_versions_published_before_points_carried_a_timeline_are_caught_up(
        svc: Service) -> None:
    from sqlalchemy import update

    from app.registry.tables import DocumentVersion
    from ingest.pipeline import sync_timelines

    svc.ingest("policy.txt", V1, document_id="policy")
    svc.ingest("policy.txt", V2, document_id="policy")
    with svc.runtime.sessions.begin() as s:  # as an upgraded registry has them
        s.execute(update(DocumentVersion).values(timeline_synced=False))
    assert sync_timelines(svc.worker.deps, batch=2) == len(OTHER) + 2
    assert sync_timelines(svc.worker.deps) == 0  # once
    assert _rows(svc, query=V1, versions="all")


def test_the_migration_dates_the_superseded_versions_of_an_older_registry(
        tmp_path: Path) -> None:
    from alembic import command
    from sqlalchemy import text

    from app.registry.database import _alembic_config, make_engine, migrate

    engine = make_engine(f"sqlite:///{tmp_path}/old.db")
    cfg = _alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0005_version_sha_index")
        conn.execute(text("insert into clients (id, name, created_at) values "
                          "('c', 'acme', '2026-01-01 00:00:00')"))
        conn.execute(text("insert into documents (id, client_id, document_id, kind, "
                          "version_count, current_version_id, created_at, updated_at) values "
                          "(1, 'c', 'd', 'txt', 2, 'v2', '2026-01-01', '2026-01-02')"))
        for pk, vid, state, published in ((1, "v1", "superseded", "2026-01-01 10:00:00"),
                                          (2, "v2", "published", "2026-01-02 10:00:00")):
            conn.execute(text(
                "insert into document_versions (id, document_pk, version_id, state, filename, "
                "mime_type, size_bytes, content_sha256, canonical_metadata, chunk_count, "
                "created_at, published_at, leaves_indexed) values (:pk, 1, :vid, :state, "
                "'d.txt', 'text/plain', 1, 'x', '{}', 1, :published, :published, 0)"),
                {"pk": pk, "vid": vid, "state": state, "published": published})
    migrate(engine)
    with engine.connect() as conn:
        rows = conn.execute(text("select version_id, superseded_at, superseded_by, "
                                 "timeline_synced from document_versions order by id")).all()
    assert [(r[0], str(r[1])[:19] if r[1] else None, r[2], r[3]) for r in rows] == [
        ("v1", "2026-01-02 10:00:00", "v2", 0), ("v2", None, None, 0)]
    engine.dispose()


def test_a_citation_names_its_version(svc: Service) -> None:
    svc.ingest("policy.txt", V1, document_id="snap")
    svc.ingest("policy.txt", V2, document_id="snap")
    r = svc.search(query="travel policy reimbursed", versions="all", alpha=1.0)
    cited = {(row["document_version"]["version_id"],
              row["content_evidence"]["items"][0]["chunk_id"])
             for row in r.json()["results"] if row["document_version"]["document_id"] == "snap"}
    assert cited == {("v1", "snap:v1:0"), ("v2", "snap:v2:0")}
