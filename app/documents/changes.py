"""What changed between two versions of a document (GET /documents/{id}/changes): the standard
library's ``difflib`` over each version's sentences, each sentence carrying where it stands
(page, heading path, sheet and rows, lines). Pure: the route reads the versions' stored chunks.

Why difflib: a version pair is two sequences of sentences, and SequenceMatcher's longest common
blocks are what a reader calls "unchanged". Sentences are the one segmenter's
(app/domain/sentences.py: an amount or a clause number never cut), read as each chunk kept
them; they are compared folded (case and spaces), so a re-wrapped line is no change. Chunks
overlap (50 tokens): each chunk is read from where the previous one ended (``char_start``), so
no sentence is counted twice.

Within a replaced run, a removed and an added sentence are one ``changed`` item only when
they are alike: ``SIMILAR`` = difflib's ratio over their words ≥ 0.5, stated before any
measurement — at least half of the two sentences' words in common, the ratio's own midpoint.
Otherwise they are ``removed`` and ``added``. A changed item marks the words that changed on
each side (``marks``: [start, end) offsets into its text); words are whitespace-separated, so
an amount or an identifier is marked whole.

Bounded: at most ``MAX_SENTENCES`` a side and ``MAX_SECONDS`` of matching; past either the
answer says ``complete: false`` and what it compared.
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.domain.sentences import spans_of
from app.store.payload import (
    CHAR_END,
    CHAR_START,
    CHUNK_INDEX,
    COLUMNS_LABEL,
    HEADING_PATH,
    LINE_END,
    LINE_START,
    PAGE,
    SENTENCE_SPANS,
    TEXT,
    chunk_location,
)

MAX_SENTENCES = 20_000
MAX_SECONDS = 5.0
SIMILAR = 0.5
# a replaced run compares each removed sentence with each added one: bounded, past it in order
MAX_PAIRED = 200
WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Passage:
    text: str
    location: dict[str, Any]
    span: tuple[int, int] = (0, 0)  # where ``text`` stands in its chunk's text

    @property
    def key(self) -> str:
        return " ".join(self.text.split()).casefold()


def _location(payload: Mapping[str, Any]) -> dict[str, Any]:
    where: dict[str, Any] = {"chunk_index": payload.get(CHUNK_INDEX)}
    table = chunk_location(dict(payload))
    if table:
        where["location"] = table
    for key in (PAGE, LINE_START, LINE_END):
        if payload.get(key) is not None:
            where[key] = payload[key]
    if payload.get(HEADING_PATH):
        where[HEADING_PATH] = list(payload[HEADING_PATH])
    return where


def passages(chunks: Sequence[Mapping[str, Any]]) -> list[Passage]:
    """A version's sentences in order, each with its chunk's location; a table's rows are
    sentences of their own (a row a line)."""
    out: list[Passage] = []
    read_to = 0
    for payload in sorted(chunks, key=lambda p: p.get(CHUNK_INDEX) or 0):
        text = payload.get(TEXT) or ""
        skip = 0  # the part of the chunk the chunk before it covered (its overlap)
        start, end = payload.get(CHAR_START), payload.get(CHAR_END)
        if isinstance(start, int) and isinstance(end, int) and start < read_to < end:
            skip = max(0, len(text) - (end - read_to)) if end - read_to <= len(text) else 0
        if isinstance(end, int):
            read_to = max(read_to, end)
        where = _location(payload)
        for a, b in spans_of(text, payload.get(SENTENCE_SPANS)):
            if a < skip:
                continue
            sentence = text[a:b].strip()
            if sentence and not sentence.startswith(COLUMNS_LABEL):
                out.append(Passage(sentence, where, (a, b)))
    return out


def _words(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in WORD.finditer(text)]


def similarity(a: str, b: str) -> float:
    """difflib's ratio over the two sentences' words, folded: 2 × common / total."""
    return difflib.SequenceMatcher(None, a.casefold().split(), b.casefold().split(),
                                   autojunk=False).ratio()


def marks(before: str, after: str) -> tuple[list[list[int]], list[list[int]]]:
    """The words that changed, as [start, end) ranges of each text; neighbouring changed
    words make one range."""
    left, right = _words(before), _words(after)
    matcher = difflib.SequenceMatcher(None, [before[a:b].casefold() for a, b in left],
                                      [after[a:b].casefold() for a, b in right], autojunk=False)
    out: tuple[list[list[int]], list[list[int]]] = ([], [])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            out[0].append([left[i1][0], left[i2 - 1][1]])
        if j2 > j1:
            out[1].append([right[j1][0], right[j2 - 1][1]])
    return out


def _side(passage: Passage, marked: list[list[int]] | None = None) -> dict[str, Any]:
    # "span" is for changed_only (app/documents/version_changes.py); the API leaves it out
    side: dict[str, Any] = {"text": passage.text, "location": passage.location,
                            "span": list(passage.span)}
    if marked is not None:
        side["marks"] = marked
    return side


def _replaced(old: Sequence[Passage], new: Sequence[Passage]) -> list[dict[str, Any]]:
    """A replaced run as items in order: each removed sentence paired with the first added
    one after the last pair that is ``SIMILAR`` (the most alike, where several are), the
    rest removed or added where they stand."""
    out: list[dict[str, Any]] = []
    j = 0
    for k, left in enumerate(old):
        best, best_ratio = None, SIMILAR
        if k < MAX_PAIRED:
            for m in range(j, min(len(new), j + MAX_PAIRED)):
                ratio = similarity(left.text, new[m].text)
                if ratio >= best_ratio and (best is None or ratio > best_ratio):
                    best, best_ratio = m, ratio
        if best is None:
            out.append({"kind": "removed", "before": _side(left), "after": None})
            continue
        out += [{"kind": "added", "before": None, "after": _side(p)} for p in new[j:best]]
        was, now = marks(left.text, new[best].text)
        out.append({"kind": "changed", "before": _side(left, was),
                    "after": _side(new[best], now)})
        j = best + 1
    out += [{"kind": "added", "before": None, "after": _side(p)} for p in new[j:]]
    return out


def changes(before: Sequence[Passage], after: Sequence[Passage],
            max_seconds: float = MAX_SECONDS) -> tuple[list[dict[str, Any]], bool]:
    """(the changes, complete): added, removed and changed passages, unchanged ones left out."""
    complete = len(before) <= MAX_SENTENCES and len(after) <= MAX_SENTENCES
    a, b = list(before[:MAX_SENTENCES]), list(after[:MAX_SENTENCES])
    started = time.perf_counter()
    matcher = difflib.SequenceMatcher(None, [p.key for p in a], [p.key for p in b],
                                      autojunk=False)
    out: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if time.perf_counter() - started > max_seconds:
            return out, False
        if tag == "equal":
            continue
        out += _replaced(a[i1:i2], b[j1:j2])
    return out, complete
