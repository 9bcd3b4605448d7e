"""Reading order for PDF pages set in columns: pdfplumber's ``extract_text`` reads a page line by
line across its whole width, so a page in two or three columns came out with each line mixing
the columns ("…the agency proposes | Section 4 amends…"). Here the gutters between columns are
found from where the words are, and each column is read top to bottom before the next.

Why not PyMuPDF's ``sort=True`` blocks: AGPL-licensed, a second PDF library beside pdfplumber,
and its block sort has the same trouble with lines that cross a gutter. The rule stated here,
on pdfplumber's words:

- a **gutter** is a vertical band at least ``GUTTER_MIN_SHARE`` of the text's width wide, and
  three times the page's median space between words, that at most ``GUTTER_CROSSING_SHARE`` of
  the page's lines cross, inside the text (not a margin), with at least ``COLUMN_MIN_SHARE``
  of the words on each side of it;
- a **line with a word across a gutter's middle** (a title, a table, a footer across the page)
  is read where it stands; the lines between two such are read column by column, a word
  belonging to the column its middle falls in;
- a page with no gutter (or under ``MIN_WORDS`` words) is read as pdfplumber reads it;
- a page whose characters are mostly turned a quarter is read as if turned upright (the
  glyphs' matrix says which way), rows on lines again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ingest.extract import reflow
from ingest.extract.reflow import Paragraph

MIN_WORDS = 40
CHARS_PER_WORD = 5
GUTTER_MIN_SHARE = 0.02  # 12 pt on a 612 pt (Letter) text width
GUTTER_CROSSING_SHARE = 0.10  # of the lines: a title, a header, a footer across the page
MIN_CROSSING_LINES = 3  # however short the page: a title, a header and a footer
COLUMN_MIN_SHARE = 0.15
LINE_TOLERANCE = 3.0  # points: words whose tops differ by less sit on one line

Word = dict[str, Any]  # pdfplumber's word: text, x0, x1, top, bottom


def gutters(words: Sequence[Word], min_items: int = MIN_WORDS) -> list[tuple[float, float]]:
    """The (left, right) of each gutter between columns, left to right. ``words`` may be the
    page's characters (cheaper: pdfplumber has them already; words are only built where a
    gutter is found)."""
    if len(words) < min_items:
        return []
    left, right = min(w["x0"] for w in words), max(w["x1"] for w in words)
    width = int(right - left) + 1
    if width <= 0:
        return []
    lines = _lines(words)
    crossing = [0] * width  # lines with a word over each point
    for line in lines:
        covered = set()
        for w in line:
            covered.update(range(max(int(w["x0"] - left), 0), min(int(w["x1"] - left) + 1,
                                                                    width)))
        for x in covered:
            crossing[x] += 1
    allowed = max(MIN_CROSSING_LINES, int(len(lines) * GUTTER_CROSSING_SHARE))
    # wider than the page's spaces between words, however narrow the page
    spaces = sorted(b["x0"] - a["x1"] for line in lines
                    for a, b in zip(line, line[1:], strict=False) if b["x0"] > a["x1"])
    narrowest = max(GUTTER_MIN_SHARE * width, 3 * spaces[len(spaces) // 2] if spaces else 0)
    found, start = [], None
    for x, count in enumerate([*crossing, allowed + 1]):  # a sentinel closes the last run
        if count <= allowed and start is None:
            start = x
        elif count > allowed and start is not None:
            if x - start >= narrowest and start > 0 and x < width:
                found.append((left + start, left + x))
            start = None
    kept = []
    for g_left, g_right in found:
        before = sum(w["x1"] <= g_right for w in words)
        after = sum(w["x0"] >= g_left for w in words)
        if min(before, after) >= COLUMN_MIN_SHARE * len(words):
            kept.append((g_left, g_right))
    return kept


def _lines(words: Sequence[Word]) -> list[list[Word]]:
    lines: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if lines and abs(w["top"] - lines[-1][0]["top"]) < LINE_TOLERANCE:
            lines[-1].append(w)
        else:
            lines.append([w])
    return [sorted(line, key=lambda w: w["x0"]) for line in lines]


def _text(words: Sequence[Word]) -> str:
    return " ".join(w["text"] for w in words)


def reading_order(words: Sequence[Word], cuts: Sequence[tuple[float, float]]) -> str:
    """The page's text, column by column between the lines that cross a gutter."""
    edges = [(g_left + g_right) / 2 for g_left, g_right in cuts]
    out: list[str] = []
    run: list[list[Word]] = []

    def flush() -> None:
        for column in range(len(edges) + 1):
            low = edges[column - 1] if column else float("-inf")
            high = edges[column] if column < len(edges) else float("inf")
            for line in run:
                part = [w for w in line if low <= (w["x0"] + w["x1"]) / 2 < high]
                if part:
                    out.append(_text(part))
        run.clear()

    for line in _lines(words):
        if any(w["x0"] < edge < w["x1"] for w in line for edge in edges):  # across a gutter
            flush()
            out.append(_text(line))
        else:
            run.append(line)
    flush()
    return "\n".join(out)


def page_paragraphs(page: Any) -> list[Paragraph]:
    """A pdfplumber page's paragraphs in reading order (ingest/extract/reflow.py: pdfminer's
    text boxes, where the page was opened with ``laparams``), each with the page lines it
    covers; a page turned a quarter, or opened without layout analysis, a paragraph a line."""
    chars = page.chars
    boxes = page.objects.get("textboxhorizontal")
    turned = chars and sum(not c.get("upright", True) for c in chars) * 2 > len(chars)
    if turned or boxes is None:
        lines = [line for line in page_text(page).split("\n") if line.strip()]
        return [Paragraph(line.strip(), n, n) for n, line in enumerate(lines, start=1)]
    return reflow.page_paragraphs(boxes, gutters(chars, MIN_WORDS * CHARS_PER_WORD))


def page_text(page: Any) -> str:
    """A pdfplumber page's text in reading order (the module's rule); a page whose text is
    mostly turned a quarter (a landscape table printed on a portrait page) is read upright."""
    chars = page.chars
    if chars and sum(not c.get("upright", True) for c in chars) * 2 > len(chars):
        return _turned_text(page, chars)
    cuts = gutters(chars, MIN_WORDS * CHARS_PER_WORD)  # a one-column page: one text pass
    if not cuts:
        return page.extract_text() or ""
    return reading_order(page.extract_words(), cuts)


def _turned_text(page: Any, chars: Sequence[Any]) -> str:
    """Text turned a quarter, read as if the page were turned upright: it came out a cell a
    line with each row's cells reversed. Which way it is turned is the glyphs' own matrix
    (b > 0: turned counter-clockwise, read bottom to top, lines left to right)."""
    counter = sum((c.get("matrix") or (0, 0))[1] > 0 for c in chars) * 2 > len(chars)
    words = page.extract_words(line_dir_rotated="ltr" if counter else "rtl",
                               char_dir_rotated="btt" if counter else "ttb")
    upright = [{**w, "x0": page.height - w["bottom"], "x1": page.height - w["top"],
                "top": w["x0"], "bottom": w["x1"]} if counter else
               {**w, "x0": w["top"], "x1": w["bottom"],
                "top": page.width - w["x1"], "bottom": page.width - w["x0"]}
               for w in words]
    cuts = gutters(upright)
    if cuts:
        return reading_order(upright, cuts)
    return "\n".join(_text(line) for line in _lines(upright))
