"""Every command block of the README beyond "Using it" (tests/test_cli_readme.py runs that one,
tests/client/test_retrievers.py the RAG examples), run as written against `evidence serve` in
a fresh folder — its own ./data, the real models — with only the port changed, and the
output's shape checked against what the README shows (issue 53 item 5). Not run: the last
line of the backup block (`store import` into a Qdrant server: none runs here; the import
itself is tested into qdrant-client's local mode in tests/store)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import MODELS_DIR, REPO
from tests.factories import pdf_bytes
from tests.live import free_port, wait_until_healthy

pytestmark = pytest.mark.integration
README = (REPO / "README.md").read_text()
METRICS_TOKEN = "scrape-token-for-the-test"


def block(after: str, language: str = "bash") -> str:
    """The first ``language`` block after the text ``after``."""
    return README.split(after, 1)[1].split(f"```{language}\n", 1)[1].split("```", 1)[0]


@dataclass
class Served:
    folder: Path
    url: str
    env: dict[str, str]

    def bash(self, script: str) -> str:
        """A README block run by bash in the folder, its server's port put in."""
        script = script.replace("127.0.0.1:8000", self.url.removeprefix("http://"))
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=self.folder,
                              env=self.env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (script, done.stdout, done.stderr)
        return done.stdout

    def key(self) -> str:
        return (self.folder / "data" / "initial-api-key.txt").read_text().strip()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if not (MODELS_DIR / "manifest.json").exists():
        pytest.skip(f"no models installed in {MODELS_DIR}: run `evidence models install`")
    folder = tmp_path_factory.mktemp("readme")
    (folder / "handbook.pdf").write_bytes(pdf_bytes(
        ["Handbook.", "Parental leave is sixteen weeks; the budget report is due in May."]))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_")}
    env.update({"EVIDENCE_MODELS__DIR": str(MODELS_DIR), "EVIDENCE_SERVER_URL": url,
                "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
                "HF_HUB_OFFLINE": "1"})
    # the README's own line: the operator allows the webhook's host when starting the server
    assert "EVIDENCE_WATCH__WEBHOOK_HOSTS=hooks.example.org evidence serve" in README
    log = folder / "serve.log"
    with log.open("w") as stderr:
        server = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(port)], cwd=folder,
            env={**env, "EVIDENCE_WATCH__WEBHOOK_HOSTS": "hooks.example.org",
                 "EVIDENCE_METRICS_TOKEN": METRICS_TOKEN},  # README: metrics need one
            stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_until_healthy(url, server, log)
        yield Served(folder, url, env)
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_the_curl_block_uploads_polls_and_searches(served: Served) -> None:
    script = block("unforeseen is one line too")
    upload, poll, search = script.split("curl ")[1:]
    out = served.bash("KEY=$(cat data/initial-api-key.txt)\ncurl -s " + upload)
    accepted = json.loads(out)
    assert {"job_id", "document_id", "version_id"} <= accepted.keys()
    assert accepted["document_id"] == "handbook"
    job = json.loads(served.bash("KEY=$(cat data/initial-api-key.txt)\ncurl -s " + poll.replace(
        "<job_id>", accepted["job_id"])))
    assert job["job_id"] == accepted["job_id"] and job["status"] in (
        "queued", "running", "succeeded")
    for _ in range(120):  # the embedded worker publishes it
        if httpx.get(f"{served.url}/jobs/{accepted['job_id']}", timeout=10, headers={
                "X-API-Key": served.key()}).json()["status"] == "succeeded":
            break
        import time
        time.sleep(0.5)
    answer = json.loads(served.bash("KEY=$(cat data/initial-api-key.txt)\ncurl -s " + search))
    assert answer["results"][0]["document_version"]["document_id"] == "handbook"
    assert answer["results"][0]["content_evidence"]["items"][0]["scores"]  # explain: true
    assert answer["meta"]["retrieval"]["alpha"] == 0.5


def test_the_watch_block_adds_lists_and_reads_matches(served: Served) -> None:
    lines = [line.split("  #", 1)[0].strip() for line in block(
        "which evaluates the watches:").splitlines()]
    commands = [line for line in lines if line.startswith("evidence ")]
    assert len(commands) == 4
    out = served.bash(commands[0])  # watch add "termination fee" -f kind=pdf
    first = re.search(r"wat_[A-Za-z0-9_-]+", out)
    assert first, out
    out = served.bash(commands[1])  # with a webhook to the host the server allows
    assert re.search(r"wat_[A-Za-z0-9_-]+", out) and "hooks.example.org" in out, out
    out = served.bash(commands[2].replace("wat_…", first.group(0)))  # watch matches wat_…
    assert re.match(r"\d+ match", out), out
    listed = served.bash(commands[3])  # watch list
    assert listed.count("wat_") == 2 and "termination fee" in listed, listed


