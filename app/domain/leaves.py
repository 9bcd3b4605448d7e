"""Canonical metadata as typed leaves, and how a query matches a leaf.

A leaf is a (dotted key, type, value) with type string | number | boolean | date (an ISO-8601
date or date-time string). Lists give one leaf per element under the same key. The entities
found in a version's chunks are leaves too, under ``entities.<group>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from app.domain.limits import KEY_SEGMENT
from app.domain.textnorm import WORD, fold

GROUPS = ("source", "document", "location", "classification", "quality", "custom", "entities")
# The contract's entity groups under ``entities.`` (ingest/entities.py fills them), then the two
# this service adds: contact identifiers fit none of the contract's (app/domain/identifiers.py)
CONTRACT_ENTITY_GROUPS = ("persons", "organizations", "dates_times", "locations",
                          "monetary_amounts", "account_numbers", "transaction_references",
                          "account_types")
ENTITY_GROUPS = (*CONTRACT_ENTITY_GROUPS, "email_addresses", "phone_numbers")
# a filter key: a group, then the levels of a stored key (app/domain/limits.py KEY_SEGMENT)
KEY_RE = re.compile(rf"[a-z_]+(\.{KEY_SEGMENT})+")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}"
                      r"([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
IDENTIFIER = re.compile(r"\b[A-Za-z]{2,}-\d[\w-]*\b")

# Types of the keys the service itself writes; custom.* and entities.* are learned from data.
STANDARD_TYPES = {
    "source.filename": "string", "source.mime_type": "string", "source.size_bytes": "number",
    "source.sha256": "string", "document.kind": "string", "document.title": "string",
    "document.page_count": "number", "document.chunk_count": "number",
    "document.char_count": "number", "document.author": "string", "document.subject": "string",
    "document.from": "string", "document.to": "string", "document.cc": "string",
    "document.date": "string", "document.message_id": "string",
    "document.from_address": "string", "document.from_name": "string",
    "document.to_address": "string", "document.has_attachments": "boolean",
    "document.thread_id": "string", "document.in_reply_to": "string",
    "document.references": "string", "document.thread_subject": "string",
    "document.sheet_count": "number", "source.attached_to.document_id": "string",
    "source.attached_to.version_id": "string", "source.attached_to.filename": "string",
    "source.attached_to.depth": "number",
    "location.source": "string", "location.path": "string",
    "classification.status": "string", "classification.categories": "string",
    "quality.text_extraction": "string", "quality.ocr_used": "boolean",
    "quality.warnings": "string", "quality.ocr_engine": "string",
}


@dataclass(frozen=True)
class Leaf:
    key: str
    type: str
    value: Any


def value_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "date" if ISO_DATE.match(value) and _parse_date(value) else "string"
    return None


def _parse_date(text: str) -> date | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        return None


def leaves_of(canonical_metadata: dict[str, Any], entities: dict[str, list[str]] | None
              ) -> list[Leaf]:
    """Every typed leaf of a version, in a stable order."""
    out: list[Leaf] = []

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for k in sorted(node):
                walk(f"{prefix}.{k}", node[k])
        elif isinstance(node, list):
            for item in node:
                walk(prefix, item)
        else:
            kind = value_type(node)
            if kind is not None:
                out.append(Leaf(prefix, kind, node))

    for group in GROUPS[:-1]:
        if isinstance(canonical_metadata.get(group), dict):
            walk(group, canonical_metadata[group])
    for group in sorted(entities or {}):
        for value in entities[group]:  # type: ignore[index]
            out.append(Leaf(f"entities.{group}", "string", value))
    return out


class EntityUnion:
    """Entities merged per group, first-seen order, no duplicates; added to as chunks come."""

    def __init__(self) -> None:
        self.groups: dict[str, list[str]] = {}
        # {group: {value: the chunks naming it}}: a chunk naming a value twice counts once
        self.mentions: dict[str, dict[str, int]] = {}

    def add(self, found: dict[str, list[str]], mentions: dict[str, dict[str, int]] | None = None
            ) -> None:
        """One chunk's entities (each a mention), or a checkpoint's union and its counts."""
        for group, values in found.items():
            bucket, counts = self.groups.setdefault(group, []), self.mentions.setdefault(group, {})
            for value in values:
                if value not in counts:
                    bucket.append(value)
                    counts[value] = 0
                counts[value] += (mentions or {}).get(group, {}).get(value, 1 if mentions is None
                                                                     else 0)


def merge_entities(per_chunk: list[dict[str, list[str]]]) -> dict[str, list[str]]:
    union = EntityUnion()
    for found in per_chunk:
        union.add(found)
    return union.groups


# How a leaf matched, best first; the number is the match's strength for ranking.
MATCH_STRENGTH = {"exact": 4.0, "identifier": 4.0, "number": 3.5, "date": 3.5,
                  "all_words": 2.0, "some_words": 1.0}


@dataclass(frozen=True)
class LeafMatch:
    leaf: Leaf
    match: str
    score: float
    spans: tuple[tuple[int, int], ...]


def match_leaf(query: str, leaf: Leaf) -> LeafMatch | None:
    """Whole query equal to the value (case-insensitive, accents folded) > a number or date the
    query names > an identifier the query holds > all query words in the value > some."""
    value = leaf.value
    if leaf.type == "boolean":
        return None
    if leaf.type == "number":
        number = as_number(query)
        if number is not None and float(value) == number:
            return LeafMatch(leaf, "number", MATCH_STRENGTH["number"], ((0, len(str(value))),))
        return None
    text = str(value)
    folded_text, folded_query = fold(text), fold(query.strip())
    if folded_text == folded_query:
        return LeafMatch(leaf, "exact", MATCH_STRENGTH["exact"], ((0, len(text)),))
    if leaf.type == "date":
        wanted = _parse_date(query.strip())
        if wanted is not None and wanted == _parse_date(text):
            return LeafMatch(leaf, "date", MATCH_STRENGTH["date"], ((0, len(text)),))
    for ident in IDENTIFIER.findall(query):
        if fold(ident) == folded_text:
            return LeafMatch(leaf, "identifier", MATCH_STRENGTH["identifier"], ((0, len(text)),))
    words = {m.group(0) for m in WORD.finditer(folded_query) if len(m.group(0)) > 1}
    if not words:
        return None
    spans = tuple((m.start(), m.end()) for m in WORD.finditer(folded_text)
                  if m.group(0) in words)
    found = {folded_text[a:b] for a, b in spans}
    if not found:
        return None
    if found == words:
        return LeafMatch(leaf, "all_words", MATCH_STRENGTH["all_words"], spans)
    return LeafMatch(leaf, "some_words", MATCH_STRENGTH["some_words"] * len(found) / len(words),
                     spans)


def as_number(text: str) -> float | None:
    """The number a text names ("1,200" → 1200.0), or None."""
    try:
        return float(text.strip().replace(",", ""))
    except ValueError:
        return None


def folded_value(leaf_type: str, value: object) -> str:
    """The form leaves are compared in: numbers canonical, text lower-cased and accent-folded."""
    if leaf_type == "number":
        return repr(float(value))  # type: ignore[arg-type]
    if leaf_type == "boolean":
        return "true" if value else "false"
    return fold(str(value))
