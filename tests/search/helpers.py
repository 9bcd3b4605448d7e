from __future__ import annotations

from app.search.types import Candidate


def cand(doc: str, idx: int, *, version: str = "v1", dense: float | None = None,
         dense_rank: int | None = None, sparse: float | None = None,
         sparse_rank: int | None = None, fused: float = 0.0, text: str = "") -> Candidate:
    return Candidate(point_id=f"{doc}/{version}/{idx}", document_id=doc, version_id=version,
                     chunk_index=idx, payload={"text": text, "title": doc, "heading_path": []},
                     dense_score=dense, dense_rank=dense_rank, sparse_score=sparse,
                     sparse_rank=sparse_rank, fused=fused)
