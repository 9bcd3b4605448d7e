"""Cut extracted text into chunks with LlamaIndex's SentenceSplitter (512 tokens, 50 overlap).

Tokens are counted with the dense model's own tokenizer, and the title and heading path that
go in front of each chunk for embedding are counted against the budget
(``split_text_metadata_aware``), so the model reads every chunk whole.

Chunks never cross a page (PDF) or a section (headings), so each keeps one page and one heading
path. A chunk's text is a contiguous span of its section, which is how its character offsets
and line range are recovered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby

from llama_index.core.node_parser import SentenceSplitter

from ingest.extract.types import Block, ExtractedText

SECTION_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Chunk:
    chunk_index: int
    text: str
    page: int | None
    line_start: int | None
    line_end: int | None
    char_start: int  # offsets into the version's extracted text (sections joined by "\n\n")
    char_end: int
    heading_path: tuple[str, ...]


def embedding_prefix(title: str | None, heading_path: tuple[str, ...]) -> str:
    """What goes in front of a chunk for the dense and sparse vectors and the reranker."""
    parts = [p for p in ((title or "").strip(), *heading_path) if p]
    return " > ".join(dict.fromkeys(parts))  # a title repeated as the first heading, once


def embedding_text(title: str | None, heading_path: tuple[str, ...], text: str) -> str:
    prefix = embedding_prefix(title, heading_path)
    return f"{prefix}\n\n{text}" if prefix else text


class Chunker:
    def __init__(self, count_tokens: Callable[[str], list[int]], chunk_size: int = 512,
                 chunk_overlap: int = 50) -> None:
        self._splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                          tokenizer=count_tokens)

    def chunk(self, extracted: ExtractedText) -> list[Chunk]:
        chunks: list[Chunk] = []
        doc_offset = 0
        for (page, headings), group in groupby(extracted.blocks,
                                               key=lambda b: (b.page, b.heading_path)):
            blocks = [b for b in group if b.text.strip()]
            if not blocks:
                continue
            section, spans = _join(blocks)
            prefix = embedding_prefix(extracted.title, headings)
            pieces = (self._splitter.split_text_metadata_aware(section, prefix) if prefix
                      else self._splitter.split_text(section))
            cursor = 0
            for piece in pieces:
                start = section.find(piece, cursor)
                if start < 0:  # the splitter normalised whitespace: fall back to the cursor
                    start = cursor
                end = start + len(piece)
                cursor = start + 1
                lines = [(b.line_start, b.line_end) for b, (s, e) in zip(blocks, spans, strict=True)
                         if s < end and e > start and b.line_start is not None]
                chunks.append(Chunk(
                    chunk_index=len(chunks), text=piece, page=page,
                    line_start=min(ls for ls, _ in lines) if lines else None,
                    line_end=max(le for _, le in lines if le is not None) if lines else None,
                    char_start=doc_offset + start, char_end=doc_offset + end,
                    heading_path=headings))
            doc_offset += len(section) + len(SECTION_SEPARATOR)
        return chunks


def _join(blocks: list[Block]) -> tuple[str, list[tuple[int, int]]]:
    spans, parts, offset = [], [], 0
    for block in blocks:
        text = block.text.strip()
        spans.append((offset, offset + len(text)))
        parts.append(text)
        offset += len(text) + len(SECTION_SEPARATOR)
    return SECTION_SEPARATOR.join(parts), spans
