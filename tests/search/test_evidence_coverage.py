"""Evidence chosen to cover the query, with the real models, on the judged multi-part questions
of tests/search/coverage_queries.py: the issue's "fees and termination" cites the fee clause,
and every question's cited items cover all its parts (rank order 0.875, the covering pick
0.938, and 1.000 since a neighbour that adds words is cited: bench/evidence_coverage.py,
docs/BENCHMARKS.md)."""

from __future__ import annotations

import pytest

from bench.evidence_coverage import coverage
from tests.search.coverage_queries import DOCUMENTS, QUESTIONS
from tests.service import Service, running_service

pytestmark = pytest.mark.integration



@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, real_models) -> Service:  # type: ignore[no-untyped-def]
    with running_service(tmp_path_factory.mktemp("coverage"), real_models) as s:
        for doc_id, text in DOCUMENTS.items():
            s.ingest(f"{doc_id}.md", text, document_id=doc_id)
        yield s


@pytest.mark.parametrize("question, document_id", QUESTIONS)
def test_the_cited_items_cover_every_part_of_the_question(
        svc: Service, question: str, document_id: str) -> None:
    share = coverage(svc.search(query=question).json(), question, document_id)
    assert share == 1.0, (question, share)
