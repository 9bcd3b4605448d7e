"""The values search stages pass along. Scores change only through ``dataclasses.replace``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_EVIDENCE = 3  # evidence items per Document Version, for both lanes (the contract's three)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One chunk, with what each stage said of it."""

    point_id: str
    document_id: str
    version_id: str
    chunk_index: int
    payload: dict[str, Any] = field(compare=False, repr=False)
    dense_score: float | None = None
    dense_rank: int | None = None
    sparse_score: float | None = None
    sparse_rank: int | None = None
    fused: float = 0.0
    rerank_score: float | None = None
    # a score fusion's lane scores on their common scale (app/search/fusion.py), for explain
    dense_scaled: float | None = None
    sparse_scaled: float | None = None
    # the entity lane's rank (a chunk holding an amount, day or id the query names)
    entity_rank: int | None = None
    # for a chunk cited without a literal span: the sentence (start, end) closest to the query
    # by the dense model, where its snippet centres (app/search/snippets.py)
    focus: tuple[int, int] | None = None
    # a paged document's chunk: its words' spans and boxes (app/documents/boxes.py), read
    # for the page's evidence only
    boxes: tuple[tuple[int, ...], ...] | None = field(default=None, compare=False, repr=False)

    @property
    def chunk_id(self) -> str:
        """``doc:v2:0`` — app/store/payload.chunk_ref's form (this module keeps to the
        standard library; tests/store/test_payload.py checks the two agree)."""
        return f"{self.document_id}:{self.version_id}:{self.chunk_index}"

    @property
    def version_key(self) -> tuple[str, str]:
        return (self.document_id, self.version_id)

    def tie_key(self) -> tuple[str, str, int]:
        """Stable tie-break: by chunk id (document, version, then chunk index as a number)."""
        return (self.document_id, self.version_id, self.chunk_index)


@dataclass(frozen=True)
class LaneResult:
    """A lane's ranked, floor-passed hits; every chunk it fetched, in rank order, before the
    floor (explain's counts, diagnosis's ranks); its floor and its fetch depth."""

    lane: str
    hits: tuple[Candidate, ...]
    fetched_ids: tuple[str, ...]
    depth: int
    floor: float
    # under exact filters: what the lane fetched without them, the order its ranks keep
    unfiltered_ids: tuple[str, ...] | None = None
    # where the floor came from: "chance" (this query's chance score, app/search/chance.py),
    # "minimum" (the stated minimum was higher) or "fixed"; and the chance score itself
    floor_from: str = "fixed"
    chance: float | None = None
    # the dense lane: of its first candidates, how many its stored sentence vectors scored
    # (app/search/lane_rescore.with_sentence_scores); None where sentences were not asked
    sentence_scored: int | None = None

    @property
    def ranked_ids(self) -> tuple[str, ...]:
        """The order the lane's ranks come from (unfiltered where filters narrowed it)."""
        return self.unfiltered_ids if self.unfiltered_ids is not None else self.fetched_ids

    @property
    def fetched(self) -> int:
        return len(self.fetched_ids)

    @property
    def exhausted(self) -> bool:
        """True when nothing eligible was left beyond the depth: the engine returned fewer
        than asked, or the floor already cut the tail (hits come in score order)."""
        return self.fetched < self.depth or len(self.hits) < self.fetched


@dataclass(frozen=True)
class VersionHit:
    """One Document Version and its matching chunks, best first. ``evidence`` (≤ MAX_EVIDENCE
    chunks) is filled by the evidence stage (grouping.with_evidence) for the shown page only."""

    document_id: str
    version_id: str
    chunks: tuple[Candidate, ...]
    evidence: tuple[Candidate, ...] = ()
    # the version's best chunk for query words its best chunks lack (pipeline.with_parts):
    # what the evidence may cite beside them, outside the row's ranking
    parts: tuple[Candidate, ...] = ()

    @property
    def best(self) -> Candidate:
        return self.chunks[0]

    @property
    def total(self) -> int:
        return len(self.chunks)

    @property
    def truncated(self) -> bool:
        return self.total > len(self.evidence)


@dataclass(frozen=True)
class LaneFailure:
    """A lane (or the rerank stage) that was asked for and did not answer: the search went on
    without it, so the answer is partial."""

    lane: str  # dense | sparse | rerank
    code: str  # stable: EMBEDDING_TIMEOUT, RERANKER_UNAVAILABLE, …
    message: str


@dataclass
class Trace:
    """Per-step milliseconds and warnings of one search (mutable: filled as stages run)."""

    timings: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    lanes: list[LaneResult] = field(default_factory=list)  # the last pass's
    degradations: list[str] = field(default_factory=list)  # names of what fell back (metrics)
    failures: list[LaneFailure] = field(default_factory=list)  # what was asked and not done

    def degrade(self, lane: str, code: str, message: str, reason: str | None = None) -> None:
        """Record a lane that did not answer: a failure for the status, a warning for the
        person reading, and the degradation's name for metrics."""
        self.failures.append(LaneFailure(lane, code, message))
        self.warnings.append(message)
        if reason:
            self.degradations.append(reason)
