"""The CPU work of ingestion — extract, chunk, embed, find entities — in this process or in
child processes.

Why children: extraction, chunking (the SentenceSplitter's Python and regex work), BM25
tokenising and spaCy are pure Python and hold the interpreter; run in the serving process they
froze every request while a large document was read. In child processes (started with
``spawn``, niced so the scheduler prefers the API) they cannot. Two of them: extraction (the
untrusted file's parsers and OCR; no models, so it starts in about a second) and embedding (the
models, kept warm). An extraction that runs long while another client waits is detached — it
keeps its child, a new extraction child serves the next job — so one slow file never holds the
queue. The engine writes and registry transactions stay with the worker in the serving process,
where the embedded engine's folder lock requires them. A child that dies (killed, out of
memory) is started again for the next call; the job in hand sees ``BrokenProcessPool``, a
failure that can pass, and is retried."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from app.documents.boxes import align
from app.documents.near_duplicates import signature
from app.domain.errors import ExtractionError, ServiceError
from app.domain.limits import OcrBounds
from app.models.languages import document_language
from app.ops.lifeline import bind_to_parent, in_spawner_thread
from ingest.chunking import Chunk, Chunker
from ingest.embedding import BatchEmbedder, EmbeddedBatch
from ingest.extract import extract
from ingest.extract.types import Attachment

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """What extraction and chunking learned about a version, without its blocks."""

    chunks: list[Chunk]
    title: str | None
    page_count: int | None
    char_count: int
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict, compare=False)  # metrics
    quality: dict[str, Any] = field(default_factory=dict)  # canonical_metadata.quality's facts
    attachments: list[Attachment] = field(default_factory=list, compare=False)  # an e-mail's
    # its MinHash signature (app/documents/near_duplicates.py), made here, in the child
    minhash: list[int] | None = None
    # {chunk index: its words' spans and page boxes} of a paged document (app/documents/boxes)
    boxes: dict[int, list[list[int]]] = field(default_factory=dict)


# A long step's progress: (done, total) pages while extracting; (done,) chunks while embedding
OnPages = Callable[[int, int], None]
OnChunks = Callable[[int], None]


def prepared_to_json(prepared: Prepared) -> dict[str, Any]:
    """What a checkpoint keeps of a long extraction, so a resumed job does not read the file
    again (an e-mail's attachments are not kept: such a job extracts again)."""
    return {"chunks": [asdict(c) for c in prepared.chunks], "title": prepared.title,
            "page_count": prepared.page_count, "char_count": prepared.char_count,
            "warnings": list(prepared.warnings), "extra": dict(prepared.extra),
            "quality": dict(prepared.quality), "minhash": prepared.minhash,
            "boxes": {str(k): v for k, v in prepared.boxes.items()}}


def prepared_from_json(data: dict[str, Any]) -> Prepared:
    chunks = [Chunk(**{**c, "heading_path": tuple(c["heading_path"])}) for c in data["chunks"]]
    return Prepared(chunks=chunks, title=data["title"], page_count=data["page_count"],
                    char_count=data["char_count"], warnings=list(data["warnings"]),
                    extra=dict(data["extra"]), quality=dict(data["quality"]),
                    minhash=data.get("minhash"),
                    boxes={int(k): v for k, v in (data.get("boxes") or {}).items()})


class ExtractionDetached(Exception):  # noqa: N818 - a control-flow signal, not an error
    """An extraction ran long while other work waited: it goes on in a child of its own (the
    pending extraction), and the caller is free to serve other jobs meanwhile."""

    def __init__(self, pending: PendingExtraction) -> None:
        super().__init__("extraction detached")
        self.pending = pending


# Asked, while an extraction runs, with the seconds it has run: whether to detach it
Detach = Callable[[float], bool]


class Processor(Protocol):
    def prepare(self, kind: str, content: bytes, filename: str,
                on_progress: OnPages | None = None, detach: Detach | None = None) -> Prepared:
        """Extract and chunk; may raise ExtractionDetached when ``detach`` says so."""

    def resume(self, pending: PendingExtraction, on_progress: OnPages | None = None,
               detach: Detach | None = None) -> Prepared:
        """Wait again for an extraction detached earlier (and detach it again if asked)."""

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: OnChunks | None = None,
              known_persons: Sequence[str] = (), language: str = "en") -> EmbeddedBatch: ...

    def close(self) -> None: ...

    def release_idle(self, idle_s: float) -> list[str]: ...

    def child_pids(self) -> list[int]:
        """The processes doing this work besides the caller's (benchmarks read their CPU)."""
        ...


