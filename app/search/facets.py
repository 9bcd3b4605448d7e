"""Facets: how many of the Document Versions an answer ranks hold each value of a key — the
whole ranked set, not the page (so they bound by the candidate ceiling, as the total does).

Keys: ``kind``, ``source`` and dotted metadata keys (``custom.project``, ``document.from``,
``entities.organizations``). Each version counts once per value; the top values by count
(then value) are kept. Pure: the service reads the versions' facts (registry) and passes them.

An entity key (``entities.monetary_amounts``, ``entities.organizations``) counts each entity
once, by its identity (app/domain/entity_values.entity_identity: ``EUR 24,000.00``,
``EUR 24,000`` and ``24.000 EUR`` are one amount; ``Harbor View Properties LLC`` and
``HARBOR VIEW PROPERTIES, L.L.C.`` one organisation), shown by its most frequent spelling
among the counted versions (then the first alphabetically).

A timeline: a date key with ``:month`` or ``:year`` (``entities.dates_times:month``,
``custom.signed:year``) counts the versions per month (``2024-03``) or year (``2024``) of the
days they name — each version once per bucket — in time order, the latest ``TIME_BUCKETS``
kept. Only whole days count (app/domain/entity_values.date_key: ``March 2024`` names no day).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.domain.entity_values import date_key, entity_identity
from app.domain.errors import BadRequest
from app.domain.leaves import GROUPS, KEY_RE, Leaf, leaves_of

ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
MAX_FACETS = 10
TOP_VALUES = 20
TIME_BUCKETS = 240  # twenty years of months
FACET_RESERVED = ("kind", "source")
TIME_GRAINS = {"month": 7, "year": 4}  # characters of an ISO day kept: 2024-03, 2024
# What check_facets accepts, for the spec (a Unicode-aware reader: \w as Python reads it)
FACET_KEY_PATTERN = (f"^({'|'.join(FACET_RESERVED)}|({'|'.join(GROUPS)})"
                     rf"(\.[\w-]+)+(:({'|'.join(TIME_GRAINS)}))?)$")


@dataclass(frozen=True)
class VersionFacts:
    """What facets count on one version."""

    kind: str
    source: str | None
    leaves: Sequence[Leaf]


def check_facets(keys: Sequence[str]) -> tuple[str, ...]:
    """The facet keys asked for, each a reserved key or a dotted metadata key (422 else)."""
    if len(keys) > MAX_FACETS:
        raise BadRequest(f"at most {MAX_FACETS} facets", code="INVALID_FACET")
    for key in keys:
        if key in FACET_RESERVED:
            continue
        base, colon, grain = key.partition(":")
        if colon and grain not in TIME_GRAINS:
            raise BadRequest(f"facet {key!r}: a timeline is a date key with :month or :year "
                             "(entities.dates_times:month)", code="INVALID_FACET",
                             details={"key": key})
        if not KEY_RE.fullmatch(base) or base.partition(".")[0] not in GROUPS:
            raise BadRequest(f"facet {key!r}: use kind, source or a dotted metadata key "
                             "(custom.project, entities.organizations, document.from)",
                             code="INVALID_FACET", details={"key": key})
    return tuple(dict.fromkeys(keys))


def count_facets(keys: Sequence[str], versions: Iterable[VersionFacts],
                 top: int = TOP_VALUES) -> dict[str, list[dict[str, Any]]]:
    """{key: [{"value", "count"}, …]}, most versions first, then by value."""
    counters: dict[str, Counter] = {key: Counter() for key in keys}
    # an entity key's spellings per identity: what each counted value is shown as
    spellings: dict[str, dict[Any, Counter]] = {key: {} for key in keys}
    for facts in versions:
        for key in keys:
            if key == "kind":
                values = {facts.kind}
            elif key == "source":
                values = {facts.source} if facts.source else set()
            elif ":" in key:
                base, _, grain = key.partition(":")
                values = {day[:TIME_GRAINS[grain]] for leaf in facts.leaves if leaf.key == base
                          and (day := _day_of(base, leaf.value))}
            elif key.startswith("entities."):
                group, values = key.partition(".")[2], set()
                for leaf in facts.leaves:
                    if leaf.key == key and isinstance(leaf.value, str):
                        identity = entity_identity(group, leaf.value)
                        spellings[key].setdefault(identity, Counter())[leaf.value] += 1
                        values.add(identity)
            else:
                values = {leaf.value for leaf in facts.leaves if leaf.key == key}
            counters[key].update(values)

    def shown(key: str, value: Any) -> Any:
        seen = spellings[key].get(value)
        return min(seen, key=lambda s: (-seen[s], s)) if seen else value

    return {key: ([{"value": v, "count": n} for v, n in sorted(counter.items())[-TIME_BUCKETS:]]
                  if ":" in key else [{"value": shown(key, v), "count": n} for v, n in sorted(
                      counter.items(), key=lambda vn: (-vn[1], str(shown(key, vn[0]))))[:top]])
            for key, counter in counters.items()}


def _day_of(key: str, value: Any) -> str | None:
    """The ISO day a leaf names: an entity's by date_key, a metadata date's own first ten."""
    if not isinstance(value, str):
        return None
    if key == "entities.dates_times":
        day = date_key(value)
        return day.partition(":")[2] if day else None
    return value[:10] if ISO_DAY.match(value) else None


def version_facts(rows: Iterable[tuple[Any, str, str | None, Mapping | None,
                                       Mapping | None]]) -> list[VersionFacts]:
    """Registry rows (key, kind, source, canonical metadata, entities) as VersionFacts."""
    return [VersionFacts(kind, source, leaves_of(dict(meta or {}), dict(ents or {})))
            for _key, kind, source, meta, ents in rows]
