"""Evidence coverage (issue 32): on the judged multi-part questions of
tests/search/coverage_queries.py, the share of each question's parts (its words, as literal
spans read them) that occur in the cited items of the row for the document it asks about —
the mean over questions, with the real models, offline. The test of the same name asserts the
pick covers them all; this prints the figure.

    python -m bench.evidence_coverage
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def coverage(answer: dict, question: str, document_id: str) -> float:
    from app.search.spans import literal_spans, query_terms

    parts = query_terms(question)
    row = next((r for r in answer["results"]
                if r["document_version"]["document_id"] == document_id), None)
    if row is None or not parts:
        return 0.0
    cited = {str(s["text"]).lower() for item in row["content_evidence"]["items"]
             for s in literal_spans(item["text"], parts)}
    return len(cited & parts) / len(parts)


def measure(service, questions) -> list[float]:  # type: ignore[no-untyped-def]
    return [coverage(service.search(query=q).json(), q, doc) for q, doc in questions]


def main() -> None:
    from app.models.loading import load_models
    from tests.search.coverage_queries import DOCUMENTS, QUESTIONS
    from tests.service import running_service

    models = load_models(REPO / "models")
    with tempfile.TemporaryDirectory() as tmp, running_service(Path(tmp), models) as s:
        for doc_id, text in DOCUMENTS.items():
            s.ingest(f"{doc_id}.md", text, document_id=doc_id)
        shares = measure(s, QUESTIONS)
    for (question, _), share in zip(QUESTIONS, shares, strict=True):
        print(f"{share:5.2f}  {question}")
    print(f"mean coverage of query parts by the cited items: {statistics.mean(shares):.3f} "
          f"over {len(shares)} questions")


if __name__ == "__main__":
    main()
