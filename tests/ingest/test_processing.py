"""Ingestion's CPU work in a child process (ingest/processing.py), with the real models: the
same chunks and vectors as in-process, domain errors crossing whole, a killed child replaced."""

from __future__ import annotations

import io
import os
import signal
import time
import zipfile
from concurrent.futures.process import BrokenProcessPool

import numpy as np
import pytest

from app.domain.errors import ExtractionError
from ingest.chunking import Chunker
from ingest.embedding import BatchEmbedder
from ingest.processing import ChildProcess, ChildSpec, InProcess
from tests.conftest import MODELS_DIR
from tests.factories import slow_pdf

pytestmark = pytest.mark.integration
TEXT = b"# Leave\n\nEmployees get 25 days of paid vacation. Ask Jane Doe at Acme Corp.\n"


@pytest.fixture(scope="module")
def child():  # type: ignore[no-untyped-def]
    processor = ChildProcess(ChildSpec(models_dir=MODELS_DIR, batch_size=1, threads=1,
                                       chunk_size=512, chunk_overlap=50, max_chunks=100,
                                       sentences=True))
    yield processor
    processor.close()


def test_the_child_prepares_and_embeds_as_this_process_does(child, real_models) -> None:
    here = InProcess(Chunker(real_models.count_tokens, 512, 50, 100),
                     BatchEmbedder(real_models.dense, real_models.sparse, None, sentences=True))
    theirs, ours = child.prepare("md", TEXT, "h.md"), here.prepare("md", TEXT, "h.md")
    assert theirs == ours and theirs.title == "Leave" and len(theirs.chunks) == 1
    raw = [c.text for c in theirs.chunks]
    texts = [f"Leave\n\n{t}" for t in raw]
    a, b = child.embed(texts, raw), here.embed(texts, raw)
    assert np.allclose(a.dense, b.dense, atol=1e-5) and a.sparse == b.sparse
    # the two sentences, each behind the title as the chunk was: the model's own vectors
    assert a.sentences is not None and b.sentences is not None
    assert a.sentences[0].shape == (2, 384)
    assert np.allclose(a.sentences[0], b.sentences[0], atol=1e-5)
    assert a.sentence_spans == b.sentence_spans == [[0, 39, 40, 66]]
    assert np.allclose(a.sentences[0], real_models.dense.embed_documents(
        ["Leave\n\nEmployees get 25 days of paid vacation.",
         "Leave\n\nAsk Jane Doe at Acme Corp."]), atol=1e-5)
    assert a.entities[0].get("persons") == ["Jane Doe"]  # spaCy runs in the child


def test_a_documents_error_crosses_with_its_code(child) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", "a" * (40 * 1024 * 1024))
    with pytest.raises(ExtractionError) as err:
        child.prepare("docx", buf.getvalue(), "bomb.docx")
    assert err.value.code == "DOCX_TOO_LARGE" and err.value.http_status == 422


def test_a_killed_child_fails_the_call_in_hand_and_is_replaced(child) -> None:
    child.prepare("txt", b"warm up", "a.txt")
    pid = next(iter(child._extractor.pool._processes))  # noqa: SLF001 - the test kills it on purpose
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(BrokenProcessPool):
        child.prepare("txt", b"after the kill", "b.txt")
    assert child.prepare("txt", b"a new child", "c.txt").chunks[0].text == "a new child"


def test_the_child_reports_pages_and_chunks_as_it_goes(child) -> None:
    """Live progress crosses from the child: pages while a PDF is read, chunks while a batch
    is embedded (the parent polls twice a second, so a long step reports at least once)."""
    from tests.factories import pdf_bytes

    pages: list[tuple[int, ...]] = []
    words = " ".join(f"word{i}" for i in range(60))
    pdf = pdf_bytes([f"Page {n}: {words}" for n in range(1, 91)])
    prepared = child.prepare("pdf", pdf, "long.pdf", on_progress=lambda *a: pages.append(a))
    assert prepared.page_count == 90
    # (0, 0) until the child has counted the pages (a busy machine polls before that)
    assert pages and all((done, total) == (0, 0) or (total == 90 and 0 <= done <= 90)
                         for done, total in pages)
    assert any(total == 90 for _, total in pages)
    assert [d for d, _ in pages] == sorted(d for d, _ in pages)
    chunks: list[tuple[int, ...]] = []
    # each text one sentence (no full stop), embedded twice: as the chunk and as its sentence
    texts = [f"{words} {i}" * 4 for i in range(24)]
    embedded = child.embed(texts, texts, on_progress=lambda *a: chunks.append(a))
    assert len(embedded.sparse) == 24 and embedded.sentences is not None
    assert [len(v) for v in embedded.sentences] == [1] * 24
    assert chunks and all(len(c) == 1 and c[0] % 8 == 0 and c[0] <= 24 for c in chunks)


