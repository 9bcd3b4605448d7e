"""Entity-aware search on the judged set of tests/search/entity_queries.py: per shape (money,
date, id), how many queries find their document first, at entity-lane weights 0 (the lane off:
before issue 22), 0.5 and 1, with the installed models through the real service.

Usage: python bench/entity_queries.py
"""

from __future__ import annotations

import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import REPO, machine  # noqa: E402


def main() -> None:
    from app.models.loading import load_models
    from tests.search.entity_queries import DOCUMENTS, QUERIES
    from tests.service import running_service

    models = load_models(REPO / "models")
    print(f"machine: {machine()}")
    print(f"{len(DOCUMENTS)} documents, {len(QUERIES)} judged queries; first = found first")
    with tempfile.TemporaryDirectory() as tmp, \
            running_service(Path(tmp), models, entities=True) as s:
        for doc_id, text in DOCUMENTS.items():
            s.ingest(f"{doc_id}.txt", text, document_id=doc_id)
        for weight in (0.0, 1.0, 2.0):  # scaled by 1 - alpha: 2.0 at alpha 0.5 is 1.0 unscaled
            s.runtime.settings.search.entity_weight = weight
            hits: dict[str, list[bool]] = defaultdict(list)
            for query, expected, shape in QUERIES:
                body = s.search(query=query).json()
                ids = [r["document_version"]["document_id"] for r in body["results"]]
                hits[shape].append(bool(ids) and ids[0] == expected)
            cells = ", ".join(f"{shape} {sum(v)}/{len(v)}" for shape, v in hits.items())
            total = sum(sum(v) for v in hits.values())
            print(f"entity weight {weight:g}: {cells}; all {total}/{len(QUERIES)}")


if __name__ == "__main__":
    main()
