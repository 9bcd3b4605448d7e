"""Literal spans: where the query's words occur in a text, compared lower-cased with accents
folded (``configuracao`` finds ``Configuração``). Offsets index the original text."""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

from app.domain.textnorm import WORD, fold

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


def _is_word(ch: str) -> bool:
    """What ``\\w`` matches in a str pattern: a letter or digit of any script, or ``_``."""
    return ch.isalnum() or ch == "_"


def literal_spans(text: str, terms: frozenset[str]) -> list[dict[str, int | str]]:
    """Each whole-word occurrence of a term in ``text``: start, end (exclusive) and the text.

    The same evidence text is looked at three times an answer (picking, snippet focus, the
    presenter): the offsets are remembered for the last few hundred (text, terms)."""
    if not terms:
        return []
    return [{"start": a, "end": b, "text": text[a:b]} for a, b in _span_offsets(text, terms)]


@lru_cache(maxsize=512)
def _span_offsets(text: str, terms: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """Each term is looked for with ``str.find`` and kept where no word character touches it
    (a run of word characters equal to the term, as the ``WORD`` tokens matching a term
    are): the scanning is C's, the Python is per occurrence, not per word of the text —
    30 evidence texts a page made this the answer's largest cost (issue 25)."""
    folded, found = fold(text), []
    size = len(folded)
    for term in terms:
        at = folded.find(term)
        while at != -1:
            end = at + len(term)
            if ((at == 0 or not _is_word(folded[at - 1]))
                    and (end == size or not _is_word(folded[end]))):
                found.append((at, end))
            at = folded.find(term, end)  # a term is word characters: none starts inside it
    return tuple(sorted(found))