def test_the_why_block_prints_the_shape_it_shows(served: Served) -> None:
    script = block('"Why isn\'t the travel policy in my results?"')
    command, *shown = script.splitlines()
    assert shown[0].startswith("# why travel-policy.pdf v2: ")
    (served.folder / "travel-policy.pdf").write_bytes(pdf_bytes(
        ["Travel policy.", "Receipts are reimbursed within 30 days of the trip."]))
    served.bash("evidence ingest travel-policy.pdf")
    out = served.bash(command)
    why = re.search(r"^why travel-policy\.pdf v1: ([A-Z_]+)\n((?:    .*\n)+)", out, re.M)
    assert why, out  # the line the README shows, then its indented account
    if why.group(1) != "SHOWN":  # each lane's line, in the README's form
        for lane in ("dense", "bm25"):
            assert re.search(rf"^\s+{lane}: travel-policy\.pdf:v1:\d+ scored [0-9.]+ \(rank",
                             why.group(2), re.M), out
    sample_floor = re.search(r"under the floor (\d\.\d+)", shown[1]).group(1)
    from app.models.profiles import OFFLINE

    assert float(sample_floor) == OFFLINE.dense_floor  # the sample's floor is the profile's


def test_the_as_of_block_answers_with_the_version_shape_it_shows(served: Served) -> None:
    script = block('"What did the travel policy say last March?"')
    answer = json.loads(served.bash(
        "KEY=$(cat data/initial-api-key.txt)\n" + script.replace("curl ", "curl -s ", 1)))
    assert answer["results"] == []  # nothing of this folder existed last March
    shown = re.search(r"document_version = (\{.*?\})", script, re.S).group(1)
    keys = set(re.findall(r'"(\w+)":', shown))
    from app.api.schemas import DocumentVersionRef

    assert keys <= set(DocumentVersionRef.model_fields)  # every key the README shows exists


def test_the_python_client_block_runs_as_written(served: Served) -> None:
    code = block("POST /search retried on a passing failure, nothing else):", "python")
    code = code.replace("http://127.0.0.1:8000", served.url).replace("evs_…", served.key())
    scope: dict = {}
    here = Path.cwd()
    os.chdir(served.folder)  # "handbook.pdf" as the README uploads it
    try:
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the README's own code
    finally:
        os.chdir(here)
    assert scope["answer"]["meta"]["total"] >= 0 and "results" in scope["answer"]


def test_the_mcp_configuration_is_what_print_config_prints(served: Served) -> None:
    shown = json.loads(block("server, the key:", "json"))
    printed = json.loads(served.bash("evidence mcp --print-config"))
    assert printed.keys() == shown.keys()
    mine, theirs = printed["mcpServers"]["evidence"], shown["mcpServers"]["evidence"]
    assert mine.keys() == theirs.keys() and mine["env"].keys() == theirs["env"].keys()
    assert mine["args"][:2] == theirs["args"][:2] == ["mcp", "--server"]
    assert Path(mine["command"]).name == Path(theirs["command"]).name == "evidence"


def test_the_promql_names_a_metric_the_server_exports(served: Served) -> None:
    query = README.split("```promql\n", 1)[1].split("```", 1)[0]
    metric = re.search(r"(evidence_\w+_bucket)\{stage=\"total\"\}", query).group(1)
    httpx.post(f"{served.url}/search", json={"query": "leave"}, timeout=30,
               headers={"X-API-Key": served.key()})
    exported = httpx.get(f"{served.url}/metrics", timeout=30,
                         headers={"Authorization": f"Bearer {METRICS_TOKEN}"}).text
    assert re.search(rf'^{metric}\{{[^}}]*stage="total"', exported, re.M), metric


def test_the_backup_block_exports_and_copies_the_registry(tmp_path: Path) -> None:
    """`store export` and `registry copy` as the README writes them, in a fresh folder with
    no server running (the README: stop `evidence serve` first); the copy goes to this
    machine's PostgreSQL (skipped where none answers)."""
    from tests.conftest import pg_schema

    if not (MODELS_DIR / "manifest.json").exists():
        pytest.skip(f"no models installed in {MODELS_DIR}: run `evidence models install`")
    export, copy, _import = [line.split("  #", 1)[0].strip() for line in block(
        "stop `evidence serve`, then").splitlines() if line.strip()]
    env = {k: v for k, v in os.environ.items() if not k.startswith("EVIDENCE_")}
    env.update({"EVIDENCE_MODELS__DIR": str(MODELS_DIR), "HF_HUB_OFFLINE": "1",
                "EVIDENCE_INGEST__CHILD_PROCESS": "false",
                "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}"})

    def run(command: str) -> str:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        return done.stdout

    (tmp_path / "note.txt").write_text("The backup note: export, copy, import.\n")
    run("evidence ingest note.txt")
    out = run(export)
    assert "1 point" in out or re.search(r"\b1\b", out), out
    assert list((tmp_path / "backup" / "points").iterdir())
    with pg_schema() as url:
        target = re.search(r"--to (\S+)", copy).group(1)
        assert target.startswith("postgresql+psycopg://")
        out = run(copy.replace(target, url))
        assert re.match(r"copied [1-9]\d* rows in \d+ tables", out), out
