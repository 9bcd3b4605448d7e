"""Text as a person reads it: a paragraph's wrapped lines joined into one, headings, list items
and table rows kept as lines of their own — so a sentence, an IBAN or a phone number wrapped
over two lines is read whole by the segmenter and the entity rules.

Where the paragraphs come from:

- **PDF pages**: pdfminer's layout analysis (its text boxes, which pdfplumber runs when opened
  with ``laparams``) groups the lines of a paragraph: a line joins the box of the line above it
  when the gap is under half a line's height and they overlap across (pdfminer's
  ``line_margin`` 0.5). We only order the boxes (column by column, ``ingest/extract/
  columns.py``'s gutters), join the boxes standing on one line (a table's cells, a bullet and
  its item) and split a box where a line starts a list item.
- **OCR**: Tesseract's block and paragraph numbers, RapidOCR's boxes — ingest/extract/ocr.py.
- **plain text and Markdown**: a blank line ends a paragraph (``reflow_text``).

A word hyphenated at a line's end is joined without its hyphen where the joined word is a known
word (the word list the garbled-text check uses, ingest/extract/wordshare.py), else with it
("well-" + "known" stays "well-known").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ingest.extract.wordshare import _known

# A line that starts a list item: a bullet, "1." / "1)" / "(a)" / "a)" / "(iv)", a dash
LIST_ITEM = re.compile(r"^\s*(?:[•◦▪‣∙·●○■□\-–—*]|\(cid:\d+\)|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|"
                       r"\((?:[ivxlc]{1,6}|\d{1,3})\))\s+\S")
# a Markdown line that is structure of its own: a heading, a table row, a fence, a quote
MARKDOWN_STRUCTURE = re.compile(r"^\s*(?:#{1,6}\s|\||```|~~~|>|[-*_]{3,}\s*$)")
HYPHENATED = re.compile(r"([^\W\d_]+)-$")
CONTINUES = re.compile(r"^([^\W\d_]+)")
SAME_LINE = 3.0  # points: boxes whose tops differ by less stand on one line
LINE_MARGIN = 0.5  # of a line's height: pdfminer's default line_margin
MARKER_CHARS = 3  # a one-line box this short before a paragraph's box is its bullet or number


@dataclass(frozen=True)
class Paragraph:
    """A paragraph (or a heading, a list item, a table row) and the lines it covers, 1-based
    in the page's reading order."""

    text: str
    line_start: int
    line_end: int


