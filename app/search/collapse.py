"""Collapsing an answer's rows (``collapse`` on POST /search): the contract's one row per Document
Version by default ("none"); "thread" keeps the best-ranked message of each e-mail thread, with
``thread: {"thread_id", "messages": N}``; "duplicates" keeps the best-ranked version of each
exact duplicate group (the others are listed in its ``canonical_metadata.duplicates``). Rows
without a thread or a duplicate stay as they are. Ranks, totals and pages count the collapsed
rows. Pure: the service reads the versions' threads and text hashes and passes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

COLLAPSE_MODES = ("none", "thread", "duplicates")
Key = TypeVar("Key")


def collapse(ranked: Sequence[tuple[Key, Any]], group_of: Mapping[Key, str | None]
             ) -> list[tuple[Key, Any]]:
    """The ranked rows with every row after the first of its group left out."""
    seen: set[str] = set()
    kept = []
    for key, lanes in ranked:
        group = group_of.get(key)
        if group is not None:
            if group in seen:
                continue
            seen.add(group)
        kept.append((key, lanes))
    return kept


def with_duplicates(meta: Mapping[str, Any], exact: Sequence[str] | None,
                    near: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """A row's canonical metadata with ``duplicates`` where it has any, exact (the same text)
    or near (app/documents/near_duplicates.py); the contract's snapshot is left as it is
    otherwise."""
    out = dict(meta)
    if exact or near:
        out["duplicates"] = {"exact": list(exact or []), "near": [dict(n) for n in near or []]}
    return out
