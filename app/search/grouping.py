"""Group ranked chunks into Document Versions.

A version ranks by its best chunk. Its evidence is up to three of its matching chunks, best
first, preferring chunks that are not direct neighbours (chunk index ± 1) of one already chosen
— overlapping neighbours repeat the same text — as long as a distinct one is left.
``total`` counts the version's matching chunks among the candidates.
"""

from __future__ import annotations

from dataclasses import replace

from app.search.types import MAX_EVIDENCE, Candidate, VersionHit


def group_versions(ranked: list[Candidate]) -> list[VersionHit]:
    """``ranked`` is in final chunk order; versions come out in order of their best chunk."""
    by_version: dict[tuple[str, str], list[Candidate]] = {}
    for c in ranked:
        by_version.setdefault(c.version_key, []).append(c)
    return [VersionHit(document_id=key[0], version_id=key[1], chunks=tuple(chunks))
            for key, chunks in by_version.items()]


def pick_evidence(chunks: list[Candidate], max_items: int = MAX_EVIDENCE) -> list[Candidate]:
    chosen: list[Candidate] = []
    deferred: list[Candidate] = []
    for c in chunks:
        if len(chosen) == max_items:
            break
        if any(abs(c.chunk_index - p.chunk_index) == 1 for p in chosen):
            deferred.append(c)
        else:
            chosen.append(c)
    for c in deferred:  # not enough distinct chunks: neighbours after all, in rank order
        if len(chosen) == max_items:
            break
        chosen.append(c)
    order = {c.point_id: i for i, c in enumerate(chunks)}
    return sorted(chosen, key=lambda c: order[c.point_id])


def with_evidence(versions: list[VersionHit]) -> list[VersionHit]:
    """The evidence stage: each version with its evidence picked (run for the shown page)."""
    return [replace(v, evidence=tuple(pick_evidence(list(v.chunks)))) for v in versions]
