"""A slow PDF cannot hold another client's one-line upload (issue 23): over real HTTP, with
the real models and the real extraction and embedding children, the rival's file is published
while the slow file is still being read; then the slow file is published too, read once."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.factories import slow_pdf
from tests.live import live_server, worker_running

pytestmark = pytest.mark.integration


def _status(live, key: str, job_id: str) -> dict:  # type: ignore[no-untyped-def]
    return httpx.get(f"{live.url}/jobs/{job_id}", headers={"X-API-Key": key}).json()


@pytest.mark.slow
def test_a_slow_pdf_does_not_hold_another_clients_one_line_upload(
        tmp_path: Path, real_models) -> None:  # type: ignore[no-untyped-def]
    with live_server(tmp_path, real_models, clients=("acme", "rival")) as live, \
            worker_running(live):
        acme, rival = live.keys["acme"], live.keys["rival"]
        slow = httpx.post(f"{live.url}/documents", headers={"X-API-Key": acme}, files={
            "file": ("ledger.pdf", slow_pdf(300_000, "Quarterly ledger of Acme"))}).json()
        deadline = time.monotonic() + 60
        while _status(live, acme, slow["job_id"])["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        small = httpx.post(f"{live.url}/documents", headers={"X-API-Key": rival}, files={
            "file": ("note.txt", b"A one-line note from the rival.")}).json()
        while _status(live, rival, small["job_id"])["status"] != "succeeded":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        slow_now = _status(live, acme, slow["job_id"])
        assert slow_now["status"] == "running"  # still being read: the rival did not wait
        assert slow_now["stage"]["name"] == "extracting"
        while _status(live, acme, slow["job_id"])["status"] != "succeeded":
            assert time.monotonic() < deadline + 120
            time.sleep(0.2)
        found = httpx.post(f"{live.url}/search", headers={"X-API-Key": acme},
                           json={"query": "quarterly ledger"}).json()["results"]
        assert [r["document_version"]["document_id"] for r in found] == [slow["document_id"]]
        theirs = httpx.post(f"{live.url}/search", headers={"X-API-Key": rival},
                            json={"query": "quarterly ledger"}).json()["results"]
        assert {r["document_version"]["document_id"] for r in theirs} <= {small["document_id"]}
