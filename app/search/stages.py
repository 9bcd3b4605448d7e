"""The stages of one search, in the order they run (``STAGES``): each a small function from a
frozen ``Searching`` to the next, skipped where the request does not ask for it, each timed by
the same wrapper into ``meta.timings`` and the metrics (app/search/service.py runs the list).

parse → plan → lanes (embed | sparse, dense, entity → fuse → rerank → group:
app/search/pipeline.py) → metadata → syntax → rank versions → changed_only → autocut →
collapse → window → evidence → snippets → annotate (versions, duplicates) → diagnose → facets.

To add a stage: write ``def _name(s: Searching) -> Searching`` returning ``replace(s, …)`` with
the fields it fills, and put it in ``STAGES`` where it belongs, with when it applies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from app.documents.pages import PAGED_KINDS
from app.documents.version_changes import ChangedPassage
from app.domain.access import Access
from app.domain.entity_values import only_entities, query_entity_keys
from app.domain.errors import BadRequest, Conflict
from app.domain.languages import DENSE_LANGUAGES
from app.models.languages import query_language as query_language_of
from app.registry import bm25_stats, discovery
from app.registry import documents as docs_registry
from app.registry import judgments as judgments_registry
from app.registry import near_duplicates as near_registry
from app.registry.documents import ShownVersion
from app.search.autocut import AUTOCUT_SPAN, autocut
from app.search.bm25 import BackgroundPrior, CorpusLookup, CorpusStats
from app.search.collapse import collapse
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
    BROWSE_POINTS,
    CHANGED_SENTENCES,
    EXCLUSION_DEPTH,
    SearchEngine,
    SearchOutcome,
    SearchPlan,
)
from app.search.query_syntax import ParsedQuery, holds_phrases, parse_query
from app.search.spans import literal_spans, query_terms
from app.search.types import MAX_EVIDENCE, VersionHit
from app.store import ChunkFilter
from app.store.base import FAR_FUTURE
from app.store.payload import KIND

if TYPE_CHECKING:
    from app.search.service import SearchQuery

MAX_WINDOW = 200
VersionKey = tuple[str, str]
Ranked = tuple[tuple[VersionKey, Mapping[str, int]], ...]  # versions in order, lane → rank
CHANGED_DEPTH = 200  # versions a changed_only search compares with their predecessors


@dataclass(frozen=True)
class Searching:
    """One search in progress: the request, and what each stage has found so far."""

    session: Session = field(repr=False)
    client_id: str
    query: SearchQuery
    engine: SearchEngine = field(repr=False)
    default_alpha: float
    access: Access = Access()  # what the caller may see (app/domain/access.py)
    # parse
    parsed: ParsedQuery = ParsedQuery("")
    facet_keys: tuple[str, ...] = ()
    # plan
    languages: tuple[str, ...] = ("en",)  # the client's (the query's BM25 terms in each)
    query_language: str | None = None  # where lingua is sure (app/models/languages.py)
    alpha_reason: str | None = None  # why alpha is not what was asked (a foreign query)
    filter: ChunkFilter | None = None
    applied: Mapping[str, list] = field(default_factory=dict)
    alpha: float = 0.0
    fusion: str = "rank"
    calibrated: bool = False
    entity_keys: tuple[str, ...] = ()
    plan: SearchPlan | None = None
    # lanes, metadata, syntax
    outcome: SearchOutcome | None = None
    content: tuple[VersionHit, ...] = ()
    metadata: tuple[MetadataHit, ...] = ()
    unfiltered_metadata: tuple[VersionKey, ...] | None = None
    syntax_report: dict[str, Any] | None = None
    warnings: tuple[str, ...] = ()
    # browse (an empty query): whether the scroll stopped at its bound
    browse_cut: bool = False
    # rank versions … window
    ranked: Ranked = ()
    changed: Mapping[VersionKey, Mapping[int, ChangedPassage]] = field(default_factory=dict)
    cut: dict[str, int] | None = None
    groups: Mapping[VersionKey, dict[str, Any]] = field(default_factory=dict)
    page: Ranked = ()
    # evidence … annotate
    shown: tuple[VersionHit, ...] = ()  # the page's content versions, their evidence read
    versions: Mapping[VersionKey, ShownVersion] = field(default_factory=dict)
    duplicates: Mapping[VersionKey, list[str]] = field(default_factory=dict)
    near: Mapping[VersionKey, list[dict]] = field(default_factory=dict)
    diagnoses: list[Diagnosis] | None = None
    facets: dict[str, list[dict[str, Any]]] | None = None
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def window(self) -> int:
        return self.query.offset + self.query.limit

    @property
    def words(self) -> str:
        """What the lanes read: the query without its exclusions and quotes."""
        return self.parsed.text

    @property
    def browse(self) -> bool:
        """An empty query (or ``*``): every visible version under the filters, in the stated
        order, no lane asked (issue 51)."""
        return is_browse(self.query.query)

    @property
    def wants_content(self) -> bool:
        return self.query.scope in ("content", "both") and not self.browse

    @property
    def wants_metadata(self) -> bool:
        return self.query.scope in ("metadata", "both") and not self.browse

    def by_content(self) -> dict[VersionKey, VersionHit]:
        """The content lane's versions, those shown with their evidence read."""
        found = {(v.document_id, v.version_id): v for v in self.content}
        found.update({(v.document_id, v.version_id): v for v in self.shown})
        return found

    def by_metadata(self) -> dict[VersionKey, MetadataHit]:
        return {(h.document_id, h.version_id): h for h in self.metadata}


