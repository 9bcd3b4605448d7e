"""The chunk payload: its keys, how it is built, the metadata tree filters use, and the passage
text a model reads — one home, used by ingestion (writes), the lanes (reads a few keys), the
reranker and the answer (reads texts).

The chunk payload carries the version's metadata as ``meta`` for exact filters inside the
engine, with booleans as strings under ``meta_bool`` (qdrant-edge-py 0.9.0 never matches a
bool payload): app/search/filters.py turns filters into paths under these trees.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from app.domain.leaves import Leaf
from app.store.base import ACCESS, FAR_FUTURE, HIDDEN, PUBLISHED_TS, SUPERSEDED_TS

CLIENT_ID, DOCUMENT_ID, VERSION_ID = "client_id", "document_id", "version_id"
CHUNK_ID, CHUNK_INDEX = "chunk_id", "chunk_index"
TEXT, TITLE, HEADING_PATH, PAGE = "text", "title", "heading_path", "page"
LINE_START, LINE_END, CHAR_START, CHAR_END = "line_start", "line_end", "char_start", "char_end"
KIND, SOURCE, ENTITIES, VISIBILITY = "kind", "source", "entities", "visibility"
META, META_BOOL = "meta", "meta_bool"
# A chunk of table rows: its sheet (None: a CSV) and, as line_start … line_end, its rows.
# Its text: the header once ("Columns: Date | Amount"), then a row a line, cells in column
# order (ingest/extract/sheets.py writes it; entities and changes read it)
SHEET, ROWS = "sheet", "rows"
COLUMNS_LABEL, COLUMN_SEPARATOR = "Columns: ", " | "
# The chunk's entities in one form (app/domain/entity_values.py): the entity lane matches on these
ENTITY_KEYS = "entity_keys"
# The chunk's sentences (app/domain/sentences.py) as flat [start, end, …] offsets into its text,
# found once at ingestion: its sentence vectors, snippets and changes read the same ones
SENTENCE_SPANS = "sentence_spans"
LANGUAGE = "language"  # the chunk's (app/models/languages.py): absent on chunks before it, English


def chunk_location(payload: dict[str, Any]) -> dict[str, Any] | None:
    """Where a chunk of table rows sits, as evidence names it: {"sheet", "rows": [a, b]}."""
    if not payload.get(ROWS):
        return None
    return {"sheet": payload.get(SHEET), "rows": [payload.get(LINE_START),
                                                  payload.get(LINE_END)]}


def passage_prefix(title: str | None, heading_path: Sequence[str]) -> str:
    """What goes in front of a chunk for the dense and sparse vectors and the reranker: the
    title and headings, a title repeated as the first heading once."""
    parts = [p for p in ((title or "").strip(), *heading_path) if p]
    return " > ".join(dict.fromkeys(parts))


def passage_text(title: str | None, heading_path: Sequence[str], text: str) -> str:
    prefix = passage_prefix(title, heading_path)
    return f"{prefix}\n\n{text}" if prefix else text


def sentence_passages(prefix: str, text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """A chunk's sentences (``spans``, those given vectors) as the dense model reads them when
    each is embedded on its own (ingest/embedding.py, "separate" pooling), behind the chunk's
    title and headings as the chunk itself was."""
    return [f"{prefix}\n\n{text[a:b].strip()}" if prefix else text[a:b].strip()
            for a, b in spans]


def stored_prefix(payload: dict[str, Any]) -> str:
    """What was put in front of a stored chunk when it was embedded: its title and headings."""
    return passage_prefix(payload.get(TITLE), payload.get(HEADING_PATH) or ())


def stored_passage(payload: dict[str, Any]) -> str:
    """The passage of a stored chunk, exactly as it was embedded."""
    return passage_text(payload.get(TITLE), payload.get(HEADING_PATH) or (),
                        payload.get(TEXT, ""))


def chunk_ref(document_id: str, version_id: str, chunk_index: int) -> str:
    """A chunk's id as citations show it, ``doc:v2:0``: unique per version, so a stored
    citation names the very text it quoted (app/search/types.Candidate.chunk_id agrees)."""
    return f"{document_id}:{version_id}:{chunk_index}"


def chunk_payload(*, client_id: str, document_id: str, version_id: str, chunk_index: int,
                  text: str, title: str, heading_path: Sequence[str], page: int | None,
                  line_start: int | None, line_end: int | None, char_start: int, char_end: int,
                  kind: str, source: str | None, entities: dict[str, list[str]],
                  meta: dict, meta_bool: dict, rows: bool = False,
                  sheet: str | None = None, entity_keys: Sequence[str] = (),
                  sentence_spans: Sequence[int] | None = None,
                  access: Sequence[str] = (), language: str = "en") -> dict[str, Any]:
    """A chunk's payload, written hidden: publication flips ``visibility`` (and writes the
    document's ``access`` groups again, as they are then)."""
    table = {ROWS: True, SHEET: sheet} if rows else {}
    spans = {SENTENCE_SPANS: list(sentence_spans)} if sentence_spans is not None else {}
    return {**table, **spans, ENTITY_KEYS: list(entity_keys), **entity_numbers(entity_keys),
        CLIENT_ID: client_id, DOCUMENT_ID: document_id, VERSION_ID: version_id,
        CHUNK_ID: chunk_ref(document_id, version_id, chunk_index), CHUNK_INDEX: chunk_index,
        TEXT: text,
        TITLE: title, HEADING_PATH: list(heading_path), PAGE: page, LINE_START: line_start,
        LINE_END: line_end, CHAR_START: char_start, CHAR_END: char_end, KIND: kind,
        SOURCE: source or "", ENTITIES: entities, VISIBILITY: HIDDEN, META: meta,
        META_BOOL: meta_bool, ACCESS: list(access), LANGUAGE: language,
    }


