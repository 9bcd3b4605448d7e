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
    # issue 53: a node's score is never None unless asked to be (LlamaIndex's score cutoffs)
    plain = EvidenceRetriever(client, k=1, alpha=1.0).retrieve("travel expenses reimbursed")
    assert plain[0].score == plain[0].node.metadata["scores"]["fused"] > 0
    unexplained = EvidenceRetriever(client, k=1, alpha=1.0, explain=False).retrieve(
        "travel expenses reimbursed")
    assert unexplained[0].score is None


def test_k_is_the_number_of_passages_from_the_constructor_and_per_call(client) -> None:  # type: ignore[no-untyped-def]
    """Issue 38: what LangChain's standard retriever tests check — k Documents, k per call —
    and the LlamaIndex retriever built the same way; k out of bounds is refused."""
    from evidence_client.langchain import EvidenceRetriever as LangChainRetriever
    from evidence_client.llama_index import EvidenceRetriever as LlamaRetriever

    for text in ("Vacation days carry over.", "Vacation requests go to HR.",
                 "Vacation is planned in spring."):  # more passages than any k asked
        client.wait_for_job(client.upload(text.encode(), filename="v.txt")["job_id"],
                            timeout_s=30)
    lc = LangChainRetriever(client=client, k=3, search={"alpha": 1.0})
    assert len(lc.invoke("vacation")) == 3
    assert len(lc.invoke("vacation", k=1)) == 1
    assert len(lc.invoke("vacation", k=2, scope="content")) == 2  # other fields per call
    llama = LlamaRetriever(client=client, k=2, search={"alpha": 1.0})
    assert len(llama.retrieve("vacation")) == 2
    for bad in (0, 201, "3", True):
        with pytest.raises(ValueError, match="k is the number of passages"):
            lc.invoke("vacation", k=bad)
    with pytest.raises(ValueError):
        LlamaRetriever(client=client, k=0)


def test_the_readmes_rag_examples_run_as_written(client) -> None:  # type: ignore[no-untyped-def]
    """Issue 38: both README examples, executed against a live server (its URL and key
    swapped in), each giving at most k=4 cited passages."""
    from tests.conftest import REPO

    text = (REPO / "README.md").read_text().split("**RAG**", 1)[1].split("## Security", 1)[0]
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    assert len(blocks) == 2 and "langchain" in blocks[0] and "llama_index" in blocks[1]
    for block in blocks:
        code = block.replace('"http://127.0.0.1:8000"', repr(client.base_url)).replace(
            '"evs_…"', repr(client._http.headers["Authorization"].removeprefix("Bearer ")))
        scope: dict = {}
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own code
        found = scope.get("docs") or scope.get("nodes")
        assert found and len(found) <= 4
        assert "[handbook:v1:0]" in scope["context"]
