"""What changed between two versions of a document (GET /documents/{id}/changes): the standard
library's ``difflib`` over each version's sentences, each sentence carrying where it stands
(page, heading path, sheet and rows, lines). Pure: the route reads the versions' stored chunks.

Why difflib: a version pair is two sequences of sentences, and SequenceMatcher's longest common
blocks are what a reader calls "unchanged"; a replaced run becomes ``changed`` pairs in order
(the rest ``added`` or ``removed``). Sentences are compared folded (case and spaces), shown as
written. Chunks overlap (50 tokens): each chunk is read from where the previous one ended
(``char_start``), so no sentence is counted twice.

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

from app.store.payload import (
    CHAR_END,
    CHAR_START,
    CHUNK_INDEX,
    COLUMNS_LABEL,
    HEADING_PATH,
    LINE_END,
    LINE_START,
    PAGE,
    TEXT,
    chunk_location,
)

MAX_SENTENCES = 20_000
MAX_SECONDS = 5.0
SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+[\"')\]]*|\n|$)")


@dataclass(frozen=True)
class Passage:
    text: str
    location: dict[str, Any]

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
        start, end = payload.get(CHAR_START), payload.get(CHAR_END)
        if isinstance(start, int) and isinstance(end, int) and start < read_to < end:
            text = text[len(text) - (end - read_to):] if end - read_to <= len(text) else text
        if isinstance(end, int):
            read_to = max(read_to, end)
        where = _location(payload)
        for match in SENTENCE.finditer(text):
            sentence = match.group(0).strip()
            if sentence and not sentence.startswith(COLUMNS_LABEL):
                out.append(Passage(sentence, where))
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
        old, new = a[i1:i2], b[j1:j2]
        for k in range(max(len(old), len(new))):
            left = old[k] if k < len(old) else None
            right = new[k] if k < len(new) else None
            kind = "changed" if left and right else "removed" if left else "added"
            out.append({"kind": kind,
                        "before": {"text": left.text, "location": left.location}
                        if left else None,
                        "after": {"text": right.text, "location": right.location}
                        if right else None})
    return out, complete
