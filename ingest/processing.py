"""The CPU work of ingestion — extract, chunk, embed, find entities — in this process or in a
child process.

Why a child: extraction, chunking (the SentenceSplitter's Python and regex work), BM25
tokenising and spaCy are pure Python and hold the interpreter; run in the serving process they
froze every request while a large document was read. In a child process (started with
``spawn``, niced so the scheduler prefers the API) they cannot. The engine writes and registry
transactions stay with the worker in the serving process, where the embedded engine's folder
lock requires them. A child that dies (killed, out of memory) is started again for the next
call; the job in hand sees ``BrokenProcessPool``, a failure that can pass, and is retried.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from app.errors import ExtractionError, ServiceError
from app.limits import OcrBounds
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


# A long step's progress: (done, total) pages while extracting; (done,) chunks while embedding
OnPages = Callable[[int, int], None]
OnChunks = Callable[[int], None]


def prepared_to_json(prepared: Prepared) -> dict[str, Any]:
    """What a checkpoint keeps of a long extraction, so a resumed job does not read the file
    again (an e-mail's attachments are not kept: such a job extracts again)."""
    return {"chunks": [asdict(c) for c in prepared.chunks], "title": prepared.title,
            "page_count": prepared.page_count, "char_count": prepared.char_count,
            "warnings": list(prepared.warnings), "extra": dict(prepared.extra),
            "quality": dict(prepared.quality)}


def prepared_from_json(data: dict[str, Any]) -> Prepared:
    chunks = [Chunk(**{**c, "heading_path": tuple(c["heading_path"])}) for c in data["chunks"]]
    return Prepared(chunks=chunks, title=data["title"], page_count=data["page_count"],
                    char_count=data["char_count"], warnings=list(data["warnings"]),
                    extra=dict(data["extra"]), quality=dict(data["quality"]))


class Processor(Protocol):
    def prepare(self, kind: str, content: bytes, filename: str,
                on_progress: OnPages | None = None) -> Prepared: ...

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: OnChunks | None = None) -> EmbeddedBatch: ...

    def close(self) -> None: ...


class InProcess:
    """The work in the calling thread (tests, and where no child is wanted)."""

    def __init__(self, chunker: Chunker, embedder: BatchEmbedder,
                 ocr: OcrBounds | None = None) -> None:
        self.chunker, self.embedder, self.ocr = chunker, embedder, ocr or OcrBounds()

    def prepare(self, kind: str, content: bytes, filename: str,
                on_progress: OnPages | None = None) -> Prepared:
        t0 = time.perf_counter()
        try:
            extracted = extract(kind, content, filename, on_page=on_progress, ocr=self.ocr)
        except (ServiceError, MemoryError):
            raise
        except Exception as exc:  # noqa: BLE001 - a parser's own error: the file's fault
            # as a reason a person can act on, and one that crosses the process boundary
            # (lxml's XMLSyntaxError carries an error log that cannot be pickled)
            raise ExtractionError(f"{filename} could not be read: {type(exc).__name__}: "
                                  f"{str(exc)[:300]}", code="EXTRACTION_FAILED") from None
        t1 = time.perf_counter()
        chunks = self.chunker.chunk(extracted, filename)
        return Prepared(chunks=chunks, title=extracted.title, page_count=extracted.page_count,
                        char_count=sum(len(b.text) for b in extracted.blocks),
                        warnings=list(extracted.warnings), extra=dict(extracted.extra),
                        seconds={"extract": t1 - t0, "chunk": time.perf_counter() - t1},
                        quality=dict(extracted.quality),
                        attachments=list(extracted.attachments))

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: OnChunks | None = None) -> EmbeddedBatch:
        return self.embedder.embed(texts, raw_texts, on_progress)

    def close(self) -> None:
        self.embedder.close()


@dataclass(frozen=True)
class ChildSpec:
    """How the child builds its own models and chunker (it shares nothing with the parent)."""

    models_dir: Path
    batch_size: int
    threads: int | None
    chunk_size: int
    chunk_overlap: int
    max_chunks: int
    entities: bool = True
    niceness: int = 10
    ocr: OcrBounds = field(default_factory=OcrBounds)


_CHILD: dict[str, Any] = {}
# The child's progress, shared with the parent: [done, total, calls reported]. Written by the
# child only; the parent reads it while it waits (a torn read shows one report late at worst).
PROGRESS_SLOTS = 3
POLL_S = 0.5


def _report(done: int, total: int = 0) -> None:
    shared = _CHILD["progress"]
    shared[0], shared[1] = done, total
    shared[2] += 1


WATCH_PARENT_S = 1.0
PAGED_KINDS = frozenset({"pdf", "tiff", "png", "jpg"})  # extraction reports each page read


