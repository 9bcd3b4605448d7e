"""Evidence chosen to cover the query, with the real models, on the judged multi-part questions
of tests/search/coverage_queries.py: the issue's "fees and termination" cites the fee clause,
and no question's cited items cover fewer parts than rank order's did (0.875 → 0.938:
bench/evidence_coverage.py, docs/BENCHMARKS.md)."""

from __future__ import annotations

import pytest

from bench.evidence_coverage import coverage
from tests.search.coverage_queries import DOCUMENTS, QUESTIONS
from tests.service import Service, running_service

pytestmark = pytest.mark.integration

RANK_ORDER = {"fees and termination": 0.5, "holiday carried over and parental leave": 0.5}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, real_models) -> Service:  # type: ignore[no-untyped-def]
    with running_service(tmp_path_factory.mktemp("coverage"), real_models) as s:
        for doc_id, text in DOCUMENTS.items():
            s.ingest(f"{doc_id}.md", text, document_id=doc_id)
        yield s


@pytest.mark.parametrize("question, document_id", QUESTIONS)
def test_the_cited_items_cover_at_least_what_rank_order_covered(
        svc: Service, question: str, document_id: str) -> None:
    share = coverage(svc.search(query=question).json(), question, document_id)
    assert share >= RANK_ORDER.get(question, 1.0), (question, share)
    if question == "fees and termination":
        assert share == 1.0  # the fee clause is cited beside the termination ones
