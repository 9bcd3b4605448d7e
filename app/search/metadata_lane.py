"""The metadata lane: rank Document Versions by how their metadata leaves match the query.

A leaf equal to the whole query (case-insensitive, accents folded) or to an identifier in it
(``PO-2231``), or a number or date the query names, ranks above a leaf holding all the query's
words, above one holding some. A version ranks by its best leaf, then by how many leaves
matched, then by (document_id, version_id) so the order is stable. Needs no embedding model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.domain.leaves import IDENTIFIER, Leaf, LeafMatch, as_number, folded_value, match_leaf
from app.domain.textnorm import fold
from app.search.filters import leaf_matches
from app.search.spans import query_terms


@dataclass(frozen=True)
class MetadataHit:
    document_id: str
    version_id: str
    matches: tuple[LeafMatch, ...]  # every matched leaf, best first

    @property
    def best(self) -> float:
        return self.matches[0].score


def lookup_terms(query: str) -> tuple[list[str], list[str]]:
    """(words a leaf value may contain, whole values a leaf may equal), folded as stored."""
    words = sorted(query_terms(query))
    exact = {fold(query.strip())} | {fold(i) for i in IDENTIFIER.findall(query)}
    number = as_number(query)
    if number is not None:
        exact.add(folded_value("number", number))
    return words, sorted(exact)


def rank_versions(query: str, rows: Sequence[tuple[str, str, Leaf]],
                  version_leaves: Mapping[tuple[str, str], list[Leaf]] | None = None,
                  applied_filters: Mapping[str, list] | None = None,
                  allowed: set[tuple[str, str]] | None = None) -> list[MetadataHit]:
    """``rows`` are candidate (document_id, version_id, leaf); ``allowed`` (if given) are the
    versions the reserved filters keep; ``version_leaves`` serve the metadata filters."""
    by_version: dict[tuple[str, str], list[LeafMatch]] = {}
    for document_id, version_id, leaf in rows:
        key = (document_id, version_id)
        if allowed is not None and key not in allowed:
            continue
        m = match_leaf(query, leaf)
        if m is not None:
            by_version.setdefault(key, []).append(m)
    hits = []
    for (document_id, version_id), matches in by_version.items():
        if applied_filters and not leaf_matches(
                (version_leaves or {}).get((document_id, version_id), []), applied_filters):
            continue
        matches.sort(key=lambda m: (-m.score, m.leaf.key, str(m.leaf.value)))
        hits.append(MetadataHit(document_id, version_id, tuple(matches)))
    hits.sort(key=lambda h: (-h.best, -len(h.matches), h.document_id, h.version_id))
    return hits


def fuse_versions(content: Mapping[tuple[str, str], int],
                  metadata: Mapping[tuple[str, str], int],
                  k: int = 60, content_scores: Mapping[tuple[str, str], float] | None = None
                  ) -> list[tuple[tuple[str, str], dict[str, int]]]:
    """Scope both: version rankings ({version: its rank in the lane}) fused by rank,
    1/(k + r_content) + 1/(k + r_metadata) (k = 60, Cormack et al. 2009), a lane that did not
    find a version adding nothing. Ties (a content hit and a metadata hit at the same rank, say)
    go to the version the content lanes scored higher (``content_scores``: its best chunk's
    fused score; a version they did not find scores below any they did), then by
    (document_id, version_id). Returns each version with its lane-local ranks."""
    ranks: dict[tuple[str, str], dict[str, int]] = {}
    for lane, ranking in (("content", content), ("metadata", metadata)):
        for key, rank in ranking.items():
            ranks.setdefault(key, {})[lane] = rank
    scores = content_scores or {}
    return sorted(ranks.items(),
                  key=lambda item: (-version_fusion_score(item[1], k),
                                    -scores.get(item[0], float("-inf")), item[0]))


def version_fusion_score(ranks: Mapping[str, int], k: int = 60) -> float:
    """Scope both's score of a version from its lane ranks ({"content": r, "metadata": r};
    any other entry, such as the entity lane's part of content, counts nothing)."""
    return sum(1 / (k + r) for lane, r in ranks.items() if lane in ("content", "metadata"))
