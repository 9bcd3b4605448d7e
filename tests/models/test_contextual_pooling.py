"""Sentence vectors from the chunk's own forward pass (app/models/loading.FastembedDense.
embed_with_spans, "late chunking"), with the real packaged model: the chunk's vector is
exactly the model's own, a sentence's is its tokens' states pooled by hand, and the embedder
uses it by default (one pass) or embeds each sentence again where told ("separate")."""

from __future__ import annotations

import numpy as np
import pytest

from ingest.embedding import BatchEmbedder

pytestmark = pytest.mark.integration

TEXT = ("Contract\n\nThe monthly fee is EUR 12,000.00 and is due in advance. Late payment "
        "bears interest at eight percent a year.")


def test_the_chunks_vector_is_the_models_own_and_a_sentences_is_its_tokens_pooled(
        real_models) -> None:
    dense = real_models.dense
    first = (TEXT.index("The"), TEXT.index("advance.") + len("advance."))
    vectors, rows = dense.embed_with_spans([TEXT], [[first, (first[1] + 1, len(TEXT))]])
    assert np.allclose(vectors[0], dense.embed_documents([TEXT])[0], atol=1e-5)
    # by hand: the token states whose characters fall inside the sentence, averaged
    inner = dense._model.model
    encoded = inner.tokenizer.encode(TEXT)
    states = np.asarray(inner.onnx_embed([TEXT]).model_output)[0]
    inside = [k for k, (a, b) in enumerate(encoded.offsets)
              if not encoded.special_tokens_mask[k] and a < first[1] and b > first[0]]
    expected = states[inside].mean(0)
    assert np.allclose(rows[0][0], expected / np.linalg.norm(expected), atol=1e-5)
    assert rows[0].shape == (2, 384) and np.allclose(np.linalg.norm(rows[0], axis=1), 1.0)
    # the sentence is read in its context, yet still says what it says on its own
    alone = dense.embed_documents(["The monthly fee is EUR 12,000.00 and is due in advance."])
    cosine = float(rows[0][0] @ alone[0])
    assert 0.6 < cosine < 0.999


def test_a_span_past_the_models_window_gets_the_chunks_own_vector(real_models) -> None:
    long = "word " * 600
    vectors, rows = real_models.dense.embed_with_spans([long], [[(0, 4), (2900, 2999)]])
    assert np.allclose(rows[0][1], vectors[0]) and not np.allclose(rows[0][0], vectors[0])


@pytest.mark.parametrize("pooling, calls_of_embed_documents", [("contextual", 0), ("separate", 2)])
def test_the_embedder_pools_in_one_pass_or_embeds_again_where_told(
        real_models, pooling, calls_of_embed_documents) -> None:
    calls: list[int] = []
    dense = real_models.dense
    original = dense.embed_documents
    dense.embed_documents = lambda texts: (calls.append(len(texts)), original(texts))[1]
    try:
        raw = TEXT.split("\n\n", 1)[1]
        embedder = BatchEmbedder(dense, real_models.sparse, None, sentences=True,
                                 pooling=pooling)
        out = embedder.embed([TEXT], [raw])
        embedder.close()
    finally:
        del dense.embed_documents
    assert out.sentence_spans == [[0, 55, 56, 108]]
    assert out.sentences is not None and out.sentences[0].shape == (2, 384)
    assert len(calls) == calls_of_embed_documents  # separate: the chunk, then its sentences
