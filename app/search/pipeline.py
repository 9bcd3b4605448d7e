"""Compose the search stages and time each one.

plan → embed → lanes (dense | sparse, floors) → fuse → rerank → group → page. The lanes fetch
enough chunk candidates to fill offset + limit Document Versions, deepening up to the candidate
ceiling; if the ceiling cuts a lane while eligible chunks remain, the total is a lower bound.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from py_rust_stemmers import SnowballStemmer

from app.documents.version_changes import ChangedPassage
from app.domain.errors import Unavailable
from app.domain.sentences import MAX_STORED_SENTENCES, sentences, spans_of
from app.models.encoders import SparseVec
from app.models.loading import LoadedModels
from app.search.bm25 import BackgroundPrior, CorpusLookup, weigh_query
from app.search.chance import chance_floor
from app.search.feedback import expand_sparse, rocchio
from app.search.fusion import FUSERS, SCORE_FUSIONS, as_if_unfiltered
from app.search.grouping import COVER_POOL, group_versions, missing_terms
from app.search.lane_rescore import with_sentence_scores, with_title_weight
from app.search.lanes import LANE_FIELDS, ask_lanes, hydrate, lane_query
from app.search.query_syntax import folded_words, holds_phrase, holds_phrases
from app.search.rerank import rerank as rerank_stage
from app.search.rerank import rerank_depth
from app.search.snippets import (
    best_sentences,
    best_stored_sentences,
    row_cosines,
    word_focus,
)
from app.search.spans import literal_spans
from app.search.types import Candidate, LaneResult, Trace, VersionHit
from app.settings import SearchSettings
from app.store import ChunkFilter, LaneQuery, VectorStore
from app.store.base import FAR_FUTURE, SENTENCES
from app.store.payload import (
    CHUNK_INDEX,
    DOCUMENT_ID,
    HEADING_PATH,
    SENTENCE_SPANS,
    TEXT,
    TITLE,
    VERSION_ID,
)

# points an empty query's browse reads (ids only, identities from the cache: ~60 ms per
# 10,000 here, docs/BENCHMARKS.md issue 51); past it the answer's total is a lower bound
BROWSE_POINTS = 20_000
RERANK_CODES = {"rerank_unavailable": "RERANKER_UNAVAILABLE",
                "rerank_timeout": "RERANKER_TIMEOUT", "rerank_failed": "RERANKER_FAILED"}
_EMBED_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embed")


@dataclass(frozen=True)
class SearchPlan:
    query: str
    alpha: float
    rerank: bool
    limit: int  # versions wanted: the answer's offset + limit
    filter: ChunkFilter
    # The client's BM25 statistics for the query's terms (its own IDF: app/search/bm25.py).
    corpus: CorpusLookup
    fusion: str = "rank"  # app/search/fusion.py FUSERS
    # the amounts, days and ids the query names (app/domain/entity_values.py): the entity lane's
    entity_keys: tuple[str, ...] = ()
    # the query is nothing but them (app/domain/entity_values.only_entities): the chunks
    # holding one lead the answer
    entity_only: bool = False
    # the languages the query's BM25 terms are made in: the client's (app/domain/languages)
    languages: tuple[str, ...] = ("en",)


@dataclass
class SearchOutcome:
    versions: list[VersionHit]  # every version found, in rank order (lane-local rank = index+1)
    total_is_lower_bound: bool
    reranked: bool
    reranked_count: int
    trace: Trace
    # the query as the lanes asked it (diagnosis asks again with them)
    dense_vector: list[float] | None = None
    sparse_vector: SparseVec | None = None
    # under exact filters: every version the unfiltered search found, in its order (the
    # versions' lane ranks as if the filter were not there); None without filters
    unfiltered_versions: tuple[tuple[str, str], ...] | None = None


# Chunks holding an excluded word's terms read to find the versions holding the word itself
EXCLUSION_DEPTH = 5000
# Changed sentences a changed_only search embeds at query time where no vector is stored for
# them (5–12 ms each, the serving process's query thread)
CHANGED_SENTENCES = 16
# Evidence chunks of one page matched by meaning alone whose snippet gets a focus sentence
MAX_FOCUSED = 30
_STEMMER = SnowballStemmer("english")  # the BM25 model's stemmer
# A shown version's chunks read per lane for its own evidence and total (pipeline.own_chunks)
ROW_DEPTH = 100
MAX_PARTS = 2  # chunks asked for a version's missing query words: evidence cites ≤ 3
STEPS = ("embed", "dense", "sparse", "entity", "fuse", "rerank", "group")


class _Clock:
    def __init__(self, trace: Trace) -> None:
        self.trace, self.t = trace, time.perf_counter()

    def lap(self, step: str) -> None:
        now = time.perf_counter()
        self.trace.timings[step] = round(self.trace.timings.get(step, 0.0)
                                         + (now - self.t) * 1000, 3)
        self.t = now


def holders_first(fused: list[Candidate]) -> list[Candidate]:
    """A query that is nothing but an amount, a day or an id (``£1250``): the chunks holding
    it (the entity lane's) before every other, each part in its fused order — their fused
    scores lifted by the best other chunk's, so the order and the scores still agree (issue
    51: ``24.000 EUR`` found by the entity lane ranked 23rd behind chunks merely like it)."""
    holders = [c for c in fused if c.entity_rank is not None]
    if not holders:
        return fused
    others = [c for c in fused if c.entity_rank is None]
    lift = max((c.fused for c in others), default=0.0)
    return [replace(c, fused=c.fused + lift) for c in holders] + others


class SearchEngine:
    def __init__(self, store: VectorStore, models: LoadedModels, settings: SearchSettings) -> None:
        self.store, self.models, self.settings = store, models, settings
        profile = models.profile
        self.dense_floor = (settings.dense_floor if settings.dense_floor is not None
                            else profile.dense_floor)
        self.sparse_floor = (settings.sparse_floor if settings.sparse_floor is not None
                             else profile.sparse_floor)
        # each query's own chance floor (app/search/chance.py; opt-in): where asked for, the
        # profile states a minimum, the background is installed and no fixed floor is set
        self.chance_background = (models.chance_background
                                  if settings.dense_floor_rule == "chance"
                                  and settings.dense_floor is None
                                  and profile.dense_floor_minimum is not None else None)
        self.bm25_prior = (BackgroundPrior(models.bm25_background, settings.bm25_prior_chunks)
                           if models.bm25_background is not None
                           and settings.bm25_prior_chunks > 0 else None)

    @staticmethod
    def _dense_only_unavailable(trace: Trace) -> Unavailable:
        return Unavailable("the embedding model is not available and alpha = 1 asks for dense "
                           "retrieval only; use alpha < 1 to search by keywords",
                           code="EMBEDDING_MODEL_UNAVAILABLE",
                           details={"warnings": trace.warnings})

    def with_phrases(self, versions: list[VersionHit],
                     phrases: tuple[str, ...]) -> list[VersionHit]:
        """The versions with only their chunks that hold every phrase (read from the
        engine); a version left with none is left out."""
        chunks = hydrate(self.store, [c for v in versions for c in v.chunks])
        holding = {c.point_id for c in chunks if holds_phrases(c.payload.get(TEXT, ""), phrases)}
        kept = [replace(v, chunks=tuple(c for c in v.chunks if c.point_id in holding))
                for v in versions]
        return [v for v in kept if v.chunks]

    def own_chunks(self, plan: SearchPlan, outcome: SearchOutcome,
                   versions: list[VersionHit], phrases: tuple[str, ...] = ()
                   ) -> list[VersionHit]:
        """Each shown version with its matching chunks asked of the lanes for that version
        alone (to ``ROW_DEPTH`` each, the same floors, fused as the search fused), so its
        evidence, total and truncation are the row's own — never a share of the page's
        candidate pool, which grows with limit and offset. A chunk the search also ranked keeps
        the search's candidate (its lane ranks, for explain). Reranked answers keep the
        reranker's order (the reranker read only the pool)."""
        if outcome.reranked:
            return versions
        floors = self._floors(plan.fusion)
        dense, sparse = outcome.dense_vector, outcome.sparse_vector
        # each lane the search ran, with the query it was asked (entity: as the search did)
        queries = {"dense": dense, "sparse": sparse,
                   "entity": dense if dense is not None else sparse}
        ran = [lane.lane for lane in outcome.trace.lanes if queries.get(lane.lane) is not None]
        own_filters = [replace(plan.filter, document_ids=(v.document_id,),
                               version_ids=(v.version_id,)) for v in versions]
        # every row's lanes in one engine call (and their sentence scores in a second)
        lanes = iter(self._ask_all([(name, queries[name], flt) for flt in own_filters
                                    for name in ran], ROW_DEPTH, floors, plan.entity_keys))
        fused_rows = []
        for _version in versions:
            found: dict[str, list[Candidate]] = {"dense": [], "sparse": [], "entity": []}
            for name in ran:
                found[name] = list(next(lanes).hits)
            fused_rows.append(self._fuse(plan, found))
        if phrases:  # a phrase's version cites only chunks holding it (one read for the page)
            texts = self._read([c for own in fused_rows for c in own])
            fused_rows = [[read for c in own if holds_phrases(
                (read := texts.get(c.point_id, c)).payload.get(TEXT, ""), phrases)]
                for own in fused_rows]
        rows = []
        for version, own in zip(versions, fused_rows, strict=True):
            pooled = {c.point_id: c for c in version.chunks}
            rows.append(replace(version, chunks=tuple(pooled.get(c.point_id, c) for c in own)
                                or version.chunks))
        return rows

    def versions_holding(self, word: str, flt: ChunkFilter,
                         languages: tuple[str, ...] = ("en",)
                         ) -> tuple[set[tuple[str, str]], bool]:
        """The versions whose text holds ``word`` as written (folded, whole words): the chunks
        holding its BM25 terms in any of ``languages`` (a superset), read and checked; False
        when more chunks held the terms than ``EXCLUSION_DEPTH`` (then only those were
        checked)."""
        terms = self.models.sparse.embed_query(word, languages)
        if not terms.indices:
            return set(), True
        hits = self.store.query_sparse(terms, flt, EXCLUSION_DEPTH, fields=(*LANE_FIELDS, TEXT))
        as_phrase = " ".join(folded_words(word))
        holding = {(h.payload[DOCUMENT_ID], h.payload[VERSION_ID]) for h in hits
                   if holds_phrase(h.payload.get(TEXT, ""), as_phrase)}
        return holding, len(hits) < EXCLUSION_DEPTH

    def with_focus(self, versions: list[VersionHit], terms: frozenset[str],
                   query_vector: list[float]) -> list[VersionHit]:
        """Each evidence chunk no query word occurs in (a match by meaning) with the sentence
        the dense model finds closest to the query, where its snippet centres, at most
        ``MAX_FOCUSED`` chunks (the rest centre on their start): by the chunks' stored
        sentence vectors where the collection keeps them, else by embedding the sentences now
        (one batch for the page, ``snippet_sentences`` of them)."""
        dense = self.models.dense
        wanted = [(i, j) for i, v in enumerate(versions) for j, c in enumerate(v.evidence)
                  if c.focus is None and not literal_spans(c.payload.get(TEXT, ""), terms)
                  ][:MAX_FOCUSED]
        if dense is None or not wanted:
            return versions
        chunks = [versions[i].evidence[j] for i, j in wanted]
        texts = [c.payload.get(TEXT, "") for c in chunks]
        spans = [spans_of(text, c.payload.get(SENTENCE_SPANS))
                 for text, c in zip(texts, chunks, strict=True)]
        by_model: list[tuple[int, int] | None] = [None] * len(texts)
        if self.store.sentence_vectors:
            points = self.store.vectors([c.point_id for c in chunks])
            by_model = best_stored_sentences(
                texts, [p.sentences if (p := points.get(c.point_id)) else None
                        for c in chunks], query_vector, spans)
        unstored = [k for k, near in enumerate(by_model) if near is None]
        if unstored:
            now = best_sentences([texts[k] for k in unstored], query_vector,
                                 dense.embed_documents, budget=self.settings.snippet_sentences,
                                 spans=[spans[k] for k in unstored])
            for k, near in zip(unstored, now, strict=True):
                by_model[k] = near
        stems = frozenset(_STEMMER.stem_word(t) for t in terms)
        found = {key: near if near is not None
                 else word_focus(text, stems, _STEMMER.stem_word, found_spans)
                 for key, text, near, found_spans in zip(wanted, texts, by_model, spans,
                                                         strict=True)}
        return [replace(v, evidence=tuple(replace(c, focus=found.get((i, j), c.focus))
                                          for j, c in enumerate(v.evidence)))
                for i, v in enumerate(versions)]

    def _read(self, chunks: list[Candidate]) -> dict[str, Candidate]:
        """Those of ``chunks`` not read yet, with their full payloads, in one store call."""
        return {c.point_id: c for c in hydrate(self.store, [
            c for c in chunks if TEXT not in c.payload])}

    def with_texts(self, versions: list[VersionHit]) -> list[VersionHit]:
        """The versions with their evidence chunks' full payloads."""
        full = self._read([c for v in versions for c in v.evidence])
        return [replace(v, evidence=tuple(full.get(c.point_id, c) for c in v.evidence))
                for v in versions]

    def browse(self, flt: ChunkFilter, limit: int = BROWSE_POINTS
               ) -> tuple[list[VersionHit], bool]:
        """Every version with a chunk under ``flt`` (an empty query's answer: no lane, no
        score), each with its matching chunks in reading order — the first chunks of a version
        selected by its metadata, those holding the value where an entity filter selected it;
        and whether the scroll stopped at ``limit`` points (then it is a lower bound). Identity
        fields only (the adapter's identity cache), so a scroll copies no payload."""
        hits = self.store.scroll(flt, limit=limit + 1,
                                 fields=(DOCUMENT_ID, VERSION_ID, CHUNK_INDEX))
        cut = len(hits) > limit
        chunks: dict[tuple[str, str], list[Candidate]] = {}
        for h in hits[:limit]:
            document_id, version_id = h.payload.get(DOCUMENT_ID), h.payload.get(VERSION_ID)
            index = h.payload.get(CHUNK_INDEX)
            if document_id is None or version_id is None or not isinstance(index, int):
                continue
            chunks.setdefault((document_id, version_id), []).append(Candidate(
                h.id, document_id, version_id, index, payload={}))
        return [VersionHit(d, v, tuple(sorted(found, key=lambda c: c.chunk_index)))
                for (d, v), found in chunks.items()], cut

    def changed_by_meaning(self, hit: VersionHit, changed: Sequence[ChangedPassage],
                           query_vector: Sequence[float], floor: float,
                           budget: int = CHANGED_SENTENCES) -> list[ChangedPassage]:
        """Those of a version's changed sentences whose vector's cosine with the query is at
        or over the dense lane's ``floor``: the stored sentence vector where the collection
        keeps them (and a chunk's line up with its sentences), else the sentence embedded
        now — at most ``budget`` of them (the versions come best first)."""
        by_index = {c.chunk_index: c for c in hit.chunks}
        rows: dict[int, np.ndarray] = {}  # position in ``changed`` → the sentence's vector
        if self.store.sentence_vectors:
            chunks = list({p.chunk_index: by_index[p.chunk_index] for p in changed}.values())
            full = self._read(chunks)
            stored = self.store.vectors([c.point_id for c in chunks])
            for k, p in enumerate(changed):
                chunk = full.get(by_index[p.chunk_index].point_id, by_index[p.chunk_index])
                text = chunk.payload.get(TEXT, "")
                found = sentences(text, MAX_STORED_SENTENCES,
                                  spans_of(text, chunk.payload.get(SENTENCE_SPANS)))
                point = stored.get(chunk.point_id)
                vectors = point.sentences if point is not None else None
                if vectors and len(vectors) == len(found) and (p.start, p.end) in found:
                    rows[k] = np.asarray(vectors[found.index((p.start, p.end))],
                                         dtype=np.float32)
        unstored = [k for k in range(len(changed)) if k not in rows][:max(budget, 0)]
        if unstored and self.models.dense is not None:
            embedded = self.models.dense.embed_documents([changed[k].text for k in unstored])
            rows.update({k: np.asarray(v, dtype=np.float32)
                         for k, v in zip(unstored, embedded, strict=True)})
        held = sorted(rows)
        scores = row_cosines([rows[k] for k in held], query_vector) if held else []
        return [changed[k] for k, score in zip(held, scores, strict=True) if score >= floor]

    def with_pool_texts(self, versions: list[VersionHit]) -> list[VersionHit]:
        """The versions with the full payloads of the chunks their evidence is chosen from
        (grouping.COVER_POOL best each)."""
        full = self._read([c for v in versions for c in v.chunks[:COVER_POOL]])
        return [replace(v, chunks=tuple(full.get(c.point_id, c) for c in v.chunks))
                for v in versions]

    def with_parts(self, plan: SearchPlan, versions: list[VersionHit],
                   terms: frozenset[str]) -> list[VersionHit]:
        """Each version whose pool (its COVER_POOL best chunks, texts read) lacks some query
        words, with its best chunks for those words (``VersionHit.parts``): BM25 asked for the
        missing words alone inside the version, one engine call for the page. A long
        agreement of near-identical termination clauses ranks its one interest clause far
        down; "termination and interest" must still cite it (issue 53 item 1)."""
        wanted: list[tuple[int, SparseVec]] = []
        embedded: dict[frozenset[str], SparseVec] = {}  # rows often lack the same words
        for i, version in enumerate(versions):
            missing = missing_terms(version, terms)
            if missing and missing not in embedded:
                embedded[missing] = self.models.sparse.embed_query(" ".join(sorted(missing)),
                                                                   plan.languages)
            if missing and embedded[missing].indices:
                wanted.append((i, embedded[missing]))
        # the client's statistics for every row's words in one registry read
        stats = plan.corpus(sorted({t for _, v in wanted for t in v.indices})) if wanted \
            else None
        asks: list[tuple[int, LaneQuery]] = []
        for i, found in wanted:
            version = versions[i]
            inside = replace(plan.filter, document_ids=(version.document_id,),
                             version_ids=(version.version_id,))
            asks.append((i, lane_query("sparse", weigh_query(found, stats), inside,
                                       min(len(found.indices), MAX_PARTS))))
        if not asks:
            return versions
        rows = list(versions)
        found_parts: dict[int, list[Candidate]] = {}
        for (i, _), hits in zip(asks, self.store.query_batch([q for _, q in asks]),
                                strict=True):
            ranked = {c.point_id: c for c in rows[i].chunks}
            found_parts[i] = [ranked.get(h.id) or Candidate(
                h.id, h.payload[DOCUMENT_ID], h.payload[VERSION_ID], int(h.payload[CHUNK_INDEX]),
                payload={}, sparse_score=h.score) for h in hits]
        full = hydrate(self.store, [c for cs in found_parts.values() for c in cs])
        by_id = {c.point_id: c for c in full}  # their whole payloads: text, headings, lines
        for i, parts in found_parts.items():
            rows[i] = replace(rows[i], parts=tuple(by_id.get(c.point_id, c) for c in parts))
        return rows

    def _start_embedding(self, query: str,
                         trace: Trace) -> Future[tuple[list[float], float]] | None:
        dense = self.models.dense
        if dense is None:
            trace.degrade("dense", "EMBEDDING_MODEL_UNAVAILABLE",
                          "the embedding model is not available "
                          f"({self.models.dense_error or 'not installed'}): "
                          "results by keywords only")
            return None

        def timed() -> tuple[list[float], float]:
            t0 = time.perf_counter()
            vector = dense.embed_query(query)
            return vector, (time.perf_counter() - t0) * 1000

        return _EMBED_POOL.submit(timed)

    def _await_embedding(self, future: Future[tuple[list[float], float]] | None,
                         trace: Trace) -> list[float] | None:
        if future is None:
            return None
        try:
            vector, ms = future.result(timeout=self.settings.embed_timeout_s)
            trace.timings["embed"] = round(ms, 3)
            return vector
        except FutureTimeout:
            trace.degrade("dense", "EMBEDDING_TIMEOUT",
                          f"embedding model did not answer within "
                          f"{self.settings.embed_timeout_s:g} s: results by keywords only",
                          "embed_timeout")
        except Exception as exc:  # noqa: BLE001 - degrade to keywords, say so
            trace.degrade("dense", "EMBEDDING_FAILED",
                          f"embedding model failed ({type(exc).__name__}): "
                          "results by keywords only", "embed_failed")
        return None

    def _floors(self, fusion: str) -> dict[str, float]:
        """Each lane's floor under this fusion: a score fusion may go without (settings)."""
        if fusion in SCORE_FUSIONS and not self.settings.score_fusion_floors:
            return {"dense": float("-inf"), "sparse": float("-inf")}
        return {"dense": self.dense_floor, "sparse": self.sparse_floor}

    def _why_empty(self, plan: SearchPlan, total: int) -> list[str]:
        """Honest emptiness, only where a caller can act on it: nothing indexed, or nothing
        passing the filters. What the floors removed is explain's (meta.lanes), not a
        warning: floors removing weak candidates is the search working."""
        if total:
            return []
        client_only = ChunkFilter(client_id=plan.filter.client_id,
                                  access_groups=plan.filter.access_groups)
        if self.store.count(client_only) == 0:
            return ["nothing is indexed yet: this client has no published document version"]
        if plan.filter == client_only or self.store.count(plan.filter):
            return []
        if plan.filter.narrows and not self.store.count(replace(
                plan.filter, searchable_only=False, published_by=FAR_FUTURE,
                superseded_after=None)):  # in no published version, at any time
            return ["no published document version matches these filters"]
        if plan.filter.superseded_after is not None:  # as_of: the instant holds none
            return ["no document version that matches was current at as_of (before the "
                    "first publication, or the matching versions were current at other times)"]
        if plan.filter.searchable_only:
            return ["only superseded versions match these filters: versions: all or as_of "
                    "shows them"]
        return []

    def _lanes(self, plan: SearchPlan, dense_vector: Callable[[], list[float] | None],
               sparse_vector: SparseVec | None, depth: int, floors: dict[str, float],
               clock: _Clock) -> tuple[list[LaneResult], list, list | None]:
        """Both lanes to ``depth`` (a lane without its query vector sits out), fused; the
        dense vector is asked for after the BM25 lane ran. Under exact filters each lane is
        also asked without them, and the fusion keeps the unfiltered ranks (returned too)."""
        narrowed = plan.filter.narrows
        unfiltered = plan.filter.unnarrowed()
        lanes: list[LaneResult] = []
        hits: dict[str, list] = {"dense": [], "sparse": [], "entity": []}
        base: dict[str, list] = {"dense": [], "sparse": [], "entity": []}
        clock.t = time.perf_counter()

        def run(name: str, query: Any) -> None:
            """One lane with the filters and, where they narrow, without them."""
            lane = self._ask(name, query, plan.filter, depth, floors, plan.entity_keys)
            hits[name] = list(lane.hits)
            if narrowed:
                whole = self._ask(name, query, unfiltered, depth, floors, plan.entity_keys)
                base[name] = list(whole.hits)
                lane = replace(lane, unfiltered_ids=whole.fetched_ids)
            lanes.append(lane)

        if sparse_vector is not None:
            run("sparse", sparse_vector)
        clock.lap("sparse")
        vector = dense_vector()
        clock.t = time.perf_counter()
        if vector is not None:
            run("dense", vector)
        clock.lap("dense")
        # exact matching, the words side: not at alpha 1, which is the dense lane alone
        if plan.entity_keys and plan.alpha < 1.0 and (vector is not None
                                                     or sparse_vector is not None):
            run("entity", vector if vector is not None else sparse_vector)
            clock.lap("entity")
        fused = self._fuse(plan, hits)
        base_fused = None
        if narrowed:
            base_fused = self._fuse(plan, base)
            fused = as_if_unfiltered(base_fused, fused)
        clock.lap("fuse")
        return lanes, fused, base_fused

    def _ask(self, name: str, query: Any, flt: ChunkFilter, depth: int,
             floors: dict[str, float], entity_keys: tuple[str, ...]) -> LaneResult:
        """One lane, by name, to ``depth`` inside ``flt``."""
        return self._ask_all([(name, query, flt)], depth, floors, entity_keys)[0]

    def _ask_all(self, asks: Sequence[tuple[str, Any, ChunkFilter]], depth: int,
                 floors: dict[str, float], entity_keys: tuple[str, ...]) -> list[LaneResult]:
        """Each (lane, query vector, filter) to ``depth``, asked of the engine in one call; then
        the dense lanes' first ``sentence_depth`` chunks scored by their best sentence, in a
        second call for them all; the sparse lanes rescored by title where that is on."""
        s = self.settings
        titled = (*LANE_FIELDS, TITLE, HEADING_PATH) if s.title_weight else LANE_FIELDS
        dense_floor = self._dense_floor(floors)
        queries = []
        for name, query, flt in asks:
            floor: tuple[float, str | None, float | None] = (floors.get(name, float("-inf")),
                                                            None, None)
            if name == "dense":
                floor = dense_floor(query)
            queries.append((name, lane_query(name, query, flt, depth, entity_keys,
                                             titled if name == "sparse" else LANE_FIELDS),
                            floor))
        lanes = ask_lanes(self.store, [(n, q, f[0]) for n, q, f in queries], entity_keys)
        lanes = [replace(lane, floor_from=f[1], chance=f[2]) if f[1] else lane
                 for lane, (_n, _q, f) in zip(lanes, queries, strict=True)]
        if s.title_weight:
            lanes = [replace(lane, hits=tuple(with_title_weight(
                lane.hits, query, self.models.sparse.embed_documents, s.title_weight)))
                if lane.lane == "sparse" else lane
                for lane, (_n, query, _f) in zip(lanes, asks, strict=True)]
        scored = [i for i, lane in enumerate(lanes) if lane.lane == "dense" and lane.hits]
        if not (s.sentence_depth and self.store.sentence_vectors and scored):
            return lanes
        heads = [tuple(c.point_id for c in lanes[i].hits[:s.sentence_depth]) for i in scored]
        best = self.store.query_batch([
            LaneQuery(SENTENCES, asks[i][1], asks[i][2], len(ids), (), ids)
            for i, ids in zip(scored, heads, strict=True)])
        for i, found in zip(scored, best, strict=True):
            scores = {h.id: h.score for h in found}
            lanes[i] = replace(lanes[i], hits=tuple(with_sentence_scores(
                lanes[i].hits, scores, s.sentence_depth)), sentence_scored=len(scores))
        return lanes

    def _dense_floor(self, floors: dict[str, float]
                     ) -> Callable[[list[float]], tuple[float, str | None, float | None]]:
        """The dense floor for a query vector, and where it came from: the fixed floor, or the
        query's own chance floor (app/search/chance.py) where that rule is on."""
        fixed = floors.get("dense", float("-inf"))
        if self.chance_background is None or not math.isfinite(fixed):
            return lambda _vector: (fixed, None, None)
        minimum = self.models.profile.dense_floor_minimum or 0.0

        def own(vector: list[float]) -> tuple[float, str | None, float | None]:
            floor = chance_floor(vector, self.chance_background, minimum=minimum)
            return (floor.value, "chance" if floor.chance >= floor.minimum else "minimum",
                    floor.chance)

        return own

    def _fuse(self, plan: SearchPlan, found: dict[str, list]) -> list:
        """The lanes' hits ({lane: hits}) fused as the plan says."""
        constant = {"k": self.settings.rrf_k} if plan.fusion == "rank" else {}
        fused = FUSERS[plan.fusion](found["dense"], found["sparse"], alpha=plan.alpha,
                                    entity=found["entity"],
                                    entity_weight=self.settings.entity_weight, **constant)
        return holders_first(fused) if plan.entity_only else fused

    def _feedback(self, plan: SearchPlan, fused: list, vector: list[float] | None,
                  sparse_vector: SparseVec | None
                  ) -> tuple[list[float] | None, SparseVec | None]:
        """The query vectors moved toward the first pass's best chunks."""
        s = self.settings
        points = self.store.vectors([c.point_id for c in fused[:s.prf_docs]])
        if vector is not None:
            vector = rocchio(vector, [p.dense for p in points.values() if p.dense],
                             s.prf_dense_beta)
        if sparse_vector is not None and s.prf_terms:
            sparse_vector = expand_sparse(sparse_vector, [p.sparse for p in points.values()],
                                          plan.corpus, terms=s.prf_terms,
                                          weight=s.prf_sparse_weight)
        return vector, sparse_vector

    def search(self, plan: SearchPlan) -> SearchOutcome:
        """The query is embedded in a helper thread (ONNX releases the GIL) while the BM25 lane
        runs, so the keyword lane costs no wall time on top of the embedding."""
        trace = Trace()
        trace.timings["embed"] = 0.0
        started = time.perf_counter()
        use_dense, use_sparse = plan.alpha > 0.0, plan.alpha < 1.0
        pending = self._start_embedding(plan.query, trace) if use_dense else None
        if use_dense and pending is None and not use_sparse:
            raise self._dense_only_unavailable(trace)
        clock = _Clock(trace)
        sparse_vector = None
        if use_sparse:
            terms = self.models.sparse.embed_query(plan.query, plan.languages)
            sparse_vector = weigh_query(terms, plan.corpus(terms.indices))

        floors = self._floors(plan.fusion)
        needed = plan.limit + 1  # one version past the window: has_more is then known
        ceiling = self.settings.candidate_ceiling
        depth = min(ceiling, max(self.settings.min_depth, 4 * needed))
        vector: list[float] | None = None

        def dense_vector() -> list[float] | None:
            """Awaited only after the BM25 lane ran: the two overlap."""
            nonlocal vector, use_dense
            if use_dense and vector is None:
                vector = self._await_embedding(pending, trace)
                if vector is None:
                    if not use_sparse:
                        raise self._dense_only_unavailable(trace)
                    use_dense = False
            return vector if use_dense else None

        while True:
            lanes, fused, base_fused = self._lanes(plan, dense_vector,
                                                   sparse_vector if use_sparse else None,
                                                   depth, floors, clock)
            complete = all(lane.exhausted for lane in lanes)
            if complete or depth >= ceiling:
                break
            if len({c.version_key for c in fused}) >= needed:
                break
            depth = min(ceiling, depth * 4)
        if self.settings.prf_docs and fused:  # opt-in: a second pass with a sharper query
            better, sparse_vector = self._feedback(plan, fused, dense_vector(),
                                                   sparse_vector if use_sparse else None)
            lanes, fused, base_fused = self._lanes(plan, lambda: better, sparse_vector, depth,
                                                   floors, clock)
            vector = better  # what the lanes were asked with (diagnosis asks the same)
            complete = all(lane.exhausted for lane in lanes)

        reranked, reranked_count = False, 0
        if plan.rerank and self.models.reranker is not None:
            depth_n = rerank_depth(plan.limit)
            fused = hydrate(self.store, fused[:depth_n]) + fused[depth_n:]
        if plan.rerank:
            outcome = rerank_stage(plan.query, fused, reranker=self.models.reranker,
                                   limit=plan.limit, timeout_s=self.settings.rerank_timeout_s)
            fused, reranked, reranked_count = outcome.ranked, outcome.reranked, outcome.count
            if outcome.warning:
                trace.degrade("rerank", RERANK_CODES.get(outcome.reason or "", "RERANK_FAILED"),
                              outcome.warning, outcome.reason)
        clock.lap("rerank")
        versions = group_versions(fused)
        unfiltered_versions = (tuple((v.document_id, v.version_id)
                                     for v in group_versions(base_fused))
                               if base_fused is not None else None)
        clock.lap("group")
        total = len(versions)
        lower_bound = not complete
        trace.warnings.extend(self._why_empty(plan, total))
        if lower_bound and depth >= ceiling:  # not merely a full page found early
            trace.warnings.append(
                f"the total is a lower bound: a lane reached the candidate ceiling "
                f"({self.settings.candidate_ceiling} chunks) with more eligible; narrow the "
                "search with filters to count them all")
        elif lower_bound:  # a lower bound is always said (issue 53): the page filled early
            trace.warnings.append(
                f"the total is a lower bound: the lanes stopped at {depth} chunks each once "
                "the page was full, with more eligible; a later page (a larger offset) "
                "looks deeper and counts more, never fewer")
        trace.lanes = lanes
        trace.timings = {k: trace.timings.get(k, 0.0) for k in STEPS}
        trace.timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        return SearchOutcome(versions=versions, total_is_lower_bound=lower_bound,
                             reranked=reranked, reranked_count=reranked_count, trace=trace,
                             dense_vector=vector if use_dense else None,
                             sparse_vector=sparse_vector if use_sparse else None,
                             unfiltered_versions=unfiltered_versions)