def join_lines(lines: Sequence[str]) -> str:
    """A paragraph's lines as one, a hyphenated word at a line's end rejoined."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
            continue
        end, start = HYPHENATED.search(out), CONTINUES.match(line)
        if end and start and line[0].islower():
            joined = unicodedata.normalize("NFKC", end.group(1) + start.group(1))  # "ﬁ"
            if _known(joined.lower()) or not (_known(end.group(1).lower())
                                              and _known(start.group(1).lower())):
                # "agree-" + "ment" → "agreement"; fragments no list knows are one word
                # broken too ("Dua-" + "lement", "com-" + "mutativité"), as poppler joins them
                out = out[:-1] + line
            else:
                out = out + line  # "well-" + "known" → "well-known"
        else:
            out = f"{out} {line}"
    return out


def split_items(lines: Sequence[str]) -> list[list[int]]:
    """Indexes of ``lines`` grouped into paragraphs: a line starting a list item starts a new
    one (pdfminer puts a tight list into one box)."""
    groups: list[list[int]] = []
    for i, line in enumerate(lines):
        if not groups or LIST_ITEM.match(line):
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def reflow_text(text: str) -> str:
    """Hard-wrapped plain text or Markdown with each paragraph on one line: a blank line ends
    a paragraph, and so does a line that is structure (a list item, a heading, a table row,
    a fence, an indented block); a line ending in two spaces or a backslash (Markdown's hard
    break) keeps its break. Blank lines are kept, so line numbers stay countable: the
    reflowed text has as many line breaks as the text had (``reflow_map``)."""
    return "\n".join(line for line, _n in reflow_map(text))


def reflow_map(text: str) -> list[tuple[str, int]]:
    """(paragraph, how many of the text's lines it covers), in order; a blank line covers
    one."""
    out: list[list[Any]] = []
    fenced = False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            out.append([line, 1, True])
            continue
        structure = (fenced or not stripped or LIST_ITEM.match(line)
                     or MARKDOWN_STRUCTURE.match(line) or line.startswith(("    ", "\t")))
        prev = out[-1] if out else None
        if (not structure and prev is not None and not prev[2] and prev[0].strip()
                and not prev[0].endswith(("  ", "\\"))):
            prev[0] = join_lines([prev[0], line])
            prev[1] += 1
            continue
        # a list item's wrapped continuation lines join the item; a heading or a blank does not
        out.append([line, 1, bool(fenced or not stripped or MARKDOWN_STRUCTURE.match(line)
                                  or line.startswith(("    ", "\t")))])
    return [(line, n) for line, n, _ in out]


def _box_lines(box: dict[str, Any]) -> list[str]:
    return [line for line in str(box.get("text", "")).split("\n") if line.strip()]


def box_order(boxes: Sequence[dict[str, Any]], cuts: Sequence[tuple[float, float]]
              ) -> list[list[dict[str, Any]]]:
    """pdfminer's text boxes in reading order, as rows: the boxes standing on one line (a
    table's cells, a bullet and its item) together, left to right. Column by column between
    the boxes that cross a gutter (``cuts``, columns.gutters)."""
    edges = [(left + right) / 2 for left, right in cuts]

    def column(box: dict[str, Any]) -> int:
        middle = (box["x0"] + box["x1"]) / 2
        return sum(middle >= edge for edge in edges)

    ordered: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []

    def flush() -> None:
        ordered.extend(sorted(run, key=lambda b: (column(b), b["top"], b["x0"])))
        run.clear()

    for box in sorted(boxes, key=lambda b: (b["top"], b["x0"])):
        if any(box["x0"] < edge < box["x1"] for edge in edges):  # across a gutter
            flush()
            ordered.append(box)
        else:
            run.append(box)
    flush()
    rows: list[list[dict[str, Any]]] = []
    for box in ordered:
        last = rows[-1][-1] if rows else None
        if (last is not None and abs(box["top"] - last["top"]) < SAME_LINE
                and box["x0"] >= last["x1"] - SAME_LINE and _cell(last)
                and (_cell(box) or len(_box_lines(last)[0].strip()) <= MARKER_CHARS)):
            rows[-1].append(box)
        else:
            rows.append([box])
    return rows


def _cell(box: dict[str, Any]) -> bool:
    """A box of one line: a table's cell, a bullet. Two boxes of several lines side by side
    are two columns a gutter was not found between, never one row."""
    return len(_box_lines(box)) == 1


def page_paragraphs(boxes: Sequence[dict[str, Any]], cuts: Sequence[tuple[float, float]]
                    ) -> list[Paragraph]:
    """A page's paragraphs from pdfminer's text boxes (``box_order``): a box's lines joined,
    split where a line starts a list item; a row of boxes on one line joined cell by cell;
    a box that continues the one above it (``continues``) joined to it; each with the page
    lines it covers."""
    out: list[Paragraph] = []
    line = 1
    above: dict[str, Any] | None = None  # the last row's box, where it was one box
    for row in box_order(boxes, cuts):
        lines = [_box_lines(box) for box in row]
        height = max((len(found) for found in lines), default=0)
        if not height:
            continue
        if len(row) > 1:  # cells of one row (or a bullet and its item): one line of text
            text = " ".join(join_lines(found) for found in lines if found)
            out.append(Paragraph(text, line, line + height - 1))
        else:
            groups = split_items(lines[0])
            for k, group in enumerate(groups):
                text = join_lines([lines[0][i] for i in group])
                if k == 0 and out and above is not None and continues(above, row[0], out[-1].text,
                                                                      text):
                    out[-1] = Paragraph(join_lines([out[-1].text, text]), out[-1].line_start,
                                        line + group[-1])
                else:
                    out.append(Paragraph(text, line + group[0], line + group[-1]))
        above = row[-1]
        line += height
    return out


def continues(above: dict[str, Any], box: dict[str, Any], before: str, text: str) -> bool:
    """Whether ``box`` goes on with the paragraph of the box above it, which pdfminer keeps
    apart only because their lines do not align (a first line indented, a hanging clause
    number): under half a line's height between them (pdfminer's own ``line_margin``), side
    by side across, the text above ending without a sentence's end and this one starting in
    lower case."""
    lines = max(len(_box_lines(above)), 1)
    line_height = (above["bottom"] - above["top"]) / lines if "bottom" in above else 0.0
    gap = box.get("top", 0.0) - above.get("bottom", box.get("top", 0.0))
    return (0 < line_height and gap <= LINE_MARGIN * line_height
            and box["x0"] < above["x1"] and above["x0"] < box["x1"]
            and not before.rstrip().endswith((".", "!", "?", ":", ";"))
            and text[:1].islower())
