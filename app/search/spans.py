"""Literal spans: where the query's words occur in a text, compared lower-cased with accents
folded (``configuracao`` finds ``Configuração``). Offsets index the original text."""

from __future__ import annotations

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


def literal_spans(text: str, terms: frozenset[str]) -> list[dict[str, int | str]]:
    """Each whole-word occurrence of a term in ``text``: start, end (exclusive) and the text."""
    if not terms:
        return []
    folded = fold(text)
    return [{"start": m.start(), "end": m.end(), "text": text[m.start():m.end()]}
            for m in WORD.finditer(folded) if m.group(0) in terms]