def prepare_version(chunker: Chunker, ocr: OcrBounds, kind: str, content: bytes, filename: str,
                    on_progress: OnPages | None = None) -> Prepared:
    """Extract and chunk one version's file (wherever it runs: here or in the child)."""
    t0 = time.perf_counter()
    try:
        extracted = extract(kind, content, filename, on_page=on_progress, ocr=ocr)
    except (ServiceError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - a parser's own error: the file's fault
        # as a reason a person can act on, and one that crosses the process boundary
        # (lxml's XMLSyntaxError carries an error log that cannot be pickled)
        raise ExtractionError(f"{filename} could not be read: {type(exc).__name__}: "
                              f"{str(exc)[:300]}", code="EXTRACTION_FAILED") from None
    t1 = time.perf_counter()
    chunks = chunker.chunk(extracted, filename)
    t2 = time.perf_counter()
    minhash = signature([b.text for b in extracted.blocks])
    # the document's language (app/models/languages.py): canonical_metadata.document.language,
    # and each chunk's own unless it is surely another (the embedder decides)
    language = document_language("\n".join(b.text for b in extracted.blocks[:400]))
    boxes = {c.chunk_index: found for c in chunks
             if (found := align(c.text, c.page, extracted.page_words))}
    return Prepared(chunks=chunks, title=extracted.title, page_count=extracted.page_count,
                    char_count=sum(len(b.text) for b in extracted.blocks),
                    warnings=list(extracted.warnings),
                    extra={**extracted.extra, "language": language},
                    seconds={"extract": t1 - t0, "chunk": t2 - t1,
                             "minhash": time.perf_counter() - t2},
                    quality=dict(extracted.quality), attachments=list(extracted.attachments),
                    minhash=minhash, boxes=boxes)


class InProcess:
    """The work in the calling thread (tests, and where no child is wanted); an extraction
    here cannot be detached, so ``detach`` is never asked."""

    def __init__(self, chunker: Chunker, embedder: BatchEmbedder,
                 ocr: OcrBounds | None = None) -> None:
        self.chunker, self.embedder, self.ocr = chunker, embedder, ocr or OcrBounds()

    def prepare(self, kind: str, content: bytes, filename: str,
                on_progress: OnPages | None = None, detach: Detach | None = None) -> Prepared:
        return prepare_version(self.chunker, self.ocr, kind, content, filename, on_progress)

    def resume(self, pending: PendingExtraction, on_progress: OnPages | None = None,
               detach: Detach | None = None) -> Prepared:
        raise AssertionError("an in-process extraction is never detached")

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: OnChunks | None = None,
              known_persons: Sequence[str] = (), language: str = "en") -> EmbeddedBatch:
        return self.embedder.embed(texts, raw_texts, on_progress, known_persons, language)

    def close(self) -> None:
        self.embedder.close()

    def release_idle(self, idle_s: float) -> list[str]:
        return []  # no child: the models are the process's own

    def child_pids(self) -> list[int]:
        return []


@dataclass(frozen=True)
class ChildSpec:
    """How the children build their own models and chunker (they share nothing with the
    parent)."""

    models_dir: Path
    batch_size: int
    threads: int | None
    chunk_size: int
    chunk_overlap: int
    max_chunks: int
    entities: bool = True
    sentences: bool = False  # embed each chunk's sentences too (the collection keeps them)
    pooling: str = "separate"  # how (ingest/embedding.POOLINGS)
    niceness: int = 10
    ocr: OcrBounds = field(default_factory=OcrBounds)


