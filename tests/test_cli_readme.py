"""Every command the README's "Using it" block shows, run as written (in-process, the real
models, a fresh data folder), reads at 80 columns: no line wider, no traceback, and each error
names the CLI's own remedy."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app import cli
from app.cli.common import TrimmedConsole
from app.settings import get_settings
from tests.conftest import MODELS_DIR, REPO
from tests.factories import pdf_bytes

pytestmark = pytest.mark.integration
WIDTH = 80


def readme_commands() -> list[str]:
    """The `evidence …` lines of the README's first bash block under "Using it"."""
    text = (REPO / "README.md").read_text()
    block = text.split("## Using it", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines()
            if line.startswith("evidence ")]


@pytest.fixture
def workspace(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    if not (MODELS_DIR / "manifest.json").exists():
        pytest.skip(f"no models installed in {MODELS_DIR}: run `evidence models install`")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli.common, "console", TrimmedConsole(width=WIDTH, highlight=False))
    monkeypatch.setattr(cli.common, "err", TrimmedConsole(width=WIDTH, stderr=True,
                                                          highlight=False))
    monkeypatch.setenv("EVIDENCE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EVIDENCE_MODELS__DIR", str(MODELS_DIR))
    monkeypatch.setenv("EVIDENCE_INGEST__CHILD_PROCESS", "false")
    monkeypatch.delenv("EVIDENCE_API_KEY", raising=False)
    folder = tmp_path / "some-folder"
    folder.mkdir()
    (folder / "handbook.md").write_text(
        "# Handbook\n\n## Leave\n\nEvery employee gets 25 days of paid vacation a year.\n")
    (folder / "travel-policy.pdf").write_bytes(pdf_bytes(
        ["Travel policy.", "Reimbursement of travel expenses within 30 days of the trip."]))
    (folder / "po-2231.txt").write_text("Invoice PO-2231: budget line 2024, paid in full to "
                                        "DE89 3704 0044 0532 0130 00.\n")
    scifact = tmp_path / "shared" / "data" / "scifact"  # a BEIR dataset as small as can be
    (scifact / "qrels").mkdir(parents=True)
    (scifact / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in [
        {"_id": "d1", "title": "Vacation", "text": "Employees get 25 days of paid leave."},
        {"_id": "d2", "title": "Travel", "text": "Trips are reimbursed within 30 days."},
        {"_id": "d3", "title": "Invoices", "text": "Invoices are paid by bank transfer."}]))
    (scifact / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "how much paid leave"}\n'
        '{"_id": "q2", "text": "when are trips reimbursed"}\n')
    (scifact / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n"
                                                "q2\td2\t1\n")
    get_settings.cache_clear()
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)  # so ../shared/data/scifact is the dataset above
    (work / "some-folder").symlink_to(folder)
    (work / "names.txt").write_text("paid vacation\nPO-2231\nDE89 3704 0044 0532 0130 00\n")
    yield work
    get_settings.cache_clear()


def _job_id() -> str:
    from app.registry.database import make_engine, make_sessionmaker, transaction
    from app.registry.tables import IngestionJob

    engine = make_engine(get_settings().database.url)
    try:
        with transaction(make_sessionmaker(engine)) as s:
            return s.query(IngestionJob.id).first()[0]
    finally:
        engine.dispose()


def test_every_readme_command_reads_at_80_columns(workspace: Path) -> None:
    commands = readme_commands()
    assert len(commands) >= 19 and commands[0].startswith("evidence ingest")
    runner = CliRunner()
    acme_key = None
    for command in commands:
        args = shlex.split(command.replace("<job_id>", _job_id() if "<job_id>" in command
                                           else ""))[1:]
        result = runner.invoke(cli.app, args)
        out = result.output
        too_wide = [line for line in out.splitlines() if len(line.rstrip()) > WIDTH
                    and "--json" not in args  # JSON is for programs: the API's own lines
                    and not line.startswith("error: ")]  # one line: the terminal wraps it
        assert not too_wide, (command, too_wide)
        padded = [line for line in out.splitlines() if line != line.rstrip()]
        assert not padded, (command, padded)  # never padded with spaces to the width
        assert "Traceback" not in out and result.exception is None or isinstance(
            result.exception, SystemExit), (command, out, result.exception)
        if "--scope both" in command:  # the default client has not enabled discovery
            assert result.exit_code == 1 and "evidence clients discovery" in out, out
            assert "POST /clients" not in out
        else:
            assert result.exit_code == 0, (command, out)
        assert not re.search(r"\b1 chunks\b", out), (command, out)
        if command.startswith("evidence clients create acme"):
            acme_key = re.search(r"evs_\S+", out).group(0)  # type: ignore[union-attr]
    hits = (workspace / "hits.csv").read_text().splitlines()  # the batch's export
    assert hits[0].startswith("query_index,name,query,rank,document_id") and len(hits) >= 4
    assert any(",PO-2231,1,po-2231.txt," in line for line in hits), hits
    # acme's authority was suspended above: the refusal says how to restore it, in CLI words
    result = runner.invoke(cli.app, ["search", "vacation", "--api-key", acme_key])
    assert result.exit_code == 1
    assert "PUBLICATION_AUTHORITY_INACTIVE" in result.output
    assert "evidence clients authority NAME active" in " ".join(result.output.split())
