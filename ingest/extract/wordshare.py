"""How much of a text layer is words: the share of its characters in words that public English
word lists know — a garbage text layer (a scanner's failed OCR, a font whose character map is
broken) is letters but almost no words.

Why this measure: the characters alone cannot tell garbage from text (letter salad and a
shifted alphabet are all letters). The word list is the one the BM25 background ships
(wordfreq's large English list through the BM25 model's own stemmer and term hashing,
app/models/background.py) plus the model's stopwords, so nothing new is installed or loaded.
Each word counts by its length, and only words of four letters or more are looked up (the list
knows most three-letter strings as some acronym, and garbage is full of them).

The threshold is a null, not a tuning (``python -m bench.garbled_text_null``): 200 garbage
texts (letter salad, random printable characters, accented Latin-1 noise, English with a
shifted alphabet) share 0.013 at their 99th percentile (max 0.021); business prose shares 0.94
(English), 0.33 (French), 0.10–0.20 (German, Spanish, Italian), 0.066 (Dutch), 0.049 (Polish).
The line is the null's 99th percentile rounded up to two decimals: 99 garbage layers in a
hundred are caught, and the least-covered language measured sits at 2.5 times the line.
Languages the list barely covers sit nearer the line, so a garbled layer is never dropped: it
is OCRed where the page holds an image (the better reading kept) and otherwise kept with a
warning that names both possibilities. Text mostly in another script (Cyrillic, CJK, Arabic…)
or too short is not judged.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

GARBLED_SHARE = 0.02  # the garbage null's 99th percentile, rounded up (see the docstring)
MIN_JUDGED_CHARS = 200  # less text than this is not judged (a caption, a page number)
MIN_LATIN_SHARE = 0.8  # letters that must be Latin script for an English list to judge
_WORD = re.compile(r"[^\W\d_]{4,}")
_PARTS = re.compile(r"['’-]")
_EDGE = ".,;:!?\"'()[]{}«»“”‘’-–—"


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[frozenset[int], frozenset[str], object]:
    import mmh3  # noqa: F401 - fastembed's own dependency, as its BM25 hashes terms
    from py_rust_stemmers import SnowballStemmer

    from app.models.background import ASSET, load_background

    stopwords = frozenset((ASSET.parent / "english.txt").read_text().split())
    return frozenset(load_background()), stopwords, SnowballStemmer("english")


@lru_cache(maxsize=65536)  # a document repeats its words
def _known(word: str) -> bool:
    import mmh3

    terms, stopwords, stemmer = _vocabulary()
    if word in stopwords:
        return True
    # shorter words are too often known by chance: lists hold most three-letter strings as
    # some acronym, and garbage is full of them
    return bool(_WORD.fullmatch(word)) and abs(mmh3.hash(stemmer.stem_word(word))) in terms  # type: ignore[attr-defined]


def word_share(text: str) -> float | None:
    """The share of the text's non-space characters in known words, or None where it cannot
    be judged (too short, or mostly not Latin script)."""
    tokens = [t.strip(_EDGE).lower() for t in text.split()]
    tokens = [t for t in tokens if t]
    total = sum(len(t) for t in tokens)
    if total < MIN_JUDGED_CHARS:
        return None
    letters = [ch for t in tokens for ch in t if ch.isalpha()]
    latin = sum(1 for ch in letters if unicodedata.name(ch, "").startswith("LATIN"))
    if letters and latin / len(letters) < MIN_LATIN_SHARE:
        return None
    known = sum(len(part) for t in tokens for part in _PARTS.split(t)  # "l'exercice"
                if _known(part))
    return known / total


def garbled(text: str) -> float | None:
    """The word share when it marks the text as garbled, else None."""
    share = word_share(text)
    return share if share is not None and share < GARBLED_SHARE else None