def _parse(s: Searching) -> Searching:
    """The window and facet keys checked, the query's phrases and exclusions read."""
    if s.window > MAX_WINDOW:
        raise BadRequest(f"offset + limit must be at most {MAX_WINDOW} (got {s.window})",
                         code="WINDOW_TOO_LARGE",
                         details={"offset": s.query.offset, "limit": s.query.limit,
                                  "max_window": MAX_WINDOW})
    facet_keys = tuple(check_facets(s.query.facets))
    if s.browse:
        if s.query.sort not in (None, *docs_registry.BROWSE_SORTS):
            raise BadRequest(f"sort is one of {', '.join(docs_registry.BROWSE_SORTS)}",
                             code="INVALID_SORT")
        if s.query.changed_only:
            raise BadRequest("an empty query lists the versions under its filters: "
                             "changed_only needs words to match the changes with",
                             code="INVALID_BROWSE")
        ignored = [name for name, asked in (("rerank", s.query.rerank),
                                            ("autocut", s.query.autocut)) if asked]
        return replace(s, facet_keys=facet_keys, warnings=s.warnings + ((
            f"{' and '.join(ignored)} ignored: an empty query lists the versions under its "
            "filters in the stated order, with no score to rerank or cut",) if ignored else ()))
    if s.query.sort is not None:
        raise BadRequest("sort orders a browse (an empty query or *); a search is ordered "
                         "by relevance", code="INVALID_SORT", details={"sort": s.query.sort})
    parsed = parse_query(s.query.query) if s.query.syntax else ParsedQuery(s.query.query)
    if not parsed.text:
        raise BadRequest("the query holds nothing to find besides its exclusions (-word); "
                         "add a word to look for", code="INVALID_QUERY")
    return replace(s, parsed=parsed, facet_keys=facet_keys)


