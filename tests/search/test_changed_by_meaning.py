"""changed_only by meaning (app/search/pipeline.SearchEngine.changed_by_meaning): a changed
sentence no query word occurs in answers when its vector's cosine with the query is at or over
the dense floor — both sides of the floor —, embedded at query time where the collection
keeps no sentence vectors, within the search's budget."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from app.documents.version_changes import ChangedPassage
from app.search.pipeline import SearchEngine
from app.search.types import VersionHit
from app.settings import SearchSettings
from tests.fakes import FakeDense, fake_models

SENTENCE = "The apollo launch window opens at dawn."


def _engine() -> tuple[SearchEngine, FakeDense]:
    models = fake_models()
    store = SimpleNamespace(sentence_vectors=False)  # a collection without sentence vectors
    return SearchEngine(store, models, SearchSettings()), models.dense  # type: ignore[arg-type]


def _cosine(dense: FakeDense, query: str) -> float:
    q = np.asarray(dense.embed_query(query))
    v = dense.embed_documents([SENTENCE])[0]
    return float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q)))


@pytest.mark.parametrize("delta, kept", [(-1e-6, True), (+1e-6, False)])
def test_a_changed_sentence_answers_by_meaning_at_or_over_the_floor(delta: float,
                                                                    kept: bool) -> None:
    engine, dense = _engine()
    changed = [ChangedPassage(0, 10, 10 + len(SENTENCE), "changed", SENTENCE)]
    hit = VersionHit(document_id="d", version_id="v2", chunks=())
    floor = _cosine(dense, "launch window timing") + delta
    found = engine.changed_by_meaning(hit, changed, dense.embed_query("launch window timing"),
                                      floor)
    assert found == (changed if kept else [])


def test_past_the_budget_nothing_is_embedded() -> None:
    engine, dense = _engine()
    changed = [ChangedPassage(0, 0, len(SENTENCE), "added", SENTENCE)]
    hit = VersionHit(document_id="d", version_id="v2", chunks=())
    vector = dense.embed_query("apollo launch")
    assert engine.changed_by_meaning(hit, changed, vector, -1.0, budget=1) == changed
    assert engine.changed_by_meaning(hit, changed, vector, -1.0, budget=0) == []
