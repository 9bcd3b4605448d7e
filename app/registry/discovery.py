"""Metadata discovery: per-client opt-in indexing of the typed leaves of published versions.

Enabling marks the client discovering; the worker catches up (`catch_up`) when idle, and every
publication afterwards indexes the new version and drops the superseded one's leaves in the
same transaction, so discovery keeps up. Ready = enabled and every published version indexed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, insert, or_, select
from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.leaves import Leaf, folded_value, leaves_of
from app.registry.documents import visible_clause, where_version_keys
from app.registry.tables import Document, DocumentVersion, MetadataDiscovery, MetadataLeaf, utcnow


@dataclass(frozen=True)
class Readiness:
    state: str  # disabled | discovering | ready
    indexed: int
    total: int

    @property
    def progress(self) -> float:
        return round(self.indexed / self.total, 4) if self.total else 1.0


def is_enabled(session: Session, *, client_id: str) -> bool:
    row = session.get(MetadataDiscovery, client_id)
    return bool(row and row.enabled)


def set_enabled(session: Session, *, client_id: str, enabled: bool) -> None:
    row = session.get(MetadataDiscovery, client_id)
    if row is None:
        session.add(MetadataDiscovery(client_id=client_id, enabled=enabled))
    else:
        row.enabled, row.updated_at = enabled, utcnow()
    if not enabled:  # leaves of a disabled client are not kept up, so they go
        pks = select(DocumentVersion.id).join(Document).where(Document.client_id == client_id)
        session.execute(delete(MetadataLeaf).where(MetadataLeaf.client_id == client_id))
        session.query(DocumentVersion).filter(DocumentVersion.id.in_(pks)).update(
            {DocumentVersion.leaves_indexed: False}, synchronize_session=False)


def _published(client_id: str):  # type: ignore[no-untyped-def]
    return (select(DocumentVersion).join(Document)
            .where(Document.client_id == client_id, DocumentVersion.state == "published"))


def readiness(session: Session, *, client_id: str) -> Readiness:
    total = session.scalar(select(func.count()).select_from(
        _published(client_id).subquery())) or 0
    indexed = session.scalar(select(func.count()).select_from(
        _published(client_id).where(DocumentVersion.leaves_indexed.is_(True)).subquery())) or 0
    if not is_enabled(session, client_id=client_id):
        return Readiness("disabled", 0, total)
    return Readiness("ready" if indexed >= total else "discovering", indexed, total)


def index_version(session: Session, *, client_id: str, version: DocumentVersion) -> int:
    """(Re)write a version's leaves; returns how many."""
    session.execute(delete(MetadataLeaf).where(MetadataLeaf.version_pk == version.id))
    leaves = leaves_of(version.canonical_metadata or {}, version.entities)
    if leaves:
        session.execute(insert(MetadataLeaf), [
            {"client_id": client_id, "version_pk": version.id, "key": leaf.key,
             "type": leaf.type, "value": leaf.value,
             "value_folded": folded_value(leaf.type, leaf.value)} for leaf in leaves])
    version.leaves_indexed = True
    return len(leaves)


def drop_version(session: Session, *, version: DocumentVersion) -> None:
    session.execute(delete(MetadataLeaf).where(MetadataLeaf.version_pk == version.id))
    version.leaves_indexed = False


def catch_up(session: Session, *, limit: int = 200) -> int:
    """Index up to ``limit`` published versions of discovering clients; returns how many."""
    rows = session.execute(
        select(DocumentVersion, Document.client_id).join(Document)
        .join(MetadataDiscovery, MetadataDiscovery.client_id == Document.client_id)
        .where(MetadataDiscovery.enabled.is_(True), DocumentVersion.state == "published",
               DocumentVersion.leaves_indexed.is_(False))
        .limit(limit)).all()
    for version, client_id in rows:
        index_version(session, client_id=client_id, version=version)
    return len(rows)


def key_catalog(session: Session, *, client_id: str, access: Access = Access()
                ) -> list[tuple[str, str, int]]:
    """(key, type, leaf count) of every discovered key, by key; of the documents ``access``
    may see (a key only hidden documents hold is not named)."""
    stmt = (select(MetadataLeaf.key, MetadataLeaf.type, func.count())
            .where(MetadataLeaf.client_id == client_id))
    if (visible := visible_clause(access)) is not None:
        stmt = (stmt.join(DocumentVersion, MetadataLeaf.version_pk == DocumentVersion.id)
                .join(Document, DocumentVersion.document_pk == Document.id).where(visible))
    rows = session.execute(stmt.group_by(MetadataLeaf.key, MetadataLeaf.type)
                           .order_by(MetadataLeaf.key))
    return [(k, t, int(n)) for k, t, n in rows]


@dataclass(frozen=True)
class LeafRow:
    document_id: str
    version_id: str
    leaf: Leaf


def candidate_leaves(session: Session, *, client_id: str, words: list[str],
                     exact: list[str], access: Access = Access()) -> list[LeafRow]:
    """Leaves of published versions ``access`` may see whose folded value holds one of
    ``words`` or equals one of ``exact`` (numbers and whole-query forms)."""
    conditions = [MetadataLeaf.value_folded.contains(w, autoescape=True) for w in words]
    conditions += [MetadataLeaf.value_folded == e for e in exact]
    if not conditions:
        return []
    stmt = (select(Document.document_id, DocumentVersion.version_id, MetadataLeaf.key,
                   MetadataLeaf.type, MetadataLeaf.value)
            .join(DocumentVersion, MetadataLeaf.version_pk == DocumentVersion.id)
            .join(Document, DocumentVersion.document_pk == Document.id)
            .where(MetadataLeaf.client_id == client_id, DocumentVersion.state == "published",
                   or_(*conditions)))
    if (visible := visible_clause(access)) is not None:
        stmt = stmt.where(visible)
    rows = session.execute(stmt)
    return [LeafRow(d, v, Leaf(k, t, val)) for d, v, k, t, val in rows]


def version_leaves(session: Session, *, client_id: str,
                   keys: list[tuple[str, str]]) -> dict[tuple[str, str], list[Leaf]]:
    """All leaves of the given (document_id, version_id)s, for filtering them."""
    if not keys:
        return {}
    wanted = set(keys)
    rows = session.execute(where_version_keys(
        select(Document.document_id, DocumentVersion.version_id, MetadataLeaf.key,
               MetadataLeaf.type, MetadataLeaf.value)
        .join(DocumentVersion, MetadataLeaf.version_pk == DocumentVersion.id)
        .join(Document, DocumentVersion.document_pk == Document.id)
        .where(MetadataLeaf.client_id == client_id), client_id=client_id, keys=keys))
    out: dict[tuple[str, str], list[Leaf]] = {}
    for d, v, k, t, val in rows:
        if (d, v) in wanted:
            out.setdefault((d, v), []).append(Leaf(k, t, val))
    return out
