"""A LlamaIndex retriever over POST /search (``pip install "evidence-search[llama-index]"``).

    from evidence_client.llama_index import EvidenceRetriever

    retriever = EvidenceRetriever(client=EvidenceClient(url, api_key=key), k=5)
    nodes = retriever.retrieve("parental leave")   # NodeWithScore per cited chunk
"""

from __future__ import annotations

from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from evidence_client._evidence import checked_k, passages
from evidence_client.client import EvidenceClient


class EvidenceRetriever(BaseRetriever):
    """``k`` nodes per query, one per cited chunk, best first (id: its chunk id), with the
    same metadata as the LangChain retriever; the score is the row's fused score (the search
    is asked with ``explain``, so LlamaIndex's postprocessors that cut by score have one; an
    ``explain=False`` among the search fields leaves it None). Constructed as the LangChain one is —
    ``EvidenceRetriever(client=…, k=4, search={"scope": "content"})`` (search fields as keyword
    arguments work too)."""

    def __init__(self, client: EvidenceClient, k: int = 5,
                 search: dict[str, Any] | None = None, **fields: Any) -> None:
        super().__init__()
        self.client, self.k = client, checked_k(k)
        self.search_fields = {**(search or {}), **fields}

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        answer = self.client.search(query_bundle.query_str,
                                    **{"limit": self.k, "explain": True, **self.search_fields})
        return [NodeWithScore(node=TextNode(id_=p.metadata["chunk_id"], text=p.text,
                                            metadata=p.metadata), score=p.score)
                for p in passages(answer)][:self.k]