def _die_with_parent(parent: int) -> None:
    """The child exits within a second of its parent's death (a SIGKILLed server re-parents
    it to init, which is how it notices): nothing is left running, holding memory."""
    def watch() -> None:
        while True:
            time.sleep(WATCH_PARENT_S)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _start_child(spec: ChildSpec, progress: Any = None) -> None:
    """The child's initializer: watch the parent, lower priority than the API, then the
    models, once."""
    from app.models.loading import load_models
    from ingest.entities import EntityExtractor

    _die_with_parent(os.getppid())
    try:
        os.nice(spec.niceness)
    except OSError:  # not allowed here: run at the parent's priority
        pass
    models = load_models(spec.models_dir, batch_size=spec.batch_size, threads=spec.threads)
    chunker = Chunker(models.count_tokens, spec.chunk_size, spec.chunk_overlap, spec.max_chunks)
    entities = (EntityExtractor(models.spacy_path)
                if spec.entities and models.spacy_path is not None else None)
    _CHILD["work"] = InProcess(chunker, BatchEmbedder(models.dense, models.sparse, entities),
                               spec.ocr)
    _CHILD["progress"] = progress


def _prepare(kind: str, content: bytes, filename: str) -> Prepared:
    return _CHILD["work"].prepare(kind, content, filename,
                                  on_progress=_report if _CHILD["progress"] else None)


def _embed(texts: Sequence[str], raw_texts: Sequence[str]) -> EmbeddedBatch:
    return _CHILD["work"].embed(texts, raw_texts,
                                on_progress=_report if _CHILD["progress"] else None)


class ExtractionTimeout(ExtractionError):
    code = "EXTRACTION_TIMEOUT"


class ChildProcess:
    """The work in one child process, started on first use and again after it died.

    Extraction is bounded where it can be stopped: the child is killed (and a new one starts
    for the next call) when a document takes longer than ``extract_seconds``, or when a paged
    document reports no page for ``page_seconds`` — a PDF page of millions of path operators,
    say; that document's job fails with the bound in its reason, every other job goes on."""

    def __init__(self, spec: ChildSpec, extract_seconds: float = 900.0,
                 page_seconds: float = 180.0) -> None:
        self.spec = spec
        self.extract_seconds, self.page_seconds = extract_seconds, page_seconds
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        context = multiprocessing.get_context("spawn")
        self._context = context
        self._progress = context.Array("q", PROGRESS_SLOTS, lock=False)

    def _call(self, fn: Any, *args: Any, on_progress: Callable[..., None] | None = None,
              bounded: str | None = None, paged: bool = False) -> Any:
        """Run ``fn`` in the child; while it runs, pass on what the child reports. A
        ``bounded`` call (extracting the file named so) is stopped at the time bounds; a
        ``paged`` one also when no page is reported for ``page_seconds``."""
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=self._context,
                    initializer=_start_child, initargs=(self.spec, self._progress))
            pool = self._pool
        try:
            future = pool.submit(fn, *args)
            seen = self._progress[2]
            started = last_report = time.monotonic()
            while True:
                try:
                    return future.result(timeout=POLL_S if on_progress or bounded else None)
                except FutureTimeout:
                    done, total, calls = self._progress[0], self._progress[1], self._progress[2]
                    now = time.monotonic()
                    if calls != seen:
                        seen, last_report = calls, now
                        if on_progress is not None:
                            on_progress(*((done, total) if total else (done,)))
                    if bounded is not None:
                        self._stop_if_over(pool, bounded, now - started,
                                           now - last_report if paged else 0.0)
        except BrokenProcessPool:
            log.error("the ingestion child process died; a new one starts for the next call")
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise

    def _stop_if_over(self, pool: ProcessPoolExecutor, filename: str, elapsed: float,
                      since_page: float) -> None:
        if elapsed <= self.extract_seconds and since_page <= self.page_seconds:
            return
        why = (f"took more than {self.extract_seconds:g} s to read"
               if elapsed > self.extract_seconds else
               f"spent more than {self.page_seconds:g} s on one page")
        log.warning("stopping the extraction of %s: it %s", filename, why)
        with self._lock:
            if self._pool is pool:
                self._pool = None
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)
        raise ExtractionTimeout(
            f"{filename} {why} (EVIDENCE_INGEST__EXTRACT_SECONDS / __EXTRACT_PAGE_SECONDS): "
            "split it, or save it simpler (a PDF page of millions of drawing operators, say)")

    def prepare(self, kind: str, content: bytes, filename: str,
                on_progress: OnPages | None = None) -> Prepared:
        return self._call(_prepare, kind, content, filename, on_progress=on_progress,
                          bounded=filename, paged=kind in PAGED_KINDS)

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str],
              on_progress: OnChunks | None = None) -> EmbeddedBatch:
        return self._call(_embed, list(texts), list(raw_texts), on_progress=on_progress)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