_CHILD: dict[str, Any] = {}
# A child's progress, shared with the parent: [done, total, calls reported]. Written by the
# child only; the parent reads it while it waits (a torn read shows one report late at worst).
PROGRESS_SLOTS = 3
POLL_S = 0.5
WATCH_PARENT_S = 1.0
PAGED_KINDS = frozenset({"pdf", "tiff", "png", "jpg"})  # extraction reports each page read
# Extractions detached at once (each holds a child of ~0.2 GB until it ends); beyond this a
# long extraction keeps the worker, as it did before extractions could be detached
MAX_DETACHED = 2
# A detached extraction's child is lowered from the children's niceness (10) to the lowest: on
# two cores a new child for the job that waited shared them with two detached extractions as an
# equal (issue 47); at 19 the scheduler gives the others ~7 times its share
DETACHED_NICENESS = 19
# The extraction bounds are CPU seconds of the child; the wall may run this many times longer
# (a child at the lowest priority on busy cores gets ~1/8 of a core) before it is stopped too
WALL_SLACK = 8.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _report(done: int, total: int = 0) -> None:
    shared = _CHILD["progress"]
    shared[0], shared[1] = done, total
    shared[2] += 1


def _die_with_parent() -> None:
    """Besides the death signal asked for at the child's first import (app/ops/lifeline.py, Linux):
    the child exits within a second of its parent's death, noticed by its re-parenting. The
    parent is the one multiprocessing recorded, never ``getppid()`` now, which is already
    init's when the parent died while this child was starting."""
    bind_to_parent()
    recorded = multiprocessing.parent_process()
    parent = recorded.pid if recorded is not None and recorded.pid else os.getppid()
    if os.getppid() != parent:
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(WATCH_PARENT_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _settle_child(spec: ChildSpec, progress: Any) -> None:
    _die_with_parent()
    try:
        os.nice(spec.niceness)
    except OSError:  # not allowed here: run at the parent's priority
        pass
    _CHILD["progress"] = progress


def _start_extractor(spec: ChildSpec, progress: Any = None) -> None:
    """An extraction child's initializer: parsers, OCR and the dense model's tokenizer (to
    count chunk tokens), no models — it starts in about a second, so one can be replaced
    quickly while another goes on with a long document."""
    from app.models.loading import load_token_counter

    _settle_child(spec, progress)
    _CHILD["chunker"] = Chunker(load_token_counter(spec.models_dir), spec.chunk_size,
                                spec.chunk_overlap, spec.max_chunks)
    _CHILD["ocr"] = spec.ocr


def _start_embedder(spec: ChildSpec, progress: Any = None) -> None:
    """The embedding child's initializer: the models, once."""
    from app.models.loading import load_models
    from ingest.entities import EntityExtractor

    _settle_child(spec, progress)
    models = load_models(spec.models_dir, batch_size=spec.batch_size, threads=spec.threads)
    entities = (EntityExtractor(models.spacy_path)
                if spec.entities and models.spacy_path is not None else None)
    _CHILD["embedder"] = BatchEmbedder(models.dense, models.sparse, entities,
                                       sentences=spec.sentences, pooling=spec.pooling)


def _prepare(kind: str, content: bytes, filename: str) -> Prepared:
    _report(0)  # begun: the bounds count from here, not from a new child's start-up
    return prepare_version(_CHILD["chunker"], _CHILD["ocr"], kind, content, filename,
                           on_progress=_report)


def _embed(texts: Sequence[str], raw_texts: Sequence[str],
           known_persons: Sequence[str] = (), language: str = "en") -> EmbeddedBatch:
    return _CHILD["embedder"].embed(texts, raw_texts, on_progress=_report,
                                    known_persons=known_persons, language=language)


class ExtractionTimeout(ExtractionError):
    code = "EXTRACTION_TIMEOUT"


class _Child:
    """One child process (a pool of one) and the array it reports its progress in."""

    def __init__(self, context: Any, initializer: Callable[..., None], spec: ChildSpec) -> None:
        self.progress = context.Array("q", PROGRESS_SLOTS, lock=False)
        self.pool = ProcessPoolExecutor(max_workers=1, mp_context=context,
                                        initializer=initializer, initargs=(spec, self.progress))
        # started now, from the one thread that starts children: the death signal is tied to
        # the starting thread, and a worker's thread may end before its child is done with
        in_spawner_thread(lambda: self.pool.submit(os.getpid))

    def reported(self) -> tuple[int, int, int]:
        return self.progress[0], self.progress[1], self.progress[2]

    def kill(self) -> None:
        for process in list((getattr(self.pool, "_processes", None) or {}).values()):
            process.kill()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def close(self, wait: bool = True) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=True)

    def pids(self) -> list[int]:
        return [p.pid for p in list((getattr(self.pool, "_processes", None) or {}).values())
                if p.pid is not None]

    def cpu_seconds(self) -> float | None:
        """CPU seconds the child (and the programs it ran and waited for: Tesseract) has
        used, from /proc; None where the system cannot say."""
        total, pids = 0.0, self.pids()
        if not pids:
            return None
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                return None
            total += sum(int(f) for f in fields[11:15]) / CLOCK_TICKS  # utime … cstime
        return total

    def lower_priority(self, niceness: int) -> None:
        """Make the child yield the CPU to every other child (a detached extraction: the
        work that waited on it runs first wherever the cores are short)."""
        for pid in self.pids():
            try:
                os.setpriority(os.PRIO_PROCESS, pid, niceness)
            except OSError:  # ended meanwhile: nothing left to lower
                pass


