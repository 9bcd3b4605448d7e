"""LangChain's own standard tests for retrievers (langchain-tests, RetrieversIntegrationTests)
against a live server holding five passages that answer the example query: k from the
constructor and per call, Documents returned by invoke and ainvoke (issue 38)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from evidence_client import EvidenceClient
from tests.fakes import fake_models
from tests.live import live_server, worker_running

integration = pytest.importorskip("langchain_tests.integration_tests",
                                  reason="langchain-tests is in the dev extra")

FEES = ["The annual fee is 12,000 EUR.", "Annual fee reviews happen each March.",
        "The annual fee covers support and hosting.", "An annual fee waiver needs approval.",
        "Late annual fee payments carry interest."]


class TestEvidenceRetrieverStandard(integration.RetrieversIntegrationTests):
    client: EvidenceClient | None = None  # set by the module's live server below

    @property
    def retriever_constructor(self) -> type:
        from evidence_client.langchain import EvidenceRetriever

        return EvidenceRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"client": type(self).client}

    @property
    def retriever_query_example(self) -> str:
        return "annual fee"


@pytest.fixture(scope="module", autouse=True)
def _served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with live_server(tmp_path_factory.mktemp("langchain-standard"), fake_models()) as server, \
            worker_running(server), EvidenceClient(server.url, server.keys["acme"]) as client:
        for i, text in enumerate(FEES):
            client.wait_for_job(client.upload(text.encode(), filename=f"fee{i}.txt")["job_id"],
                                timeout_s=30)
        TestEvidenceRetrieverStandard.client = client
        yield
        TestEvidenceRetrieverStandard.client = None
