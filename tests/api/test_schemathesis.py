"""Schemathesis over the OpenAPI spec against a live server: no input, from either of two
clients, gets a server error, and every answer conforms to the spec (status codes, content
types, bodies, headers, Allow on 405, no use after delete, auth not ignored, schema-valid data
accepted and schema-violating data refused). Bounded (fixed
example count, fixed seed) to stay well under a minute; `schemathesis run` with a larger -n is
the same check, longer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.fakes import fake_models
from tests.live import live_server

SCHEMATHESIS = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
DOCUMENTS = {
    "handbook.md": b"# Handbook\n\n## Leave\n\nEmployees get 25 days of paid vacation.\n",
    "invoice.txt": b"Invoice PO-2231 for project Apollo, paid on 2026-03-01.\n",
    "page.html": b"<html><head><title>Budget</title></head><body><h1>Budget</h1>"
                 b"<p>The budget report for Apollo.</p></body></html>",
}


# Every check, positive and negative data included: the three refusals JSON Schema cannot say
# (an upload's file type and metadata, the search window) are dropped by their error codes
# alone, in tests/api/schemathesis_hooks.py.
HOOKS = Path(__file__).with_name("schemathesis_hooks.py")
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_headers_conformance,response_schema_conformance,missing_required_header,"
          "unsupported_method,allow_header_conformance,use_after_free,"
          "ensure_resource_availability,ignored_auth,positive_data_acceptance,"
          "negative_data_rejection")


def _run(url: str, key: str, *, examples: int, phases: str, report: Path) -> None:
    completed = subprocess.run(
        [SCHEMATHESIS, "run", f"{url}/openapi.json", "--checks", CHECKS,
         "--max-examples", str(examples), "--seed", "20261130", "--phases", phases,
         "--workers", "1", "--no-color", "--generation-database", "none",
         "-H", f"Authorization: Bearer {key}",
         "--report", "ndjson", "--report-ndjson-path", str(report)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "SCHEMATHESIS_HOOKS": str(HOOKS)})
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]


@pytest.mark.skipif(SCHEMATHESIS is None, reason="schemathesis is not installed (pip install "
                                                 "-e '.[dev]')")
@pytest.mark.slow
def test_no_input_from_either_client_gets_a_server_error(tmp_path: Path) -> None:
    with live_server(tmp_path, fake_models(), clients=("acme", "rival")) as server:
        for name, key in server.keys.items():
            for filename, content in DOCUMENTS.items():
                r = httpx.post(f"{server.url}/documents", headers={"X-API-Key": key},
                               files={"file": (filename, content)},
                               data={"document_id": f"{name}-{filename}",
                                     "metadata": json.dumps({"project": "Apollo",
                                                             "owner": name})})
                assert r.status_code == 202, r.text
        assert server.worker.drain() == 2 * len(DOCUMENTS)
        rival = {"X-API-Key": server.keys["rival"]}
        before = httpx.get(f"{server.url}/documents", headers=rival).json()

        _run(server.url, server.keys["acme"], examples=100,
             phases="examples,coverage,fuzzing,stateful", report=tmp_path / "acme.ndjson")
        server.worker.drain()
        # whatever acme's fuzzing created, changed or deleted, the rival's documents are as
        # they were and its searches find only them
        assert httpx.get(f"{server.url}/documents", headers=rival).json() == before
        found = httpx.post(f"{server.url}/search", headers=rival,
                           json={"query": "Apollo budget vacation", "alpha": 0.0}).json()
        assert found["results"] and {r["document_version"]["document_id"]
                                     for r in found["results"]} <= {
            f"rival-{f}" for f in DOCUMENTS}

        _run(server.url, server.keys["rival"], examples=30, phases="fuzzing",
             report=tmp_path / "rival.ndjson")