def _over_bounds(owner: ChildProcess, start: tuple[float, float],
                 last_report: tuple[float, float], now: tuple[float, float],
                 paged: bool) -> str | None:
    """Why an extraction should stop, or None: its work (CPU seconds) past a bound, or its
    wall time past ``WALL_SLACK`` times one. Each clock is (work, wall)."""
    work = owner.over_bounds(now[0] - start[0], now[0] - last_report[0] if paged else 0.0)
    if work is not None:
        return work
    stalled = owner.over_bounds((now[1] - start[1]) / WALL_SLACK,
                                (now[1] - last_report[1]) / WALL_SLACK if paged else 0.0)
    return None if stalled is None else f"{stalled} (of the wall, ×{WALL_SLACK:g})"


class PendingExtraction:
    """One extraction running in an extraction child, watched by a thread of its own that
    stops it at the time bounds — so the bounds hold whether or not anyone waits on it.
    ``outcome`` is resolved with the Prepared or the error."""

    def __init__(self, owner: ChildProcess, child: _Child, filename: str, paged: bool,
                 submitted: Future, reports_before: int) -> None:
        self.owner, self.child, self.filename, self.paged = owner, child, filename, paged
        self._reports_before = reports_before  # the child's count before this was submitted
        self.outcome: Future = Future()
        self.started = time.monotonic()
        self.detached = False
        self._by_cpu: bool | None = None
        self._cpu = 0.0
        self._submitted = submitted
        threading.Thread(target=self._watch, name=f"extract:{filename[:40]}",
                         daemon=True).start()

    def seconds(self) -> float:
        return time.monotonic() - self.started

    def pages(self) -> tuple[int, int]:
        done, total, _ = self.child.reported()
        return done, total

    def _clock(self) -> tuple[float, float]:
        """(the child's CPU seconds — wall seconds where the system cannot say, decided once —
        and wall seconds)."""
        now = time.monotonic()
        if self._by_cpu is None:
            self._by_cpu = self.child.cpu_seconds() is not None
        if not self._by_cpu:
            return now, now
        cpu = self.child.cpu_seconds()
        if cpu is not None:  # a child gone between two reads keeps its last count
            self._cpu = cpu
        return self._cpu, now

    def _watch(self) -> None:
        """The bounds count the child's CPU seconds, not the wall's: a detached extraction
        at the lowest priority on busy cores waits for the CPU (a page that took 90 s alone
        passed 180 s of wall and was stopped as hopeless); the wall, ``WALL_SLACK`` times
        looser, still stops a child that hangs without working."""
        seen, begun = self._reports_before, False
        last_report = start = self._clock()
        while True:
            try:
                result = self._submitted.result(timeout=POLL_S)
            except FutureTimeout:
                now = self._clock()
                calls = self.child.reported()[2]
                if calls != seen:
                    seen, last_report = calls, now
                    if not begun:  # the child's first report: its start-up is not the file's
                        begun, start, self.started = True, now, now[1]
                why = _over_bounds(self.owner, start, last_report, now,
                                   self.paged) if begun else None
                if why is None:
                    continue
                log.warning("stopping the extraction of %s: it %s", self.filename, why)
                self.owner.settle(self, killed=True)
                self.outcome.set_exception(ExtractionTimeout(
                    f"{self.filename} {why} (EVIDENCE_INGEST__EXTRACT_SECONDS / "
                    "__EXTRACT_PAGE_SECONDS): split it, or save it simpler (a PDF page of "
                    "millions of drawing operators, say)"))
                return
            except BrokenProcessPool as exc:
                log.error("the extraction child died; a new one starts for the next call")
                self.owner.settle(self, killed=True)
                self.outcome.set_exception(exc)
                return
            except BaseException as exc:  # noqa: BLE001 - the document's own error, passed on
                self.owner.settle(self, killed=False)
                self.outcome.set_exception(exc)
                return
            self.owner.settle(self, killed=False)
            self.outcome.set_result(result)
            return

    def cancel(self) -> None:
        """Stop it (its job was lost or the worker stops)."""
        self.owner.settle(self, killed=True)


