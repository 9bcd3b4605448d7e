"""Simple query syntax, safely: ``"a quoted phrase"`` and ``-word``, nothing else.

A phrase must occur as written (folded as literal spans are: lower case, accents off, whole
words, any run of spaces and punctuation between its words) in every returned version's cited
text; ``-word`` (a dash at the start of a word, outside quotes) leaves out every version whose
text holds that word (its BM25 term: the word, stemmed). A dash inside a token (``PO-2231``,
``TXN-2024-001``, ``e-mail``) is never an exclusion, a lone dash is nothing, an unclosed quote
is an ordinary character. Everything else reaches the lanes as plain words, as before (seed
002): no operator, field or escape changes how a query is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.domain.textnorm import WORD, fold

MAX_PHRASES = 5
MAX_EXCLUSIONS = 10
_QUOTED = re.compile(r'"([^"]*)"')
_EXCLUDED = re.compile(r"(?:(?<=\s)|^)-(\w[\w'’-]*)")


@dataclass(frozen=True)
class ParsedQuery:
    text: str  # what the lanes read: the query without quotes and exclusions ("" if none)
    phrases: tuple[str, ...] = ()  # each as its folded words joined by one space
    exclusions: tuple[str, ...] = ()  # the words to leave out, as written

    @property
    def active(self) -> bool:
        return bool(self.phrases or self.exclusions)


def folded_words(text: str) -> list[str]:
    """The text's words as literal spans compare them: lower case, accents off."""
    return [fold(w.group(0)) for w in WORD.finditer(text)]


def parse_query(query: str) -> ParsedQuery:
    """The query's phrases and exclusions, and the text the lanes read."""
    phrases: list[str] = []

    def keep_phrase(match: re.Match[str]) -> str:
        words = folded_words(match.group(1))
        if words and len(phrases) < MAX_PHRASES:
            phrases.append(" ".join(words))
        return f" {match.group(1)} "

    text = _QUOTED.sub(keep_phrase, query)
    exclusions: list[str] = []

    def drop_word(match: re.Match[str]) -> str:
        if len(exclusions) < MAX_EXCLUSIONS:
            exclusions.append(match.group(1))
        return " "

    text = _EXCLUDED.sub(drop_word, text)
    text = " ".join(text.split())
    return ParsedQuery(text=text, phrases=tuple(dict.fromkeys(phrases)),
                       exclusions=tuple(dict.fromkeys(exclusions)))


def holds_phrase(text: str, phrase: str) -> bool:
    """Whether ``phrase`` (folded words joined by a space) occurs in ``text`` word for word,
    whatever separates the words there."""
    words = folded_words(text)
    wanted = phrase.split(" ")
    n = len(wanted)
    return any(words[i:i + n] == wanted for i in range(len(words) - n + 1))


def holds_phrases(text: str, phrases: tuple[str, ...]) -> bool:
    return all(holds_phrase(text, p) for p in phrases)
