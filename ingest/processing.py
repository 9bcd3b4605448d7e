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
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ingest.chunking import Chunk, Chunker
from ingest.embedding import BatchEmbedder, EmbeddedBatch
from ingest.extract import extract

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


class Processor(Protocol):
    def prepare(self, kind: str, content: bytes, filename: str) -> Prepared: ...

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str]) -> EmbeddedBatch: ...

    def close(self) -> None: ...


class InProcess:
    """The work in the calling thread (tests, and where no child is wanted)."""

    def __init__(self, chunker: Chunker, embedder: BatchEmbedder) -> None:
        self.chunker, self.embedder = chunker, embedder

    def prepare(self, kind: str, content: bytes, filename: str) -> Prepared:
        t0 = time.perf_counter()
        extracted = extract(kind, content, filename)
        t1 = time.perf_counter()
        chunks = self.chunker.chunk(extracted, filename)
        return Prepared(chunks=chunks, title=extracted.title, page_count=extracted.page_count,
                        char_count=sum(len(b.text) for b in extracted.blocks),
                        warnings=list(extracted.warnings), extra=dict(extracted.extra),
                        seconds={"extract": t1 - t0, "chunk": time.perf_counter() - t1})

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str]) -> EmbeddedBatch:
        return self.embedder.embed(texts, raw_texts)

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


_CHILD: dict[str, InProcess] = {}


def _start_child(spec: ChildSpec) -> None:
    """The child's initializer: lower priority than the API, then the models, once."""
    from app.models.loading import load_models
    from ingest.entities import EntityExtractor

    try:
        os.nice(spec.niceness)
    except OSError:  # not allowed here: run at the parent's priority
        pass
    models = load_models(spec.models_dir, batch_size=spec.batch_size, threads=spec.threads)
    chunker = Chunker(models.count_tokens, spec.chunk_size, spec.chunk_overlap, spec.max_chunks)
    entities = (EntityExtractor(models.spacy_path)
                if spec.entities and models.spacy_path is not None else None)
    _CHILD["work"] = InProcess(chunker, BatchEmbedder(models.dense, models.sparse, entities))


def _prepare(kind: str, content: bytes, filename: str) -> Prepared:
    return _CHILD["work"].prepare(kind, content, filename)


def _embed(texts: Sequence[str], raw_texts: Sequence[str]) -> EmbeddedBatch:
    return _CHILD["work"].embed(texts, raw_texts)


class ChildProcess:
    """The work in one child process, started on first use and again after it died."""

    def __init__(self, spec: ChildSpec) -> None:
        self.spec = spec
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _call(self, fn: Any, *args: Any) -> Any:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_child, initargs=(self.spec,))
            pool = self._pool
        try:
            return pool.submit(fn, *args).result()
        except BrokenProcessPool:
            log.error("the ingestion child process died; a new one starts for the next call")
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise

    def prepare(self, kind: str, content: bytes, filename: str) -> Prepared:
        return self._call(_prepare, kind, content, filename)

    def embed(self, texts: Sequence[str], raw_texts: Sequence[str]) -> EmbeddedBatch:
        return self._call(_embed, list(texts), list(raw_texts))

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