class ChildProcess:
    """The work in child processes: one for extraction and chunking, one for embedding, each
    started on first use and again after it died.

    Extraction is bounded where it can be stopped: its child is killed (and a new one starts
    for the next call) when a document takes longer than ``extract_seconds``, or when a paged
    document reports no page for ``page_seconds`` — a PDF page of millions of path operators,
    say; that document's job fails with the bound in its reason, every other job goes on.

    And it can be detached: when the caller's ``detach`` says so (another client's job waits),
    the running extraction keeps its child, a fresh extraction child serves the next call, and
    the caller gets ExtractionDetached with the pending extraction to ``resume`` later."""

    def __init__(self, spec: ChildSpec, extract_seconds: float = 900.0,
                 page_seconds: float = 180.0) -> None:
        self.spec = spec
        self.extract_seconds, self.page_seconds = extract_seconds, page_seconds
        self._context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._extractor: _Child | None = None
        self._embedder: _Child | None = None
        self._detached: set[PendingExtraction] = set()
        # calls running in each child, and when each was last used: idle children are
        # released (release_idle), their models' memory with them
        self._active = {"extractor": 0, "embedder": 0}
        self._last_used = {"extractor": time.monotonic(), "embedder": time.monotonic()}

    @contextmanager
    def _using(self, role: str) -> Iterator[None]:
        with self._lock:
            self._active[role] += 1
        try:
            yield
        finally:
            with self._lock:
                self._active[role] -= 1
                self._last_used[role] = time.monotonic()

    def release_idle(self, idle_s: float) -> list[str]:
        """Close the children unused for ``idle_s`` seconds (a model-holding embedding child
        is ~0.8 GB): an idle server gives their memory back; the next job starts them again
        (a few seconds). Returns the roles released."""
        released: list[_Child] = []
        roles = []
        with self._lock:
            now = time.monotonic()
            for role in ("extractor", "embedder"):
                child = self._extractor if role == "extractor" else self._embedder
                if (child is None or self._active[role]
                        or now - self._last_used[role] < idle_s):
                    continue
                if role == "extractor":
                    self._extractor = None
                else:
                    self._embedder = None
                released.append(child)
                roles.append(role)
        for child in released:
            child.close(wait=False)
        if roles:
            log.info("released the idle %s child%s", " and ".join(roles),
                     "ren" if len(roles) > 1 else "")
        return roles

    def _child(self, role: str) -> _Child:
        with self._lock:
            if role == "extractor":
                if self._extractor is None:
                    self._extractor = _Child(self._context, _start_extractor, self.spec)
                return self._extractor
            if self._embedder is None:
                self._embedder = _Child(self._context, _start_embedder, self.spec)
            return self._embedder

    def over_bounds(self, elapsed: float, since_page: float) -> str | None:
        if elapsed > self.extract_seconds:
            return f"took more than {self.extract_seconds:g} s to read"
        if since_page > self.page_seconds:
            return f"spent more than {self.page_seconds:g} s on one page"
        return None

    def settle(self, pending: PendingExtraction, *, killed: bool) -> None:
        """An extraction ended (or was stopped): a killed child is replaced for the next call,
        a detached one's child is closed, the current one's is kept."""
        with self._lock:
            current = pending.child is self._extractor
            if killed and current:
                self._extractor = None
            self._detached.discard(pending)
        if killed:
            pending.child.kill()
        elif not current:
            pending.child.close(wait=False)

    def _detach(self, pending: PendingExtraction) -> bool:
        with self._lock:
            if pending.outcome.done():
                return False  # its result is there: nothing to detach
            if pending.detached:
                return True  # resumed, and detached again
            if len(self._detached) >= MAX_DETACHED:
                return False
            if pending.child is self._extractor:
                self._extractor = None
            pending.detached = True
            self._detached.add(pending)
        pending.child.lower_priority(DETACHED_NICENESS)
        log.info("%s has been read for %.1f s while other work waits: it goes on in a child "
                 "of its own", pending.filename, pending.seconds())
        return True

    def prepare(self, kind: str, content: bytes, filename: str,
                on_progress: OnPages | None = None, detach: Detach | None = None) -> Prepared:
        with self._using("extractor"):
            return self._prepare(kind, content, filename, on_progress, detach)

    def _prepare(self, kind: str, content: bytes, filename: str,
                 on_progress: OnPages | None, detach: Detach | None) -> Prepared:
        child = self._child("extractor")
        before = child.reported()[2]
        try:
            submitted = child.pool.submit(_prepare, kind, content, filename)
        except BrokenProcessPool:
            self._forget_broken("extractor", child)
            raise
        pending = PendingExtraction(self, child, filename, kind in PAGED_KINDS, submitted,
                                    before)
        return self.resume(pending, on_progress, detach)

    def resume(self, pending: PendingExtraction, on_progress: OnPages | None = None,
               detach: Detach | None = None) -> Prepared:
        while True:
            try:
                return pending.outcome.result(timeout=POLL_S)
            except FutureTimeout:
                pass
            done, total, _ = pending.child.reported()
            if on_progress is not None:
                # every poll, pages or not: the caller's heartbeat keeps the lease of a long
                # unpaged file too, and learns at once when the job is gone (its document
                # deleted) — then the extraction is stopped here, not left to its bound
                try:
                    on_progress(done, total)
                except BaseException:
                    pending.cancel()
                    raise
            if detach is not None and detach(pending.seconds()) and self._detach(pending):
                raise ExtractionDetached(pending)

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: OnChunks | None = None,
              known_persons: Sequence[str] = (), language: str = "en") -> EmbeddedBatch:
        with self._using("embedder"):
            return self._embed_in_child(texts, raw_texts, on_progress, known_persons, language)

    def _embed_in_child(self, texts: Sequence[str], raw_texts: Sequence[str],
                        on_progress: OnChunks | None, known_persons: Sequence[str] = (),
                        language: str = "en") -> EmbeddedBatch:
        child = self._child("embedder")
        try:
            future = child.pool.submit(_embed, list(texts), list(raw_texts),
                                       list(known_persons), language)
            seen = child.reported()[2]
            while True:
                try:
                    return future.result(timeout=POLL_S if on_progress else None)
                except FutureTimeout:
                    done, _, calls = child.reported()
                    if calls != seen and on_progress is not None:
                        seen = calls
                        on_progress(done)
        except BrokenProcessPool:
            log.error("the embedding child died; a new one starts for the next call")
            self._forget_broken("embedder", child)
            raise

    def _forget_broken(self, role: str, child: _Child) -> None:
        with self._lock:
            if role == "extractor" and self._extractor is child:
                self._extractor = None
            if role == "embedder" and self._embedder is child:
                self._embedder = None
        child.close(wait=False)

    def child_pids(self) -> list[int]:
        with self._lock:
            children = [c for c in (self._extractor, self._embedder) if c is not None]
        return [pid for child in children for pid in child.pids()]

    def close(self) -> None:
        with self._lock:
            children = [c for c in (self._extractor, self._embedder) if c is not None]
            detached = list(self._detached)
            self._extractor = self._embedder = None
        for pending in detached:
            pending.cancel()
        for child in children:
            child.close(wait=True)
