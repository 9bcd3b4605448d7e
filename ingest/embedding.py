"""Dense and BM25 vectors for chunks, with entity extraction hidden behind the dense model.

The dense model (ONNX) releases the GIL while it runs, so spaCy and BM25 for a batch run in a
helper thread while the dense model embeds the same batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from app.domain.entity_values import entity_keys, keys_in
from app.domain.sentences import MAX_STORED_SENTENCES, flat_spans, sentences, split
from app.models.encoders import DenseEncoder, SparseEncoder, SparseVec
from app.models.languages import chunk_languages
from app.store.payload import sentence_passages
from ingest.entities import Entities, EntityExtractor, rule_entities

# Texts the dense model embeds between two progress reports: at batch size 1 (the default,
# docs/BENCHMARKS.md) slicing costs nothing, and ~1 s of work on 2 cores between reports.
REPORT_EVERY = 8


@dataclass(frozen=True)
class EmbeddedBatch:
    dense: np.ndarray | None
    sparse: list[SparseVec]
    entities: list[Entities]
    seconds: dict[str, float] = field(default_factory=dict, compare=False)  # metrics
    # each chunk's entities in one form (app/domain/entity_values.py): found here, in the child,
    # with the entities, so the serving process only writes them
    entity_keys: list[list[str]] = field(default_factory=list)
    # each chunk's sentence vectors (rows; none for a chunk without a sentence), where the
    # collection keeps them (app/store/base.SENTENCES)
    sentences: list[np.ndarray] | None = None
    # each chunk's sentences (app/domain/sentences.py) as flat [start, end, …] offsets into
    # its text: found once here, kept with the chunk for snippets, changes and changed_only
    sentence_spans: list[list[int]] = field(default_factory=list)
    # each chunk's language (app/models/languages.py): its BM25 analysis, its payload's
    languages: list[str] = field(default_factory=list)


# How a chunk's sentence vectors are made (app/settings.QdrantSettings.sentence_pooling):
# "separate" embeds each sentence again behind the chunk's title and headings (×1.8 the
# ingestion time); "contextual" pools each sentence's token states from the chunk's own
# forward pass (late chunking: no second pass of the model). docs/BENCHMARKS.md compares them
POOLINGS = ("contextual", "separate")


class BatchEmbedder:
    def __init__(self, dense: DenseEncoder | None, sparse: SparseEncoder,
                 entities: EntityExtractor | None, *, sentences: bool = False,
                 pooling: str = "separate") -> None:
        self._dense, self._sparse, self._entities = dense, sparse, entities
        self._sentences = sentences and dense is not None
        # contextual pooling needs the encoder's token states (the fakes have none)
        self._contextual = pooling == "contextual" and hasattr(dense, "embed_with_spans")
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ner-bm25")
        self._splitter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sentences")

    def _side(self, texts: Sequence[str], raw: Sequence[str], known_persons: Sequence[str],
              languages: Sequence[str]
              ) -> tuple[list[SparseVec], list[Entities], list[list[str]], float]:
        sparse = self._sparse.embed_documents(texts, languages)  # each in its own language
        t0 = time.perf_counter()
        # without the spaCy model (tests, a profile without one) the rules still read what has
        # a checkable form: identifiers, amounts, days, table money
        entities = (self._entities.extract(raw, known_persons, languages) if self._entities
                    else [rule_entities(text, known_persons)[0] for text in raw])
        keys = [list(dict.fromkeys(entity_keys(found) + keys_in([text])))
                for found, text in zip(entities, raw, strict=True)]
        return sparse, entities, keys, time.perf_counter() - t0

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: Callable[[int], None] | None = None,
              known_persons: Sequence[str] = (), language: str = "en") -> EmbeddedBatch:
        """``texts`` (title + headings + chunk) feed the vectors; entities come from the chunk.
        The dense model embeds ``REPORT_EVERY`` texts at a time (and their sentences, where
        kept), saying how many are done. ``language``: the document's; each chunk keeps it
        unless it is surely another (app/models/languages.chunk_languages)."""
        t0 = time.perf_counter()
        languages = chunk_languages(raw_texts, language)
        side = self._pool.submit(self._side, texts, raw_texts, known_persons, languages)
        # each slice's sentences found in a helper thread while the slice before it embeds
        slices = range(0, len(texts), REPORT_EVERY)
        found = [self._splitter.submit(_split_all, raw_texts[start:start + REPORT_EVERY])
                 for start in slices]
        parts: list[np.ndarray] = []
        sentence_rows: list[np.ndarray] | None = [] if self._sentences else None
        spans: list[list[tuple[int, int]]] = []
        for start, future in zip(slices, found, strict=True):
            spans_now = future.result()
            spans += spans_now
            if self._dense is None:
                continue
            part, rows = self._vectors(texts[start:start + REPORT_EVERY],
                                       raw_texts[start:start + REPORT_EVERY], spans_now)
            parts.append(part)
            if sentence_rows is not None:
                sentence_rows += rows
            if on_progress is not None:
                on_progress(min(start + REPORT_EVERY, len(texts)))
        dense = None
        if self._dense is not None:
            dense = np.concatenate(parts) if parts else self._dense.embed_documents(texts)
        embed_s = time.perf_counter() - t0  # the dense model's wall time (BM25 runs beside it)
        sparse, entities, keys, entities_s = side.result()
        return EmbeddedBatch(dense=dense, sparse=sparse, entities=entities,
                             seconds={"embed": embed_s, "entities": entities_s},
                             entity_keys=keys, sentences=sentence_rows,
                             sentence_spans=[flat_spans(found) for found in spans],
                             languages=languages)

    def _vectors(self, texts: Sequence[str], raw_texts: Sequence[str],
                 spans: Sequence[Sequence[tuple[int, int]]]
                 ) -> tuple[np.ndarray, list[np.ndarray]]:
        """A slice's chunk vectors and, where kept, each chunk's sentence vectors: pooled
        from the chunk's own forward pass (contextual), or embedded again (separate)."""
        assert self._dense is not None
        if not self._sentences:
            return self._dense.embed_documents(texts), []
        kept = [sentences(raw, MAX_STORED_SENTENCES, found)
                for raw, found in zip(raw_texts, spans, strict=True)]
        if not self._contextual:
            return (self._dense.embed_documents(texts),
                    self._sentence_vectors(texts, raw_texts, kept))
        shifted = [[(a + len(text) - len(raw), b + len(text) - len(raw)) for a, b in chosen]
                   for text, raw, chosen in zip(texts, raw_texts, kept, strict=True)]
        return self._dense.embed_with_spans(texts, shifted)  # type: ignore[attr-defined]

    def _sentence_vectors(self, texts: Sequence[str], raw_texts: Sequence[str],
                          kept: Sequence[Sequence[tuple[int, int]]]) -> list[np.ndarray]:
        """Each chunk's sentences embedded behind its title and headings (the prefix ``texts``
        put before ``raw_texts``), one batch for the slice, each distinct passage once: the
        sentences two neighbouring chunks share through their overlap, or a table's header
        line heading every chunk of its rows, are embedded once."""
        assert self._dense is not None
        per_chunk = [sentence_passages(_prefix_of(text, raw), raw, spans)
                     for text, raw, spans in zip(texts, raw_texts, kept, strict=True)]
        distinct = list(dict.fromkeys(p for passages in per_chunk for p in passages))
        if not distinct:
            return [np.zeros((0, 0), np.float32) for _ in per_chunk]
        row = {p: i for i, p in enumerate(distinct)}
        vectors = np.asarray(self._dense.embed_documents(distinct), dtype=np.float32)
        return [vectors[[row[p] for p in passages]] if passages
                else np.zeros((0, vectors.shape[1]), np.float32) for passages in per_chunk]

    def close(self) -> None:
        self._pool.shutdown(wait=False)
        self._splitter.shutdown(wait=False)


def _split_all(raw_texts: Sequence[str]) -> list[list[tuple[int, int]]]:
    return [split(raw) for raw in raw_texts]


def _prefix_of(text: str, raw: str) -> str:
    """The title and headings ``passage_text`` put before a chunk (none: the text is the
    chunk)."""
    return text[:len(text) - len(raw)].removesuffix("\n\n") if text != raw else ""
