"""Group ranked chunks into Document Versions.

A version ranks by its best chunk. Its evidence is up to three of its matching chunks chosen to
cover the query together: the best chunk first, then, among the next ``COVER_POOL`` best, the
one that adds the most query words (literal spans) not yet cited, ties to the better ranked —
so "fees and termination" cites the fee clause beside the best termination clause rather than
two more termination clauses. A query word none of those chunks holds is looked for in the
rest of the version (``VersionHit.parts``, app/search/pipeline.py with_parts): on an agreement
of 150 termination clauses the one interest clause is cited beside them. Chunks that add no
word follow in rank order. Direct neighbours
(chunk index ± 1) of a chosen chunk repeat its text and give way while a distinct chunk is
left. Without texts or words (a match by meaning) it is rank order. The row's rank is unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from app.domain.textnorm import fold
from app.search.spans import literal_spans
from app.search.types import MAX_EVIDENCE, Candidate, VersionHit
from app.store.payload import TEXT


def group_versions(ranked: list[Candidate]) -> list[VersionHit]:
    """``ranked`` is in final chunk order; versions come out in order of their best chunk."""
    by_version: dict[tuple[str, str], list[Candidate]] = {}
    for c in ranked:
        by_version.setdefault(c.version_key, []).append(c)
    return [VersionHit(document_id=key[0], version_id=key[1], chunks=tuple(chunks))
            for key, chunks in by_version.items()]


COVER_POOL = 10  # a row's best chunks the evidence is chosen from (their texts are read)


def pick_evidence(chunks: list[Candidate], max_items: int = MAX_EVIDENCE,
                  terms: frozenset[str] = frozenset(),
                  parts: tuple[Candidate, ...] = ()) -> list[Candidate]:
    """Up to ``max_items`` of ``chunks`` (best first), covering ``terms`` greedily — each pick
    the chunk adding the most query words not cited yet; among equals one that is no
    neighbour of a chosen chunk (neighbours overlap: they would cite the same passage twice),
    then the best ranked. A neighbour that adds words is not the same passage: it is cited
    (it used to give way to a distant chunk adding none). ``parts``: chunks beyond the pool
    holding words the pool lacks, chosen only where they add one. Returned in rank order,
    parts after the ranked chunks."""
    pool = chunks[:max(COVER_POOL, max_items)]
    pooled = {c.point_id for c in pool}
    pool += [c for c in parts if c.point_id not in pooled]
    found = {c.point_id: _terms_in(c, terms) for c in pool} if terms else {}
    chosen: list[Candidate] = []
    covered: set[str] = set()
    while len(chosen) < max_items:
        left = [c for c in pool if c not in chosen]
        if not left:
            break
        best = max(left, key=lambda c: (
            len(found.get(c.point_id, set()) - covered),
            not any(abs(c.chunk_index - p.chunk_index) == 1 for p in chosen),
            -pool.index(c)))
        chosen.append(best)
        covered |= found.get(best.point_id, set())
    order = {c.point_id: i for i, c in enumerate([*chunks, *parts])}
    return sorted(chosen, key=lambda c: order[c.point_id])


def missing_terms(hit: VersionHit, terms: frozenset[str]) -> frozenset[str]:
    """The query words none of a version's pool chunks holds (their texts read)."""
    held: set[str] = set()
    for c in hit.chunks[:COVER_POOL]:
        held |= _terms_in(c, terms)
    return frozenset(t for t in terms if fold(t) not in held)


def _terms_in(c: Candidate, terms: frozenset[str]) -> set[str]:
    """The query words a chunk's text holds (as literal spans find them)."""
    text = c.payload.get(TEXT)
    if not text:
        return set()
    return {fold(str(s["text"])) for s in literal_spans(text, terms)}


def with_evidence(versions: list[VersionHit],
                  terms: frozenset[str] = frozenset()) -> list[VersionHit]:
    """The evidence stage: each version with its evidence picked (run for the shown page; the
    chunks' texts read beforehand where the query has words to cover)."""
    return [replace(v, evidence=tuple(pick_evidence(list(v.chunks), terms=terms,
                                                    parts=v.parts)))
            for v in versions]
