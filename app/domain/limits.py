"""Bounds on everything a client sends, checked before anything reaches the registry or engine.

One client's input must never break the service for the others: the embedded engine fails every
later write after one payload nested ~125 deep, the answer serialiser gives up at depth 500, the
registry stores 64-bit integers, JSON allows lone surrogates that UTF-8 cannot encode, and
``json.loads`` turns ``1e400`` into infinity. Every value a client gives (upload metadata,
filters, form fields) passes through here and is refused with a 4xx and a stable code otherwise.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from app.domain.errors import BadRequest

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Control characters (C0, DEL, C1) and the Unicode line/paragraph separators.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# A metadata key is one path segment of a dotted filter key: no dots, no control characters.
# One level of a metadata key: letters (any script), digits, "_" and "-" — what a filter key
# can address (app/domain/leaves.py KEY_RE is built from it), so a key that can be stored can be
# filtered on. A space, "[", "." or a control character is refused at upload.
KEY_SEGMENT = r"[\w\-]+"
# Points whose identity (document, version, chunk index) a process keeps for the search lanes
# (app/store/identity.py): ~300 bytes each, 200,000 in ~60 MB (settings: qdrant.identity_cache)
IDENTITY_CACHE_POINTS = 200_000
METADATA_KEY = re.compile(KEY_SEGMENT)


@dataclass(frozen=True)
class MetadataLimits:
    """How big a client's metadata may be (``EVIDENCE_LIMITS__METADATA_*``)."""

    depth: int = 8            # objects and lists nested inside ``custom``
    keys: int = 256           # keys and list items, all levels together
    key_chars: int = 128
    string_chars: int = 8192
    total_bytes: int = 65536  # the metadata as compact JSON


def is_valid_utf8(text: str) -> bool:
    """False for strings holding lone surrogates (JSON's ``"\\ud800"``): UTF-8 cannot store them."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(text: str, *, field: str, code: str, max_chars: int,
               stored: bool = True) -> str:
    """A client string: valid UTF-8 and at most ``max_chars`` characters; one that is
    ``stored`` holds no NUL (PostgreSQL's text and JSON cannot: it would fail the upload as a
    500 there and pass on SQLite)."""
    if not is_valid_utf8(text):
        raise BadRequest(f"{field} is not valid UTF-8 (a lone surrogate such as \\ud800)",
                         code=code, details={"field": field})
    if stored and "\x00" in text:
        raise BadRequest(f"{field} holds a NUL character (\\u0000), which is never stored",
                         code=code, details={"field": field})
    if len(text) > max_chars:
        raise BadRequest(f"{field} is {len(text):,} characters; at most {max_chars:,}",
                         code=code, details={"field": field, "max_chars": max_chars})
    return text


def check_scalar(value: Any, *, where: str, code: str, max_chars: int) -> None:
    """Strings valid UTF-8 and bounded; integers 64-bit; floats finite; or bool / None."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise BadRequest(f"{where}: integers must fit in 64 bits (-2^63 … 2^63-1)",
                             code=code, details={"path": where})
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadRequest(f"{where}: numbers must be finite", code=code,
                             details={"path": where})
        return
    if isinstance(value, str):
        check_text(value, field=where, code=code, max_chars=max_chars)
        return
    raise BadRequest(f"{where}: {type(value).__name__} is not a JSON value", code=code,
                     details={"path": where})


def check_metadata(custom: dict[str, Any], limits: MetadataLimits,
                   *, code: str = "INVALID_METADATA") -> dict[str, Any]:
    """Refuse metadata deeper, larger or stranger than ``limits`` allow; returns it unchanged.

    Iterative on purpose: a recursive walk would itself fail on the 5,000-deep input it must
    refuse. Lists hold scalars or objects, not both (a key cannot be a value and a parent).
    """
    count = 0
    stack: list[tuple[Any, str, int]] = [(custom, "custom", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth >= limits.depth:
                raise BadRequest(f"metadata is nested deeper than {limits.depth} levels "
                                 f"(at {path})", code=code,
                                 details={"path": path[:200], "max_depth": limits.depth})
            count += len(node)
            if count > limits.keys:
                raise BadRequest(f"metadata holds more than {limits.keys} keys and list items",
                                 code=code, details={"max_keys": limits.keys})
            if isinstance(node, dict):
                for key, child in node.items():
                    _check_key(key, path, limits, code)
                    stack.append((child, f"{path}.{key}", depth + 1))
            else:
                kinds = {isinstance(item, dict) for item in node if item is not None}
                if len(kinds) > 1 or any(isinstance(item, list) for item in node):
                    raise BadRequest(f"{path}: a list holds either values or objects, not both, "
                                     "and no lists", code=code, details={"path": path[:200]})
                stack.extend((item, path, depth + 1) for item in node)
        else:
            check_scalar(node, where=path[:200], code=code, max_chars=limits.string_chars)
    size = len(json.dumps(custom, ensure_ascii=False, separators=(",", ":")).encode())
    if size > limits.total_bytes:
        raise BadRequest(f"metadata is {size:,} bytes as JSON; at most {limits.total_bytes:,}",
                         code=code, details={"size_bytes": size,
                                             "max_bytes": limits.total_bytes})
    return custom


def _check_key(key: Any, path: str, limits: MetadataLimits, code: str) -> None:
    if not isinstance(key, str) or not key:
        raise BadRequest(f"{path}: keys must be non-empty strings", code=code)
    check_text(key, field=f"{path} key", code=code, max_chars=limits.key_chars)
    if not METADATA_KEY.fullmatch(key):  # fullmatch: "$" alone would let a trailing newline in
        raise BadRequest(f"{path}: key {key[:80]!r} may hold letters, digits, '_' and '-' only "
                         "(no '.', space, bracket or control character), so that a filter can "
                         "name it: custom.<key>.<key>", code=code, details={"path": path[:200]})


def strict_json_loads(raw: str) -> Any:
    """``json.loads`` refusing NaN and Infinity (the registry and engine cannot store them)."""

    def no_constants(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    return json.loads(raw, parse_constant=no_constants)


def display_text(text: str, max_chars: int = 255) -> str:
    """A name safe to show: control characters and line breaks removed, length bounded."""
    return CONTROL.sub("", text).strip()[:max_chars]


@dataclass(frozen=True)
class OcrBounds:
    """What OCR may spend on a document (EVIDENCE_INGEST__OCR_*: app/settings.py
    IngestSettings.ocr; used by ingest/extract/ocr.py)."""

    engine: str = "auto"  # auto (Tesseract if installed, else RapidOCR), tesseract, rapidocr, off
    max_pages: int = 300  # pages read by OCR per document
    page_seconds: float = 60.0
    max_pixels: int = 60_000_000  # per image or rendered page (a 600 dpi A4 page is 35 M)
    dpi: int = 200  # PDF pages are rendered at this resolution for OCR
    low_confidence: float = 0.6  # pages under this mean word confidence are named in a warning
