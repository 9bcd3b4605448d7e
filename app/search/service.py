"""The search service: a typed query and a client in, a domain answer out.

``answer`` runs the list of stages in app/search/stages.py (parse → plan → lanes → … →
facets), each timed the same way, and reads the answer off the last state. Registry reads go
through app/registry; the answer is dataclasses. The HTTP route, the CLI, `evidence eval` and
the benches all call this; only the route turns the answer into the contract's response
(app/api/presenter.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.domain.access import Access
from app.registry.documents import ShownVersion
from app.search.collapse import with_duplicates
from app.search.diagnose import Diagnosis
from app.search.metadata_lane import MetadataHit
from app.search.pipeline import SearchEngine
from app.search.stages import (  # noqa: F401 - re-exported: evaluation and tests read them here
    MAX_WINDOW,
    STAGES,
    Searching,
    Stage,
    client_corpus,
    lane_ranks,
    metadata_lane,
)
from app.search.types import LaneFailure, LaneResult, VersionHit

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
    sort: str | None = None  # a browse's order (an empty query): date | updated_at | document_id


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
    query_language: str | None = None  # where lingua is sure (app/models/languages.py)
    alpha_reason: str | None = None  # why alpha is not what was asked (a foreign query)

    @property
    def status(self) -> str:
        """"complete", or "partial" when a lane (or the rerank) asked for did not answer."""
        return "partial" if self.failures else "complete"


class SearchService:
    def __init__(self, engine: SearchEngine, default_alpha: float) -> None:
        self.engine, self.default_alpha = engine, default_alpha

    def answer(self, session: Session, *, client_id: str, query: SearchQuery,
               access: Access = Access()) -> SearchAnswer:
        """The request through each stage that applies to it (app/search/stages.STAGES, in
        order), each timed by ``_timed``; the answer read off the last state. ``access``:
        what the caller may see of the client's documents (its key's access groups)."""
        started = time.perf_counter()
        state = Searching(session=session, client_id=client_id, query=query,
                          engine=self.engine, default_alpha=self.default_alpha, access=access)
        for stage in STAGES:
            if stage.applies(state):
                state = _timed(stage, state)
        return _answer(state, round((time.perf_counter() - started) * 1000, 3))


def _timed(stage: Stage, state: Searching) -> Searching:
    """One stage run, its milliseconds added to the state's timings under its name (a stage
    that times its own steps, the lanes, leaves its steps there instead)."""
    t0 = time.perf_counter()
    state = stage.run(state)
    if stage.times_itself:
        return state
    ms = round((time.perf_counter() - t0) * 1000, 3)
    return replace(state, timings={**state.timings, stage.name: ms})


def _answer(s: Searching, total_ms: float) -> SearchAnswer:
    """The domain answer: one row per version on the page, and what the search says of
    itself (app/api/presenter.py makes the contract's response of it)."""
    q, outcome = s.query, s.outcome
    by_content, by_metadata = s.by_content(), s.by_metadata()
    rows = [AnswerRow(rank=q.offset + i, document_id=key[0], version_id=key[1],
                      canonical_metadata=with_duplicates(
                          s.versions[key].canonical_metadata if key in s.versions else {},
                          s.duplicates.get(key), s.near.get(key)),
                      thread=s.groups.get(key, {}).get("thread"),
                      changes={index: passage.kind for index, passage
                               in s.changed[key].items()} if key in s.changed else None,
                      version=s.versions.get(key), contributions=dict(lanes),
                      content=by_content.get(key), metadata=by_metadata.get(key))
            for i, (key, lanes) in enumerate(s.page, start=1)]
    lanes = outcome.trace.lanes if outcome is not None else []
    total = len(s.ranked)
    return SearchAnswer(
        query=q.query, scope=q.scope, rows=rows, total=total,
        total_is_lower_bound=(outcome.total_is_lower_bound if outcome is not None
                              else s.browse_cut),
        offset=q.offset, limit=q.limit,
        has_more=total > s.window,  # the search looked one version past the window
        alpha=s.alpha, fusion=s.fusion,
        reranked=outcome.reranked if outcome is not None else False,
        reranked_count=outcome.reranked_count if outcome is not None else 0,
        applied_filters=dict(s.applied), timings={**s.timings, "total": total_ms},
        warnings=list(s.warnings), lanes=lanes,
        degradations=outcome.trace.degradations if outcome is not None else [],
        diagnoses=s.diagnoses, failures=outcome.trace.failures if outcome is not None else [],
        facets=s.facets, query_syntax=s.syntax_report, autocut=s.cut, calibrated=s.calibrated,
        query_language=s.query_language, alpha_reason=s.alpha_reason,
        searched=sorted({lane.lane for lane in lanes}, key=LANE_ORDER.index)
        + (["metadata"] if s.wants_metadata else []))