def _plan(s: Searching) -> Searching:
    """Readiness (metadata scopes), the filters as the engine's, the versions in time, alpha
    and fusion (the request's, else the client's own calibration, app/calibration/service.py,
    else the service's defaults), the query's entities; the content lanes' plan."""
    q, session = s.query, s.session
    if s.wants_metadata:
        _require_ready(session, s.client_id, q.scope)
    key_types: dict[str, set[str]] = {}
    complete = False
    if any(k not in RESERVED for k in q.filters):  # only metadata filters need types
        for key, kind, _count in discovery.key_catalog(session, client_id=s.client_id,
                                                       access=s.access):
            key_types.setdefault(key, set()).add(kind)
        # superseded versions' leaves are dropped: only current searches know every key
        complete = (q.versions == "current" and q.as_of is None
                    and discovery.readiness(session, client_id=s.client_id).state == "ready")
    flt, applied = parse_filters(q.filters, client_id=s.client_id, key_types=key_types,
                                 catalog_complete=complete)
    flt = replace(_in_time(flt, q), access_groups=s.access.groups)
    own = (judgments_registry.calibration(session, client_id=s.client_id)
           if q.alpha is None or q.fusion is None else None)
    alpha = q.alpha if q.alpha is not None else (
        own.alpha if own is not None else s.default_alpha)
    fusion = q.fusion or (own.fusion if own is not None else s.engine.settings.fusion)
    languages, query_language, alpha_reason = ("en",), None, None
    if s.wants_content:
        languages = bm25_stats.languages(session, client_id=s.client_id)
        if alpha > 0:
            query_language = query_language_of(s.words)  # lingua: loaded only when used
            alpha, alpha_reason = dense_weight_for_language(
                alpha, query_language, s.engine.settings.foreign_dense_weight,
                asked=q.alpha is not None)
    entity_keys = (tuple(query_entity_keys(s.words))
                   if s.engine.settings.entity_weight > 0 else ())
    entity_only = bool(entity_keys) and only_entities(s.words)
    plan = SearchPlan(
        query=s.words, alpha=alpha, rerank=q.rerank,
        limit=max(s.window, AUTOCUT_SPAN) if q.autocut else s.window, filter=flt,
        corpus=client_corpus(session, s.client_id, s.engine.bm25_prior),
        fusion=fusion, entity_keys=entity_keys,
        entity_only=entity_only, languages=languages) if s.wants_content else None
    return replace(s, filter=flt, applied=applied, alpha=alpha, fusion=fusion,
                   languages=languages, query_language=query_language,
                   alpha_reason=alpha_reason,
                   calibrated=own is not None, entity_keys=entity_keys, plan=plan)


def _lanes(s: Searching) -> Searching:
    """The content lanes: embed, BM25, dense, entity, fused, reranked, grouped by version
    (app/search/pipeline.py, which times its own steps)."""
    assert s.plan is not None
    outcome = s.engine.search(s.plan)
    return replace(s, outcome=outcome, content=tuple(outcome.versions),
                   warnings=s.warnings + tuple(outcome.trace.warnings),
                   timings={**s.timings, **outcome.trace.timings})


def _browse(s: Searching) -> Searching:
    """An empty query: every version with a chunk under the filters (visible, in time, and
    the caller's groups, as any search) in the stated order (registry browse_order; default
    the document's date, newest first), ranked 1…n; each version's evidence its first
    matching chunks."""
    assert s.filter is not None
    found, cut = s.engine.browse(s.filter)
    by_key = {(h.document_id, h.version_id): h for h in found}
    order = docs_registry.browse_order(s.session, client_id=s.client_id, keys=list(by_key),
                                       sort=s.query.sort or "date")
    warnings = s.warnings + ((f"the browse read its first {BROWSE_POINTS:,} chunks: narrow "
                              "the filters for the rest",) if cut else ())
    return replace(s, content=tuple(by_key[k] for k in order), browse_cut=cut,
                   warnings=warnings,
                   ranked=tuple((k, {"content": i}) for i, k in enumerate(order, start=1)))


def _metadata(s: Searching) -> Searching:
    assert s.filter is not None
    hits, unfiltered = metadata_lane(s.session, s.client_id, s.words, s.filter, s.applied,
                                     s.access)
    return replace(s, metadata=tuple(hits),
                   unfiltered_metadata=tuple(unfiltered) if unfiltered is not None else None)


