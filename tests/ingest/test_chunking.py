"""Chunks: at most 512 model tokens with the prefix, 50 overlap, offsets and lines recovered."""

from __future__ import annotations

import itertools

from app.store.payload import passage_prefix, passage_text
from ingest.chunking import SECTION_SEPARATOR, Chunker
from ingest.extract.types import Block, ExtractedText
from tests.fakes import whitespace_tokens


def _doc() -> ExtractedText:
    words = [f"word{i}." if i % 4 == 3 else f"word{i}" for i in range(1200)]
    long_text = " ".join(words)
    return ExtractedText(title="Manual", blocks=[
        Block("Short intro.", line_start=1, line_end=1, heading_path=("Intro",)),
        Block(long_text, line_start=3, line_end=40, heading_path=("Body",)),
        Block("Tail para.", line_start=42, line_end=42, heading_path=("Body",)),
    ])


def test_chunks_fit_the_budget_with_their_prefix_and_overlap() -> None:
    chunks = Chunker(whitespace_tokens, chunk_size=100, chunk_overlap=10).chunk(_doc())
    assert chunks[0].text == "Short intro." and chunks[0].heading_path == ("Intro",)
    body = [c for c in chunks if c.heading_path == ("Body",)]
    assert len(body) > 10
    for c in chunks:
        assert len(whitespace_tokens(passage_text("Manual", c.heading_path, c.text))) <= 100
    first, second = body[0].text.split(), body[1].text.split()
    assert set(first[-5:]) & set(second[:15])  # consecutive chunks overlap
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_offsets_index_the_extracted_text_and_lines_come_from_the_blocks() -> None:
    doc = _doc()
    full = SECTION_SEPARATOR.join(
        ["Short intro.", SECTION_SEPARATOR.join(b.text for b in doc.blocks[1:])])
    chunks = Chunker(whitespace_tokens, chunk_size=100, chunk_overlap=10).chunk(doc)
    for c in chunks:
        assert full[c.char_start:c.char_end] == c.text
    assert (chunks[0].line_start, chunks[0].line_end) == (1, 1)
    assert chunks[-1].text.endswith("Tail para.") and chunks[-1].line_end == 42


def test_prefix_is_title_then_headings_without_repeating_the_title() -> None:
    assert passage_prefix("Handbook", ("Handbook", "Leave")) == "Handbook > Leave"
    assert passage_text(None, (), "text") == "text"


def test_real_tokenizer_counts_past_128(real_models) -> None:  # type: ignore[no-untyped-def]
    text = " ".join(["vacation"] * 400)
    assert len(real_models.count_tokens(text)) == 400  # shipped truncation (128) is off
    chunks = Chunker(real_models.count_tokens).chunk(ExtractedText(blocks=[Block(text)]))
    assert len(chunks) == 1


def test_windows_end_at_paragraph_then_line_then_word_breaks() -> None:
    from ingest.chunking import windows

    text = "a" * 60 + "\n\n" + "b" * 30 + "\n" + "c" * 50 + " " + "d" * 200
    spans = windows(text, size=100)
    assert spans[0] == (0, 62)                       # the paragraph break at 60
    assert spans[1] == (62, 62 + 31 + 51)            # no paragraph break: the line, then word
    assert spans[-1][1] == len(text)
    assert all(b - a <= 100 for a, b in spans)
    assert "".join(text[a:b] for a, b in spans) == text
    assert windows("x" * 250, size=100) == [(0, 100), (100, 200), (200, 250)]  # hard cuts


def test_a_long_section_is_chunked_window_by_window_with_offsets_and_lines_kept() -> None:
    from ingest import chunking

    paragraphs = [f"Paragraph {i} says something about topic {i}." for i in range(3000)]
    blocks = [Block(p, line_start=2 * i + 1, line_end=2 * i + 1)
              for i, p in enumerate(paragraphs)]
    chunks = Chunker(whitespace_tokens, chunk_size=100, chunk_overlap=10).chunk(
        ExtractedText(title=None, blocks=blocks))
    section = SECTION_SEPARATOR.join(paragraphs)
    assert len(section) > 4 * chunking.WINDOW_CHARS
    for c in chunks:  # every chunk is the text at its offsets, its lines are its paragraphs'
        assert section[c.char_start:c.char_end] == c.text
        first = int(c.text.split()[1]) if c.text.startswith("Paragraph") else None
        if first is not None:
            assert c.line_start == 2 * first + 1
    assert chunks[-1].text.endswith("topic 2999.")


