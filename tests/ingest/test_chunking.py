"""Chunks: at most 512 model tokens with the prefix, 50 overlap, offsets and lines recovered."""

from __future__ import annotations

from ingest.chunking import SECTION_SEPARATOR, Chunker, embedding_prefix, embedding_text
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
        assert len(whitespace_tokens(embedding_text("Manual", c.heading_path, c.text))) <= 100
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
    assert embedding_prefix("Handbook", ("Handbook", "Leave")) == "Handbook > Leave"
    assert embedding_text(None, (), "text") == "text"


def test_real_tokenizer_counts_past_128(real_models) -> None:  # type: ignore[no-untyped-def]
    text = " ".join(["vacation"] * 400)
    assert len(real_models.count_tokens(text)) == 400  # shipped truncation (128) is off
    chunks = Chunker(real_models.count_tokens).chunk(ExtractedText(blocks=[Block(text)]))
    assert len(chunks) == 1
