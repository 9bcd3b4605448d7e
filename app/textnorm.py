"""Text as search compares it: words, lower case, accents folded, offsets kept."""

from __future__ import annotations

import re
import unicodedata

WORD = re.compile(r"\w+", re.UNICODE)


def fold(text: str) -> str:
    """Lower-case and strip accents one character at a time, so offsets stay the same
    (a character whose lower case is longer, like İ, keeps only its base letter)."""
    return "".join(unicodedata.normalize("NFD", ch.lower())[0] for ch in text)
