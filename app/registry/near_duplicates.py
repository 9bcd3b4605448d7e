"""Near duplicates in the registry: each published version's LSH bands
(app/documents/near_duplicates.py
makes them), and the current versions of the same client that share one and whose signatures
agree at the threshold. Reported, never collapsed (a contract with one number changed is another
contract)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.documents.near_duplicates import NEAR_THRESHOLD, similarity
from app.registry.documents import current_versions
from app.registry.tables import Document, DocumentVersion, NearBand

VersionKey = tuple[str, str]


def add_bands(session: Session, *, client_id: str, version: DocumentVersion,
              bands: list[tuple[int, str]]) -> None:
    session.add_all(NearBand(client_id=client_id, band=b, digest=d, version_pk=version.id)
                    for b, d in bands)


def near_duplicates(session: Session, *, client_id: str, keys: Collection[VersionKey]
                    ) -> dict[VersionKey, list[dict]]:
    """{version: [{"document_id", "similarity"}, …]} of the given versions: other documents'
    current versions at or over the threshold, most similar first; exact duplicates (the same
    text) are not repeated here."""
    if not keys:
        return {}
    wanted = set(keys)
    mine = {(d, v): (pk, sig, text) for d, v, pk, sig, text in session.execute(
        select(Document.document_id, DocumentVersion.version_id, DocumentVersion.id,
               DocumentVersion.minhash, DocumentVersion.text_sha256)
        .join(DocumentVersion, DocumentVersion.document_pk == Document.id)
        .where(Document.client_id == client_id,
               Document.document_id.in_({d for d, _ in keys}),
               DocumentVersion.version_id.in_({v for _, v in keys})))
        if (d, v) in wanted and sig}
    found: dict[VersionKey, list[dict]] = {}
    for key, (pk, sig, text) in mine.items():
        mine_bands = session.execute(
            select(NearBand.band, NearBand.digest).where(NearBand.version_pk == pk)).all()
        candidates = session.execute(current_versions(
            select(Document.document_id, DocumentVersion.minhash, DocumentVersion.text_sha256),
            client_id=client_id)
            .join(NearBand, NearBand.version_pk == DocumentVersion.id)
            .where(NearBand.client_id == client_id, DocumentVersion.id != pk,
                   Document.document_id != key[0],
                   NearBand.band.in_({b for b, _ in mine_bands}),
                   NearBand.digest.in_({d for _, d in mine_bands}))
            .distinct())
        near = {}
        for document_id, other, other_text in candidates:
            if not other or (text and other_text == text):
                continue
            score = similarity(sig, other)
            if score >= NEAR_THRESHOLD:
                near[document_id] = max(score, near.get(document_id, 0.0))
        if near:
            found[key] = [{"document_id": d, "similarity": round(s, 2)}
                          for d, s in sorted(near.items(), key=lambda ds: (-ds[1], ds[0]))]
    return found
