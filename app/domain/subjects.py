"""Mail subjects as threads read them: reply and forward prefixes in the languages mail clients
write them (Re:, Fwd:, AW:, WG:, SV:, VS:, TR:, Antw:, with a count like Re[2]:)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

MESSAGE_ID = re.compile(r"<([^<>\s]{1,500})>")
SUBJECT_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|wg|sv|vs|tr|antw)\s*(?:\[\d+\])?\s*:\s*)+",
                            re.IGNORECASE)


def normal_subject(subject: str | None) -> str:
    """A subject without its reply and forward prefixes, folded."""
    return " ".join(SUBJECT_PREFIX.sub("", subject or "").split()).casefold()


def answers_or_forwards(subject: str | None) -> bool:
    """Does the subject say the message replies to or forwards another?"""
    return bool(SUBJECT_PREFIX.match(subject or ""))


def thread_key(root_message_id: str) -> str:
    """A thread's stable id: its root message's Message-ID, hashed."""
    return f"th-{hashlib.sha256(root_message_id.encode()).hexdigest()[:16]}"


def message_ids(value: Any) -> list[str]:
    """The message ids a Message-ID, In-Reply-To or References header names, in order."""
    return list(dict.fromkeys(MESSAGE_ID.findall(str(value or ""))))[:100]


def own_thread(message_id: Any) -> str | None:
    """The thread a message with no parent named starts: its own id's."""
    own = message_ids(message_id)
    return thread_key(own[0]) if own else None
