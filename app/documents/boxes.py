"""Where a chunk's words stand on their page (issue 49): kept at ingestion, read by search.

Extraction keeps each page's words with their boxes (a PDF's text layer: pdfplumber's words;
page-relative 0–1, origin top left). After chunking, each chunk's words are placed among the
words of its page and the next (a chunk may run over a page's end), folded to letters and
digits, by their context (``align``), so reflowed lines, columns read one by one and
removed glyphs do not matter; a word the page does not hold as such (one hyphenated across
a line) simply has no box. The result, per chunk, is its words' character
spans in the chunk text with their boxes; search then asks which words a citation's spans
cover and merges them per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

SCALE = 10_000  # coordinates kept as integers: 0–1 in steps of 1/10,000
MAX_WORDS = 4_000  # per chunk (a 512-token chunk holds ~400)
MAX_BOXES = 40  # per cited item, after merging per line
NEAR = 4  # a common word this close after the word placed before it follows on from it
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
    """The chunk's words that its page (or the one before or after) holds, each as [start,
    end, page, x0, y0, x1, y1] (coordinates × SCALE), in the chunk's order.

    A page's words come in the order the PDF placed them — across both columns of a line,
    say — not in the reading order the chunk has, so no one monotonic alignment holds. Each
    chunk word is placed among the page's words spelled alike by its context instead: the
    neighbours it shares with the chunk, then following on from the word placed before it,
    then the nearest after it; a word with no such evidence is placed only where its
    spelling is unique on those pages."""
    near = (page - 1, page, page + 1) if page is not None else ()
    if not any(p in pages for p in near):
        return []
    mine = [(m.start(), m.end(), _folded(m.group())) for m in _WORD.finditer(text)][:MAX_WORDS]
    # the page before too: a chunk opens with the overlap it shares with the one before it
    theirs = [(p, w) for p in near for w in pages.get(p, ())]
    folded = [_folded(w[0]) for _, w in theirs]
    where: dict[str, list[int]] = {}
    for j, word in enumerate(folded):
        if word:
            where.setdefault(word, []).append(j)
    out: list[WordBox] = []
    last = -2
    for i, (start, end, word) in enumerate(mine):
        found = where.get(word) if word else None
        if not found:
            continue
        before = mine[i - 1][2] if i else None
        after = mine[i + 1][2] if i + 1 < len(mine) else None
        scores = {j: _context(folded, j, before, after, last) for j in found}
        best = max(found, key=scores.__getitem__)
        if scores[best][0] == 0 and len(found) > 1 and not 0 < best - last <= NEAR:
            continue  # a common word with nothing to tell its places apart
        last = best
        p, (_text, x0, y0, x1, y1) = theirs[best]
        out.append([start, end, p, *(round(v * SCALE) for v in (x0, y0, x1, y1))])
    return out


def _context(folded: Sequence[str], j: int, before: str | None, after: str | None,
             last: int) -> tuple[int, int]:
    """How well page word ``j`` fits a chunk word between ``before`` and ``after`` placed
    after page word ``last``: neighbours shared (the next position counting double), then
    nearness."""
    shared = ((j > 0 and folded[j - 1] == before)
              + (j + 1 < len(folded) and folded[j + 1] == after))
    return (shared + 2 * (j == last + 1), -abs(j - last - 1))


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
