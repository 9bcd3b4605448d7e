"""Evidence is a property of the row, never of the page: the same version, query and settings
give the same content_evidence whatever limit and offset are, and has_more is true only when
the next page has a row. A small candidate depth makes the page's pool differ by limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service

# one long document: 30 short paragraphs, each a chunk holding the query's word; five others
LONG = "\n\n".join(f"Apollo ledger entry {n} " + " ".join(f"w{n}x{i}" for i in range(420))
                   for n in range(30))


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    settings = make_settings(tmp_path)
    settings.search.min_depth = 4  # the page's pool grows with limit: 4 × (window + 1) chunks
    settings.search.sparse_floor = 0.0  # a tiny corpus: every BM25 score counts
    with running_service(tmp_path, fake_models(), settings=settings) as service:
        service.ingest("long.txt", LONG, document_id="long")
        for n in range(5):
            service.ingest(f"s{n}.txt", f"apollo short note {n}", document_id=f"s{n}")
        yield service


def _row(svc: Service, document_id: str, **page: int) -> dict | None:
    body = svc.search(query="apollo", alpha=0.0, **page).json()
    return next((r["content_evidence"] for r in body["results"]
                 if r["document_version"]["document_id"] == document_id), None)


def test_a_rows_evidence_is_the_same_at_every_limit_and_offset(svc: Service) -> None:
    ranked = [r["document_version"]["document_id"] for r in
              svc.search(query="apollo", alpha=0.0, limit=6).json()["results"]]
    at = ranked.index("long")
    seen = [_row(svc, "long", limit=limit, offset=offset)
            for limit, offset in ((at + 1, 0), (6, 0), (1, at), (2, max(at - 1, 0)))]
    assert all(s is not None for s in seen)
    assert all(s == seen[0] for s in seen), seen
    # every chunk holding the word, though the smallest page's pool held 8 chunks in all
    assert seen[0]["total"] > 20 and seen[0]["truncated"] and len(seen[0]["items"]) == 3


@pytest.mark.parametrize("limit", [1, 5, 6, 7])
def test_has_more_only_when_the_next_page_has_a_row(svc: Service, limit: int) -> None:
    first = svc.search(query="apollo", alpha=0.0, limit=limit).json()
    following = svc.search(query="apollo", alpha=0.0, limit=limit, offset=limit).json()
    assert first["meta"]["has_more"] is bool(following["results"]), (limit, first["meta"])
    assert first["meta"]["has_more"] is (limit < 6)


def test_one_matching_document_at_limit_one_has_no_more(svc: Service) -> None:
    """Only the long document says "ledger": its first chunks fill the page before the lanes
    are read to the end, which is no reason to promise a next page."""
    first = svc.search(query="ledger", alpha=0.0, limit=1).json()
    assert [r["document_version"]["document_id"] for r in first["results"]] == ["long"]
    assert first["meta"]["has_more"] is False
    assert svc.search(query="ledger", alpha=0.0, limit=1, offset=1).json()["results"] == []
