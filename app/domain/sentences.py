"""A text's sentences, one rule for every stage that reads them: the sentence vectors made at
ingestion (ingest/embedding.py), the snippet's focus (app/search/snippets.py), what changed
between versions (app/documents/changes.py) and ``changed_only`` search.

Why pySBD: a sentence is not "anything up to a full stop". Decimals and amounts ("EUR
12,000.00"), abbreviations ("Dr.", "No.", "e.g."), initials, URLs, e-mail addresses and
identifiers hold full stops that end nothing; pySBD is the well-kept rule-based segmenter
built for exactly these (its "Golden Rules"), deterministic, offline and ~5 µs a character
(SciFact abstracts: 7 ms each). spaCy's statistical ``senter`` is nearly free beside the NER
that already runs, but it split "5. Term." into "5" and ". Term." and it is absent where no
spaCy model is installed, while snippets and changes need the same sentences everywhere.

Two rules of ours on top, stated before any measurement:

- **a line break ends a sentence**: extraction joins a paragraph's wrapped lines
  (ingest/extract/reflow.py), so a line break that remains is structure — a heading, a list
  item, a table row;
- **a fragment of fewer than ``MIN_WORDS`` words is no sentence**: it joins the sentence that
  follows on its line (the last one joins the one before), so a clause number and its title
  ("4. Audit. The supplier …") or an abbreviation pySBD does not know ("Ref. INV-2024.001")
  stay with their sentence.

Sentences are found once per chunk at ingestion and kept with it (payload
``sentence_spans``); ``spans_of`` reads them back and finds them again only for a chunk stored
before they were kept.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache

MIN_SENTENCE_CHARS = 12  # shorter pieces ("Fig. 2", "ok.") are not worth comparing with a query
MIN_WORDS = 3
# A chunk's sentences the dense model compares with a query at query time (the first ones;
# 5–12 ms each on the query thread)
MAX_SENTENCES = 8
# A chunk's sentences kept as vectors at ingestion: every one a chunk of 512 tokens holds at
# ordinary lengths (SciFact: ~11 a chunk); the bound only caps what a pathological text of
# many tiny sentences costs (64 × 384 × 2 bytes = 48 KiB a chunk at most)
MAX_STORED_SENTENCES = 64

_WORD = re.compile(r"\w+")
_local = threading.local()  # a pySBD Segmenter keeps the text it is working on: one a thread


def _segmenter():  # type: ignore[no-untyped-def]
    seg = getattr(_local, "segmenter", None)
    if seg is None:
        import pysbd

        seg = _local.segmenter = pysbd.Segmenter(language="en", clean=False, char_span=False)
    return seg


def _line_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences of one line ``text[start:end]`` (no line break inside), fragments
    joined to their neighbour."""
    line = text[start:end]
    if not line.strip():
        return []
    pieces: list[tuple[int, int]] = []
    cursor = 0
    for segment in _segmenter().segment(line):
        piece = segment.strip()
        if not piece:
            continue
        at = line.find(piece, cursor)
        if at < 0:  # pySBD changed the text (it should not, with clean=False): keep the line
            return [_trimmed(text, start, end)]
        pieces.append((at, at + len(piece)))
        cursor = at + len(piece)
    merged: list[list[int]] = []
    pending: int | None = None  # the start of fragments waiting for their sentence
    for a, b in pieces:
        if len(_WORD.findall(line[a:b])) < MIN_WORDS:
            pending = a if pending is None else pending
            continue
        merged.append([pending if pending is not None else a, b])
        pending = None
    if pending is not None:  # fragments at the line's end join the sentence before them
        if merged:
            merged[-1][1] = pieces[-1][1]
        else:
            merged.append([pending, pieces[-1][1]])
    return [(start + a, start + b) for a, b in merged]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence of ``text``, in order, without surrounding spaces."""
    out: list[tuple[int, int]] = []
    start = 0
    for line in text.split("\n"):
        out += _line_sentences(text, start, start + len(line))
        start += len(line) + 1
    return out


def sentences(text: str, limit: int = MAX_SENTENCES,
              spans: Sequence[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """(start, end) of the text's first ``limit`` sentences worth comparing with a query;
    ``spans``: the text's sentences as found before (``spans_of``), else found now."""
    found = split(text) if spans is None else spans
    return [(a, b) for a, b in found if b - a >= MIN_SENTENCE_CHARS][:limit]


def flat_spans(spans: Sequence[tuple[int, int]]) -> list[int]:
    """Spans as a payload keeps them: one flat list of ints (the engine dislikes depth)."""
    return [x for span in spans for x in span]


def spans_of(text: str, stored: Sequence[int] | None) -> list[tuple[int, int]]:
    """A chunk's sentences: those kept with it at ingestion, where they fit its text, else
    found now (a chunk stored before they were kept: ~5 µs a character, remembered for the
    process's next searches until `evidence reindex` keeps them)."""
    if stored and len(stored) % 2 == 0 and all(isinstance(x, int) for x in stored):
        pairs = list(zip(stored[::2], stored[1::2], strict=True))
        if all(0 <= a < b <= len(text) for a, b in pairs):
            return pairs
    return list(_split_remembered(text))


@lru_cache(maxsize=4096)  # ~30 evidence chunks a page: the texts of the last pages searched
def _split_remembered(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(split(text))