def version_timeline(published_at: datetime | None, superseded_at: datetime | None
                     ) -> dict[str, float]:
    """A version's timeline as its points carry it (app/store/base.py PUBLISHED_TS)."""
    return {PUBLISHED_TS: published_at.timestamp() if published_at else FAR_FUTURE,
            SUPERSEDED_TS: superseded_at.timestamp() if superseded_at else FAR_FUTURE}


# Under ``meta``, dates also sit as day numbers (days since 1970-01-01, a time as the day's
# fraction) for range filters: ``meta._day.custom.signed`` (no group is named "_day")
DAY_TREE = "_day"
ENTITY_MONEY, ENTITY_DAYS = "entity_money", "entity_days"


def day_number(value: str) -> float | None:
    """An ISO date or RFC 3339 instant as days since 1970-01-01 (UTC), for ranges."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return (moment - datetime(1970, 1, 1)).total_seconds() / 86400


def entity_numbers(keys: Sequence[str]) -> dict[str, Any]:
    """The numbers range filters compare on entities: amounts by currency (and under "any"),
    days as day numbers — from the chunk's entity keys (app/domain/entity_values.py)."""
    money: dict[str, list[float]] = {}
    days: list[float] = []
    for key in keys:
        kind, _, rest = key.partition(":")
        if kind == "money":
            currency, _, amount = rest.partition(":")
            for bucket in (currency, "any"):
                money.setdefault(bucket, []).append(float(amount))
        elif kind == "date" and (day := day_number(rest)) is not None:
            days.append(day)
    return {ENTITY_MONEY: money, ENTITY_DAYS: days}


def payload_meta(leaves: list[Leaf]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``meta`` and ``meta_bool`` payload trees a chunk carries for metadata filters."""
    meta: dict[str, Any] = {}
    meta_bool: dict[str, Any] = {}
    for leaf in leaves:
        if leaf.key.startswith("entities."):
            continue
        if leaf.type == "date" and (day := day_number(str(leaf.value))) is not None:
            _put(meta, f"{DAY_TREE}.{leaf.key}", day)
        target = meta_bool if leaf.type == "boolean" else meta
        value = ("true" if leaf.value else "false") if leaf.type == "boolean" else leaf.value
        _put(target, leaf.key, value)
    return meta, meta_bool


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    """A leaf into a tree at its dotted key; a second value there makes a list."""
    *parents, last = key.split(".")
    node = target
    for part in parents:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            # a value already sits where this leaf needs an object (lists of objects of
            # different shapes): the leaf is kept in the registry, not here
            return
    existing = node.get(last)
    if existing is None:
        node[last] = value
    elif isinstance(existing, list):
        existing.append(value)
    else:
        node[last] = [existing, value]
