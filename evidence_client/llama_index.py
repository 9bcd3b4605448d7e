"""A LlamaIndex retriever over POST /search (``pip install "evidence-search[llama-index]"``).

    from evidence_client.llama_index import EvidenceRetriever

    retriever = EvidenceRetriever(client=EvidenceClient(url, api_key=key), k=5)
    nodes = retriever.retrieve("parental leave")   # NodeWithScore per cited chunk
"""

from __future__ import annotations

from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from evidence_client._evidence import passages
from evidence_client.client import EvidenceClient


class EvidenceRetriever(BaseRetriever):
    """``k`` document versions per query, each cited chunk a node (id: its chunk id) with the
    same metadata as the LangChain retriever; the score is the fused score when ``explain``
    is among the search fields, else None."""

    def __init__(self, client: EvidenceClient, k: int = 5, **search: Any) -> None:
        super().__init__()
        self.client, self.k, self.search_fields = client, k, search

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        answer = self.client.search(query_bundle.query_str,
                                    **{"limit": self.k, **self.search_fields})
        return [NodeWithScore(node=TextNode(id_=p.metadata["chunk_id"], text=p.text,
                                            metadata=p.metadata), score=p.score)
                for p in passages(answer)]
