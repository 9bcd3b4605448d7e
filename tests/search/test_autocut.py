"""Autocut: Weaviate's rule, hand-computed on both sides of each case, and over HTTP an id only
some versions hold leaves exactly those."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.search.autocut import autocut
from tests.conftest import make_settings
from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.mark.parametrize("scores, jumps, keep", [
    # scaled [0, .111, .222, 1] - line [0, .333, .667, 1] = [0, -.222, -.444, 0]: the last
    # point rises over both before it: a drop just before it
    ([10, 9, 8, 1], 1, 3),
    # [0, 1, 1, 1] - line = [0, .667, .333, 0]: the drop is right after the first
    ([10, 1, 1, 1], 1, 1),
    # two drops: [10, 9 | 5, 4.5 | 1, 0.5] scaled [0, .105, .526, .579, .947, 1], line
    # [0, .2, .4, .6, .8, 1]: diff [0, -.095, .126, -.021, .147, 0]: maxima at 2 and 4
    ([10, 9, 5, 4.5, 1, 0.5], 1, 2),
    ([10, 9, 5, 4.5, 1, 0.5], 2, 4),
    ([10, 9, 5, 4.5, 1, 0.5], 3, 6),  # no third drop: all kept
    ([5, 5, 5], 1, 3),                  # never varies: nothing cut
    ([7], 1, 1), ([], 1, 0),
    ([10, 1, 1, 1], 0, 4),              # off
])
def test_autocut_hand_computed(scores: list[float], jumps: int, keep: int) -> None:
    assert autocut(scores, jumps) == keep


DOCUMENTS = {f"note{n}": f"Meeting note {n} about the quarterly budget and the audit plan."
             for n in range(8)} | {
    "wire-a": "Wire TXN-2024-0306-77 of the quarterly budget was sent to Kestrel.",
    "wire-b": "Confirmation: TXN-2024-0306-77 received, quarterly budget line 4.",
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    tmp: Path = tmp_path_factory.mktemp("autocut")
    settings = make_settings(tmp)
    settings.search.sparse_floor = 0.0
    with running_service(tmp, fake_models(), settings=settings) as service:
        for doc_id, text in DOCUMENTS.items():
            service.ingest(f"{doc_id}.txt", text, document_id=doc_id)
        yield service


def test_an_id_only_two_versions_hold_leaves_those_two(svc: Service) -> None:
    plain = svc.search(query="TXN-2024-0306-77 quarterly budget", alpha=0.0).json()
    assert len(plain["results"]) == 10 and plain["meta"].get("autocut") is None
    cut = svc.search(query="TXN-2024-0306-77 quarterly budget", alpha=0.0, autocut=True).json()
    assert {r["document_version"]["document_id"] for r in cut["results"]} == {"wire-a", "wire-b"}
    assert cut["meta"]["autocut"] == {"jumps": 1, "kept": 2, "of": 10}
    assert cut["meta"]["total"] == 2 and cut["meta"]["has_more"] is False
    # the same cut whatever the page
    page = svc.search(query="TXN-2024-0306-77 quarterly budget", alpha=0.0, autocut=1,
                      limit=1, offset=1).json()
    assert page["meta"]["autocut"]["kept"] == 2 and len(page["results"]) == 1
