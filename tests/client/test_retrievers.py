"""The LangChain and LlamaIndex retrievers through the real frameworks against a live server:
one item per cited chunk with its citation metadata, scores when explained, another key's
documents never."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_client import EvidenceClient
from tests.fakes import fake_models
from tests.live import live_server, worker_running

DOCS = {"handbook": ("handbook.md", "# Handbook\n\n## Leave\n\nEmployees get 25 days of paid "
                                    "vacation per year.\n"),
        "travel": ("travel.md", "# Travel\n\nTravel expenses are reimbursed within 30 days.\n")}


@pytest.fixture
def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    with live_server(tmp_path, fake_models(), clients=("acme", "rival")) as server, \
            worker_running(server), EvidenceClient(server.url, server.keys["acme"]) as acme:
        for doc_id, (name, text) in DOCS.items():
            acme.wait_for_job(acme.upload(text.encode(), filename=name,
                                          document_id=doc_id)["job_id"], timeout_s=30)
        with EvidenceClient(server.url, server.keys["rival"]) as rival:
            rival.wait_for_job(rival.upload(b"Vacation rules of another company.",
                                            filename="theirs.txt")["job_id"], timeout_s=30)
        yield acme


def test_the_langchain_retriever_returns_cited_documents(client) -> None:  # type: ignore[no-untyped-def]
    from langchain_core.documents import Document

    from evidence_client.langchain import EvidenceRetriever

    docs = EvidenceRetriever(client=client, k=2, search={"alpha": 1.0, "explain": True}
                             ).invoke("paid vacation days")
    assert docs and all(isinstance(d, Document) for d in docs)
    first = docs[0]
    assert first.metadata["document_id"] == "handbook" and first.metadata["rank"] == 1
    assert first.metadata["chunk_id"] == "handbook:v1:0" and first.metadata["version_id"] == "v1"
    assert first.metadata["filename"] == "handbook.md" and first.metadata["untrusted"] is True
    assert "25 days" in first.page_content and first.metadata["scores"]["fused"] > 0
    assert {d.metadata["document_id"] for d in docs} <= set(DOCS)  # never the rival's


def test_the_llama_index_retriever_returns_nodes_with_scores(client) -> None:  # type: ignore[no-untyped-def]
    from llama_index.core.schema import NodeWithScore

    from evidence_client.llama_index import EvidenceRetriever

    nodes = EvidenceRetriever(client, k=2, alpha=1.0, explain=True).retrieve(
        "travel expenses reimbursed")
    assert nodes and all(isinstance(n, NodeWithScore) for n in nodes)
    assert nodes[0].node.node_id == "travel:v1:0" and nodes[0].score and nodes[0].score > 0
    assert nodes[0].node.metadata["document_id"] == "travel"
    assert "30 days" in nodes[0].node.get_content()
    plain = EvidenceRetriever(client, k=1, alpha=1.0).retrieve("travel expenses reimbursed")
    assert len({n.node.metadata["document_id"] for n in plain}) == 1 and plain[0].score is None