def _syntax(s: Searching) -> Searching:
    """Versions without every phrase in a cited chunk (content) or a matched value
    (metadata), and versions holding an excluded word, left out; what each removed."""
    parsed, engine = s.parsed, s.engine
    assert s.filter is not None
    excluded: set[VersionKey] = set()
    complete = True
    for word in parsed.exclusions:
        holding, whole = engine.versions_holding(word, s.filter, s.languages)
        excluded |= holding
        complete = complete and whole
    keys_before = set(s.by_content()) | set(s.by_metadata())
    content = list(s.content)
    phrased = engine.with_phrases(content, parsed.phrases) if parsed.phrases else content
    valued = [h for h in s.metadata if not parsed.phrases or any(
        holds_phrases(str(m.leaf.value), parsed.phrases) for m in h.matches)]
    keys_phrased = {(v.document_id, v.version_id) for v in phrased} | {
        (h.document_id, h.version_id) for h in valued}
    report = {"phrases": list(parsed.phrases), "exclusions": list(parsed.exclusions),
              "removed_by_phrases": len(keys_before - keys_phrased),
              "removed_by_exclusions": len(keys_phrased & excluded), "complete": complete}
    warnings = s.warnings if complete else s.warnings + (
        f"an exclusion was checked in the first {EXCLUSION_DEPTH:,} chunks holding its "
        "word's terms only",)
    return replace(s, syntax_report=report, warnings=warnings,
                   content=tuple(v for v in phrased
                                 if (v.document_id, v.version_id) not in excluded),
                   metadata=tuple(h for h in valued
                                  if (h.document_id, h.version_id) not in excluded))


def _rank(s: Searching) -> Searching:
    """The versions in answer order: each lane's version ranks as if the exact filters were
    not there (the contract: filters narrow the candidates, they do not change retrieval
    rank); scope both fuses the two lanes' ranks."""
    by_content, by_metadata = s.by_content(), s.by_metadata()
    content_ranks = lane_ranks(list(by_content), s.outcome.unfiltered_versions
                               if s.outcome is not None else None)
    metadata_ranks = lane_ranks(list(by_metadata), s.unfiltered_metadata)
    ranked: list[tuple[VersionKey, Mapping[str, int]]]
    if s.query.scope == "content":
        ranked = [(k, {"content": r}) for k, r in content_ranks.items()]
    elif s.query.scope == "metadata":
        ranked = [(k, {"metadata": r}) for k, r in metadata_ranks.items()]
    else:
        ranked = fuse_versions(content_ranks, metadata_ranks, content_scores={
            key: hit.best.fused for key, hit in by_content.items()})
    return replace(s, ranked=tuple(ranked))


def _changed_only(s: Searching) -> Searching:
    """The ranked versions holding a sentence added or changed relative to their predecessor
    that matches the query — its words as written (literal spans) or, by meaning, its stored
    sentence vector at or over the dense lane's floor — among their matching chunks; and, per
    version, the first such sentence of each chunk. A first version has nothing changed
    (app/documents/version_changes.changed_passages)."""
    from app.documents.version_changes import changed_passages

    outcome, by_content = s.outcome, s.by_content()
    terms = query_terms(s.words)
    dense = next((lane for lane in (outcome.trace.lanes if outcome else ())
                  if lane.lane == "dense"), None)
    vector = outcome.dense_vector if outcome is not None else None
    budget = CHANGED_SENTENCES  # sentences embedded now, for the whole search
    kept, marks = [], {}
    for key, lanes in s.ranked[:CHANGED_DEPTH]:
        hit = by_content.get(key)
        if hit is None:
            continue
        own = {c.chunk_index for c in hit.chunks}
        changed = [p for p in changed_passages(s.session, s.engine.store,
                                               client_id=s.client_id, document_id=key[0],
                                               version_id=key[1])
                   if p.chunk_index in own]
        matched = [p for p in changed if literal_spans(p.text, terms)]
        if not matched and changed and vector is not None and dense is not None:
            matched = s.engine.changed_by_meaning(hit, changed, vector, dense.floor, budget)
            budget -= len(changed)
        if matched:
            kept.append((key, lanes))
            first: dict[int, ChangedPassage] = {}
            for p in matched:
                first.setdefault(p.chunk_index, p)
            marks[key] = first
    return replace(s, ranked=tuple(kept), changed=marks)


