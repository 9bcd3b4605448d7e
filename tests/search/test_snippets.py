"""Snippets: at most 320 characters of the chunk, ``text[start:end]``, on the densest cluster of
matched words (most distinct terms first), on word boundaries; a meaning-only match centres on
the sentence the dense model finds closest; a short chunk is its own snippet."""

from __future__ import annotations

import numpy as np

from app.search.snippets import (
    SNIPPET_CHARS,
    best_sentences,
    best_stored_sentences,
    sentences,
    snippet,
)
from app.search.spans import literal_spans, query_terms


def _spans(text: str, query: str) -> list[tuple[int, int, str]]:
    return [(s["start"], s["end"], str(s["text"]).lower())  # type: ignore[misc]
            for s in literal_spans(text, query_terms(query))]


FILLER = " ".join(f"filler{i}" for i in range(120))  # ~1,000 characters of no match


def test_the_snippet_sits_on_the_densest_cluster_of_distinct_terms() -> None:
    text = (f"Fees are listed. {FILLER} The termination fee is due on termination. "
            f"{FILLER} Termination ends it.")
    spans = _spans(text, "fees termination")
    start, end = snippet(text, spans)
    shown = text[start:end]
    assert "termination fee is due on termination" in shown  # two terms, three spans
    assert end - start <= SNIPPET_CHARS and not shown.startswith(" ")
    assert start == 0 or text[start - 1] == " "  # never starts inside a word
    assert end == len(text) or text[end] == " "


def test_a_short_chunk_is_its_own_snippet_and_the_bound_holds_on_both_sides() -> None:
    short = "Employees get 25 days of paid vacation."
    assert snippet(short, _spans(short, "vacation")) == (0, len(short))
    exact = "x" * SNIPPET_CHARS
    assert snippet(exact, []) == (0, SNIPPET_CHARS)
    longer = ("word " * 200).strip()
    start, end = snippet(longer, [])
    assert (start, end - start <= SNIPPET_CHARS) == (0, True)
    assert snippet("", []) == (0, 0)


def test_a_match_by_meaning_centres_on_its_focus_sentence() -> None:
    text = f"{FILLER}. The lease runs until the end of March. {FILLER}."
    found = [(a, b) for a, b in sentences(text) if "lease" in text[a:b]]
    start, end = snippet(text, [], focus=found[0])
    assert "The lease runs until the end of March." in text[start:end]


def test_best_sentences_picks_the_closest_by_cosine_in_one_batch() -> None:
    texts = ["The cat sat on the mat today. Quarterly revenue rose by ten per cent.",
             "short", "Nothing about money here at all. Only the weather report today."]
    calls: list[list[str]] = []

    def embed(batch: list[str]) -> np.ndarray:
        calls.append(batch)
        return np.array([[1.0, 0.0] if "revenue" in s else [0.0, 1.0] for s in batch])

    best = best_sentences(texts, [1.0, 0.1], embed)
    assert len(calls) == 1
    assert texts[0][slice(*best[0])].strip() == "Quarterly revenue rose by ten per cent."
    assert best[1] is None and best[2] is not None


def test_the_cli_shows_the_snippet_with_the_matched_words_marked() -> None:
    from app.cli.search_answers import marked_snippet

    text = f"{FILLER} The wire TXN-2024-0306-77 cleared. {FILLER}"
    spans = literal_spans(text, query_terms("TXN-2024-0306-77"))
    start, end = snippet(text, [(s["start"], s["end"], str(s["text"]).lower())  # type: ignore[misc]
                                for s in spans])
    shown = marked_snippet({"text": text, "literal_spans": spans,
                            "snippet": {"start": start, "end": end, "text": text[start:end]}})
    assert shown.plain.startswith("…") and shown.plain.endswith("…")
    assert "TXN-2024-0306-77 cleared" in shown.plain and len(shown.plain) <= SNIPPET_CHARS + 2
    marked = {shown.plain[s.start:s.end] for s in shown.spans if "bold" in str(s.style)}
    assert marked >= {"TXN", "2024", "0306", "77"}


def test_word_focus_finds_an_inflection_a_literal_span_misses() -> None:
    from py_rust_stemmers import SnowballStemmer

    from app.search.snippets import word_focus

    stem = SnowballStemmer("english").stem_word
    text = f"{FILLER}. Unused vacations may be carried over to March. {FILLER}."
    found = word_focus(text, frozenset({stem("vacation")}), stem)
    assert found is not None and "vacations" in text[slice(*found)]
    assert word_focus(text, frozenset({stem("zebra")}), stem) is None


def test_the_sentence_budget_leaves_later_texts_without_a_model_focus() -> None:
    texts = ["One sentence about revenue here. " * 3, "Another one about revenue. " * 3]

    def embed(batch: list[str]) -> np.ndarray:
        return np.ones((len(batch), 2))

    assert best_sentences(texts, [1.0, 0.0], embed, budget=3)[1] is None
    assert best_sentences(texts, [1.0, 0.0], embed, budget=6)[1] is not None


def test_stored_sentence_vectors_pick_the_focus_without_a_model() -> None:
    """One stored vector per sentence, in order: the closest by cosine (the second row is not
    a unit vector: normalised first, so (3, 0) beats (0.9, 0.44)); none stored, or a count
    that does not line up with the text's sentences (a text changed since), gives None."""
    text = "The cat sat on the mat today. Quarterly revenue rose by ten per cent."
    spans = sentences(text)
    assert len(spans) == 2
    assert best_stored_sentences([text], [[[0.9, 0.44], [3.0, 0.0]]], [1.0, 0.0]) == [spans[1]]
    assert best_stored_sentences([text], [[[1.0, 0.0], [0.0, 1.0]]], [1.0, 0.0]) == [spans[0]]
    assert best_stored_sentences([text, text], [None, [[1.0, 0.0]]], [1.0, 0.0]) == [None, None]


def test_a_chunks_stored_sentences_are_all_of_them_up_to_the_bound() -> None:
    """Ingestion keeps every sentence (not the first 8 compared at query time), each behind
    the prefix where embedded on its own, up to MAX_STORED_SENTENCES; one sentence fewer than
    12 characters is none."""
    from app.domain.sentences import MAX_SENTENCES, MAX_STORED_SENTENCES
    from app.store.payload import sentence_passages

    ten = " ".join(f"Sentence number {i} is here." for i in range(10))
    assert len(sentences(ten)) == MAX_SENTENCES == 8
    kept = sentences(ten, MAX_STORED_SENTENCES)
    passages = sentence_passages("Title", ten, kept)
    assert len(passages) == 10 and passages[9] == "Title\n\nSentence number 9 is here."
    assert sentence_passages("", ten, kept)[0] == "Sentence number 0 is here."
    many = " ".join(f"Line {i:03d} is short." for i in range(MAX_STORED_SENTENCES + 1))
    assert len(sentences(many, MAX_STORED_SENTENCES)) == MAX_STORED_SENTENCES == 64
    assert sentences("Too short.", MAX_STORED_SENTENCES) == []
