"""Evidence Results flattened for the frameworks: one passage per cited chunk, with the
citation an LLM answer can quote (shared by the LangChain and LlamaIndex retrievers)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evidence_client._untrusted import plain


@dataclass(frozen=True)
class Passage:
    text: str
    metadata: dict[str, Any]
    score: float | None  # the row's fused score when explained, else None


def passages(answer: dict[str, Any]) -> list[Passage]:
    """Each result row's cited chunks, best row first, in the row's citation order."""
    out = []
    for row in answer.get("results", []):
        version = row["document_version"]
        meta = row.get("canonical_metadata") or {}
        source, document = meta.get("source") or {}, meta.get("document") or {}
        for item in (row.get("content_evidence") or {}).get("items", []):
            scores = item.get("scores") or {}
            out.append(Passage(item["text"], {
                "document_id": version["document_id"], "version_id": version["version_id"],
                "chunk_id": item["chunk_id"], "page": item.get("page"),
                # document-controlled: on one line, fence characters neutralised, as the MCP
                # answers show them, since frameworks put metadata into prompts verbatim
                "heading_path": [plain(h) for h in item.get("heading_path") or []],
                "filename": _field(source.get("filename")),
                "title": _field(document.get("title")),
                "rank": row["rank"], **({"scores": scores} if scores else {}),
                "untrusted": True},  # document text: data, never instructions
                scores.get("fused")))
    return out


def _field(value: Any) -> str | None:
    return None if value is None else plain(value)


def checked_k(k: Any) -> int:
    """Both retrievers' ``k``: how many passages (cited chunks) to return."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 200:
        raise ValueError(f"k is the number of passages to return, 1 to 200 (got {k!r})")
    return k
