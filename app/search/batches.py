"""Batch search (issue 51): a list of queries — names, companies, account numbers — searched
against the client's collection as one job, every hit kept for export (CSV, JSON lines).

What the service owns here: reading a list (``read_query_list``: a text file, one query a line,
or a CSV with a ``query`` column and an optional ``name`` one), the search body the queries
share (``BatchSearch``), one query searched and recorded (``search_one``), and the runner
that works through the batches in the serving process (``BatchRunner``).

Fair share. A batch must not slow anyone's interactive searches (other clients' p50 within
1.5 × while a 1,000-query batch runs: docs/BENCHMARKS.md, issue 51). So the runner runs one
batch query at a time per process; waits until no interactive search is in flight (the search
route counts them: ``InteractiveSearches``) — at most ``MAX_YIELD_S``, so a busy server still
moves batches on; rests ``rest_ratio`` × the query's own time afterwards; and takes the
clients' batches in turn, so one client's 1,000 queries do not hold back another's ten.
"""

from __future__ import annotations

import codecs
import csv
import io
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.orm import Session

from app.domain.errors import BadRequest, ServiceError
from app.registry import search_batches as batches_registry
from app.registry.clients import key_access
from app.registry.tables import SearchBatch
from app.search.service import SearchAnswer, SearchQuery, SearchService
from app.settings import BatchSettings

log = logging.getLogger(__name__)
Render = Callable[[SearchAnswer], list[dict[str, Any]]]  # an answer's rows as export rows
LEASE_S = 120.0  # a batch's lease, renewed after every query
MAX_YIELD_S = 1.0  # the longest a batch query waits for interactive searches to finish
MAX_LIST_BYTES = 2 * 1024 * 1024
MAX_NAME_CHARS = 200
QUERY_OWN_CODES = ("INVALID_QUERY",)  # refusals of a query's words, not of the shared body
EXPORT_COLUMNS = ("query_index", "name", "query", "rank", "document_id", "version_id",
                  "filename", "page", "chunk_id", "snippet", "score")


@dataclass(frozen=True)
class BatchSearch:
    """What every query of a batch shares: the search body less its words, as the service
    reads it (stored as JSON with the batch)."""

    scope: str = "content"
    alpha: float | None = None
    rerank: bool = False
    filters: Mapping[str, Any] = field(default_factory=dict)
    limit: int = 10
    fusion: str | None = None
    versions: str = "current"
    as_of: str | None = None  # RFC 3339
    syntax: bool = True
    collapse: str = "none"
    narrowed: tuple[str, ...] | None = None  # X-Evidence-Groups as the batch was asked

    def query(self, text: str) -> SearchQuery:
        return SearchQuery(query=text, scope=self.scope, alpha=self.alpha, rerank=self.rerank,
                           filters=dict(self.filters), limit=self.limit, fusion=self.fusion,
                           versions=self.versions, syntax=self.syntax, collapse=self.collapse,
                           as_of=datetime.fromisoformat(self.as_of) if self.as_of else None)

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["filters"] = dict(self.filters)
        out["narrowed"] = list(self.narrowed) if self.narrowed is not None else None
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BatchSearch:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if known.get("narrowed") is not None:
            known["narrowed"] = tuple(known["narrowed"])
        return cls(**known)


def read_query_list(data: bytes, *, max_queries: int, max_chars: int) -> list[dict[str, Any]]:
    """[{"query", "name"?}] from an uploaded list: UTF-8 (a BOM dropped); a CSV whose first
    row names a ``query`` column (and maybe ``name``) is read as CSV, anything else one query
    a line (a company's name holds commas: "Harbor View Properties, L.L.C." is one query).
    Blank lines are skipped; each bound is a 422 naming the line."""
    if len(data) > MAX_LIST_BYTES:
        raise BadRequest(f"a query list is at most {MAX_LIST_BYTES // 1024 // 1024} MiB",
                         code="BATCH_TOO_LARGE", details={"max_bytes": MAX_LIST_BYTES})
    try:
        text = codecs.decode(data.removeprefix(codecs.BOM_UTF8), "utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(f"the query list is not UTF-8 (byte {error.start})",
                         code="INVALID_QUERY_LIST") from None
    lines = text.splitlines()
    header = next((line for line in lines if line.strip()), "")
    rows: list[dict[str, Any]] = []
    if "query" in [c.strip().lower() for c in next(csv.reader([header]), [])]:
        reader = csv.DictReader(io.StringIO(text))
        fields = {(f or "").strip().lower(): f for f in reader.fieldnames or []}
        for line, row in enumerate(reader, start=2):
            query = (row.get(fields["query"]) or "").strip()
            name = (row.get(fields["name"]) or "").strip() if "name" in fields else ""
            if query:
                rows.append({"query": query, "name": name or None, "line": line})
    else:
        rows = [{"query": line.strip(), "name": None, "line": n}
                for n, line in enumerate(lines, start=1) if line.strip()]
    return checked_queries(rows, max_queries=max_queries, max_chars=max_chars)


