"""Sentence vectors at ingestion (ingest/embedding.py): each chunk's sentences embedded behind
the chunk's own title and headings, none for a chunk without a sentence long enough, none at
all where the collection keeps none; and the engine points that carry them."""

from __future__ import annotations

import numpy as np

from ingest.embedding import BatchEmbedder, _prefix_of
from tests.fakes import FakeDense, FakeSparse


class _Recording(FakeDense):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        self.seen.extend(texts)
        return super().embed_documents(texts)


def test_each_chunks_sentences_are_embedded_behind_its_own_prefix() -> None:
    dense = _Recording()
    embedder = BatchEmbedder(dense, FakeSparse(), None, sentences=True)
    raw = ["Budgets rise in spring. Rotas change weekly!", "ok", "One long sentence only"]
    texts = [f"Report > Money\n\n{raw[0]}", raw[1], f"Notes\n\n{raw[2]}"]
    out = embedder.embed(texts, raw)
    embedder.close()
    assert out.sentences is not None
    assert [len(v) for v in out.sentences] == [2, 0, 1]  # "ok": under 12 characters
    assert dense.seen[len(texts):] == [  # after the chunks themselves
        "Report > Money\n\nBudgets rise in spring.", "Report > Money\n\nRotas change weekly!",
        "Notes\n\nOne long sentence only"]
    assert np.allclose(out.sentences[0][1], FakeDense()._vec(
        "Report > Money\n\nRotas change weekly!"))


def test_no_sentence_vectors_where_the_collection_keeps_none_or_no_dense_model() -> None:
    for embedder in (BatchEmbedder(FakeDense(), FakeSparse(), None),
                     BatchEmbedder(None, FakeSparse(), None, sentences=True)):
        assert embedder.embed(["A sentence long enough."], ["A sentence long enough."]
                              ).sentences is None
        embedder.close()


def test_the_prefix_is_what_passage_text_put_in_front() -> None:
    assert _prefix_of("T > H\n\nbody text", "body text") == "T > H"
    assert _prefix_of("body text", "body text") == ""
    assert _prefix_of("T\n\n\n\nbody", "\n\nbody") == "T"  # a chunk starting with blank lines


def test_a_sentence_two_chunks_share_is_embedded_once_and_given_to_both() -> None:
    """Neighbouring chunks overlap, and a table's header line heads each chunk of its rows:
    the same passage (same prefix, same sentence) is embedded once, its vector in both."""
    dense = _Recording()
    embedder = BatchEmbedder(dense, FakeSparse(), None, sentences=True)
    raw = ["Region | Sales | Year\nNorth | 12 | 2024", "Region | Sales | Year\nSouth | 9 | 2024",
           "Region | Sales | Year\nEast | 14 | 2024"]
    out = embedder.embed([f"Sheet1\n\n{t}" for t in raw], raw)
    embedder.close()
    sentence_calls = dense.seen[len(raw):]
    assert sentence_calls.count("Sheet1\n\nRegion | Sales | Year") == 1
    assert len(sentence_calls) == 4  # the header once, and each chunk's own row
    assert out.sentences is not None and [len(v) for v in out.sentences] == [2, 2, 2]
    assert all(np.array_equal(v[0], out.sentences[0][0]) for v in out.sentences)
    assert not np.array_equal(out.sentences[0][1], out.sentences[1][1])
