"""Which language a text is in (issue 52): lingua (offline, its models inside the wheel) over
the languages this service analyses in their own words — those fastembed's BM25 has a Snowball
stemmer for and `stop-words` a stop word list for, Western European for now:
English, German, French, Spanish, Italian, Portuguese, Dutch.

Rules, stated once:

- a **document** is in the language lingua is most confident of over its first 20,000
  characters, where that confidence is at least 0.5 and the text holds 12 words or more;
  else English (what every model here covers), so a table of numbers, a page of codes or a
  one-line ledger entry ("Contact: Daniel Okafor · IBAN: … · Debit (EUR): 48500") stays
  English;
- a **chunk** keeps its document's language unless it is long enough to tell (12 words or
  more) and lingua is sure it is another (≥ 0.9 for it, ≤ 0.05 for the document's): a German
  annex in an English contract is German, a sentence of Latin names in an English abstract
  is not;
- a **query** is in a language only where lingua is sure (≥ 0.9): "Kündigung" is German,
  "termination notice" unsure (then no language is assumed, and nothing changes).

Detection is restricted to these languages (fewer to tell apart: fewer mistakes, less memory).
Documents and chunks are read in lingua's low-accuracy mode (its trigram models: 15 MB, and
sure enough on a dozen words or more); a query, a few words, by its high-accuracy models
(193 MB here), loaded only when the low-accuracy reading calls a query another language than
English — which then must be confirmed: "mitochondrial DNA replication" reads French 0.91 to
the trigrams, English 0.76 (unsure) to the full models.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from app.domain.languages import DEFAULT, LANGUAGES

DOCUMENT_CHARS = 20_000
DOCUMENT_CONFIDENCE = 0.5
CHUNK_WORDS = 12
CHUNK_CONFIDENCE = 0.9
CHUNK_DOCUMENT_CEILING = 0.05
QUERY_CONFIDENCE = 0.9
WORD = re.compile(r"[^\W\d_]{2,}")  # a word of letters (numbers, codes and marks are not)
_lock = threading.Lock()


@lru_cache(maxsize=2)
def _detector(low_accuracy: bool) -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper()))
                 for code in LANGUAGES]
    builder = LanguageDetectorBuilder.from_languages(*languages)
    return (builder.with_low_accuracy_mode() if low_accuracy else builder).build()


def confidences(text: str, *, low_accuracy: bool = True) -> dict[str, float]:
    """{language code: lingua's confidence} for the supported languages (summing to 1)."""
    if not text.strip():
        return {}
    detector = _detector(low_accuracy)
    with _lock:  # lingua's lazy model loading is not meant to race
        values = detector.compute_language_confidence_values(text)
    return {v.language.iso_code_639_1.name.lower(): float(v.value) for v in values}


def document_language(text: str) -> str:
    """The document's language by the module's rule."""
    if len(WORD.findall(text[:DOCUMENT_CHARS])) < CHUNK_WORDS:
        return DEFAULT
    found = confidences(text[:DOCUMENT_CHARS])
    if not found:
        return DEFAULT
    best = max(found, key=found.__getitem__)
    return best if found[best] >= DOCUMENT_CONFIDENCE else DEFAULT


def chunk_languages(texts: Sequence[str], document: str) -> list[str]:
    """Each chunk's language: its document's, unless the chunk is surely another."""
    out = []
    for text in texts:
        language = document
        if len(WORD.findall(text)) >= CHUNK_WORDS:
            found = confidences(text)
            best = max(found, key=found.__getitem__) if found else document
            if (best != document and found[best] >= CHUNK_CONFIDENCE
                    and found.get(document, 0.0) <= CHUNK_DOCUMENT_CEILING):
                language = best
        out.append(language)
    return out


def query_language(text: str) -> str | None:
    """The query's language where lingua is sure of it, else None (the module's rule)."""
    found = confidences(text)
    if not found or max(found.values()) < QUERY_CONFIDENCE or max(
            found, key=found.__getitem__) == DEFAULT:
        return DEFAULT if found.get(DEFAULT, 0.0) >= QUERY_CONFIDENCE else None
    found = confidences(text, low_accuracy=False)  # another language: confirm it
    best = max(found, key=found.__getitem__)
    return best if found[best] >= QUERY_CONFIDENCE else None