def test_a_document_past_the_chunk_limit_stops_early_with_a_reason() -> None:
    from app.domain.errors import ExtractionError

    words = " ".join(f"w{i}" for i in range(50_000))
    chunker = Chunker(whitespace_tokens, chunk_size=100, chunk_overlap=10, max_chunks=20)
    try:
        chunker.chunk(ExtractedText(title=None, blocks=[Block(words)]), "huge.txt")
    except ExtractionError as err:
        assert err.code == "DOCUMENT_TOO_LONG" and err.http_status == 422
        assert "huge.txt makes more than 20 chunks" in err.message
        assert "EVIDENCE_INGEST__MAX_CHUNKS" in err.message
    else:
        raise AssertionError("no limit")


def test_windows_overlap_so_a_long_section_chunks_as_if_it_were_split_whole() -> None:
    """A 111,000-character paragraph spans four 32,000-character windows; its chunks are the
    SentenceSplitter's on the whole text: no runt at a window's edge, every boundary with the
    splitter's overlap."""
    import random

    from ingest.chunking import WINDOW_CHARS

    rng = random.Random(3)
    text = " ".join(" ".join(f"w{rng.randint(0, 9999)}" for _ in range(rng.randint(5, 20)))
                    + "." for _ in range(1500))
    assert len(text) > 3 * WINDOW_CHARS
    chunker = Chunker(whitespace_tokens, chunk_size=512, chunk_overlap=50)
    chunks = chunker.chunk(ExtractedText(title=None, blocks=[Block(text, heading_path=())]))
    whole = [piece for _, piece in chunker._split(text, "", size=10 * len(text))]
    assert [c.text for c in chunks] == whole
    assert all(len(whitespace_tokens(c.text)) > 480 for c in chunks[:-1])  # no runt
    for before, after in itertools.pairwise(chunks):
        overlap = text[after.char_start:before.char_end]
        assert 0 < len(whitespace_tokens(overlap)) <= 50
        assert text[after.char_start:after.char_end] == after.text


def _table(header: str, rows: list[str]) -> ExtractedText:
    return ExtractedText(blocks=[Block(text=row, line_start=i + 2, line_end=i + 2, row=True,
                                       header=header) for i, row in enumerate(rows)])


def test_a_table_header_is_cut_after_the_last_column_within_a_quarter_chunk() -> None:
    """Both sides of the bound (a quarter of 40 tokens = 10, whitespace tokens): a header of
    10 tokens is repeated whole; of 11, cut after the last column that fits with " …"."""
    chunker = Chunker(whitespace_tokens, chunk_size=40, chunk_overlap=0)
    whole = "Columns: a | b | c | d | e"
    assert len(whitespace_tokens(whole)) == 10 and len(whitespace_tokens(whole + " f")) == 11
    [chunk] = chunker.chunk(_table(whole, ["1 | 2 | 3 | 4 | 5"]))
    assert chunk.text.split("\n")[0] == "Columns: a | b | c | d | e"
    [chunk] = chunker.chunk(_table(whole + " f", ["1 | 2 | 3 | 4 | 5"]))
    assert chunk.text.split("\n")[0] == "Columns: a | b | c | d …"  # 9 tokens with the mark
    # one column alone over the bound is cut within it
    [chunk] = chunker.chunk(_table("Columns: " + " ".join("w" * 30), ["1"]))
    assert chunk.text.split("\n")[0].endswith(" …")
    assert len(whitespace_tokens(chunk.text.split("\n")[0])) <= 10


def test_a_real_wide_export_is_indexed_its_chunks_within_the_model(real_models) -> None:  # type: ignore[no-untyped-def]
    """Unstructured's csv-with-long-lines.csv (tests/fixtures/csv/README.md): an 8,227-character
    header made the whole file fail ("Metadata length … is longer than chunk size")."""
    from pathlib import Path

    from ingest.extract import extract

    path = Path(__file__).resolve().parents[1] / "fixtures" / "csv" / "csv-with-long-lines.csv"
    extracted = extract("csv", path.read_bytes(), "wide.csv")
    assert len(extracted.blocks[0].header or "") > 8000
    chunks = Chunker(real_models.count_tokens).chunk(extracted, "wide.csv")
    assert len(chunks) > 10
    assert max(len(real_models.count_tokens(c.text)) for c in chunks) <= 512
    head = chunks[0].text.split("\n")[0]
    assert head.startswith("Columns: SpearmanCorrelationCoefficient | 1Freq")
    assert head.endswith(" …") and len(real_models.count_tokens(head)) <= 128
    every = "\n".join(c.text for c in chunks)
    assert "-0.285021097" in every and "XRCC4" not in head  # the cells kept, the tail cut
    # the whole header once, as the sheet's first row: its last column is indexed too
    last = extracted.blocks[0].header.rsplit(" | ", 1)[1]
    assert extracted.blocks[0].row and extracted.blocks[0].text.endswith(last)
    assert sum(last in c.text for c in chunks) >= 1
