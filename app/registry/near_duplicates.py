"""Near duplicates in the registry: each published version's LSH bands
(app/documents/near_duplicates.py
makes them), and the current versions of the same client that share one and whose signatures
agree at the threshold. Reported, never collapsed (a contract with one number changed is another
contract)."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.documents.near_duplicates import NEAR_THRESHOLD, similarity
from app.registry.documents import current_versions
from app.registry.tables import Document, DocumentVersion, NearBand

VersionKey = tuple[str, str]
Signed = tuple[int | None, list[int] | None, str | None]  # version pk, MinHash, text hash


def add_bands(session: Session, *, client_id: str, version: DocumentVersion,
              bands: list[tuple[int, str]]) -> None:
    session.add_all(NearBand(client_id=client_id, band=b, digest=d, version_pk=version.id)
                    for b, d in bands)


def near_duplicates(session: Session, *, client_id: str, keys: Collection[VersionKey],
                    signatures: Mapping[VersionKey, Signed] | None = None
                    ) -> dict[VersionKey, list[dict]]:
    """{version: [{"document_id", "similarity"}, …]} of the given versions: other documents'
    current versions at or over the threshold, most similar first; exact duplicates (the same
    text) are not repeated here. At most three reads for a whole page, whatever its length:
    the versions' signatures (unless ``signatures`` holds them: (version pk, MinHash, text
    hash) each), their bands, and every current version sharing one of those bands."""
    if not keys:
        return {}
    wanted = set(keys)
    if signatures is None:
        signatures = {(d, v): (pk, sig, text) for d, v, pk, sig, text in session.execute(
            select(Document.document_id, DocumentVersion.version_id, DocumentVersion.id,
                   DocumentVersion.minhash, DocumentVersion.text_sha256)
            .join(DocumentVersion, DocumentVersion.document_pk == Document.id)
            .where(Document.client_id == client_id,
                   Document.document_id.in_({d for d, _ in keys}),
                   DocumentVersion.version_id.in_({v for _, v in keys})))}
    mine = {key: signed for key, signed in signatures.items() if key in wanted and signed[1]}
    if not mine:
        return {}
    bands_of: dict[int, set[tuple[int, str]]] = {}
    for pk, band, digest in session.execute(
            select(NearBand.version_pk, NearBand.band, NearBand.digest)
            .where(NearBand.version_pk.in_({pk for pk, _, _ in mine.values()}))):
        bands_of.setdefault(pk, set()).add((band, digest))
    every = set().union(*bands_of.values()) if bands_of else set()
    if not every:
        return {}
    sharing: dict[tuple[int, str], list[tuple[int, str, list, str | None]]] = {}
    for band, digest, pk, document_id, other, other_text in session.execute(current_versions(
            select(NearBand.band, NearBand.digest, DocumentVersion.id, Document.document_id,
                   DocumentVersion.minhash, DocumentVersion.text_sha256),
            client_id=client_id)
            .join(NearBand, NearBand.version_pk == DocumentVersion.id)
            .where(NearBand.client_id == client_id,
                   NearBand.band.in_({b for b, _ in every}),
                   NearBand.digest.in_({d for _, d in every}))):
        if (band, digest) in every:
            sharing.setdefault((band, digest), []).append((pk, document_id, other, other_text))
    found: dict[VersionKey, list[dict]] = {}
    for key, (pk, sig, text) in mine.items():
        near: dict[str, float] = {}
        candidates = {c[0]: c for shared in bands_of.get(pk, ()) for c in sharing.get(shared, ())}
        for other_pk, document_id, other, other_text in candidates.values():
            if (other_pk == pk or document_id == key[0] or not other
                    or (text and other_text == text)):
                continue
            score = similarity(sig, other)
            if score >= NEAR_THRESHOLD:
                near[document_id] = max(score, near.get(document_id, 0.0))
        if near:
            found[key] = [{"document_id": d, "similarity": round(s, 2)}
                          for d, s in sorted(near.items(), key=lambda ds: (-ds[1], ds[0]))]
    return found
