"""Cut extracted text into chunks with LlamaIndex's SentenceSplitter (512 tokens, 50 overlap).

Tokens are counted with the dense model's own tokenizer, and the title and heading path that
go in front of each chunk for embedding are counted against the budget
(``split_text_metadata_aware``), so the model reads every chunk whole.

Chunks never cross a page (PDF) or a section (headings), so each keeps one page and one heading
path. A chunk's text is a contiguous span of its section, which is how its character offsets
and line range are recovered.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import groupby

from llama_index.core.node_parser import SentenceSplitter

from app.domain.errors import ExtractionError
from app.store.payload import COLUMN_SEPARATOR, passage_prefix
from ingest.extract.types import Block, ExtractedText

SECTION_SEPARATOR = "\n\n"
# Sections are split in windows of at most this many characters before the SentenceSplitter
# sees them: its sentence tokenizer (NLTK punkt) runs regexes over the whole text it is given,
# under a 5 s limit, and a 49 MB paragraph exceeded it after minutes (and ~8 GB). Windows keep
# time linear and memory bounded; a window ends at a paragraph, line or word break. Windows
# overlap: a window's last chunk is dropped and the next window starts where it started, so
# no runt is cut at a window's edge and every boundary keeps the splitter's overlap.
WINDOW_CHARS = 32_000
# A table's header line repeated at the head of each chunk of its rows takes at most this
# share of the chunk (a quarter: three quarters left for the rows), cut after a column
HEADER_SHARE = 0.25
CUT_MARK = " …"


class TooManyChunks(ExtractionError):
    """A document that would make more chunks than a document may have: permanent."""

    code = "DOCUMENT_TOO_LONG"


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
    # table rows (spreadsheet, CSV): line_start … line_end are the rows, of this sheet
    rows: bool = False
    sheet: str | None = None


def window_end(text: str, start: int, size: int = WINDOW_CHARS) -> int:
    """Where a window of at most ``size`` characters from ``start`` ends: after the last
    paragraph break, else line break, else space in its second half (a hard cut if none)."""
    if len(text) - start <= size:
        return len(text)
    limit = start + size
    for sep in ("\n\n", "\n", " "):
        cut = text.rfind(sep, start + size // 2, limit)
        if cut > 0:
            return cut + len(sep)
    return limit


def windows(text: str, size: int = WINDOW_CHARS) -> list[tuple[int, int]]:
    """(start, end) spans of at most ``size`` characters tiling ``text`` (window_end's cuts)."""
    spans, start = [], 0
    while True:
        end = window_end(text, start, size)
        spans.append((start, end))
        if end >= len(text):
            return spans
        start = end


class Chunker:
    def __init__(self, count_tokens: Callable[[str], list[int]], chunk_size: int = 512,
                 chunk_overlap: int = 50, max_chunks: int | None = None) -> None:
        self._splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                          tokenizer=count_tokens)
        self._count, self.size, self.overlap = count_tokens, chunk_size, chunk_overlap
        self.max_chunks = max_chunks

    def _pack_rows(self, section: str, spans: list[tuple[int, int]],
                   prefix: str, header: str | None = None) -> Iterator[tuple[int, str]]:
        """Table rows packed whole into chunks of at most the chunk size (prefix and the
        header line counted), the next chunk starting with the rows that end this one within
        the overlap; a row alone over the size is the only one cut, by the splitter. Each
        piece is the rows' text; the header line goes in front of it (``chunk``)."""
        budget = self.size - len(self._count(prefix)) - (
            len(self._count(header)) + 1 if header else 0)
        tokens = [len(self._count(section[s:e])) + 1 for s, e in spans]  # + the separator
        i = 0
        while i < len(spans):
            j, used = i, 0
            while j < len(spans) and used + tokens[j] <= budget:
                used += tokens[j]
                j += 1
            if j == i:  # one row over the budget on its own
                start, end = spans[i]
                yield from ((start + at, piece)
                            for at, piece in self._split(
                                section[start:end], f"{prefix}\n{header}" if header else prefix))
                i += 1
                continue
            yield spans[i][0], section[spans[i][0]:spans[j - 1][1]]
            if j >= len(spans):
                return
            k, back = j, 0
            while k - 1 > i and back + tokens[k - 1] <= self.overlap:
                back += tokens[k - 1]
                k -= 1
            i = k

    def _bounded(self, header: str | None) -> str | None:
        """A table's header line as each chunk of its rows repeats it, at most
        ``HEADER_SHARE`` of the chunk's tokens: a wide export's header (600 columns) is cut
        after the last column that fits, " …" saying so, so rows still fit beside it (it made
        the whole table fail: a header longer than a chunk)."""
        limit = int(self.size * HEADER_SHARE)
        if not header or len(self._count(header)) <= limit:
            return header
        columns = header.split(COLUMN_SEPARATOR)

        def fits(text: str) -> bool:
            return len(self._count(f"{text}{CUT_MARK}")) <= limit

        low, high = 0, len(columns)  # the most columns that fit: binary search
        while low < high:
            middle = (low + high + 1) // 2
            if fits(COLUMN_SEPARATOR.join(columns[:middle])):
                low = middle
            else:
                high = middle - 1
        if low:
            return COLUMN_SEPARATOR.join(columns[:low]) + CUT_MARK
        first = columns[0]  # one column over the bound alone: cut within it
        low, high = 0, len(first)
        while low < high:
            middle = (low + high + 1) // 2
            if fits(first[:middle]):
                low = middle
            else:
                high = middle - 1
        return first[:low] + CUT_MARK

    def _split(self, section: str, prefix: str,
               size: int = WINDOW_CHARS) -> Iterator[tuple[int, str]]:
        """(offset of the piece in the section, piece), window by window, lazily: the chunk
        limit stops a huge document before the rest of it is split. A window's last piece
        (cut short by the window's edge) is not kept: the next window starts at its start, so
        it is cut again with the text that follows, overlapping the piece before it."""
        start = 0
        while start < len(section):
            end = window_end(section, start, size)
            window = section[start:end]
            pieces = (self._splitter.split_text_metadata_aware(window, prefix) if prefix
                      else self._splitter.split_text(window))
            located, cursor = [], 0
            for piece in pieces:
                at = window.find(piece, cursor)
                if at < 0:  # the splitter normalised whitespace: fall back to the cursor
                    at = cursor
                located.append((start + at, piece))
                cursor = at + 1
            last = located[-1][0] if located else start
            if end >= len(section) or len(located) < 2 or last <= start:
                yield from located
                start = end
                continue
            yield from located[:-1]
            start = last

    def chunk(self, extracted: ExtractedText, filename: str = "the document") -> list[Chunk]:
        """The chunks, in order; TooManyChunks as soon as there are more than ``max_chunks``."""
        chunks: list[Chunk] = []
        doc_offset = 0
        for (page, headings, rows, sheet), group in groupby(
                extracted.blocks, key=lambda b: (b.page, b.heading_path, b.row, b.sheet)):
            blocks = [b for b in group if b.text.strip()]
            if not blocks:
                continue
            section, spans = _join(blocks)
            starts, ends = [s for s, _ in spans], [e for _, e in spans]
            prefix = passage_prefix(extracted.title, headings)
            header = self._bounded(blocks[0].header) if rows else None
            pieces = (self._pack_rows(section, spans, prefix, header) if rows
                      else self._split(section, prefix))
            for start, piece in pieces:
                end = start + len(piece)
                if header:  # a table's columns head each chunk of its rows
                    piece = f"{header}\n{piece}"
                # the blocks overlapping [start, end): found by bisection, not by a scan of
                # every block per chunk (quadratic on a long section of many paragraphs)
                first, last = bisect_right(ends, start), bisect_left(starts, end)
                lines = [(b.line_start, b.line_end) for b in blocks[first:last]
                         if b.line_start is not None]
                chunks.append(Chunk(
                    chunk_index=len(chunks), text=piece, page=page,
                    line_start=min(ls for ls, _ in lines) if lines else None,
                    line_end=max(le for _, le in lines if le is not None) if lines else None,
                    char_start=doc_offset + start, char_end=doc_offset + end,
                    heading_path=headings, rows=rows, sheet=sheet))
                if self.max_chunks is not None and len(chunks) > self.max_chunks:
                    raise TooManyChunks(
                        f"{filename} makes more than {self.max_chunks:,} chunks (stopped at "
                        f"{doc_offset + end:,} of about {_length(extracted):,} characters); "
                        "split it into smaller documents, or raise "
                        "EVIDENCE_INGEST__MAX_CHUNKS")
            doc_offset += len(section) + len(SECTION_SEPARATOR)
        return chunks


def _length(extracted: ExtractedText) -> int:
    return sum(len(b.text) + len(SECTION_SEPARATOR) for b in extracted.blocks)


def _join(blocks: list[Block]) -> tuple[str, list[tuple[int, int]]]:
    spans, parts, offset = [], [], 0
    for block in blocks:
        text = block.text.strip()
        spans.append((offset, offset + len(text)))
        parts.append(text)
        offset += len(text) + len(SECTION_SEPARATOR)
    return SECTION_SEPARATOR.join(parts), spans
