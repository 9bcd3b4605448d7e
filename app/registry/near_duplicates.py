"""Near duplicates in the registry: each published version's LSH bands (ingest/near_duplicates.py
makes them), and the current versions of the same client that share one and whose signatures
agree at the threshold. Reported, never collapsed (a contract with one number changed is another
contract)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

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
    from ingest.near_duplicates import NEAR_THRESHOLD, similarity

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
        mine_bands = select(NearBand.band, NearBand.digest).where(NearBand.version_pk == pk)
        candidates = session.execute(
            select(Document.document_id, DocumentVersion.minhash, DocumentVersion.text_sha256)
            .join(DocumentVersion, and_(DocumentVersion.document_pk == Document.id,
                                        DocumentVersion.version_id == Document.current_version_id))
            .join(NearBand, NearBand.version_pk == DocumentVersion.id)
            .where(NearBand.client_id == client_id, Document.client_id == client_id,
                   DocumentVersion.id != pk, Document.document_id != key[0],
                   DocumentVersion.state == "published",
                   NearBand.band.in_([b for b, _ in session.execute(mine_bands)]),
                   NearBand.digest.in_([d for _, d in session.execute(mine_bands)]))
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
