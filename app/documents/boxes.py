"""Where a chunk's words stand on their page (issue 49): kept at ingestion, read by search.

Extraction keeps each page's words with their boxes (a PDF's text layer: pdfplumber's words;
page-relative 0–1, origin top left). After chunking, each chunk's words are aligned with the
words of its page and the next (a chunk may run over a page's end) — difflib's longest
matching blocks over the words folded to letters and digits, so reflowed lines, joined
columns and removed glyphs do not matter; a word the page does not hold as such (one
hyphenated across a line) simply has no box. The result, per chunk, is its words' character
spans in the chunk text with their boxes; search then asks which words a citation's spans
cover and merges them per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

SCALE = 10_000  # coordinates kept as integers: 0–1 in steps of 1/10,000
MAX_WORDS = 4_000  # per chunk (a 512-token chunk holds ~400)
MAX_BOXES = 40  # per cited item, after merging per line
# (text, x0, y0, x1, y1): a word on its page, 0–1 from the top left
PageWord = tuple[str, float, float, float, float]
# [start, end, page, x0, y0, x1, y1]: a chunk word's span in the chunk text and its box
WordBox = list[int]
_WORD = re.compile(r"\S+")
_FOLD = re.compile(r"[\W_]+")


def page_words(words: Iterable[dict[str, Any]], width: float, height: float
               ) -> list[PageWord]:
    """pdfplumber's words (``x0``, ``top``, ``x1``, ``bottom`` in points) as page-relative
    boxes, in the page's order."""
    if width <= 0 or height <= 0:
        return []
    return [(str(w["text"]), _unit(w["x0"] / width), _unit(w["top"] / height),
             _unit(w["x1"] / width), _unit(w["bottom"] / height)) for w in words]


def _unit(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


def _folded(word: str) -> str:
    return _FOLD.sub("", word.casefold())


def align(text: str, page: int | None, pages: Mapping[int, Sequence[PageWord]]
          ) -> list[WordBox]:
    """The chunk's words that its page (or the next) holds, each as [start, end, page, x0,
    y0, x1, y1] (coordinates × SCALE), in the chunk's order."""
    if page is None or (page not in pages and page + 1 not in pages):
        return []
    mine = [(m.start(), m.end(), _folded(m.group())) for m in _WORD.finditer(text)][:MAX_WORDS]
    theirs = [(p, w) for p in (page, page + 1) for w in pages.get(p, ())]
    matcher = SequenceMatcher(None, [f for *_, f in mine], [_folded(w[0]) for _, w in theirs],
                              autojunk=False)
    out: list[WordBox] = []
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            start, end, folded = mine[a + k]
            if not folded:
                continue  # punctuation alone: nothing to point at
            p, (_text, x0, y0, x1, y1) = theirs[b + k]
            out.append([start, end, p, *(round(v * SCALE) for v in (x0, y0, x1, y1))])
    out.sort(key=lambda w: w[0])
    return out


def cited_boxes(words: Sequence[Sequence[int]], spans: Sequence[tuple[int, int]]
                ) -> list[dict[str, float | int]]:
    """The boxes of the words ``spans`` (character ranges of the chunk text) cover, merged
    per line (same page, overlapping heights, next to each other), at most MAX_BOXES."""
    lines: list[list[float]] = []  # page, x0, y0, x1, y1
    for start, end, page, x0, y0, x1, y1 in words:
        if not any(start < e and s < end for s, e in spans):
            continue
        box = [page, x0 / SCALE, y0 / SCALE, x1 / SCALE, y1 / SCALE]
        last = lines[-1] if lines else None
        if (last is not None and last[0] == page and _same_line(last, box)
                and box[1] >= last[1] - 0.005):
            last[1:] = [min(last[1], box[1]), min(last[2], box[2]),
                        max(last[3], box[3]), max(last[4], box[4])]
        elif len(lines) < MAX_BOXES:
            lines.append(box)
    return [{"page": int(p), "x0": round(x0, 4), "y0": round(y0, 4), "x1": round(x1, 4),
             "y1": round(y1, 4)} for p, x0, y0, x1, y1 in lines]


def _same_line(a: Sequence[float], b: Sequence[float]) -> bool:
    """Boxes overlapping by at least half the shorter one's height."""
    overlap = min(a[4], b[4]) - max(a[2], b[2])
    return overlap >= 0.5 * min(a[4] - a[2], b[4] - b[2])
