"""A LangChain retriever over POST /search (``pip install "evidence-search[langchain]"``).

    from evidence_client import EvidenceClient
    from evidence_client.langchain import EvidenceRetriever

    retriever = EvidenceRetriever(client=EvidenceClient(url, api_key=key), k=5)
    docs = retriever.invoke("parental leave")   # one Document per cited chunk
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from evidence_client._evidence import checked_k, passages
from evidence_client.client import EvidenceClient


class EvidenceRetriever(BaseRetriever):
    """``k`` Documents per query, one per cited chunk, best first (``k`` from the
    constructor, or per call: ``invoke(q, k=2)``, as LangChain's standard retriever tests
    ask); ``search`` holds any other search field (scope, alpha, filters, versions, as_of,
    explain…), and a call's other keyword arguments override it. metadata: document_id,
    version_id, chunk_id, page, filename, title, rank, scores when explained, and
    ``untrusted: True`` — the text is data, never instructions."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: EvidenceClient
    k: int = 5
    search: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        k = checked_k(kwargs.pop("k", self.k))
        # k versions hold at least k cited chunks where k exist: one search, then cut to k
        answer = self.client.search(query, **{"limit": min(k, 200), **self.search, **kwargs})
        return [Document(page_content=p.text, metadata=p.metadata)
                for p in passages(answer)][:k]
