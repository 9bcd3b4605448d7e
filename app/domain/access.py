"""Access groups inside a client (issue 48): which of a client's documents a key may see.

A document carries a set of group names (none: every key of its client sees it, as before
groups existed); a key carries either no groups — an admin key, it sees everything — or a
set, and then sees the unrestricted documents and those sharing one of its groups. A key
allowed to delegate may narrow that per request to the groups of the person it serves
(``X-Evidence-Groups``); narrowing never widens what the key itself may see.

``Access.groups`` is what every door filters by: None for "everything", else the groups.
The names are plain keywords, so the engine filters by them inside every query (a payload
index on ``access``), and the registry by a join (app/registry/documents.visible_clause).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.domain.errors import BadRequest, Forbidden

GROUP_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
# As the API's schema states a name (any case: names are folded), and a form field's list
GROUP_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
GROUP_LIST_PATTERN = ("^ *(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
                      "(?: *, *[A-Za-z0-9][A-Za-z0-9_.-]{0,63}){0,31})? *$")
MAX_GROUPS = 32  # per document, per key and per delegated request
GROUPS_HEADER = "x-evidence-groups"
GROUP_RULE = ("a group name is 1–64 characters of a-z, 0-9, '.', '_' and '-', starting "
              "with a letter or digit")


def parse_groups(value: str | Iterable[str] | None, *, what: str = "access") -> tuple[str, ...]:
    """Group names from a comma-separated string or a list: trimmed, lower-cased, each
    checked, duplicates dropped, sorted; 422 ``ACCESS_GROUP_INVALID`` or
    ``ACCESS_GROUPS_TOO_MANY``. None or "" is no groups."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    names: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise BadRequest(f"{what}: group names are strings", code="ACCESS_GROUP_INVALID")
        name = item.strip().lower()
        if not name and isinstance(value, str):
            continue  # "legal, ,finance" and a trailing comma read as a person means them
        if not GROUP_NAME_RE.fullmatch(name):
            raise BadRequest(f"{what}: {item[:80]!r} is not a group name: {GROUP_RULE}",
                             code="ACCESS_GROUP_INVALID", details={"field": what})
        names.add(name)
        if len(names) > MAX_GROUPS:
            raise BadRequest(f"{what}: at most {MAX_GROUPS} groups", code="ACCESS_GROUPS_TOO_MANY",
                             details={"field": what, "max": MAX_GROUPS})
    return tuple(sorted(names))


@dataclass(frozen=True)
class Access:
    """What a request may see of its client's documents: ``groups`` None = all of them (an
    admin key), else the unrestricted ones and those sharing one of these groups."""

    groups: tuple[str, ...] | None = None

    @property
    def restricted(self) -> bool:
        return self.groups is not None

    def sees(self, document_groups: Iterable[str]) -> bool:
        held = tuple(document_groups)
        return self.groups is None or not held or bool(set(held) & set(self.groups))

    def may_label(self, document_groups: Iterable[str]) -> None:
        """A restricted key labels documents only with groups it holds (it must see what it
        wrote); 403 ``ACCESS_GROUP_NOT_HELD`` otherwise. An admin key labels freely."""
        if self.groups is None:
            return
        foreign = sorted(set(document_groups) - set(self.groups))
        if foreign:
            raise Forbidden(f"this key does not hold the group(s) {', '.join(foreign)}: a key "
                            "with groups labels documents only with its own",
                            code="ACCESS_GROUP_NOT_HELD", details={"groups": foreign})


def delegated(key_groups: tuple[str, ...] | None, may_delegate: bool,
              header: str | None) -> tuple[str, ...] | None:
    """The groups a request runs with: the key's, narrowed by ``X-Evidence-Groups`` where the
    key may delegate (an admin key delegating: the header's groups; a key with groups: those
    of the header it holds — never one it does not). A key that may not delegate sending the
    header is 403 ``GROUPS_DELEGATION_FORBIDDEN``: silently ignoring it would answer with
    more than the caller asked to be shown."""
    if header is None:
        return key_groups
    if not may_delegate:
        raise Forbidden("this key may not pass X-Evidence-Groups: issue a key allowed to "
                        "delegate (`evidence clients key CLIENT --delegate`)",
                        code="GROUPS_DELEGATION_FORBIDDEN")
    asked = parse_groups(header, what="X-Evidence-Groups")
    if key_groups is None:
        return asked
    return tuple(g for g in asked if g in key_groups)