def _autocut(s: Searching) -> Searching:
    """The ranking stopped at its ``autocut``-th sharp drop of the score."""
    by_content, by_metadata = s.by_content(), s.by_metadata()
    scores = [_version_score(s.query.scope, key, lanes, by_content, by_metadata)
              for key, lanes in s.ranked]
    keep = autocut(scores, s.query.autocut)
    return replace(s, ranked=s.ranked[:keep],
                   cut={"jumps": s.query.autocut, "kept": keep, "of": len(s.ranked)})


def _collapse(s: Searching) -> Searching:
    """The ranked versions collapsed by thread or exact duplicate group, and what each kept
    row of a thread says of it (app/search/collapse.py)."""
    from app.registry import threads as threads_registry

    session, client_id, ranked = s.session, s.client_id, list(s.ranked)
    keys = [k for k, _ in ranked]
    if s.query.collapse == "duplicates":
        hashes = docs_registry.text_hashes(session, client_id=client_id, keys=keys)
        return replace(s, ranked=tuple(collapse(ranked, hashes)))
    thread_of = {key: (meta or {}).get("document", {}).get("thread_id")
                 for key, _kind, _source, meta, _ents in docs_registry.facet_rows(
                     session, client_id=client_id, keys=keys)}
    kept = collapse(ranked, thread_of)
    sizes = threads_registry.thread_sizes(session, client_id=client_id, thread_ids={
        thread_of[k] for k, _ in kept if thread_of.get(k)}, access=s.access)
    return replace(s, ranked=tuple(kept), groups={
        k: {"thread": {"thread_id": thread_of[k], "messages": sizes.get(thread_of[k], 1)}}
        for k, _ in kept if thread_of.get(k)})


def _window(s: Searching) -> Searching:
    """The page: offset to offset + limit of the ranked versions, with each one's entity lane
    rank among its contributions where the entity lane ran."""
    ranked = s.ranked
    if s.outcome is not None and any(lane.lane == "entity" for lane in s.outcome.trace.lanes):
        entity = entity_ranks(s.content)  # part of the content lane's
        ranked = tuple((key, {**lanes, "entity": entity[key]} if key in entity else lanes)
                       for key, lanes in ranked)
    return replace(s, ranked=ranked, page=ranked[s.query.offset:s.window])


def _evidence(s: Searching) -> Searching:
    """Each shown version's own matching chunks (app/search/pipeline.own_chunks: the whole
    page in one engine call), under changed_only those holding a changed sentence, the
    evidence picked to cover the query's words (grouping.with_evidence), their texts read."""
    engine, by_content = s.engine, s.by_content()
    shown = [by_content[k] for k, _ in s.page if k in by_content]
    if s.browse:  # no words: the first chunks under the filters, in reading order
        return replace(s, shown=tuple(engine.with_texts([
            replace(h, evidence=h.chunks[:MAX_EVIDENCE]) for h in shown])))
    assert s.outcome is not None and s.plan is not None
    shown = engine.own_chunks(s.plan, s.outcome, shown, s.parsed.phrases)
    if s.query.changed_only:  # evidence from the changed chunks only, each marked
        shown = [only_changed(hit, s.changed.get((hit.document_id, hit.version_id), {}))
                 for hit in shown]
    terms = query_terms(s.words)
    if terms:  # evidence chosen to cover the query's words: the pool's texts first
        shown = engine.with_pool_texts(shown)
        if not (s.query.changed_only or s.parsed.phrases):  # then the rest of each version
            shown = engine.with_parts(s.plan, shown, terms)  # (not where evidence is narrowed)
    return replace(s, shown=tuple(engine.with_texts(with_evidence(shown, terms))))