def checked_queries(rows: list[dict[str, Any]], *, max_queries: int, max_chars: int
                    ) -> list[dict[str, Any]]:
    """The queries' bounds: at least one, at most ``max_queries``, each ≤ ``max_chars``."""
    if not rows:
        raise BadRequest("the batch holds no query", code="BATCH_EMPTY")
    if len(rows) > max_queries:
        raise BadRequest(f"a batch holds at most {max_queries:,} queries (this one "
                         f"{len(rows):,}); EVIDENCE_BATCH__MAX_QUERIES sets it",
                         code="BATCH_TOO_LARGE", details={"max_queries": max_queries})
    for i, row in enumerate(rows):
        where = f"line {row['line']}" if row.get("line") else f"query {i}"
        if len(row["query"]) > max_chars:
            raise BadRequest(f"{where}: a query is at most {max_chars} characters",
                             code="INVALID_QUERY_LIST", details={"index": i})
        if row.get("name") and len(row["name"]) > MAX_NAME_CHARS:
            raise BadRequest(f"{where}: a name is at most {MAX_NAME_CHARS} characters",
                             code="INVALID_QUERY_LIST", details={"index": i})
    return [{"query": r["query"], "name": r.get("name")} for r in rows]


class InteractiveSearches:
    """How many interactive searches are in flight in this process (the search route counts
    them), so a batch query waits its turn behind them."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._lock:
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1

    @property
    def in_flight(self) -> int:
        return self._count

    def wait_quiet(self, limit_s: float = MAX_YIELD_S) -> None:
        deadline = time.monotonic() + limit_s
        while self._count and time.monotonic() < deadline:
            time.sleep(0.002)


def search_one(session: Session, service: SearchService, render: Render, batch: SearchBatch,
               index: int, *, refuse: bool = False) -> int:
    """The batch's query ``index`` searched as the key that made the batch sees now (its
    groups, narrowed as it was asked; nothing once the key is revoked) and recorded with its
    hits; a query the service refuses is recorded with its code, the batch goes on — unless
    ``refuse`` (the first query, searched as the batch is asked for: what the search refuses
    of the shared body is raised, only a refusal of the query's own words recorded). The
    number of hits."""
    shared = BatchSearch.from_json(batch.request)
    text = batch.queries[index]["query"]
    access = (key_access(session, key_id=batch.key_id, narrowed=list(shared.narrowed)
                         if shared.narrowed is not None else None)
              if batch.key_id is not None else None)
    if batch.key_id is not None and access is None:
        raise ServiceError("the key that made this batch was revoked", code="KEY_REVOKED")
    try:
        answer = service.answer(session, client_id=batch.client_id, query=shared.query(text),
                                **({"access": access} if access is not None else {}))
    except ServiceError as error:
        if refuse and error.code not in QUERY_OWN_CODES:
            raise
        batches_registry.record_query(session, batch_pk=batch.id, query_index=index, hits=[],
                                      total=None, error_code=error.code, error=error.message)
        return 0
    hits = render(answer)
    batches_registry.record_query(session, batch_pk=batch.id, query_index=index, hits=hits,
                                  total=answer.total, lower_bound=answer.total_is_lower_bound)
    return len(hits)


class BatchRunner:
    """Works through the active batches, one query at a time (see the module's docstring);
    several serving processes share them through each batch's lease."""

    def __init__(self, sessions: Callable[[], Session], service: SearchService,
                 settings: BatchSettings, render: Render,
                 interactive: InteractiveSearches | None = None) -> None:
        self.sessions, self.service, self.settings = sessions, service, settings
        self.render, self.interactive = render, interactive or InteractiveSearches()
        self._held: set[int] = set()
        self._last_client = ""
        self._wake = threading.Event()

    def wake(self) -> None:
        self._wake.set()

    def run_forever(self, stop: threading.Event, poll_s: float = 1.0) -> None:
        while not stop.is_set():
            try:
                worked = self.step()
            except Exception:  # noqa: BLE001 - the runner never dies of one batch
                log.exception("batch search step failed")
                worked = False
            if not worked:
                self._wake.wait(poll_s)
                self._wake.clear()

    def run_until_idle(self, max_steps: int = 100_000) -> int:
        """Every active batch to its end, without resting (tests, the CLI); steps taken."""
        steps = 0
        while steps < max_steps and self.step(rest=False):
            steps += 1
        return steps

    def step(self, rest: bool = True) -> bool:
        """One query of the next client's batch in turn; False when no batch is active."""
        now = datetime.now(UTC)
        with self.sessions() as session:
            batches = batches_registry.claimable(session, now=now, held=sorted(self._held))
            if not batches:
                self._held.clear()
                return False
            batch = self._next(batches)
            if not batches_registry.claim(session, batch_pk=batch.id, now=now, lease_s=LEASE_S,
                                          held=batch.id in self._held):
                session.rollback()
                self._held.discard(batch.id)
                return True
            session.commit()
            self._held.add(batch.id)
            index = batch.done
            if index >= batch.total:
                self._finish(session, batch, "done")
                return True
            self.interactive.wait_quiet()
            started = time.perf_counter()
            try:
                search_one(session, self.service, self.render, batch, index)
            except ServiceError as error:
                session.rollback()
                self._finish(session, batch, "failed", error.message)
                return True
            session.commit()
            if index + 1 >= batch.total:
                self._finish(session, batch, "done")
            took = time.perf_counter() - started
        if rest and self.settings.rest_ratio:
            time.sleep(min(took * self.settings.rest_ratio, 1.0))
        return True

    def _next(self, batches: list[SearchBatch]) -> SearchBatch:
        """The oldest batch of the first client after the one served last (in turn)."""
        clients = sorted({b.client_id for b in batches})
        after = [c for c in clients if c > self._last_client]
        client = after[0] if after else clients[0]
        self._last_client = client
        return next(b for b in batches if b.client_id == client)

    def _finish(self, session: Session, batch: SearchBatch, status: str,
                error: str | None = None) -> None:
        batches_registry.finish(session, batch_pk=batch.id, status=status, error=error)
        batches_registry.drop_oldest_finished(session, client_id=batch.client_id,
                                              keep=self.settings.keep)
        session.commit()
        self._held.discard(batch.id)


def export_rows(session: Session, batch: SearchBatch) -> Iterator[dict[str, Any]]:
    """Every query's hits as flat rows (EXPORT_COLUMNS), query by query; a query that found
    nothing (or failed) as one row without a rank, so every query of the list is there."""
    for line in export_lines(session, batch):
        base = {"query_index": line["query_index"], "name": line["name"],
                "query": line["query"]}
        for hit in line["hits"]:
            yield {**base, **hit}
        if not line["hits"]:
            error = line.get("error")
            yield {**base, **{k: None for k in EXPORT_COLUMNS if k not in base},
                   **({"error": f"{error['code']}: {error['message']}"} if error else {})}


def export_lines(session: Session, batch: SearchBatch) -> Iterator[dict[str, Any]]:
    """One JSON object per query: its outcome and its hits, in rank order."""
    outcomes = batches_registry.outcomes(session, batch_pk=batch.id)
    hits = batches_registry.hits(session, batch_pk=batch.id)
    pending = next(hits, None)
    for index in range(batch.done):
        asked, outcome = batch.queries[index], outcomes.get(index)
        found = []
        while pending is not None and pending.query_index == index:
            found.append({"rank": pending.rank, "document_id": pending.document_id,
                          "version_id": pending.version_id, "filename": pending.filename,
                          "page": pending.page, "chunk_id": pending.chunk_id,
                          "snippet": pending.snippet, "score": pending.score})
            pending = next(hits, None)
        line: dict[str, Any] = {"query_index": index, "name": asked.get("name"),
                                "query": asked["query"],
                                "status": "failed" if outcome and outcome.error_code else "ok",
                                "total": outcome.total if outcome else None,
                                "total_is_lower_bound": bool(outcome and
                                                             outcome.total_is_lower_bound),
                                "hits": found}
        if outcome is not None and outcome.error_code:
            line["error"] = {"code": outcome.error_code, "message": outcome.error}
        yield line


def csv_text(rows: Iterator[dict[str, Any]]) -> Iterator[str]:
    """CSV in pieces (a header, then a row at a time), with an ``error`` column last."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[*EXPORT_COLUMNS, "error"], extrasaction="ignore",
                            lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
        if out.tell() > 64 * 1024:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    yield out.getvalue()


def _cell(value: Any) -> Any:
    """A spreadsheet never runs a cell: a text starting =, +, - or @ is kept as text
    (OWASP's CSV injection advice: a leading apostrophe)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
