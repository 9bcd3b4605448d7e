"""The CLI as people meet it, rendered at 80 columns: search blocks that never squeeze the
numbers, documents and jobs, filters, explain, and one-line errors instead of tracebacks.
Against a live server on a free port (fake models) and, for `serve`, with no models at all."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from app import cli
from app.cli.common import TrimmedConsole
from app.cli.search_answers import parse_filter_options, print_answer
from app.domain.errors import BadRequest
from app.settings import get_settings
from tests.fakes import fake_models
from tests.live import LiveServer, free_port, live_server, worker_running

WIDTH = 80
LONG_TEXT = ("The quarterly budget report for project Apollo shows spending of $10,000 on "
             "calibration widgets, which is well within the approved envelope. ") * 3


@pytest.fixture
def narrow(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[CliRunner]:
    """The CLI printing at 80 columns, with a data folder of its own and no key in the env."""
    monkeypatch.setattr(cli.common, "console", TrimmedConsole(width=WIDTH, highlight=False))
    monkeypatch.setattr(cli.common, "err", TrimmedConsole(width=WIDTH, stderr=True,
                                                          highlight=False))
    monkeypatch.setenv("EVIDENCE_DATA_DIR", str(tmp_path / "cli-data"))
    monkeypatch.delenv("EVIDENCE_API_KEY", raising=False)
    get_settings.cache_clear()
    yield CliRunner()  # (tests/conftest.py gives the process's logging back after each test)
    get_settings.cache_clear()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(tmp_path / "server", fake_models()) as live, worker_running(live):
        yield live  # the worker the CLI's uploads wait for


def _run(runner: CliRunner, server: LiveServer | None, *args: str) -> tuple[int, str]:
    extra = ["--server", server.url, "--api-key", server.keys["acme"]] if server else []
    result = runner.invoke(cli.app, [*args, *extra])
    return result.exit_code, result.output


def _lines_fit(output: str) -> None:
    too_wide = [line for line in output.splitlines() if len(line) > WIDTH]
    assert not too_wide, too_wide
    assert "Traceback" not in output


# ---- pure parts ----------------------------------------------------------------------------

def test_filter_options_read_json_values_and_repeat_keys_as_any_of() -> None:
    assert parse_filter_options(["kind=pdf", "custom.year=2024", "custom.ok=true",
                                 "custom.tag=a", "custom.tag=b", "custom.code=PO-1=2",
                                 'custom.ids=["x", 3]', 'custom.amount={"gte": 1000}',
                                 'custom.status={"not": "draft"}']) == {
        "kind": "pdf", "custom.year": 2024, "custom.ok": True, "custom.tag": ["a", "b"],
        "custom.code": "PO-1=2", "custom.ids": ["x", 3], "custom.amount": {"gte": 1000},
        "custom.status": {"not": "draft"}}
    with pytest.raises(BadRequest, match="KEY=VALUE"):
        parse_filter_options(["kind"])


def test_a_search_answer_reads_at_80_columns_with_every_number_whole() -> None:
    item = {"chunk_id": "c", "chunk_index": 4, "text": LONG_TEXT, "page": 12,
            "literal_spans": [], "scores": {"dense": 0.8123, "dense_rank": 1,
                                            "sparse": 7.25, "sparse_rank": 3,
                                            "fused": 0.0325, "rerank": None}}
    answer = {"results": [{
        "rank": 10, "document_version": {"document_id": "a-rather-long-document-name.pdf",
                                         "version_id": "v12"},
        "canonical_metadata": {"document": {"title": "Quarterly Budget"}},
        "retrieval_contributions": [{"lane": "content", "rank": 10}],
        "content_evidence": {"items": [item], "total": 5, "truncated": True},
        "metadata_evidence": {"items": [{"key": "custom.project", "value": "Apollo",
                                         "match": "exact", "spans": []}],
                              "total": 1, "truncated": False}}],
        "meta": {"query": "budget", "total": 11, "total_is_lower_bound": False, "offset": 9,
                 "limit": 1, "has_more": True, "query_time_ms": 4.2,
                 "retrieval": {"alpha": 0.5, "reranked": False, "reranked_count": 0,
                               "status": "partial", "lanes": ["sparse", "metadata"],
                               "failures": [{"lane": "dense", "code": "EMBEDDING_TIMEOUT",
                                             "message": "results by keywords only"}]},
                 "applied_filters": {"kind": ["pdf"]}, "scope": "both",
                 "timings": {"total": 4.2},
                 "lanes": [{"lane": "sparse", "floor": 1.0, "fetched": 40, "kept": 12,
                            "removed_by_floor": 28, "depth": 40}],
                 "facets": {"kind": [{"value": "pdf", "count": 9}, {"value": "txt",
                                                                    "count": 2}]},
                 "warnings": ["embedding model did not answer: results by keywords only"]}}
    console = Console(width=WIDTH, record=True, highlight=False)
    print_answer(console, answer, explain=True)
    out = console.export_text()
    _lines_fit(out)
    lines = out.splitlines()
    assert lines[0] == "'budget': 11 document versions, showing 10–10 (scope both)"
    assert lines[1] == ("10. a-rather-long-document-name.pdf v12 — Quarterly Budget  "
                        "[content #10]")
    assert lines[2].startswith("    p. 12: The quarterly budget report")
    assert len([line for line in lines if line.startswith("    ") and "widgets" in line]) >= 2
    assert "      dense 0.812 #1 · bm25 7.25 #3 · fused 0.0325" in lines
    assert "    … 4 more matching chunk(s)" in lines
    assert '    custom.project = "Apollo" (exact)' in lines
    assert 'filters: {"kind": ["pdf"]}' in lines
    assert "sparse lane: fetched 40, kept 12 at or over the floor 1" in lines
    assert "warning: embedding model did not answer: results by keywords only" in lines
    assert "partial answer: dense (EMBEDDING_TIMEOUT) did not answer" in lines
    assert 'kind: "pdf" 9 · "txt" 2' in lines
    assert any(line.startswith("alpha 0.5 · lanes sparse, metadata · reranked no")
               for line in lines)


# ---- against a live server -----------------------------------------------------------------

def test_ingest_through_a_server_counts_unchanged_and_lists_what_it_skipped(
        narrow: CliRunner, server: LiveServer, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "handbook.md").write_text("# Handbook\n\nWidget calibration happens weekly.\n")
    (folder / "budget.txt").write_text("The budget report for Apollo: widget calibration.")
    (folder / "tool.exe").write_bytes(b"MZ")
    (folder / "README").write_text("no extension")
    code, out = _run(narrow, server, "ingest", str(folder))
    assert code == 0, out
    assert "skipped README: unsupported type (no extension)" in out
    assert "tool.exe: unsupported type .exe" in out
    assert "published 2, failed 0, unchanged 0 of 2 files (skipped 2)" in out
    code, out = _run(narrow, server, "ingest", str(folder))
    assert code == 0 and "published 0, failed 0, unchanged 2 of 2 files" in out, out


def test_search_documents_and_jobs_through_a_server_at_80_columns(
        narrow: CliRunner, server: LiveServer, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "handbook.md").write_text("# Handbook\n\nWidget calibration happens weekly.\n")
    (folder / "budget.txt").write_text(LONG_TEXT)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not a pdf")
    code, out = _run(narrow, server, "ingest", str(folder), "--source", "wiki")
    assert code == 2 and "published 2, failed 1" in out, out

    code, out = _run(narrow, server, "search", "quarterly budget report for project Apollo "
                     "calibration widgets", "--alpha", "1",
                     "--explain", "--filter", "kind=txt")
    assert code == 0, out
    _lines_fit(out)
    assert " 1. budget.txt v1  [content #1]" in out
    assert "handbook.md" not in out  # filtered out
    assert "dense 0." in out and "fused " in out
    assert "dense lane: fetched" in out and 'filters: {"kind": ["txt"]}' in out

    code, out = _run(narrow, server, "search", "widget", "--scope", "metadata")
    assert code == 1 and out.startswith("error: METADATA_DISCOVERY_NOT_READY:"), out
    code, out = _run(narrow, server, "search", "widget", "--filter", "kind=3", "--json")
    assert code == 1 and "INVALID_FILTER" in out, out  # 3 read as a number: kinds are words

    code, out = _run(narrow, server, "documents", "list", "--sort", "document_id")
    assert code == 0, out
    _lines_fit(out)
    lines = out.splitlines()
    assert lines[0] == "3 documents"
    assert re.fullmatch(r"broken\.pdf  failed  pdf · 1 version · 0 chunks · "
                        r"\d{4}-\d\d-\d\d \d\d:\d\d", lines[1])  # the date whole, on the line
    assert lines[2] == "    broken.pdf · wiki"
    assert lines[3].startswith("    failed (PDF_CORRUPT): ")  # the stable code, then why
    assert any(line.startswith("handbook.md  published") for line in lines)
    assert "    Handbook · wiki" in lines
    code, out = _run(narrow, server, "documents", "list", "--state", "failed", "--json")
    assert [d["document_id"] for d in json.loads(out)["documents"]] == ["broken.pdf"]
    code, out = _run(narrow, server, "documents", "list", "--kind", "exe")
    assert code == 2 and "exe: use pdf, docx, html, md, txt" in out, out

    code, out = _run(narrow, server, "documents", "show", "handbook.md")
    assert code == 0, out
    _lines_fit(out)
    assert "  title    Handbook" in out and "    v1 published handbook.md · " in out
    code, out = _run(narrow, server, "documents", "show", "nope")
    assert code == 1 and out.startswith("error: DOCUMENT_NOT_FOUND: no document 'nope'"), out

    code, out = _run(narrow, server, "documents", "list", "--json")
    uploads = json.loads(out)["documents"]
    job_id = server.runtime.sessions().execute(  # the broken file's job, as the API knows it
        __import__("sqlalchemy").text("select id from ingestion_jobs where status='failed'")
    ).scalar_one()
    assert uploads
    code, out = _run(narrow, server, "jobs", "show", job_id)
    assert code == 0, out
    _lines_fit(out)
    assert out.startswith(f"job {job_id}  failed")
    assert "broken.pdf v1 · attempt 1/" in out and "  error (PDF_CORRUPT): " in out


# ---- errors as one line --------------------------------------------------------------------

def test_a_server_that_is_not_there_is_one_line_naming_the_url(narrow: CliRunner,
                                                               tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("text")
    for args in (["ingest", str(folder)], ["search", "x"], ["documents", "list"],
                 ["jobs", "show", "j"]):
        result = narrow.invoke(cli.app, [*args, "--server", url, "--api-key", "k"])
        assert result.exit_code == 1, (args, result.output)
        assert result.output == (  # one line, never hard-wrapped (issue 53)
            f"error: SERVER_UNREACHABLE: cannot reach the server at {url}: start it with "
            "`evidence serve`, or pass --server with its URL\n"), result.output


def test_a_missing_or_refused_key_names_the_option_and_the_variable(
        narrow: CliRunner, server: LiveServer) -> None:
    missing = narrow.invoke(cli.app, ["documents", "list", "--server", server.url])
    assert missing.exit_code == 1
    assert "no API key: pass --api-key or set EVIDENCE_API_KEY" in missing.output
    refused = narrow.invoke(cli.app, ["search", "x", "--server", server.url,
                                      "--api-key", "wrong"])
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert refused.output.startswith("error: API_KEY_INVALID: the server refused the API key")
    assert "pass --api-key or set EVIDENCE_API_KEY" in refused.output


def test_no_models_is_one_line_pointing_at_the_install(narrow: CliRunner,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    monkeypatch.setenv("EVIDENCE_MODELS__DIR", str(tmp_path / "no-models"))
    get_settings.cache_clear()
    for args in (["serve", "--port", str(free_port())], ["search", "x", "--api-key", "k"]):
        result = narrow.invoke(cli.app, args)
        assert result.exit_code == 1, result.output
        said = " ".join(result.output.split())  # one message, wrapped at 80 columns
        assert said.startswith("error: ") and said.count("error") == 1, said
        # the folder's path may be folded anywhere at 80 columns: compared without spaces
        assert "".join(said.split()).endswith(f"{tmp_path}/no-models:run`evidencemodelsinstall`"
                                              .replace(" ", "")), said


def test_the_console_script_ends_anything_unforeseen_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(cli, "app", broken)
    monkeypatch.delenv("EVIDENCE_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: RuntimeError: disk on fire (EVIDENCE_DEBUG=1")
    assert "Traceback" not in err


def test_every_option_has_help(narrow: CliRunner) -> None:
    import click
    import typer.main

    group = typer.main.get_command(cli.app)

    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Parameter]]:
        for param in command.params:
            yield path, param
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{path} {name}")

    missing = [f"{path} {p.name}" for path, p in walk(group, "evidence")
               if isinstance(p, click.Option) and not p.help and p.name != "help"]
    assert not missing, missing


def test_why_prints_the_diagnosis_at_80_columns(narrow: CliRunner, server: LiveServer,
                                               tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fruit.txt").write_text("apple banana cherry smoothie")
    (folder / "cars.txt").write_text("engine wheels brakes gearbox")
    assert _run(narrow, server, "ingest", str(folder))[0] == 0
    code, out = _run(narrow, server, "search", "apple banana cherry", "--alpha", "1",
                     "--why", "cars.txt", "--why", "nothing")
    assert code == 0, out
    _lines_fit(out)
    assert "why cars.txt v1: BELOW_FLOOR" in out
    assert "    dense: cars.txt:v1:0 scored " in out and "floor 0.26): under the floor" in out
    assert "why nothing: NOT_FOUND" in out
    assert "    there is no document 'nothing' for this client" in out


def test_an_apis_http_remedy_becomes_the_clis_own() -> None:
    from app.domain.errors import Conflict, Forbidden, StoreLocked

    not_ready = cli.cli_error(Conflict(
        "scope 'both' needs Metadata Discovery Readiness, and this client's metadata discovery "
        "is disabled; search scope 'content' meanwhile, or enable discovery "
        "(POST /clients/me/metadata/discovery)", code="METADATA_DISCOVERY_NOT_READY"))
    assert "POST" not in not_ready
    assert not_ready.endswith("with the CLI: evidence clients discovery NAME --enable "
                              "(evidence clients list names the clients)")
    assert "evidence clients authority NAME active" in cli.cli_error(
        Forbidden("this client's publication authority is suspended"))
    locked = cli.cli_error(StoreLocked(
        "the embedded engine at data/qdrant is in use by another process (a running "
        "`evidence serve`?); the CLI sends work to the server instead"))
    assert "sends work" not in locked and locked.endswith(
        "stop `evidence serve` first: the embedded engine admits one process")
    reindexing = cli.cli_error(StoreLocked(  # app/store/edge.set_aside says the remedy itself
        "the embedded engine at data/qdrant/shard is in use by another process: stop "
        "`evidence serve` first"))
    assert reindexing.count("stop `evidence serve` first") == 1  # issue 38: it said it twice


def test_ranges_negations_and_facets_through_the_cli(narrow: CliRunner, server: LiveServer,
                                                     tmp_path: Path) -> None:
    folder = tmp_path / "money"
    folder.mkdir()
    (folder / "big.txt").write_text("Kestrel wire of $10,000.00 sent.")
    (folder / "small.txt").write_text("Kestrel fee of $950 charged.")
    (folder / "plan.md").write_text("# Plan\n\nKestrel budget of €2,300 approved.")
    assert _run(narrow, server, "ingest", str(folder))[0] == 0
    code, out = _run(narrow, server, "search", "Kestrel", "--alpha", "1", "--json",
                     "-f", 'entities.monetary_amounts={"gte": 2000, "currency": "USD"}')
    assert code == 0, out
    assert [r["document_version"]["document_id"] for r in json.loads(out)["results"]] == [
        "big.txt"]
    code, out = _run(narrow, server, "search", "Kestrel", "--alpha", "1", "--facet", "kind",
                     "-f", 'kind={"not": "md"}')
    assert code == 0, out
    _lines_fit(out)
    assert 'kind: "txt" 2' in out and "plan.md" not in out


def test_entities_and_the_documents_naming_one_through_the_cli(
        narrow: CliRunner, server: LiveServer, tmp_path: Path) -> None:
    folder = tmp_path / "vendors"
    folder.mkdir()
    (folder / "kestrel.txt").write_text("IBAN: DE89 3704 0044 0532 0130 00 · Debit (EUR): 48500")
    (folder / "ledger.txt").write_text("Paid to DE89370400440532013000 by d.okafor@north.example")
    assert _run(narrow, server, "ingest", str(folder))[0] == 0
    code, out = _run(narrow, server, "entities", "account_numbers")
    assert code == 0, out
    _lines_fit(out)
    assert "1 account number" in out
    assert "DE89 3704 0044 0532 0130 00  2 documents · 2 mentions" in out
    code, out = _run(narrow, server, "entities", "account_numbers", "de89370400440532013000")
    assert code == 0, out
    assert "kestrel.txt" in out and "ledger.txt" in out
    code, out = _run(narrow, server, "entities", "email_addresses", "--q", "OKAFOR", "--json")
    assert code == 0, out
    assert [i["value"] for i in json.loads(out)["items"]] == ["d.okafor@north.example"]
    code, out = _run(narrow, server, "entities", "people")
    assert code != 0 and "persons" in out
    code, out = _run(narrow, server, "entities", "persons", "Nobody")
    assert code != 0 and "no current document names" in out


def test_a_thread_through_the_cli(narrow: CliRunner, server: LiveServer, tmp_path: Path) -> None:
    from tests.api.test_threads_api import MAILS

    folder = tmp_path / "mailbox"
    folder.mkdir()
    for name in ("original", "reply"):
        (folder / f"{name}.eml").write_bytes(MAILS[name])
    assert _run(narrow, server, "ingest", str(folder))[0] == 0
    code, out = _run(narrow, server, "documents", "show", "reply.eml", "--json")
    thread_id = json.loads(out)["versions"][0]["canonical_metadata"]["document"]["thread_id"]
    code, out = _run(narrow, server, "threads", "show", thread_id)
    assert code == 0, out
    _lines_fit(out)
    assert f"thread {thread_id}: 2 messages" in out
    assert "  1. original.eml  2024-07-01T09:00" in out and "↳ original.eml" in out
    code, out = _run(narrow, server, "threads", "show", "th-0000000000000000")
    assert code != 0 and "THREAD_NOT_FOUND" in out


def test_what_changed_between_versions_through_the_cli(narrow: CliRunner, server: LiveServer,
                                                        tmp_path: Path) -> None:
    import httpx

    for text in ("The annual fee is 12,000 EUR. Notice is three months.",
                 "The annual fee is 24,000 EUR. Notice is three months. Audits are yearly."):
        r = httpx.post(f"{server.url}/documents", headers={"X-API-Key": server.keys["acme"]},
                       files={"file": ("fees.txt", text.encode())},
                       data={"document_id": "fees"})
        assert r.status_code == 202, r.text
        server_job = r.json()["job_id"]
        for _ in range(200):
            job = httpx.get(f"{server.url}/jobs/{server_job}",
                            headers={"X-API-Key": server.keys["acme"]}).json()
            if job["status"] in ("succeeded", "failed"):
                break
            __import__("time").sleep(0.05)
    code, out = _run(narrow, server, "documents", "changes", "fees")
    assert code == 0, out
    _lines_fit(out)
    assert "fees: v1 → v2, 2 changes" in out
    assert _run(narrow, server, "changes", "fees", "--from", "v1", "--to", "v2") == (code, out)
    assert "- The annual fee is 12,000 EUR." in out and "+ The annual fee is 24,000 EUR." in out
    assert "+ Audits are yearly." in out


def _upload(server: LiveServer, name: str, text: str, document_id: str) -> None:
    """An upload through the server, waited for (the server's worker publishes it)."""
    import time

    import httpx

    auth = {"X-API-Key": server.keys["acme"]}
    r = httpx.post(f"{server.url}/documents", headers=auth,
                   files={"file": (name, text.encode())}, data={"document_id": document_id})
    assert r.status_code == 202, r.text
    for _ in range(400):
        if httpx.get(f"{server.url}/jobs/{r.json()['job_id']}", headers=auth).json()[
                "status"] in ("succeeded", "failed"):
            return
        time.sleep(0.05)


def test_a_watch_through_the_cli(narrow: CliRunner, server: LiveServer) -> None:
    from tests.webhook_receiver import Receiver

    receiver = Receiver().allowed_by(server)
    try:
        code, out = _run(narrow, server, "watch", "add", "annual fee", "--name", "fees",
                         "--filter", "kind=txt", "--webhook", receiver.url)
        assert code == 0, out
        _lines_fit(out)
        watch_id = out.split()[0]
        assert watch_id.startswith("wat_") and "\n    whsec_" in out
        assert "“annual fee” · content · kind=txt" in out
        refused = _run(narrow, server, "watch", "add", "x", "--webhook",
                       "http://169.254.169.254/")
        assert refused[0] == 1 and "EVIDENCE_WATCH__WEBHOOK_HOSTS" in refused[1]

        _upload(server, "fees.txt", "The annual fee is 24,000 EUR, payable in advance.", "fees")
        _upload(server, "menu.txt", "Soup of the day: lentils with cumin.", "menu")
        server.app.state.watch_runner.run_once()
        code, out = _run(narrow, server, "watch", "matches", watch_id)
        assert code == 0, out
        _lines_fit(out)
        assert "1 match" in out and "fees v1" in out and "webhook delivered" in out
        assert "menu" not in out and "annual fee is 24,000 EUR" in out
        cursor = out.strip().splitlines()[-1].split()[-1]
        assert "0 matches" in _run(narrow, server, "watch", "matches", watch_id,
                                   "--cursor", cursor)[1]
        code, out = _run(narrow, server, "watch", "list")
        assert code == 0 and "1 watch\n" in out and f"{watch_id}  fees  1 match" in out
        assert _run(narrow, server, "watch", "rm", watch_id) == (0, f"deleted {watch_id}\n")
        code, out = _run(narrow, server, "watch", "rm", watch_id)
        assert code == 1 and "no watch" in out
    finally:
        receiver.close()


def test_judgments_files_read_both_ways_and_a_bad_line_is_named(tmp_path: Path) -> None:
    from app.cli.calibrate import read_judgments
    from app.domain.errors import BadRequest

    tsv = tmp_path / "j.tsv"
    tsv.write_text("query\tdocument_id\tgrade\nannual fee\tcontract\t2\nrent\tlease\t0\n")
    assert read_judgments(tsv) == [{"query": "annual fee", "document_id": "contract",
                                    "grade": 2},
                                   {"query": "rent", "document_id": "lease", "grade": 0}]
    jsonl = tmp_path / "j.jsonl"
    jsonl.write_text('{"query": "fee", "chunk_id": "contract:v1:0", "grade": 3}\n')
    assert read_judgments(jsonl) == [{"query": "fee", "chunk_id": "contract:v1:0", "grade": 3}]
    bad = tmp_path / "bad.tsv"
    bad.write_text("fee\tcontract\t2\nno tabs here\n")
    with pytest.raises(BadRequest, match=r"bad.tsv:2"):
        read_judgments(bad)


def test_calibrate_through_the_cli(narrow: CliRunner, tmp_path: Path) -> None:
    from evidence_client import EvidenceClient
    from tests.api.test_calibration_api import TOPICS, MeaningDense, meaning_corpus

    with live_server(tmp_path / "server", fake_models(dense=MeaningDense())) as live, \
            worker_running(live):
        with EvidenceClient(live.url, api_key=live.keys["acme"]) as client:
            for c in TOPICS:
                for doc_id, text in meaning_corpus(c):
                    job = client.upload(text.encode(), filename=f"{doc_id}.txt",
                                        document_id=doc_id)
                    client.wait_for_job(job["job_id"], timeout_s=30)
        judged = tmp_path / "judged.tsv"
        judged.write_text("".join(f"zorb{c} plin{c}\trel-{c}\t2\n" for c in TOPICS))
        code, out = _run(narrow, live, "calibrate", "--judgments", str(judged))
        assert code == 0, out
        _lines_fit(out)
        assert "12 judged queries, 5-fold cross-validation" in out
        assert "chosen    alpha 1, rank: nDCG@10 1.000" in out
        assert "applied: choosing by cross-validation beats the defaults" in out
        code, out = _run(narrow, live, "calibrate")  # judgments kept: the same choice again
        assert code == 0 and "applied:" in out


def test_every_supported_kind_is_named_where_a_person_picks_one(narrow: CliRunner) -> None:
    """Issue 38: `ingest --help`, the console's file picker and its kind filter name every
    kind app/domain/formats.py (the API's list) supports."""
    import re

    from app.domain.formats import KINDS, SUPPORTED
    from tests.conftest import REPO

    helped = " ".join(narrow.invoke(cli.app, ["ingest", "--help"]).output.split())
    assert all(re.search(rf"\b{kind}\b", helped) for kind in KINDS), helped
    page = (REPO / "app" / "console" / "index.html").read_text()
    accept = re.search(r'id="file" type="file" accept="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    assert set(accept.split(",")) == set(SUPPORTED)
    kind_filter = page.split('id="doc-kind"', 1)[1].split("</select>", 1)[0]
    assert re.findall(r"<option>(\w+)</option>", kind_filter) == list(KINDS)


def test_rows_lines_superseded_versions_and_long_heads_at_80_columns() -> None:
    """Issue 38: one line reads "line 5", a sheet's chunk names its sheet and rows, a
    superseded version says so, and a long head puts its lanes on an indented line."""
    def row(rank: int, doc: str, ref: dict, item: dict) -> dict:
        return {"rank": rank, "document_version": {"document_id": doc, "version_id": "v1",
                                                   **ref},
                "canonical_metadata": {"document": {}},
                "retrieval_contributions": [{"lane": "content", "rank": rank}],
                "content_evidence": {"items": [{"chunk_id": "c", "chunk_index": 0,
                                                "text": "fee 12000", "page": None,
                                                "literal_spans": [], **item}],
                                     "total": 1, "truncated": False},
                "metadata_evidence": {"items": [], "total": 0, "truncated": False}}

    answer = {"results": [
        row(1, "notes.md", {}, {"line_start": 5, "line_end": 5}),
        row(2, "notes.md", {}, {"line_start": 5, "line_end": 9}),
        row(3, "ledger.xlsx", {"is_current": False, "superseded_by": "v2",
                               "superseded_at": "2026-04-15T10:03:00Z"},
            {"location": {"sheet": "Fees", "rows": [3, 3]}}),
        row(4, "prices.csv", {}, {"location": {"sheet": None, "rows": [2, 7]}}),
        row(5, "a-very-long-document-name-that-fills-most-of-the-line-already-x.pdf", {}, {})],
        "meta": {"query": "fee", "total": 5, "total_is_lower_bound": False, "offset": 0,
                 "limit": 10, "has_more": False, "query_time_ms": 1.0,
                 "retrieval": {"alpha": 0.5, "reranked": False, "reranked_count": 0},
                 "scope": "content", "warnings": []}}
    console = Console(width=WIDTH, record=True, highlight=False)
    print_answer(console, answer)
    out = console.export_text()
    _lines_fit(out)
    assert "    line 5: fee 12000" in out and "    lines 5–9: fee 12000" in out
    assert " 3. ledger.xlsx v1 (superseded by v2 2026-04-15)  [content #3]" in out
    assert "    Fees row 3: fee 12000" in out and "    rows 2–7: fee 12000" in out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(" 5. "))
    assert lines[at + 1] == "    [content #5]"


def test_documents_list_keeps_the_date_whole_at_80_columns() -> None:
    from app.cli.document_views import print_documents

    doc = {"document_id": "reports/2026/q3/a-long-quarterly-budget-report-name.pdf",
           "state": "published", "kind": "pdf", "version_count": 3, "chunk_count": 1200,
           "updated_at": "2026-12-02T08:45:10Z", "title": "Q3 budget", "filename": "q3.pdf"}
    console = Console(width=WIDTH, record=True, highlight=False)
    print_documents(console, {"documents": [doc], "offset": 0, "total": 1})
    lines = console.export_text().splitlines()
    _lines_fit("\n".join(lines))
    assert lines[1] == "reports/2026/q3/a-long-quarterly-budget-report-name.pdf  published"
    assert lines[2] == "    pdf · 3 versions · 1,200 chunks · 2026-12-02 08:45"


def test_a_bad_setting_is_one_message_naming_it_and_its_value(
        narrow: CliRunner, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 38: EVIDENCE_SEARCH__RRF_K=abc said a multi-line pydantic dump."""
    import sys

    monkeypatch.setenv("EVIDENCE_SEARCH__RRF_K", "abc")
    monkeypatch.setattr(sys, "argv", ["evidence", "documents", "list"])
    get_settings.cache_clear()
    with pytest.raises(SystemExit) as ended:
        cli.main()
    said = capsys.readouterr().err
    assert ended.value.code == 1
    assert said == ("error: invalid setting: EVIDENCE_SEARCH__RRF_K='abc': Input should be a "
                    "valid integer\n")  # one line, never hard-wrapped at 80 (issue 53)


def test_a_running_server_is_found_on_any_port_and_a_stale_record_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: `evidence serve --port 8622` records where it listens (and its pid) in its
    data folder; the CLI goes there; a record whose process is gone is ignored;
    EVIDENCE_SERVER_URL overrides."""
    import json
    import subprocess
    import sys

    from app.cli.server_api import SERVER_RECORD, recorded_server, running_server, server_url
    from app.settings import Settings

    monkeypatch.delenv("EVIDENCE_SERVER_URL", raising=False)
    settings = Settings(data_dir=tmp_path / "data")
    assert server_url(settings) == "http://127.0.0.1:8000"  # nothing recorded: the default
    assert running_server(settings) is None  # nothing runs: commands may run in process
    with recorded_server(settings, "0.0.0.0", 8622):
        assert server_url(settings) == running_server(settings) == "http://127.0.0.1:8622"
        monkeypatch.setenv("EVIDENCE_SERVER_URL", "http://10.0.0.2:9000")
        named = Settings(data_dir=tmp_path / "data")
        assert server_url(named) == running_server(named) == "http://10.0.0.2:9000"
        monkeypatch.delenv("EVIDENCE_SERVER_URL")
    assert not (tmp_path / "data" / SERVER_RECORD).exists()  # gone with the server
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (tmp_path / "data" / SERVER_RECORD).write_text(json.dumps(
        {"url": "http://127.0.0.1:8622", "pid": int(gone.stdout)}))
    assert server_url(settings) == "http://127.0.0.1:8000"  # its process is gone
    assert running_server(settings) is None


def test_commands_that_could_run_here_ask_the_recorded_server_first(
        narrow: CliRunner, server: LiveServer, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """Issue 38: with a live server recorded in the data folder, `evidence search` and
    `documents list` go to it without --server — never loading models or the engine here."""
    import app.cli.document_views
    import app.cli.search_answers
    from app.cli.server_api import recorded_server
    from app.settings import Settings

    def nothing_here(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("ran in process although a server was recorded")

    monkeypatch.setattr(app.cli.search_answers, "in_process_service", nothing_here)
    monkeypatch.setattr(app.cli.document_views, "_registry", nothing_here)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "handbook.md").write_text("# Handbook\n\nWidget calibration happens weekly.\n")
    assert _run(narrow, server, "ingest", str(folder))[0] == 0
    key = ["--api-key", server.keys["acme"]]
    host, port = server.url.removeprefix("http://").split(":")
    with recorded_server(Settings(data_dir=tmp_path / "cli-data"), host, int(port)):
        found = narrow.invoke(cli.app, ["search", "widget calibration", *key])
        listed = narrow.invoke(cli.app, ["documents", "list", *key])
    assert found.exit_code == 0 and "handbook.md" in found.output, found.output
    assert listed.exit_code == 0 and "handbook.md" in listed.output, listed.output


def test_openapi_writes_the_running_servers_spec_without_building_the_app(
        narrow: CliRunner, server: LiveServer, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """Issue 46: `evidence openapi` against a running server asks it for its spec (building
    the application here took 1.2 s); the file is byte for byte the one built here; with no
    server recorded it is built here."""
    import app.main
    from app.cli import spec_text
    from app.cli.server_api import recorded_server
    from app.settings import Settings

    built = spec_text() + "\n"

    def nothing_here(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("built the application although a server was recorded")

    host, port = server.url.removeprefix("http://").split(":")
    with monkeypatch.context() as patched:
        patched.setattr(app.main, "create_app", nothing_here)
        with recorded_server(Settings(data_dir=tmp_path / "cli-data"), host, int(port)):
            result = narrow.invoke(cli.app, ["openapi", "--out", str(tmp_path / "a.json")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "a.json").read_text() == built
    result = narrow.invoke(cli.app, ["openapi", "--out", str(tmp_path / "b.json")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "b.json").read_text() == built


@pytest.mark.parametrize("command", [["reindex"], ["migrate"], ["worker"],
                                     ["store", "export", "out"], ["store", "import", "."]])
def test_a_command_that_needs_the_engine_is_refused_at_once_while_a_server_holds_it(
        command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 46: with a live `evidence serve` recorded in the data folder, commands that need
    the embedded engine for themselves say so before loading anything (reindex took 2.2 s to
    learn it from the engine's lock); with a Qdrant server configured nothing is refused."""
    import app.runtime
    from app.cli.server_api import recorded_server
    from app.settings import Settings

    def nothing_here(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("loaded the runtime although a server holds the engine")

    monkeypatch.setattr(app.runtime, "build_runtime", nothing_here)
    monkeypatch.setattr(app.runtime, "open_registry", nothing_here)
    monkeypatch.setenv("EVIDENCE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("EVIDENCE_SERVER_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    settings = get_settings()
    with recorded_server(Settings(data_dir=tmp_path / "data"), "127.0.0.1", 8623):
        result = CliRunner().invoke(cli.app, command)
    said = " ".join(result.output.split())
    assert result.exit_code == 1, result.output
    assert "STORE_LOCKED: `evidence serve` (http://127.0.0.1:8623) holds the embedded engine" \
        in said
    assert str(settings.qdrant.path) in "".join(result.output.split())  # wrapped where long
    get_settings.cache_clear()


def test_nothing_is_refused_without_a_live_record_or_with_a_qdrant_server(
        tmp_path: Path) -> None:
    from app.cli.common import refuse_while_served
    from app.cli.server_api import recorded_server
    from app.settings import QdrantSettings, Settings

    alone = Settings(data_dir=tmp_path / "data")
    refuse_while_served(alone, "go on")  # no record: returns
    served = Settings(data_dir=tmp_path / "data",
                      qdrant=QdrantSettings(url="http://127.0.0.1:6333"))
    with recorded_server(alone, "127.0.0.1", 8624):
        refuse_while_served(served, "go on")  # a server engine admits both: returns


def test_a_json_call_answers_as_the_public_client_would(tmp_path: Path) -> None:
    """The CLI's JSON calls (the standard library's http.client, not httpx): the body of a
    success with its query parameters as httpx writes them, the API's error shape as its code,
    a proxy's plain 502 as HTTP_ERROR, a server too slow as SERVER_TIMEOUT, a port nobody
    listens on as SERVER_UNREACHABLE with the CLI's remedy."""
    import json as json_module
    import threading
    import time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from app.cli.server_api import json_call
    from app.domain.errors import ServiceError

    seen: list[tuple[str, str, str | None, bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            seen.append((self.command, self.path, self.headers.get("Authorization"),
                         self.rfile.read(length)))
            if self.path.startswith("/slow"):
                time.sleep(1.0)
            status, body, kind = {
                "/ok": (200, b'{"fine": true}', "application/json"),
                "/gone": (404, b'{"error": {"code": "DOCUMENT_NOT_FOUND", "message": "no '
                          b'document \'x\'", "details": {"request_id": "r1"}}}',
                          "application/json"),
                "/proxy": (502, b"<html>bad gateway</html>", "text/html"),
            }.get(self.path.split("?")[0], (200, b"", "application/json"))
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer  # noqa: N815 - the stdlib's names

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert json_call(url, "k1", "GET", "/ok", params={
            "kind": ["pdf", "docx"], "explain": True, "q": "a b", "none": None}) == {
            "fine": True}
        assert seen[-1][1] == "/ok?kind=pdf&kind=docx&explain=true&q=a+b"
        assert seen[-1][2] == "Bearer k1"
        assert json_call(url, "k1", "POST", "/empty", body={"query": "ü"}, ok=(200,)) is None
        assert json_module.loads(seen[-1][3]) == {"query": "ü"}
        with pytest.raises(ServiceError) as gone:
            json_call(url, "k1", "GET", "/gone")
        assert (gone.value.code, gone.value.http_status, gone.value.details) == (
            "DOCUMENT_NOT_FOUND", 404, {})
        with pytest.raises(ServiceError) as proxy:
            json_call(url, "k1", "GET", "/proxy")
        assert proxy.value.code == "HTTP_ERROR" and "502" in proxy.value.message
        with pytest.raises(ServiceError) as slow:
            json_call(url, "k1", "GET", "/slow", timeout=0.2)
        assert slow.value.code == "SERVER_TIMEOUT"
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(ServiceError) as nobody:
        json_call(f"http://127.0.0.1:{free_port()}", "k1", "GET", "/ok")
    assert nobody.value.code == "SERVER_UNREACHABLE" and "evidence serve" in nobody.value.message


def test_download_and_open_a_page_from_the_server_and_from_the_registry(
        narrow: CliRunner, server: LiveServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: `evidence download DOC` writes the file byte for byte; `evidence open DOC
    --page N --highlight CHUNK` a PNG; through a running server and, with none, from the
    registry here (the server's, read beside it)."""
    from tests.factories import pdf_bytes

    folder = tmp_path / "docs"
    folder.mkdir()
    original = pdf_bytes(["Page one of the lease.", "Page two: the deposit is refundable."])
    (folder / "lease.pdf").write_bytes(original)
    assert _run(narrow, server, "ingest", str(folder))[0] == 0
    for where in ("server", "here"):
        if where == "here":
            monkeypatch.setenv("EVIDENCE_DATABASE__URL", server.runtime.settings.database.url)
            monkeypatch.setenv("EVIDENCE_API_KEY", server.keys["acme"])
            get_settings.cache_clear()
            run = lambda *a: (lambda r: (r.exit_code, r.output))(  # noqa: E731
                narrow.invoke(cli.app, list(a)))
        else:
            run = lambda *a: _run(narrow, server, *a)  # noqa: E731
        out = tmp_path / f"lease-{where}.pdf"
        code, said = run("download", "lease.pdf", "--out", str(out))
        assert code == 0 and out.read_bytes() == original, said
        png = tmp_path / f"page-{where}.png"
        code, said = run("open", "lease.pdf:v1", "--page", "2", "--width", "300",
                         "--highlight", "lease.pdf:v1:0", "--out", str(png))
        assert code == 0, said
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        code, said = run("open", "lease.pdf", "--page", "3", "--out", str(png))
        assert code == 1 and "PAGE_NOT_FOUND" in said, said
        code, said = run("download", "lease.pdf:v7")
        assert code == 1 and "VERSION_NOT_FOUND" in said, said


def test_sync_add_run_list_and_rm_a_folder(narrow: CliRunner, server: LiveServer,
                                           tmp_path: Path) -> None:
    """Issue 50 from the CLI: a folder registered, synced twice (the second reads only the
    changed file), listed with its last report, removed."""
    import re

    share = tmp_path / "share"
    share.mkdir()
    (share / "memo.md").write_text("# Memo\n\nThe first memo.")
    (share / "note.txt").write_text("A note.")
    server.runtime.settings.sources = server.runtime.settings.sources.model_copy(
        update={"folder_roots": str(share)})
    code, said = _run(narrow, server, "sync", "add", str(share))
    assert code == 0, said
    source = re.search(r"src_[0-9a-f]{16}", said).group(0)  # type: ignore[union-attr]
    code, said = _run(narrow, server, "sync", "run", source)
    said = " ".join(said.split())
    assert code == 0 and "new 2" in said and "read 2 file(s)" in said, said
    (share / "memo.md").write_text("# Memo\n\nThe first memo, changed.")
    code, said = _run(narrow, server, "sync", "run", source)
    said = " ".join(said.split())
    assert code == 0 and "changed 1" in said and "read 1 file(s)" in said, said
    code, said = _run(narrow, server, "sync", "list")
    _lines_fit(said)
    said = " ".join(said.split())
    assert code == 0 and source in said and "changed 1" in said, said
    code, said = _run(narrow, server, "sync", "add", "/etc")
    assert code == 1 and "SOURCE_PATH_NOT_ALLOWED" in said, said
    assert _run(narrow, server, "sync", "rm", source)[0] == 0
    code, said = _run(narrow, server, "sync", "run", source)
    assert code == 1 and "SOURCE_NOT_FOUND" in said, said


def test_sync_add_mailbox_then_run_reads_a_real_imap_server(
        narrow: CliRunner, server: LiveServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 50: `evidence sync add-mailbox` with the password from the environment (never
    on the command line), then `sync run`, against Dovecot (skips where it cannot start)."""
    import re

    from pydantic import SecretStr

    from tests.imap_server import PASSWORD, USER, imap_server

    with imap_server() as imap:
        imap.deliver("INBOX", b"Message-ID: <m1@acme>\r\nSubject: Budget\r\n"
                              b"From: a@acme.example\r\n\r\nThe budget is approved.\r\n")
        server.runtime.settings.sources = server.runtime.settings.sources.model_copy(
            update={"secret_key": SecretStr("Xq9yO1T9Q2mS0R7bVfR0bq6wY9fC3nK8mZ4sB1uJ5aE=")})
        monkeypatch.setenv("EVIDENCE_MAILBOX_PASSWORD", PASSWORD)
        code, said = _run(narrow, server, "sync", "add-mailbox", imap.host, "--user", USER,
                          "--port", str(imap.port), "--no-tls")
        assert code == 0 and PASSWORD not in said, said
        source = re.search(r"src_[0-9a-f]{16}", said).group(0)  # type: ignore[union-attr]
        code, said = _run(narrow, server, "sync", "run", source)
        assert code == 0 and "new 1" in " ".join(said.split()), said


def test_sync_watch_syncs_again_when_the_folder_changes(
        narrow: CliRunner, server: LiveServer, tmp_path: Path) -> None:
    """Issue 50: `evidence sync watch` syncs at once, then after the folder changes (real
    file-system events through watchdog, debounced)."""
    import re
    import threading
    import time

    share = tmp_path / "share"
    share.mkdir()
    (share / "one.md").write_text("# One\n\nThe first file.")
    server.runtime.settings.sources = server.runtime.settings.sources.model_copy(
        update={"folder_roots": str(share)})
    source = re.search(r"src_[0-9a-f]{16}", _run(narrow, server, "sync", "add", str(share))[
        1]).group(0)  # type: ignore[union-attr]
    outcome: dict[str, object] = {}

    def watch() -> None:
        outcome["said"] = _run(narrow, server, "sync", "watch", source, "--debounce", "0.3",
                               "--max-syncs", "2")
    thread = threading.Thread(target=watch)
    thread.start()
    time.sleep(1.5)  # the first sync, and the observer started
    (share / "two.md").write_text("# Two\n\nA second file.")
    thread.join(timeout=30)
    assert not thread.is_alive()
    code, said = outcome["said"]  # type: ignore[misc]
    said = " ".join(said.split())  # type: ignore[attr-defined]
    assert code == 0 and "new 1" in said and said.count("last sync") == 2, said


@pytest.mark.parametrize("total, group, said", [
    (1, "persons", "1 person"), (2, "persons", "2 persons"),
    (1, "dates_times", "1 date or time"), (3, "phone_numbers", "3 phone numbers"),
    (0, "organizations", "0 organizations")])
def test_an_entity_count_reads_as_english(total: int, group: str, said: str) -> None:
    """Issue 53: "1 persons"."""
    from app.cli.document_views import print_entities

    console = Console(width=WIDTH, record=True, highlight=False)
    items = [{"value": f"v{i}", "documents": 1, "mentions": 1, "spellings": [f"v{i}"]}
             for i in range(total)]
    print_entities(console, {"group": group, "total": total, "items": items,
                             "next_cursor": None})
    assert console.export_text().splitlines()[0] == said
