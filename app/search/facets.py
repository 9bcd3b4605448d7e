"""Facets: how many of the Document Versions an answer ranks hold each value of a key — the
whole ranked set, not the page (so they bound by the candidate ceiling, as the total does).

Keys: ``kind``, ``source`` and dotted metadata keys (``custom.project``, ``document.from``,
``entities.organizations``). Each version counts once per value; the top values by count
(then value) are kept. Pure: the service reads the versions' facts (registry) and passes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.errors import BadRequest
from app.leaves import GROUPS, KEY_RE, Leaf, leaves_of

MAX_FACETS = 10
TOP_VALUES = 20
FACET_RESERVED = ("kind", "source")
# What check_facets accepts, for the spec (a Unicode-aware reader: \w as Python reads it)
FACET_KEY_PATTERN = (f"^({'|'.join(FACET_RESERVED)}|({'|'.join(GROUPS)})"
                     r"(\.[\w-]+)+)$")


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
        if not KEY_RE.fullmatch(key) or key.partition(".")[0] not in GROUPS:
            raise BadRequest(f"facet {key!r}: use kind, source or a dotted metadata key "
                             "(custom.project, entities.organizations, document.from)",
                             code="INVALID_FACET", details={"key": key})
    return tuple(dict.fromkeys(keys))


def count_facets(keys: Sequence[str], versions: Iterable[VersionFacts],
                 top: int = TOP_VALUES) -> dict[str, list[dict[str, Any]]]:
    """{key: [{"value", "count"}, …]}, most versions first, then by value."""
    counters: dict[str, Counter] = {key: Counter() for key in keys}
    for facts in versions:
        for key in keys:
            if key == "kind":
                values = {facts.kind}
            elif key == "source":
                values = {facts.source} if facts.source else set()
            else:
                values = {leaf.value for leaf in facts.leaves if leaf.key == key}
            counters[key].update(values)
    return {key: [{"value": v, "count": n} for v, n in sorted(
        counter.items(), key=lambda vn: (-vn[1], str(vn[0])))[:top]]
        for key, counter in counters.items()}


def version_facts(rows: Iterable[tuple[Any, str, str | None, Mapping | None,
                                       Mapping | None]]) -> list[VersionFacts]:
    """Registry rows (key, kind, source, canonical metadata, entities) as VersionFacts."""
    return [VersionFacts(kind, source, leaves_of(dict(meta or {}), dict(ents or {})))
            for _key, kind, source, meta, ents in rows]
