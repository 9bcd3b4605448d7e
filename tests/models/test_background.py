"""The shipped BM25 background speaks the installed BM25 model's term ids."""

from __future__ import annotations

import pytest

from app.models.background import load_background

pytestmark = pytest.mark.integration


def _term(real_models, word: str) -> int:  # type: ignore[no-untyped-def]
    (term,) = real_models.sparse.embed_query(word).indices
    return term


def test_background_words_have_the_models_term_ids_and_english_frequencies(real_models) -> None:  # type: ignore[no-untyped-def]
    table = load_background()
    assert real_models.bm25_background is table
    report, budget, apoptosis = (_term(real_models, w) for w in ("report", "budget", "apoptosis"))
    # stems: "reports" and "reporting" are the term of "report", their frequencies summed
    assert _term(real_models, "reports") == report
    assert table[report] > table[budget] > table[apoptosis] > 0
    # stopwords never reach the model, so never the table
    assert real_models.sparse.embed_query("the").indices == []
    assert 50_000 < len(table) < 100_000
