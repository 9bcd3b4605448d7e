"""Mail subjects as threads read them: reply and forward prefixes in the languages mail clients
write them (Re:, Fwd:, AW:, WG:, SV:, VS:, TR:, Antw:, with a count like Re[2]:)."""

from __future__ import annotations

import re

SUBJECT_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|wg|sv|vs|tr|antw)\s*(?:\[\d+\])?\s*:\s*)+",
                            re.IGNORECASE)


def normal_subject(subject: str | None) -> str:
    """A subject without its reply and forward prefixes, folded."""
    return " ".join(SUBJECT_PREFIX.sub("", subject or "").split()).casefold()


def answers_or_forwards(subject: str | None) -> bool:
    """Does the subject say the message replies to or forwards another?"""
    return bool(SUBJECT_PREFIX.match(subject or ""))