def _snippets(s: Searching) -> Searching:
    """Evidence matched by meaning alone centred on its sentence closest to the query."""
    assert s.outcome is not None and s.outcome.dense_vector is not None
    return replace(s, shown=tuple(s.engine.with_focus(
        list(s.shown), query_terms(s.words), s.outcome.dense_vector)))


def _boxes(s: Searching) -> Searching:
    """Where a paged document's cited chunks stand on their pages: the words' boxes kept at
    ingestion (app/documents/boxes.py), one registry read for the page's evidence."""
    wanted = [(c.document_id, c.version_id, c.chunk_index) for h in s.shown
              for c in h.evidence if c.payload.get(KIND) in PAGED_KINDS]
    found = docs_registry.chunk_boxes(s.session, client_id=s.client_id, chunks=wanted)
    return replace(s, shown=tuple(replace(h, evidence=tuple(
        replace(c, boxes=tuple(tuple(w) for w in found[(c.document_id, c.version_id,
                                                       c.chunk_index)]))
        if (c.document_id, c.version_id, c.chunk_index) in found else c
        for c in h.evidence)) for h in s.shown))


def _cites_pages(s: Searching) -> bool:
    return any(c.payload.get(KIND) in PAGED_KINDS for h in s.shown for c in h.evidence)


def _annotate(s: Searching) -> Searching:
    """What each row says of its version: metadata and timeline, exact and near duplicates:
    one read of the page's versions, then only where one has a text hash (its exact
    duplicates) or a MinHash signature (its bands, the versions sharing them)."""
    keys = [k for k, _ in s.page]
    session, client_id = s.session, s.client_id
    versions = docs_registry.shown_versions(session, client_id=client_id, keys=keys)
    exact, near = docs_registry.without_hidden(
        session, client_id=client_id, access=s.access,
        exact=docs_registry.exact_duplicates(
            session, client_id=client_id, keys=keys,
            hashes={k: v.text_sha256 for k, v in versions.items()}),
        near=near_registry.near_duplicates(
            session, client_id=client_id, keys=keys,
            signatures={k: (v.version_pk, v.minhash, v.text_sha256)
                        for k, v in versions.items()}))
    return replace(s, versions=versions, duplicates=exact, near=near)


def _diagnose(s: Searching) -> Searching:
    """Why the named documents are or are not on the page (app/search/diagnose.py)."""
    outcome, q = s.outcome, s.query
    assert s.filter is not None
    lanes = outcome.trace.lanes if outcome is not None else []
    return replace(s, diagnoses=diagnose(s.session, s.engine.store, SearchContext(
        client_id=s.client_id, versions=q.versions, as_of=q.as_of, engine_filter=s.filter,
        applied=dict(s.applied), ranked=[k for k, _ in s.ranked], offset=q.offset,
        window=s.window, dense_vector=outcome.dense_vector if outcome else None,
        sparse_vector=outcome.sparse_vector if outcome else None,
        lanes={lane.lane: lane for lane in lanes}, entity_keys=s.entity_keys,
        access=s.access), q.diagnose))


def _facets(s: Searching) -> Searching:
    """Counts of the asked keys' values over every ranked version, not only the page."""
    return replace(s, facets=count_facets(list(s.facet_keys), version_facts(
        docs_registry.facet_rows(s.session, client_id=s.client_id,
                                 keys=[k for k, _ in s.ranked]))))


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Searching], Searching]
    applies: Callable[[Searching], bool] = lambda _s: True
    # the stage times its own steps into the state's timings (the lanes: embed, sparse, …)
    times_itself: bool = False


