"""Entity pages: the people, organisations, amounts, accounts … named in a client's current
versions, each with how many documents name it and how often (Aleph's and Datashare's entity
lists), and the versions naming one of them. Pure: the registry passes the rows.

One entity, many spellings: values are grouped by app/domain/entity_values.entity_identity —
the value's key where its group has one (an amount, a day, an IBAN, an e-mail address), else
the name folded (case, spaces, a person's titles, an organisation's leading "the" and legal
form). An entity is shown by its commonest spelling (then the first alphabetically).

A mention is a chunk naming the value (ingest: ``DocumentVersion.entity_mentions``); a version
indexed before mentions were kept counts one per value until `evidence reindex`.
"""

from __future__ import annotations

import base64
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.domain.entity_values import entity_identity
from app.domain.errors import BadRequest

MAX_QUERY_CHARS = 200


@dataclass(frozen=True)
class VersionEntities:
    """One current version as the entity pages read it (app/registry/documents.py)."""

    document_id: str
    version_id: str
    title: str | None
    filename: str
    entities: Mapping[str, list[Any]]
    mentions: Mapping[str, Mapping[str, int]] | None


@dataclass
class Entity:
    identity: str
    spellings: Counter = field(default_factory=Counter)  # spelling → versions writing it
    documents: set[str] = field(default_factory=set)
    mentions: int = 0

    @property
    def value(self) -> str:
        return min(self.spellings, key=lambda s: (-self.spellings[s], s))


def _matches(entity: Entity, q: str) -> bool:
    return q in entity.identity or any(q in s.casefold() for s in entity.spellings)


def gather(rows: Iterable[VersionEntities], group: str) -> dict[str, Entity]:
    """{identity: Entity} over the versions, for one group."""
    found: dict[str, Entity] = {}
    for row in rows:
        counts = (row.mentions or {}).get(group, {})
        for value in row.entities.get(group) or []:
            if not isinstance(value, str) or not value.strip():
                continue
            identity = entity_identity(group, value)
            entity = found.setdefault(identity, Entity(identity))
            entity.spellings[value] += 1
            entity.documents.add(row.document_id)
            entity.mentions += counts.get(value, 1) if row.mentions is not None else 1
    return found


def entity_list(rows: Iterable[VersionEntities], group: str, *, q: str | None, offset: int,
                limit: int) -> tuple[list[dict[str, Any]], int]:
    """A page of the group's entities, most documents first (then mentions, then value),
    with the total that match ``q`` (a part of any spelling, any case)."""
    needle = " ".join((q or "").split()).casefold()
    entities = [e for e in gather(rows, group).values() if not needle or _matches(e, needle)]
    entities.sort(key=lambda e: (-len(e.documents), -e.mentions, e.value.casefold(), e.value))
    page = entities[offset:offset + limit]
    return [{"value": e.value, "documents": len(e.documents), "mentions": e.mentions,
             "spellings": sorted(e.spellings)} for e in page], len(entities)


def entity_documents(rows: Iterable[VersionEntities], group: str, value: str
                     ) -> list[dict[str, Any]]:
    """The current versions naming the entity ``value`` stands for (any spelling), most
    mentions first."""
    identity = entity_identity(group, value)
    found = []
    for row in rows:
        spellings = [v for v in row.entities.get(group) or []
                     if isinstance(v, str) and entity_identity(group, v) == identity]
        if spellings:
            counts = (row.mentions or {}).get(group, {})
            mentions = (sum(counts.get(v, 1) for v in spellings) if row.mentions is not None
                        else len(spellings))
            found.append({"document_id": row.document_id, "version_id": row.version_id,
                          "title": row.title, "filename": row.filename, "mentions": mentions,
                          "spellings": spellings})
    found.sort(key=lambda d: (-d["mentions"], d["document_id"]))
    return found


# -- an opaque cursor: where the next page starts ----------------------------------------------

def cursor_for(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def offset_of(cursor: str | None) -> int:
    """The offset a cursor stands for (0 without one); 422 for one this service never gave."""
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not re.fullmatch(r"o:\d{1,9}", text):
            raise ValueError
        return int(text[2:])
    except ValueError:
        raise BadRequest("cursor: not a cursor this service gave; pass next_cursor as it came",
                         code="INVALID_CURSOR", details={"cursor": cursor[:100]}) from None
