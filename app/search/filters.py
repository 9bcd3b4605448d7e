"""Exact filters → a ChunkFilter applied inside the engine query (and the metadata lane).

Keys: the reserved ``document_id``, ``version_id``, ``kind``, ``source`` address the version
itself; any other key is a dotted metadata key (``custom.project``, ``document.page_count``,
``entities.account_numbers``). A value is a string, number or boolean, or a list of them (any
of). Equality is type-sensitive (``"12"`` is not ``12``; ``12`` equals ``12.0``); strings
compare exactly as stored, case and accents included. Entity filters keep the chunks that
mention the entity. Filters narrow the candidates and never change rank.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from app.domain.entity_values import date_key, iso_currency_codes, money_key, value_key
from app.domain.errors import BadRequest
from app.domain.formats import KINDS
from app.domain.leaves import ENTITY_GROUPS, GROUPS, KEY_RE, STANDARD_TYPES, Leaf, value_type
from app.domain.limits import check_scalar
from app.store import ChunkFilter
from app.store.base import Alternatives, Bounds
from app.store.payload import DAY_TREE, ENTITY_DAYS, ENTITY_KEYS, ENTITY_MONEY, day_number

RESERVED = ("document_id", "version_id", "kind", "source")
# What parse_filters accepts as a key, for the spec (\w as Python reads it): a reserved key, a
# dotted metadata key of a group, or an entity group. Whether a client holds the key is data
GROUP_KEYS = "|".join(g for g in GROUPS if g != "entities")
FILTER_KEY_PATTERN = (f"^({'|'.join(RESERVED)}|({GROUP_KEYS})(\\.[\\w-]+)+"
                      f"|entities\\.({'|'.join(ENTITY_GROUPS)}))$")
# each reserved key's ChunkFilter field (and registry.versions_by_keys argument)
RESERVED_FIELDS = {"document_id": "document_ids", "version_id": "version_ids",
                   "kind": "kinds", "source": "sources"}
MAX_FILTER_KEYS = 32
MAX_FILTER_VALUES = 100  # per key
MAX_FILTER_STRING = 1000
Scalar = str | int | float | bool


def _bad(key: str, message: str) -> BadRequest:
    return BadRequest(f"filter {key!r}: {message}", code="INVALID_FILTER", details={"key": key})


def _filter_type(value: Any) -> str | None:
    """The leaf type a filter value can equal: dates are strings compared as stored."""
    kind = value_type(value)
    return "string" if kind == "date" else kind


def _unknown(key: str, message: str, code: str, known: Any) -> BadRequest:
    # unique: a key can be both a standard one and one discovery saw
    nearest = difflib.get_close_matches(key, list(dict.fromkeys(known)), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(nearest)}?" if nearest else ""
    return BadRequest(f"filter {key!r}: {message}{hint}", code=code,
                      details={"key": key, "nearest": nearest})


def parse_filters(filters: Mapping[str, Any], *, client_id: str,
                  key_types: Mapping[str, set[str]] | None = None,
                  catalog_complete: bool = False
                  ) -> tuple[ChunkFilter, dict[str, list[Scalar]]]:
    """(the engine filter, the filters echoed normalised: every value a list).

    ``key_types`` are the types discovery has seen per key; with them a value of a type the
    key never holds is a 422 (without them, only the service's own keys are checked). With
    ``catalog_complete`` (discovery has indexed every published version) a key the client has
    never had is a 422 naming the nearest known keys, not a silent empty answer. An entity
    group outside the contract's eight is always a 422.
    """
    applied: dict[str, list[Any]] = {}
    reserved: dict[str, tuple[str, ...]] = {}
    metadata: list[Alternatives] = []
    excluded: list[Alternatives] = []
    if len(filters) > MAX_FILTER_KEYS:
        raise BadRequest(f"at most {MAX_FILTER_KEYS} filter keys", code="INVALID_FILTER")
    for key, value in filters.items():
        if isinstance(value, dict) and set(value) == {"not"}:  # a negation: none of these
            negated = value["not"] if isinstance(value["not"], list) else [value["not"]]
            inner_flt, inner = parse_filters({key: negated}, client_id=client_id,
                                             key_types=key_types,
                                             catalog_complete=catalog_complete)
            excluded.extend(_as_conditions(inner_flt))
            applied[key] = [{"not": inner[key]}]
            continue
        if isinstance(value, dict):  # a range
            metadata.append(_range(key, value, key_types or {}))
            applied[key] = [dict(value)]
            continue
        values = value if isinstance(value, list) else [value]
        if not values:
            raise _bad(key, "an empty list matches nothing; leave the key out instead")
        if len(values) > MAX_FILTER_VALUES:
            raise _bad(key, f"at most {MAX_FILTER_VALUES} values")
        for v in values:  # 64-bit integers, finite numbers, UTF-8 strings: what the engine holds
            check_scalar(v, where=f"filter {key[:100]!r}", code="INVALID_FILTER",
                         max_chars=MAX_FILTER_STRING)
        if key in RESERVED:
            if not all(isinstance(v, str) and v for v in values):
                raise _bad(key, "takes a non-empty string or a list of them")
            if key == "kind" and (bad := [v for v in values if v not in KINDS]):
                raise _bad(key, f"unknown kind(s) {bad}; kinds are {', '.join(KINDS)}")
            reserved[key] = tuple(sorted(set(values)))
            applied[key] = list(reserved[key])
            continue
        if not KEY_RE.fullmatch(key):  # fullmatch: "$" alone lets a trailing newline in
            raise _bad(key, "is not a key: use a reserved key (" + ", ".join(RESERVED)
                       + ") or a dotted metadata key such as custom.project")
        group, _, rest = key.partition(".")
        if group not in GROUPS:
            raise _bad(key, f"unknown group {group!r}; groups are {', '.join(GROUPS)}")
        if group == "entities" and rest not in ENTITY_GROUPS:
            raise _unknown(key, f"no entity group {rest!r}; the groups are "
                           + ", ".join(ENTITY_GROUPS), "UNKNOWN_ENTITY_GROUP",
                           [f"entities.{g}" for g in ENTITY_GROUPS])
        if (catalog_complete and group != "entities" and key not in STANDARD_TYPES
                and key not in (key_types or {})):
            raise _unknown(key, "no document version of this client has this metadata key",
                           "UNKNOWN_FILTER_KEY", [*STANDARD_TYPES, *(key_types or {})])
        types = {_filter_type(v) for v in values}
        if None in types:
            raise _bad(key, "values must be strings, numbers or booleans")
        known = set(key_types.get(key, ())) if key_types else set()
        if key in STANDARD_TYPES:
            known.add(STANDARD_TYPES[key])
        known = {"string" if t == "date" else t for t in known}
        if group == "entities":
            known.add("string")
        if known and not types <= known:
            raise _bad(key, f"holds {' or '.join(sorted(known))} values, not "
                            f"{' or '.join(sorted(t for t in types if t))}")
        applied[key] = list(values)
        metadata.extend(_conditions(key, values))
    flt = ChunkFilter(client_id=client_id,
                      **{RESERVED_FIELDS[key]: values for key, values in reserved.items()},
                      metadata=tuple(metadata), excluded=tuple(excluded))
    return flt, applied


RANGE_OPS = ("gte", "gt", "lte", "lt")


def _as_conditions(flt: ChunkFilter) -> list[Alternatives]:
    """A one-key filter's conditions (reserved keys as their payload fields)."""
    found: list[Alternatives] = list(flt.metadata)
    for key, field_name in RESERVED_FIELDS.items():
        if values := getattr(flt, field_name):
            found.append(((key, values),))
    return found


def _range(key: str, spec: Mapping[str, Any], key_types: Mapping[str, set[str]]
           ) -> Alternatives:
    """``{"gte" | "gt" | "lte" | "lt": bound, …}`` on a number or date key, or on an entity's
    normalised amounts (``currency``: one currency, else any) or days."""
    bounds = {op: spec[op] for op in RANGE_OPS if spec.get(op) is not None}
    unknown = set(spec) - set(RANGE_OPS) - {"currency"}
    if unknown or not bounds:
        raise _bad(key, "a range takes one or more of gte, gt, lte, lt (and, for "
                        "entities.monetary_amounts, currency); a negation takes not")
    if key in RESERVED:
        raise _bad(key, "ranges apply to numbers and dates, not to a reserved key")
    currency = spec.get("currency")
    if currency is not None and key != "entities.monetary_amounts":
        raise _bad(key, "currency narrows entities.monetary_amounts only")
    numbers = all(isinstance(b, (int, float)) and not isinstance(b, bool)
                  for b in bounds.values())
    days = {op: day_number(b) if isinstance(b, str) and value_type(b) == "date" else None
            for op, b in bounds.items()}
    dates = all(d is not None for d in days.values())
    if not (numbers or dates):
        raise _bad(key, "range bounds are numbers, or dates (RFC 3339 or YYYY-MM-DD), "
                        "all of one kind")
    for b in bounds.values():
        if numbers:
            check_scalar(b, where=f"filter {key[:100]!r}", code="INVALID_FILTER",
                         max_chars=MAX_FILTER_STRING)
    group = key.partition(".")[0]
    if group not in GROUPS:
        raise _bad(key, f"unknown group {group!r}; groups are {', '.join(GROUPS)}")
    if key == "entities.monetary_amounts":
        if not numbers:
            raise _bad(key, "amounts compare with numbers")
        if currency is not None and (not isinstance(currency, str)
                                     or currency not in iso_currency_codes()):
            raise _bad(key, f"currency {currency!r} is no ISO 4217 code (USD, EUR, GBP, …)")
        return ((f"{ENTITY_MONEY}.{currency or 'any'}", (Bounds(**bounds),)),)
    if key == "entities.dates_times":
        if not dates:
            raise _bad(key, "days compare with dates (RFC 3339 or YYYY-MM-DD)")
        return ((ENTITY_DAYS, (Bounds(**days),)),)
    if group == "entities":
        raise _bad(key, "ranges apply to entities.monetary_amounts and entities.dates_times")
    known = set(key_types.get(key, ())) | ({STANDARD_TYPES[key]} if key in STANDARD_TYPES
                                           else set())
    wanted = "number" if numbers else "date"
    if known and wanted not in known:
        raise _bad(key, f"holds {' or '.join(sorted(known))} values: a range needs numbers "
                        "or dates")
    if numbers:
        return ((f"meta.{key}", (Bounds(**bounds),)),)
    return ((f"meta.{DAY_TREE}.{key}", (Bounds(**days),)),)


def _conditions(key: str, values: list[Scalar]) -> list[Alternatives]:
    """Payload paths and values: entities are chunk payload, the rest the version's ``meta``
    tree; booleans go through ``meta_bool`` as "true"/"false" (qdrant-edge-py 0.9.0 never
    matches a bool payload), so ``True`` never equals the string "true"."""
    bools = tuple("true" if v else "false" for v in values if isinstance(v, bool))
    others = tuple(v for v in values if not isinstance(v, bool))
    path = key if key.startswith("entities.") else f"meta.{key}"
    alternatives: list[tuple[str, tuple[Scalar, ...]]] = []
    if others:
        alternatives.append((path, others))
    if key.startswith("entities.") and (keys := _entity_keys(key, others)):
        alternatives.append((ENTITY_KEYS, keys))  # an IBAN, an amount, a day in any spelling
    if bools:
        alternatives.append((f"meta_bool.{key}", bools))
    return [tuple(alternatives)]


def _entity_keys(key: str, values: Sequence[Scalar]) -> tuple[str, ...]:
    """The keys of the values an entity filter names (app/domain/entity_values.value_key)."""
    group = key.partition(".")[2]
    return tuple(dict.fromkeys(k for v in values if isinstance(v, str)
                               and (k := value_key(group, v))))


def _leaf_number(key: str, value: Any) -> float | None:
    """A leaf's value as a range compares it: a number, a date's day number, an entity's
    normalised amount or day."""
    if key == "entities.monetary_amounts":
        money = money_key(str(value))
        return float(money.rsplit(":", 1)[1]) if money else None
    if key == "entities.dates_times":
        day = date_key(str(value))
        return day_number(day.split(":", 1)[1]) if day else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return day_number(value) if isinstance(value, str) and value_type(value) == "date" else None


def _in_range(spec: Mapping[str, Any], number: float | None) -> bool:
    if number is None:
        return False
    for op, bound in spec.items():
        if op not in RANGE_OPS:
            continue
        b = day_number(bound) if isinstance(bound, str) else float(bound)
        if b is None or not {"gte": number >= b, "gt": number > b, "lte": number <= b,
                             "lt": number < b}[op]:
            return False
    return True


def leaf_matches(leaves: list[Leaf], applied: Mapping[str, list[Any]]) -> bool:
    """The same semantics over a version's leaves (the metadata lane filters this way)."""
    for key, values in applied.items():
        if key in RESERVED:
            continue
        if values and isinstance(values[0], dict):
            spec = values[0]
            own = [leaf for leaf in leaves if leaf.key == key]
            if "not" in spec:
                if leaf_matches(own, {key: spec["not"]}):
                    return False
            elif not any(_in_range(spec, _leaf_number(key, leaf.value)) for leaf in own):
                return False
            continue
        wanted = {(_norm_type(v), _norm_value(v)) for v in values}
        keys = set(_entity_keys(key, values)) if key.startswith("entities.") else set()
        group = key.partition(".")[2]
        if not any((_norm_type(leaf.value), _norm_value(leaf.value)) in wanted
                   or (keys and isinstance(leaf.value, str)
                       and value_key(group, leaf.value) in keys)
                   for leaf in leaves if leaf.key == key):
            return False
    return True


def _norm_type(v: Any) -> str:
    return "boolean" if isinstance(v, bool) else "number" if isinstance(v, (int, float)) \
        else "string"


def _norm_value(v: Any) -> Any:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