def test_in_process_extraction_reports_every_page(real_models) -> None:
    from tests.factories import pdf_bytes

    here = InProcess(Chunker(real_models.count_tokens, 512, 50, 100),
                     BatchEmbedder(None, real_models.sparse, None))
    pages: list[tuple[int, int]] = []
    here.prepare("pdf", pdf_bytes(["one", "two", "three"]), "p.pdf",
                 on_progress=lambda d, t: pages.append((d, t)))
    assert pages == [(0, 3), (1, 3), (2, 3), (3, 3)]  # the count first


def _laughs_docx() -> bytes:
    """A DOCX whose body is the billion-laughs entity bomb."""
    lol = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
           + "".join(f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
                     for i in range(1, 10))
           + ']><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/'
           'main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.'
                   'openxmlformats.org/package/2006/content-types"><Override PartName="/word/'
                   'document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                   'wordprocessingml.document.main+xml"/></Types>')
        z.writestr("_rels/.rels", '<?xml version="1.0"?><Relationships xmlns="http://schemas.'
                   'openxmlformats.org/package/2006/relationships"><Relationship Id="r1" Type="'
                   'http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                   'officeDocument" Target="word/document.xml"/></Relationships>')
        z.writestr("word/document.xml", lol)
    return buf.getvalue()


def test_a_parsers_own_error_crosses_as_a_reason_not_a_pickling_error(child) -> None:
    with pytest.raises(ExtractionError) as err:
        child.prepare("docx", _laughs_docx(), "laughs.docx")
    assert "laughs.docx" in err.value.message and "pickle" not in err.value.message
    assert err.value.permanent


def test_a_slow_page_and_a_slow_document_stop_at_their_bounds_and_the_next_call_works() -> None:
    import time

    from ingest.processing import ExtractionTimeout

    bounded = ChildProcess(ChildSpec(models_dir=MODELS_DIR, batch_size=1, threads=1,
                                     chunk_size=512, chunk_overlap=50, max_chunks=100,
                                     entities=False), extract_seconds=600, page_seconds=1.5)
    try:
        bounded.prepare("txt", b"warm up", "a.txt")
        t0 = time.monotonic()
        with pytest.raises(ExtractionTimeout) as err:
            bounded.prepare("pdf", slow_pdf(), "slow.pdf", on_progress=lambda *a: None)
        assert time.monotonic() - t0 < 10
        assert "slow.pdf spent more than 1.5 s on one page" in err.value.message
        assert err.value.permanent
        assert bounded.prepare("txt", b"after the stop", "b.txt").chunks[0].text == (
            "after the stop")  # a new child
        bounded.extract_seconds, bounded.page_seconds = 1.0, 600
        with pytest.raises(ExtractionTimeout) as err:
            bounded.prepare("pdf", slow_pdf(), "slow.pdf")
        assert "took more than 1 s to read" in err.value.message
    finally:
        bounded.close()


def _bounded_child(**bounds: float) -> ChildProcess:
    return ChildProcess(ChildSpec(models_dir=MODELS_DIR, batch_size=1, threads=1,
                                  chunk_size=512, chunk_overlap=50, max_chunks=100,
                                  entities=False), **bounds)


@pytest.mark.slow
def test_a_long_extraction_detaches_and_the_next_call_gets_an_extraction_child_of_its_own(
        ) -> None:
    """The caller is let go while the slow file goes on being read; a one-line file is read
    meanwhile by a new extraction child; resuming gives the slow file's text; its child then
    exits."""
    from ingest.processing import DETACHED_NICENESS, ExtractionDetached

    processor = _bounded_child(extract_seconds=600, page_seconds=600)
    asked: list[float] = []
    try:
        processor.prepare("txt", b"warm up", "a.txt")
        with pytest.raises(ExtractionDetached) as err:
            processor.prepare("pdf", slow_pdf(200_000, "Quarterly ledger"), "slow.pdf",
                              detach=lambda s: bool(asked.append(s)) or s >= 0.5)
        pending = err.value.pending
        assert asked[-1] >= 0.5 and all(s < 0.5 for s in asked[:-1])
        assert not pending.outcome.done()
        small = processor.prepare("txt", b"meanwhile", "b.txt")
        assert small.chunks[0].text == "meanwhile"
        assert not pending.outcome.done()  # read by another child, not after the slow one
        assert pending.child is not processor._extractor  # noqa: SLF001
        [process] = pending.child.pool._processes.values()  # noqa: SLF001
        # the detached child yields the CPU to every other child (those run at 10)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == DETACHED_NICENESS == 19
        [fresh] = processor._extractor.pool._processes.values()  # noqa: SLF001
        assert os.getpriority(os.PRIO_PROCESS, fresh.pid) == 10
        slow = processor.resume(pending, detach=lambda s: False)
        assert [c.text for c in slow.chunks] == ["Quarterly ledger"]
        deadline = time.monotonic() + 10
        while process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not process.is_alive()  # the detached child is gone
    finally:
        processor.close()


def test_a_detached_extraction_still_stops_at_its_bound_though_no_one_waits() -> None:
    from ingest.processing import ExtractionDetached, ExtractionTimeout

    processor = _bounded_child(extract_seconds=1.0, page_seconds=600)
    try:
        with pytest.raises(ExtractionDetached) as err:
            processor.prepare("pdf", slow_pdf(), "slow.pdf", detach=lambda s: s >= 0.2)
        pending = err.value.pending
        deadline = time.monotonic() + 10
        while not pending.outcome.done() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert isinstance(pending.outcome.exception(), ExtractionTimeout)
        with pytest.raises(ExtractionTimeout, match="took more than 1 s to read"):
            processor.resume(pending)
        # a new child serves the next call: its bound raised first, since a fresh child's
        # first file imports the chunker (over 1 s on a loaded CI box: this line once failed)
        processor.extract_seconds = 600
        assert processor.prepare("txt", b"next", "n.txt").chunks[0].text == "next"
    finally:
        processor.close()


def test_an_extraction_whose_job_is_gone_is_stopped_at_once() -> None:
    """The caller's progress call raising (its job lost: the document deleted) kills the
    extraction's child then and there, instead of leaving it to its bound; the next call gets
    a new child."""
    class Gone(Exception):
        pass

    processor = _bounded_child(extract_seconds=600, page_seconds=600)
    calls: list[tuple[int, int]] = []

    def deleted_after_two_polls(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) >= 2:
            raise Gone

    try:
        processor.prepare("txt", b"warm up", "a.txt")
        [process] = processor._extractor.pool._processes.values()  # noqa: SLF001
        started = time.monotonic()
        with pytest.raises(Gone):
            processor.prepare("pdf", slow_pdf(), "slow.pdf", on_progress=deleted_after_two_polls)
        deadline = time.monotonic() + 5
        while process.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process.is_alive() and time.monotonic() - started < 5
        assert processor.prepare("txt", b"next", "n.txt").chunks[0].text == "next"
    finally:
        processor.close()


def test_idle_children_are_released_and_started_again_by_the_next_job() -> None:
    import time

    processor = ChildProcess(ChildSpec(models_dir=MODELS_DIR, batch_size=1, threads=1,
                                       chunk_size=512, chunk_overlap=50, max_chunks=100,
                                       sentences=True))
    try:
        prepared = processor.prepare("md", TEXT, "h.md")
        texts = [c.text for c in prepared.chunks]
        processor.embed(texts, texts)
        pids = processor.child_pids()
        assert len(pids) == 2
        assert processor.release_idle(60.0) == []  # used a moment ago: kept
        time.sleep(0.3)
        assert processor.release_idle(0.2) == ["extractor", "embedder"]
        assert processor.child_pids() == []
        deadline = time.monotonic() + 30
        while any(os.path.exists(f"/proc/{pid}") and "zombie" not in open(
                f"/proc/{pid}/status").read() for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(os.path.exists(f"/proc/{pid}") and "zombie" not in open(
            f"/proc/{pid}/status").read() for pid in pids)  # their memory is given back
        again = processor.prepare("md", TEXT, "again.md")  # the next job starts one again
        assert again.chunks and len(processor.child_pids()) == 1
    finally:
        processor.close()


def test_the_bounds_count_the_childs_work_and_the_wall_only_far_looser() -> None:
    """A page's 180 s bound (and the file's) is CPU seconds of the child: waiting for the CPU
    at the lowest priority does not count; the wall stops it only at WALL_SLACK times the
    bound (a child hanging without working). Clocks are (CPU, wall) seconds."""
    from ingest.processing import WALL_SLACK, _over_bounds

    owner = _bounded_child(extract_seconds=900, page_seconds=180)
    start = (0.0, 0.0)
    assert _over_bounds(owner, start, start, (179.0, 1400.0), paged=True) is None  # waited
    assert _over_bounds(owner, start, start, (181.0, 200.0), paged=True) == (
        "spent more than 180 s on one page")
    assert _over_bounds(owner, start, start, (181.0, 200.0), paged=False) is None  # unpaged
    assert _over_bounds(owner, start, (100.0, 100.0), (279.0, 300.0), paged=True) is None
    assert WALL_SLACK == 8.0
    stalled = _over_bounds(owner, start, start, (5.0, 180 * 8 + 1), paged=True)
    assert stalled == "spent more than 180 s on one page (of the wall, ×8)"
    assert _over_bounds(owner, start, start, (5.0, 180 * 8 - 1), paged=True) is None
    assert _over_bounds(owner, start, start, (901.0, 901.0), paged=False) == (
        "took more than 900 s to read")


def test_a_childs_cpu_seconds_grow_with_its_work() -> None:
    processor = _bounded_child()
    try:
        processor.prepare("txt", b"warm up", "a.txt")
        child = processor._extractor  # noqa: SLF001
        before = child.cpu_seconds()
        assert before is not None and before > 0  # its imports
        for _ in range(50):  # the count moves by clock ticks (10 ms): work until it does
            processor.prepare("txt", ("A sentence of the ledger. " * 150).encode(), "b.txt")
            if child.cpu_seconds() > before:
                break
        assert child.cpu_seconds() > before
    finally:
        processor.close()
