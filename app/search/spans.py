"""Literal spans: where the query's words occur in a text, compared lower-cased with accents
folded (``configuracao`` finds ``Configuração``). Offsets index the original text."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files

from app.textnorm import WORD, fold

__all__ = ["WORD", "fold", "literal_spans", "query_terms"]


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    path = files("app.models") / "assets" / "english.txt"
    return frozenset(w.strip() for w in path.read_text().splitlines() if w.strip())


def query_terms(query: str) -> frozenset[str]:
    """The words a span may match: folded, no stopwords, no single letters (digits stay)."""
    stop = _stopwords()
    return frozenset(w for w in (fold(m.group(0)) for m in WORD.finditer(query))
                     if w not in stop and (len(w) > 1 or w.isdigit()))


@lru_cache(maxsize=256)
def _whole_words(terms: frozenset[str]) -> re.Pattern[str]:
    """The terms as whole words: a run of word characters equal to one of them, which is
    what ``WORD`` tokens matching a term are, found by the regex engine in one scan instead
    of a Python test per word of the text (issue 25)."""
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=lambda t: (-len(t), t)))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.UNICODE)


def literal_spans(text: str, terms: frozenset[str]) -> list[dict[str, int | str]]:
    """Each whole-word occurrence of a term in ``text``: start, end (exclusive) and the text."""
    if not terms:
        return []
    return [{"start": m.start(), "end": m.end(), "text": text[m.start():m.end()]}
            for m in _whole_words(terms).finditer(fold(text))]
