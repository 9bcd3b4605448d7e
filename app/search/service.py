"""The search service: a typed query and a client in, a domain answer out.

window → readiness (scope metadata | both) → filters → content lane (app/search/pipeline.py) and
metadata lane → scope fusion → page → evidence for the shown versions (grouping.pick_evidence)
→ their texts and canonical metadata. Registry reads go through app/registry; the answer is
dataclasses. The HTTP route, the CLI, `evidence eval` and the benches all call this; only the
route turns the answer into the contract's response (app/api/presenter.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.documents.version_changes import ChangedPassage
from app.domain.entity_values import query_entity_keys
from app.domain.errors import BadRequest, Conflict
from app.registry import bm25_stats, discovery
from app.registry import documents as docs_registry
from app.registry import judgments as judgments_registry
from app.registry import near_duplicates as near_registry
from app.registry.documents import ShownVersion
from app.search.autocut import AUTOCUT_SPAN, autocut
from app.search.bm25 import BackgroundPrior, CorpusLookup, CorpusStats
from app.search.collapse import collapse, with_duplicates
from app.search.diagnose import Diagnosis, SearchContext, diagnose
from app.search.facets import check_facets, count_facets, version_facts
from app.search.filters import RESERVED, RESERVED_FIELDS, parse_filters
from app.search.grouping import with_evidence
from app.search.metadata_lane import (
    MetadataHit,
    fuse_versions,
    lookup_terms,
    rank_versions,
    version_fusion_score,
)
from app.search.pipeline import (
    CHANGED_SENTENCES,
    EXCLUSION_DEPTH,
    SearchEngine,
    SearchOutcome,
    SearchPlan,
)
from app.search.query_syntax import ParsedQuery, holds_phrases, parse_query
from app.search.spans import literal_spans, query_terms
from app.search.types import LaneFailure, LaneResult, VersionHit
from app.store import ChunkFilter
from app.store.base import FAR_FUTURE

MAX_WINDOW = 200
LANE_ORDER = ("dense", "sparse", "entity")
VersionKey = tuple[str, str]


@dataclass(frozen=True)
class SearchQuery:
    """A validated search request (the API's SearchRequest, as the service reads it)."""

    query: str
    scope: str = "content"
    alpha: float | None = None
    rerank: bool = False
    filters: Mapping[str, Any] = field(default_factory=dict)
    offset: int = 0
    limit: int = 10
    fusion: str | None = None  # None: the settings' default (rank, the contract's)
    versions: str = "current"  # or "all": every published version, superseded ones too
    as_of: datetime | None = None  # the versions current at this instant
    diagnose: tuple[str, ...] = ()  # document ids to explain (app/search/diagnose.py)
    facets: tuple[str, ...] = ()  # keys to count values of over the ranked versions
    syntax: bool = True  # "phrases" and -exclusions (app/search/query_syntax.py); off: plain
    collapse: str = "none"  # or "thread", "duplicates" (app/search/collapse.py)
    changed_only: bool = False  # passages added or changed since each version's predecessor
    autocut: int = 0  # stop at the n-th sharp drop of the score (app/search/autocut.py); 0: off


@dataclass(frozen=True)
class AnswerRow:
    rank: int
    document_id: str
    version_id: str
    canonical_metadata: dict[str, Any]
    version: ShownVersion | None  # its timeline
    contributions: dict[str, int]  # lane → the version's rank in that lane
    content: VersionHit | None     # with its evidence picked and hydrated
    metadata: MetadataHit | None
    thread: dict[str, Any] | None = None  # collapse "thread": the thread this row stands for
    changes: dict[int, str] | None = None  # changed_only: chunk index → "added" | "changed"


@dataclass(frozen=True)
class SearchAnswer:
    query: str
    scope: str
    rows: list[AnswerRow]
    total: int
    total_is_lower_bound: bool
    offset: int
    limit: int
    has_more: bool
    alpha: float
    reranked: bool
    reranked_count: int
    fusion: str
    applied_filters: dict[str, list]
    timings: dict[str, float]
    warnings: list[str]
    lanes: list[LaneResult] = field(default_factory=list)  # the content lanes, as last asked
    degradations: list[str] = field(default_factory=list)  # what fell back, by name
    diagnoses: list[Diagnosis] | None = None
    searched: list[str] = field(default_factory=list)  # the lanes that answered
    facets: dict[str, list[dict[str, Any]]] | None = None
    failures: list[LaneFailure] = field(default_factory=list)  # asked for, did not answer
    # the phrases and exclusions read from the query and what each removed (None: none)
    query_syntax: dict[str, Any] | None = None
    autocut: dict[str, int] | None = None  # with autocut: jumps, kept, of
    calibrated: bool = False  # alpha or fusion came from the client's own calibration

    @property
    def status(self) -> str:
        """"complete", or "partial" when a lane (or the rerank) asked for did not answer."""
        return "partial" if self.failures else "complete"


class SearchService:
    def __init__(self, engine: SearchEngine, default_alpha: float) -> None:
        self.engine, self.default_alpha = engine, default_alpha

    def answer(self, session: Session, *, client_id: str, query: SearchQuery) -> SearchAnswer:
        started = time.perf_counter()
        window = query.offset + query.limit
        if window > MAX_WINDOW:
            raise BadRequest(f"offset + limit must be at most {MAX_WINDOW} (got {window})",
                             code="WINDOW_TOO_LARGE",
                             details={"offset": query.offset, "limit": query.limit,
                                      "max_window": MAX_WINDOW})
        facet_keys = check_facets(query.facets)
        parsed = parse_query(query.query) if query.syntax else ParsedQuery(query.query)
        if not parsed.text:
            raise BadRequest("the query holds nothing to find besides its exclusions (-word); "
                             "add a word to look for", code="INVALID_QUERY")
        words = parsed.text  # what the lanes read
        wants_metadata = query.scope in ("metadata", "both")
        if wants_metadata:
            _require_ready(session, client_id, query.scope)
        key_types: dict[str, set[str]] = {}
        complete = False
        if any(k not in RESERVED for k in query.filters):  # only metadata filters need types
            for key, kind, _count in discovery.key_catalog(session, client_id=client_id):
                key_types.setdefault(key, set()).add(kind)
            # superseded versions' leaves are dropped: only current searches know every key
            complete = (query.versions == "current" and query.as_of is None
                        and discovery.readiness(session, client_id=client_id).state == "ready")
        flt, applied = parse_filters(query.filters, client_id=client_id, key_types=key_types,
                                     catalog_complete=complete)
        flt = _in_time(flt, query)
        # what the request leaves open, the client's own calibration decides where it has one
        # (app/calibration/service.py), else the service's defaults
        own = (judgments_registry.calibration(session, client_id=client_id)
               if query.alpha is None or query.fusion is None else None)
        alpha = query.alpha if query.alpha is not None else (
            own.alpha if own is not None else self.default_alpha)
        fusion = query.fusion or (own.fusion if own is not None else self.engine.settings.fusion)

        content: list[VersionHit] = []
        timings: dict[str, float] = {}
        warnings: list[str] = []
        lane_results: list[LaneResult] = []
        degradations: list[str] = []
        failures: list[LaneFailure] = []
        outcome = None
        unfiltered_content: Sequence[VersionKey] | None = None
        lower_bound, reranked, reranked_count = False, False, 0
        entity_keys = (tuple(query_entity_keys(words))
                       if self.engine.settings.entity_weight > 0 else ())
        if query.scope in ("content", "both"):
            plan = SearchPlan(
                query=words, alpha=alpha, rerank=query.rerank,
                limit=max(window, AUTOCUT_SPAN) if query.autocut else window, filter=flt,
                corpus=client_corpus(session, client_id, self.engine.bm25_prior),
                fusion=fusion, entity_keys=entity_keys)
            outcome = self.engine.search(plan)
            content, lower_bound = outcome.versions, outcome.total_is_lower_bound
            reranked, reranked_count = outcome.reranked, outcome.reranked_count
            timings.update(outcome.trace.timings)
            warnings.extend(outcome.trace.warnings)
            lane_results = outcome.trace.lanes
            degradations = outcome.trace.degradations
            failures = outcome.trace.failures
            unfiltered_content = outcome.unfiltered_versions
        metadata: list[MetadataHit] = []
        unfiltered_metadata: Sequence[VersionKey] | None = None
        if wants_metadata:
            t0 = time.perf_counter()
            metadata, unfiltered_metadata = metadata_lane(session, client_id, words, flt,
                                                          applied)
            timings["metadata"] = round((time.perf_counter() - t0) * 1000, 3)

        syntax_report = None
        if parsed.active:
            t0 = time.perf_counter()
            content, metadata, syntax_report = self._apply_syntax(parsed, flt, content,
                                                                  metadata)
            timings["syntax"] = round((time.perf_counter() - t0) * 1000, 3)
            if not syntax_report["complete"]:
                warnings.append("an exclusion was checked in the first "
                                f"{EXCLUSION_DEPTH:,} chunks holding its word's terms only")
        by_content = {(v.document_id, v.version_id): v for v in content}
        by_metadata = {(h.document_id, h.version_id): h for h in metadata}
        # each lane's version ranks as if the exact filters were not there (the contract:
        # filters narrow the candidates, they do not change retrieval rank)
        content_ranks = lane_ranks(list(by_content), unfiltered_content)
        metadata_ranks = lane_ranks(list(by_metadata), unfiltered_metadata)
        ranked: list[tuple[VersionKey, dict[str, int]]]
        if query.scope == "content":
            ranked = [(k, {"content": r}) for k, r in content_ranks.items()]
        elif query.scope == "metadata":
            ranked = [(k, {"metadata": r}) for k, r in metadata_ranks.items()]
        else:
            ranked = fuse_versions(content_ranks, metadata_ranks, content_scores={
                key: hit.best.fused for key, hit in by_content.items()})
        terms = query_terms(words)
        changed: dict[VersionKey, dict[int, ChangedPassage]] = {}
        if query.changed_only:
            ranked, changed = self._changed_only(session, client_id, ranked, by_content,
                                                 terms, outcome)
        cut = None
        if query.autocut:
            scores = [_version_score(query.scope, key, lanes, by_content, by_metadata)
                      for key, lanes in ranked]
            keep = autocut(scores, query.autocut)
            cut = {"jumps": query.autocut, "kept": keep, "of": len(ranked)}
            ranked = ranked[:keep]
        groups: dict[VersionKey, dict[str, Any]] = {}
        if query.collapse != "none":
            ranked, groups = self._collapse(session, client_id, ranked, query.collapse)
        if any(lane.lane == "entity" for lane in lane_results):
            contributions = dict(ranked)
            for key, rank in entity_ranks(content).items():  # part of the content lane's
                if key in contributions:
                    contributions[key]["entity"] = rank
        page = ranked[query.offset:window]
        # evidence: picked for the shown versions only, then their texts in one store call
        shown = [by_content[k] for k, _ in page if k in by_content]
        if outcome is not None and shown:  # the row's own chunks, whatever the page
            t0 = time.perf_counter()
            shown = self.engine.own_chunks(plan, outcome, shown, parsed.phrases)
            timings["evidence"] = round((time.perf_counter() - t0) * 1000, 3)
        if query.changed_only:  # evidence from the changed chunks only, each marked
            shown = [only_changed(hit, changed.get((hit.document_id, hit.version_id), {}))
                     for hit in shown]
        if terms:  # evidence chosen to cover the query's words: the pool's texts first
            shown = self.engine.with_pool_texts(shown)
        shown = self.engine.with_texts(with_evidence(shown, terms))
        if outcome is not None and outcome.dense_vector is not None and shown:
            t0 = time.perf_counter()  # snippets of chunks matched by meaning alone
            shown = self.engine.with_focus(shown, terms,
                                           outcome.dense_vector)
            timings["evidence"] = round(timings.get("evidence", 0.0)
                                        + (time.perf_counter() - t0) * 1000, 3)
        by_content.update({(v.document_id, v.version_id): v for v in shown})
        versions = docs_registry.shown_versions(session, client_id=client_id,
                                                keys=[k for k, _ in page])
        duplicates = docs_registry.exact_duplicates(session, client_id=client_id,
                                                    keys=[k for k, _ in page])
        near = near_registry.near_duplicates(session, client_id=client_id,
                                             keys=[k for k, _ in page])
        diagnoses = None
        if query.diagnose:
            t0 = time.perf_counter()
            diagnoses = diagnose(session, self.engine.store, SearchContext(
                client_id=client_id, versions=query.versions, as_of=query.as_of,
                engine_filter=flt, applied=applied, ranked=[k for k, _ in ranked],
                offset=query.offset, window=window,
                dense_vector=outcome.dense_vector if outcome else None,
                sparse_vector=outcome.sparse_vector if outcome else None,
                lanes={lane.lane: lane for lane in lane_results},
                entity_keys=entity_keys), query.diagnose)
            timings["diagnose"] = round((time.perf_counter() - t0) * 1000, 3)
        facets = None
        if facet_keys:
            t0 = time.perf_counter()
            facets = count_facets(facet_keys, version_facts(docs_registry.facet_rows(
                session, client_id=client_id, keys=[k for k, _ in ranked])))
            timings["facets"] = round((time.perf_counter() - t0) * 1000, 3)
        rows = [AnswerRow(rank=query.offset + i, document_id=key[0], version_id=key[1],
                          canonical_metadata=with_duplicates(
                              versions[key].canonical_metadata if key in versions else {},
                              duplicates.get(key), near.get(key)),
                          thread=groups.get(key, {}).get("thread"),
                          changes={index: passage.kind for index, passage
                                   in changed[key].items()} if key in changed else None,
                          version=versions.get(key),
                          contributions=lanes,
                          content=by_content.get(key), metadata=by_metadata.get(key))
                for i, (key, lanes) in enumerate(page, start=1)]
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        total = len(ranked)
        return SearchAnswer(
            query=query.query, scope=query.scope, rows=rows, total=total,
            total_is_lower_bound=lower_bound, offset=query.offset, limit=query.limit,
            has_more=total > window, alpha=alpha,  # the search looked one version past
            fusion=fusion,
            reranked=reranked, reranked_count=reranked_count, applied_filters=applied,
            timings=timings, warnings=warnings, lanes=lane_results, degradations=degradations,
            diagnoses=diagnoses, failures=failures, facets=facets, query_syntax=syntax_report,
            autocut=cut, calibrated=own is not None,
            searched=sorted({lane.lane for lane in lane_results}, key=LANE_ORDER.index)
            + (["metadata"] if wants_metadata else []))

    def _changed_only(self, session: Session, client_id: str, ranked: list,
                      by_content: dict[VersionKey, VersionHit], terms: frozenset[str],
                      outcome: SearchOutcome | None
                      ) -> tuple[list, dict[VersionKey, dict[int, ChangedPassage]]]:
        """The ranked versions holding a sentence added or changed relative to their
        predecessor that matches the query — its words as written (literal spans) or, by
        meaning, its stored sentence vector at or over the dense lane's floor — among their
        matching chunks; and, per version, the first such sentence of each chunk. A first
        version has nothing changed (app/documents/version_changes.changed_passages)."""
        from app.documents.version_changes import changed_passages

        dense = next((lane for lane in (outcome.trace.lanes if outcome else ())
                      if lane.lane == "dense"), None)
        vector = outcome.dense_vector if outcome is not None else None
        budget = CHANGED_SENTENCES  # sentences embedded now, for the whole search
        kept, marks = [], {}
        for key, lanes in ranked[:CHANGED_DEPTH]:
            hit = by_content.get(key)
            if hit is None:
                continue
            own = {c.chunk_index for c in hit.chunks}
            changed = [p for p in changed_passages(session, self.engine.store,
                                                   client_id=client_id, document_id=key[0],
                                                   version_id=key[1])
                       if p.chunk_index in own]
            matched = [p for p in changed if literal_spans(p.text, terms)]
            if not matched and changed and vector is not None and dense is not None:
                matched = self.engine.changed_by_meaning(hit, changed, vector, dense.floor,
                                                         budget)
                budget -= len(changed)
            if matched:
                kept.append((key, lanes))
                first: dict[int, ChangedPassage] = {}
                for p in matched:
                    first.setdefault(p.chunk_index, p)
                marks[key] = first
        return kept, marks

    @staticmethod
    def _collapse(session: Session, client_id: str, ranked: list, mode: str
                  ) -> tuple[list, dict[VersionKey, dict[str, Any]]]:
        """The ranked versions collapsed by thread or exact duplicate group, and what each
        kept row of a thread says of it (app/search/collapse.py)."""
        from app.registry import threads as threads_registry

        keys = [k for k, _ in ranked]
        if mode == "duplicates":
            hashes = docs_registry.text_hashes(session, client_id=client_id, keys=keys)
            return collapse(ranked, hashes), {}
        thread_of = {key: (meta or {}).get("document", {}).get("thread_id")
                     for key, _kind, _source, meta, _ents in docs_registry.facet_rows(
                         session, client_id=client_id, keys=keys)}
        kept = collapse(ranked, thread_of)
        sizes = threads_registry.thread_sizes(session, client_id=client_id, thread_ids={
            thread_of[k] for k, _ in kept if thread_of.get(k)})
        return kept, {k: {"thread": {"thread_id": thread_of[k],
                                     "messages": sizes.get(thread_of[k], 1)}}
                      for k, _ in kept if thread_of.get(k)}

    def _apply_syntax(self, parsed: ParsedQuery, flt: ChunkFilter, content: list[VersionHit],
                      metadata: list[MetadataHit]
                      ) -> tuple[list[VersionHit], list[MetadataHit], dict[str, Any]]:
        """Versions without every phrase in a cited chunk (content) or a matched value
        (metadata), and versions holding an excluded word, left out; what each removed."""
        excluded: set[VersionKey] = set()
        complete = True
        for word in parsed.exclusions:
            holding, whole = self.engine.versions_holding(word, flt)
            excluded |= holding
            complete = complete and whole
        keys_before = {(v.document_id, v.version_id) for v in content} | {
            (h.document_id, h.version_id) for h in metadata}
        phrased = self.engine.with_phrases(content, parsed.phrases) if parsed.phrases else content
        valued = [h for h in metadata if not parsed.phrases or any(
            holds_phrases(str(m.leaf.value), parsed.phrases) for m in h.matches)]
        keys_phrased = {(v.document_id, v.version_id) for v in phrased} | {
            (h.document_id, h.version_id) for h in valued}
        kept_content = [v for v in phrased if (v.document_id, v.version_id) not in excluded]
        kept_metadata = [h for h in valued if (h.document_id, h.version_id) not in excluded]
        report = {"phrases": list(parsed.phrases), "exclusions": list(parsed.exclusions),
                  "removed_by_phrases": len(keys_before - keys_phrased),
                  "removed_by_exclusions": len(keys_phrased & excluded), "complete": complete}
        return kept_content, kept_metadata, report


CHANGED_DEPTH = 200  # versions a changed_only search compares with their predecessors


def only_changed(hit: VersionHit, marked: Mapping[int, ChangedPassage]) -> VersionHit:
    """A version's matching chunks kept to those holding a changed sentence that matches,
    each focused on that sentence (its snippet; the kinds go to the answer's row:
    AnswerRow.changes)."""
    from dataclasses import replace

    chunks = tuple(replace(c, focus=(marked[c.chunk_index].start, marked[c.chunk_index].end))
                   for c in hit.chunks if c.chunk_index in marked)
    return replace(hit, chunks=chunks, evidence=()) if chunks else hit


def _version_score(scope: str, key: VersionKey, lanes: Mapping[str, int],
                   by_content: Mapping[VersionKey, VersionHit],
                   by_metadata: Mapping[VersionKey, MetadataHit]) -> float:
    """The score a version is ranked by, for autocut: its best chunk's fused score (scope
    content), its best leaf's (metadata), or its rank fusion across the two (both: as
    metadata_lane.fuse_versions)."""
    if scope == "both":
        return version_fusion_score(lanes)
    if scope == "content":
        return by_content[key].best.fused
    return by_metadata[key].best


def _in_time(flt: ChunkFilter, query: SearchQuery) -> ChunkFilter:
    """Which versions may answer, as an engine filter on their points' timeline: the current
    ones (their visibility), every published one, or those current at ``as_of``."""
    if (query.as_of is not None or query.versions != "current") and query.scope != "content":
        raise BadRequest("versions and as_of choose among versions for the content lane; the "
                         "metadata lane holds current versions only: use scope content",
                         code="INVALID_VERSIONS")
    if query.as_of is not None:
        if query.versions != "current":
            raise BadRequest("as_of picks the versions current at an instant: it cannot be "
                             "combined with versions: all", code="INVALID_VERSIONS")
        instant = query.as_of.timestamp()
        return replace(flt, searchable_only=False, published_by=instant,
                       superseded_after=instant)
    if query.versions == "all":
        return replace(flt, searchable_only=False, published_by=FAR_FUTURE)
    return flt


def _require_ready(session: Session, client_id: str, scope: str) -> None:
    ready = discovery.readiness(session, client_id=client_id)
    if ready.state == "ready":
        return
    raise Conflict(
        f"scope '{scope}' needs Metadata Discovery Readiness, and this client's metadata "
        f"discovery is {ready.state}; search scope 'content' meanwhile"
        + ("" if ready.state == "discovering" else
           ", or enable discovery (POST /clients/me/metadata/discovery)"),
        code="METADATA_DISCOVERY_NOT_READY",
        details={"scope": scope, "state": ready.state, "progress": ready.progress,
                 "indexed_versions": ready.indexed, "published_versions": ready.total})


def client_corpus(session: Session, client_id: str,
                  prior: BackgroundPrior | None) -> CorpusLookup:
    """The client's own BM25 statistics, read in this session, with the public prior."""

    def lookup(terms: Sequence[int]) -> CorpusStats:
        chunks, df = bm25_stats.lookup(session, client_id=client_id, terms=terms)
        return CorpusStats(chunks, df, prior)

    return lookup


def entity_ranks(content: Sequence[VersionHit]) -> dict[VersionKey, int]:
    """{version: its rank in the entity lane}: versions ordered by their best chunk's entity
    rank (the unfiltered one under exact filters, as the fusion kept it)."""
    best = {(v.document_id, v.version_id): min(ranks) for v in content
            if (ranks := [c.entity_rank for c in v.chunks if c.entity_rank is not None])}
    return {k: i for i, k in enumerate(sorted(best, key=lambda k: (best[k], k)), start=1)}


def lane_ranks(kept: Sequence[VersionKey], unfiltered: Sequence[VersionKey] | None
               ) -> dict[VersionKey, int]:
    """{version: its rank in the lane}, in ``kept``'s order: its place in the unfiltered
    ranking where the filters narrowed it (a version the unfiltered lane did not reach ranks
    after all it did), else its place in ``kept``."""
    if unfiltered is None:
        return {k: i for i, k in enumerate(kept, start=1)}
    place = {k: i for i, k in enumerate(unfiltered, start=1)}
    ranks, beyond = {}, len(unfiltered)
    for k in kept:
        if k not in place:
            beyond += 1
        ranks[k] = place.get(k, beyond)
    return ranks


def metadata_lane(session: Session, client_id: str, query: str, flt: ChunkFilter,
                  applied: Mapping[str, list]
                  ) -> tuple[list[MetadataHit], list[VersionKey] | None]:
    """Candidate leaves from the registry, ranked per version (pure), reserved and metadata
    filters applied the same way the engine applies them to chunks; with filters, also the
    unfiltered ranking (pure, same rows), whose ranks the filtered versions keep."""
    words, exact = lookup_terms(query)
    rows = discovery.candidate_leaves(session, client_id=client_id, words=words, exact=exact)
    keys = sorted({(r.document_id, r.version_id) for r in rows})
    allowed = None
    if any(k in RESERVED for k in applied):
        allowed = set(docs_registry.versions_by_keys(
            session, client_id=client_id, keys=keys, document_ids=flt.document_ids,
            version_ids=flt.version_ids, kinds=flt.kinds, sources=flt.sources))
    leaves = (discovery.version_leaves(session, client_id=client_id, keys=keys)
              if any(k not in RESERVED for k in applied) else None)
    candidates = [(r.document_id, r.version_id, r.leaf) for r in rows]
    negated = {k: v[0]["not"] for k, v in applied.items()
               if k in RESERVED and v and isinstance(v[0], dict)}
    shut: set[VersionKey] = set()
    for key, values in negated.items():  # a negated reserved key: those versions leave
        shut |= set(docs_registry.versions_by_keys(
            session, client_id=client_id, keys=keys, **{RESERVED_FIELDS[key]: tuple(values)}))
    candidates = [c for c in candidates if (c[0], c[1]) not in shut]
    hits = rank_versions(query, candidates, leaves, applied, allowed)
    if not applied:
        return hits, None
    return hits, [(h.document_id, h.version_id) for h in rank_versions(query, candidates)]
