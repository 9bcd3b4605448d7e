"""Snippets: the part of a cited chunk a reader needs — the words that matched, with a little
context — as ``(start, end)`` offsets into the chunk's text (``text[start:end]`` is the
snippet, at most ``SNIPPET_CHARS``).

Where it sits: on the densest cluster of literal spans (the window of at most
``SNIPPET_CHARS`` holding the most distinct query terms, then the most spans, then the
earliest), centred and widened to the bound; for a chunk matched by meaning alone (no span),
on ``focus`` — the sentence the dense model finds closest to the query (the service's
``best_sentences``); else on the chunk's start. The ends are moved to word boundaries, never
cutting a word that fits. Pure: no model here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from app.domain.sentences import MAX_STORED_SENTENCES, sentences

SNIPPET_CHARS = 320
# Sentences embedded per page, in one batch (EVIDENCE_SEARCH__SNIPPET_SENTENCES): 5–12 ms each
# on the serving process's one query thread (32 cost a SciFact search 150 ms at p90), so the
# best rows' meaning-only chunks get the model, the rest the sentence sharing most word stems
SENTENCE_BUDGET = 4


def _cluster(spans: Sequence[tuple[int, int, str]], width: int) -> tuple[int, int]:
    """The span range within ``width`` characters holding the most distinct terms, then the
    most spans, then the earliest: its first start and last end."""
    best: tuple[int, int, int, int] | None = None  # (-terms, -spans, start, end)
    j = 0
    for i, (start, _, _) in enumerate(spans):
        j = max(j, i)
        while j + 1 < len(spans) and spans[j + 1][1] - start <= width:
            j += 1
        if spans[j][1] - start > width:  # a single span longer than the window
            j = i
        inside = spans[i:j + 1]
        key = (-len({t for _, _, t in inside}), -len(inside), start, inside[-1][1])
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2], best[3]


def _widen(text: str, start: int, end: int, width: int) -> tuple[int, int]:
    """[start, end) centred in a window of ``width`` (within the text), ends on word
    boundaries."""
    size = len(text)
    end = min(end, start + width)
    spare = width - (end - start)
    left = min(start, spare // 2)
    right = min(size - end, spare - left)
    left = min(start, spare - right)  # what the right could not use goes left
    a, b = start - left, end + right
    if a > 0 and not text[a - 1].isspace():  # do not start inside a word
        cut = text.find(" ", a, start)
        a = cut + 1 if cut != -1 else a
    if b < size and not text[b].isspace():  # nor end inside one
        cut = text.rfind(" ", end, b)
        b = cut if cut != -1 else b
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def snippet(text: str, spans: Sequence[tuple[int, int, str]],
            focus: tuple[int, int] | None = None,
            width: int = SNIPPET_CHARS) -> tuple[int, int]:
    """(start, end) of the snippet: around the spans' densest cluster (``spans``: start, end,
    the matched term folded), else around ``focus``, else the chunk's start."""
    if not text:
        return 0, 0
    if spans:
        start, end = _cluster(sorted(spans), width)
    elif focus is not None:
        start, end = focus
    else:
        start, end = 0, min(len(text), width)
    return _widen(text, start, end, width)


def row_cosines(rows: Sequence[Sequence[float]] | np.ndarray,
                query_vector: Sequence[float]) -> np.ndarray:
    """Each row's cosine with the query (a zero row: 0)."""
    matrix = np.asarray(rows, dtype=np.float32)
    query = np.asarray(query_vector, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    return matrix @ query / np.where(norms == 0, 1.0, norms)


def cosines(texts: list[str], query_vector: Sequence[float],
            embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """Each text's cosine with the query, the texts embedded in one batch."""
    return row_cosines(embed(texts), query_vector)


def best_stored_sentences(texts: Sequence[str],
                          stored: Sequence[Sequence[Sequence[float]] | None],
                          query_vector: Sequence[float],
                          spans: Sequence[Sequence[tuple[int, int]] | None] | None = None
                          ) -> list[tuple[int, int] | None]:
    """For each text, the sentence closest to the query by its stored sentence vectors (one
    per sentence the chunk kept, app/domain/sentences.py, in order, as ingestion made them),
    or None where none are stored or they do not line up with the text's sentences (``spans``:
    each text's sentences as kept with it): no model, no budget."""
    out: list[tuple[int, int] | None] = []
    for k, (text, vectors) in enumerate(zip(texts, stored, strict=True)):
        found = sentences(text, MAX_STORED_SENTENCES, spans[k] if spans else None)
        if not vectors or len(vectors) != len(found):
            out.append(None)
            continue
        out.append(found[int(np.argmax(row_cosines(vectors, query_vector)))])
    return out


def best_sentences(texts: Sequence[str], query_vector: Sequence[float],
                   embed: Callable[[list[str]], np.ndarray],
                   budget: int = SENTENCE_BUDGET,
                   spans: Sequence[Sequence[tuple[int, int]] | None] | None = None
                   ) -> list[tuple[int, int] | None]:
    """For each text, the sentence closest to the query by the dense model (one batch for all
    of them), or None where it has none to compare — or where the page's ``budget`` of
    sentences ran out before it (the texts come best row first)."""
    compared: list[list[tuple[int, int]]] = []
    for k, text in enumerate(texts):
        found = sentences(text, spans=spans[k] if spans else None) if budget > 0 else []
        budget -= len(found)
        compared.append(found if budget >= 0 else [])
    flat = [t[a:b] for t, found in zip(texts, compared, strict=True) for a, b in found]
    if not flat:
        return [None] * len(texts)
    similarity = cosines(flat, query_vector, embed)
    out: list[tuple[int, int] | None] = []
    at = 0
    for found in compared:
        if not found:
            out.append(None)
            continue
        scores = similarity[at:at + len(found)]
        out.append(found[int(np.argmax(scores))])
        at += len(found)
    return out


def word_focus(text: str, query_stems: frozenset[str], stem: Callable[[str], str],
               spans: Sequence[tuple[int, int]] | None = None) -> tuple[int, int] | None:
    """The sentence holding the most of the query's word stems (inflections a literal span
    misses: "vacations" for "vacation"), or None when no sentence holds one."""
    best, best_count = None, 0
    for a, b in sentences(text, spans=spans):
        count = len({stem(w.lower()) for w in re.findall(r"\w+", text[a:b])} & query_stems)
        if count > best_count:
            best, best_count = (a, b), count
    return best
