"""Document-controlled strings (titles, headings, file names, metadata values, error reasons)
made safe to print on a line an agent reads as the server's own.

Why: an agent reads an answer's lines as structure — a line starting ``## 2.`` is a result,
``document_id:`` a citation, a line of backticks a fence. A title holding a newline could
forge any of them, a stray fence swallow the real citations. Passages go inside a fence they
cannot close (``fence``); everything else a document controls goes through ``one_line``: on
one line, quoted, with line breaks, control and invisible format characters and fence
characters neutralised, and bounded, so no line outside a fence ever starts with a
document's text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

MAX_FIELD_CHARS = 300  # a title or file name longer than this is cut (with an ellipsis)
# every character Unicode or a Markdown reader may treat as a line break
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
FENCE_CHARACTERS = {"`": "\u02cb", "~": "\u223c"}  # ˋ and ∼: read alike, never a fence


def one_line(value: Any, *, limit: int = MAX_FIELD_CHARS) -> str:
    """``value`` as one quoted line: line breaks and tabs become spaces, other control and
    format characters (bidirectional overrides, zero-width joiners) are dropped, backticks and
    tildes are replaced by look-alikes, and the whole is quoted as a JSON string, so it reads
    as data wherever it sits on the server's line."""
    text = "" if value is None else str(value)
    out = []
    for ch in text[: limit * 4]:
        if ch in LINE_BREAKS or ch == "\t":
            out.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue
        else:
            out.append(FENCE_CHARACTERS.get(ch, ch))
    flat = re.sub(r" {2,}", " ", "".join(out)).strip()
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return json.dumps(flat, ensure_ascii=False)


IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:+-]{0,300}")


def ident(value: Any) -> str:
    """An id the server made or validated (document, version, chunk id; a page; a state) as
    it is, so citations read plainly; anything else as ``one_line`` would show it."""
    text = "" if value is None else str(value)
    return text if IDENTIFIER.fullmatch(text) else one_line(text)


def plain(value: Any, *, limit: int = MAX_FIELD_CHARS) -> str:
    """``one_line`` without the quotes: for metadata values handed to a framework as a field
    (a retriever's ``title``), where the quotes would be part of the value."""
    return json.loads(one_line(value, limit=limit))


def fence(text: str) -> str:
    """``text`` in a Markdown code fence it cannot close: longer than any backtick run in it
    (a closing fence must be at least as long as the opening one, and of backticks)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}text\n{text}\n{ticks}"
