"""A Python client generated from the checked-in openapi.json (openapi-python-client, as a
team consuming the spec would) drives a live server: the happy path, and errors whose parsed
object carries the stable code."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO
from tests.fakes import fake_models
from tests.live import LiveServer, live_server

GENERATOR = Path(sys.executable).parent / "openapi-python-client"
PACKAGE = "evidence_generated_client"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("generated")
    config = out / "config.yml"
    config.write_text("post_hooks: []\n")  # no formatter run: the code is only imported
    done = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(REPO / "openapi.json"), "--meta", "none",
         "--output-path", str(out / PACKAGE), "--config", str(config)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout, done.stdout  # every schema understood
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [n for n in sys.modules if n.startswith(PACKAGE)]:
            del sys.modules[name]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path, fake_models()) as live:
        yield live


def _api(name: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}")


def test_a_generated_client_uploads_polls_searches_and_lists(generated: ModuleType,
                                                             server: LiveServer) -> None:
    models = _api("models")
    upload_document = _api("api.documents.upload_document")
    get_job = _api("api.documents.get_job")
    list_documents = _api("api.documents.list_documents")
    search = _api("api.search.search")
    types = _api("types")
    client = generated.AuthenticatedClient(base_url=server.url, token=server.keys["acme"])

    body = models.BodyUploadDocument(
        file=types.File(payload=io.BytesIO(b"# Budget\n\nThe budget report for Apollo."),
                        file_name="budget.md", mime_type="text/markdown"),
        metadata='{"project": "Apollo"}')
    accepted = upload_document.sync(client=client, body=body)
    assert isinstance(accepted, models.UploadAccepted), accepted
    assert (accepted.document_id, accepted.status) == ("budget.md", models.JobStatus.QUEUED)
    server.worker.drain()
    deadline = time.monotonic() + 10
    while (job := get_job.sync(accepted.job_id, client=client)).status != \
            models.JobStatus.SUCCEEDED:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)

    answer = search.sync(client=client, body=models.SearchRequest(  # a plain dict as filters
        query="budget report", scope=models.Scope.CONTENT, alpha=1.0,
        filters={"custom.project": "Apollo"}))
    assert isinstance(answer, models.EvidenceResult), answer
    nothing = search.sync(client=client, body=models.SearchRequest(
        query="budget report", filters={"custom.project": "Zeus"}))
    assert isinstance(nothing, models.EvidenceResult) and nothing.results == [], nothing
    row = answer.results[0]
    assert (row.document_version.document_id, row.document_version.version_id) == (
        "budget.md", "v1")
    assert row.canonical_metadata.source.filename == "budget.md"
    assert row.canonical_metadata.custom.additional_properties == {"project": "Apollo"}
    assert "budget report" in row.content_evidence.items[0].text
    assert answer.meta.applied_filters.additional_properties == {"custom.project": ["Apollo"]}

    listing = list_documents.sync(client=client, kind=[models.DocumentKind.MD],
                                  state=[models.VersionState.PUBLISHED])
    assert isinstance(listing, models.DocumentList), listing
    assert [(d.document_id, d.title, d.state) for d in listing.documents] == [
        ("budget.md", "Budget", models.VersionState.PUBLISHED)]


def _code(parsed: object, models: ModuleType) -> str:
    assert isinstance(parsed, models.ErrorResponse), parsed
    return parsed.error.code


def test_a_generated_client_reads_every_stable_error_code(generated: ModuleType,
                                                          server: LiveServer) -> None:
    models = _api("models")
    search = _api("api.search.search")
    upload_document = _api("api.documents.upload_document")
    get_document = _api("api.documents.get_document")
    types = _api("types")
    client = generated.AuthenticatedClient(base_url=server.url, token=server.keys["acme"])
    stranger = generated.AuthenticatedClient(base_url=server.url, token="not-a-key")

    too_far = search.sync_detailed(client=client, body=models.SearchRequest(
        query="budget", offset=150, limit=100))
    assert too_far.status_code == 422
    assert _code(too_far.parsed, models) == "WINDOW_TOO_LARGE"
    assert too_far.parsed.error.details.additional_properties["max_window"] == 200
    assert _code(search.sync(client=stranger, body=models.SearchRequest(query="x")),
                 models) == "API_KEY_INVALID"
    assert _code(search.sync(client=client, body=models.SearchRequest(
        query="x", scope=models.Scope.METADATA)), models) == "METADATA_DISCOVERY_NOT_READY"
    refused = upload_document.sync_detailed(client=client, body=models.BodyUploadDocument(
        file=types.File(payload=io.BytesIO(b"MZ\x90\x00"), file_name="tool.exe")))
    assert refused.status_code == 415
    assert _code(refused.parsed, models) == "UNSUPPORTED_FILE_TYPE"
    assert _code(get_document.sync("nothing-here", client=client),
                 models) == "DOCUMENT_NOT_FOUND"