STAGES: tuple[Stage, ...] = (
    Stage("parse", _parse),
    Stage("plan", _plan),
    Stage("lanes", _lanes, lambda s: s.plan is not None, times_itself=True),
    Stage("browse", _browse, lambda s: s.browse),
    Stage("metadata", _metadata, lambda s: s.wants_metadata),
    Stage("syntax", _syntax, lambda s: s.parsed.active),
    Stage("rank", _rank, lambda s: not s.browse),
    Stage("changed_only", _changed_only, lambda s: s.query.changed_only),
    Stage("autocut", _autocut, lambda s: bool(s.query.autocut)),
    Stage("collapse", _collapse, lambda s: s.query.collapse != "none"),
    Stage("window", _window),
    Stage("evidence", _evidence, lambda s: (s.outcome is not None or s.browse) and any(
        k in s.by_content() for k, _ in s.page)),
    Stage("snippets", _snippets, lambda s: bool(s.shown) and s.outcome is not None
          and s.outcome.dense_vector is not None),
    Stage("boxes", _boxes, _cites_pages),
    Stage("annotate", _annotate, lambda s: bool(s.page)),
    Stage("diagnose", _diagnose, lambda s: bool(s.query.diagnose)),
    Stage("facets", _facets, lambda s: bool(s.facet_keys)),
)


def dense_weight_for_language(alpha: float, language: str | None, factor: float, *,
                              asked: bool) -> tuple[float, str | None]:
    """Alpha for a query the dense model was not trained on (issue 52): its weight times
    ``factor`` (EVIDENCE_SEARCH__FOREIGN_DENSE_WEIGHT, chosen by cross-validation:
    docs/BENCHMARKS.md) where the request left alpha open; an alpha the request named is
    the caller's. (alpha, the reason it changed, or None)."""
    if asked or language is None or language in DENSE_LANGUAGES or factor >= 1.0:
        return alpha, None
    lowered = round(alpha * factor, 4)
    return lowered, (f"the query is in {language}, which the dense model was not trained on: "
                     f"its weight {alpha:g} × {factor:g} = {lowered:g}")


def is_browse(query: str) -> bool:
    """An empty query or ``*``: a browse of the filters rather than a search."""
    return query.strip() in ("", "*")


def only_changed(hit: VersionHit, marked: Mapping[int, ChangedPassage]) -> VersionHit:
    """A version's matching chunks kept to those holding a changed sentence that matches,
    each focused on that sentence (its snippet; the kinds go to the answer's row:
    AnswerRow.changes)."""
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
    """The client's own BM25 statistics, read in this session, with the public prior. Terms
    read once in this search are not read again: the evidence stage's parts
    (pipeline.with_parts) ask for words of the query the search has just weighed."""
    read: dict[int, int] = {}
    counted: list[int] = []  # the client's chunk count, from the first read

    def lookup(terms: Sequence[int]) -> CorpusStats:
        unread = [t for t in terms if t not in read]
        if unread or not counted:
            chunks, df = bm25_stats.lookup(session, client_id=client_id, terms=unread)
            read.update({t: df.get(t, 0) for t in unread})
            counted[:] = [chunks]
        return CorpusStats(counted[0], {t: read[t] for t in terms}, prior)

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
                  applied: Mapping[str, list], access: Access = Access()
                  ) -> tuple[list[MetadataHit], list[VersionKey] | None]:
    """Candidate leaves from the registry, ranked per version (pure), reserved and metadata
    filters applied the same way the engine applies them to chunks; with filters, also the
    unfiltered ranking (pure, same rows), whose ranks the filtered versions keep."""
    words, exact = lookup_terms(query)
    rows = discovery.candidate_leaves(session, client_id=client_id, words=words, exact=exact,
                                      access=access)
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
