"""The CLI end to end in-process: ingest a folder, search it (real models, temp data dir)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import app
from app.cli.common import TrimmedConsole
from app.settings import get_settings

pytestmark = pytest.mark.integration


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_models):  # type: ignore[no-untyped-def]
    from tests.conftest import MODELS_DIR

    monkeypatch.setenv("EVIDENCE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EVIDENCE_DATABASE__URL", f"sqlite:///{tmp_path}/data/registry.db")
    monkeypatch.setenv("EVIDENCE_QDRANT__PATH", str(tmp_path / "data" / "qdrant"))
    monkeypatch.setenv("EVIDENCE_MODELS__DIR", str(MODELS_DIR))
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_ingest_a_folder_then_search_it(env: Path) -> None:
    folder = env / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "handbook.md").write_text("# Handbook\n\nYou get 25 days of paid vacation.\n")
    (folder / "sub" / "invoice.txt").write_text("Invoice PO-2231 is paid.")
    (folder / "sub" / "note.txt").write_text("Printer toner is low.")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 broken")
    (folder / "ignored.exe").write_bytes(b"MZ")
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(folder)])
    assert result.exit_code == 2, result.output  # one file failed, and it says which
    assert "published 3, failed 1" in result.output
    assert "broken.pdf" in result.output and "not a readable PDF" in result.output
    assert (env / "data" / "initial-api-key.txt").exists()

    again = runner.invoke(app, ["ingest", str(folder)])  # ids come from paths: same versions
    assert "published 0, failed 1, unchanged 3" in again.output

    found = runner.invoke(app, ["search", "how many holidays do I get", "--json"])
    assert found.exit_code == 0, found.output
    answer = json.loads(found.output)
    assert answer["results"][0]["document_version"]["document_id"] == "handbook.md"
    assert answer["results"][0]["content_evidence"]["items"][0]["scores"] is None  # as the API
    table = runner.invoke(app, ["search", "PO-2231", "--alpha", "0"])
    assert table.exit_code == 0 and "'PO-2231': 1 document version" in table.output

    bad = runner.invoke(app, ["search", "   "])
    assert bad.exit_code == 1 and "INVALID_QUERY" in bad.output

    # a phrase, an exclusion and autocut reach the search and are said back; the snippet is
    # shown with the matched words
    phrased = runner.invoke(app, ["search", '"paid vacation" -toner', "--autocut", "1"])
    assert phrased.exit_code == 0, phrased.output
    assert 'phrase "paid vacation"' in phrased.output and "without toner" in phrased.output
    assert "autocut kept 1 of 1" in phrased.output and "handbook.md" in phrased.output
    assert "invoice.txt" not in phrased.output
    # "why not?" for a query naming an amount (the entity lane) was a 500
    why = runner.invoke(app, ["search", "5000 euros", "--why", "handbook.md"])
    assert why.exit_code == 0 and "handbook.md" in why.output, why.output
    plain = runner.invoke(app, ["search", "--plain", "--json", "--alpha", "0", "--", "-toner"])
    assert json.loads(plain.output)["results"][0]["document_version"]["document_id"] == (
        "sub-note.txt")  # --plain: "-toner" is the word toner


def test_reindex_rebuilds_a_collection_scored_the_old_way(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A collection from before per-client BM25 and before sentence vectors is refused, then
    rebuilt by `evidence reindex` with both."""
    folder = env / "docs"
    folder.mkdir()
    (folder / "handbook.md").write_text("# Handbook\n\nYou get 25 days of paid vacation.\n")
    (folder / "invoice.txt").write_text("Invoice PO-2231 is paid.")
    runner = CliRunner()
    monkeypatch.setenv("EVIDENCE_QDRANT__SENTENCE_VECTORS", "false")  # as collections were
    get_settings.cache_clear()
    assert runner.invoke(app, ["ingest", str(folder)]).exit_code == 0
    monkeypatch.setenv("EVIDENCE_QDRANT__SENTENCE_VECTORS", "true")  # an operator's choice
    get_settings.cache_clear()
    qdrant = env / "data" / "qdrant"
    assert json.loads((qdrant / "collection.json").read_text())["sentence_vectors"] is False
    # a collection from before per-client BM25 records no "sparse_idf"
    (qdrant / "collection.json").write_text(json.dumps({
        k: v for k, v in json.loads((qdrant / "collection.json").read_text()).items()
        if k != "sparse_idf"}))
    refused = runner.invoke(app, ["search", "PO-2231", "--alpha", "0"])
    assert refused.exit_code == 1 and "evidence reindex" in refused.output
    not_served = runner.invoke(app, ["serve"])  # says so before the server would start
    assert not_served.exit_code == 1 and "evidence reindex" in not_served.output

    rebuilt = runner.invoke(app, ["reindex"])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert "re-indexing 2 current versions" in rebuilt.output
    assert [p.name.startswith("qdrant.before-reindex-") for p in (env / "data").iterdir()
            if p.name.startswith("qdrant.")] == [True]
    found = runner.invoke(app, ["search", "PO-2231", "--alpha", "0", "--json"])
    assert found.exit_code == 0, found.output
    assert [r["document_version"]["document_id"] for r in json.loads(found.output)["results"]
            ] == ["invoice.txt"]
    assert json.loads((qdrant / "collection.json").read_text())["sentence_vectors"] is True


def test_store_export_import_and_registry_copy_move_an_index(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = env / "docs"
    folder.mkdir()
    (folder / "handbook.md").write_text("# Handbook\n\nYou get 25 days of paid vacation.\n")
    (folder / "invoice.txt").write_text("Invoice PO-2231 is paid.")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(folder)]).exit_code == 0
    before = json.loads(runner.invoke(app, ["search", "PO-2231", "--alpha", "0", "--json"])
                        .output)["results"]
    dump = env / "dump"
    exported = runner.invoke(app, ["store", "export", str(dump), "--batch", "1"])
    assert exported.exit_code == 0 and "exported 2 points in 2 batches" in exported.output

    copied = runner.invoke(app, ["registry", "copy", "--to", f"sqlite:///{env}/copy.db"])
    assert copied.exit_code == 0, copied.output
    refused = runner.invoke(app, ["registry", "copy", "--to", f"sqlite:///{env}/copy.db"])
    assert refused.exit_code == 1 and "REGISTRY_NOT_EMPTY" in refused.output

    monkeypatch.setenv("EVIDENCE_QDRANT__URL", f"path:{env / 'server'}")
    monkeypatch.setenv("EVIDENCE_DATABASE__URL", f"sqlite:///{env}/copy.db")
    get_settings.cache_clear()
    imported = runner.invoke(app, ["store", "import", str(dump)])
    assert imported.exit_code == 0, imported.output
    assert "imported 2 points in 2 batches; every one is in the target" in imported.output
    after = json.loads(runner.invoke(app, ["search", "PO-2231", "--alpha", "0", "--json"])
                       .output)["results"]
    assert [r["document_version"] for r in after] == [r["document_version"] for r in before]
    missing = runner.invoke(app, ["store", "import", str(env / "nothing")])
    assert missing.exit_code == 2  # typer: the folder does not exist


def test_ingest_with_access_groups_and_a_key_with_groups_sees_only_them(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 48 from the CLI, in-process: `ingest --access`, `clients key --groups`; the
    in-process search filters by the key's groups, and the in-process document views, which
    do not, refuse a key with groups rather than show everything; the groups survive
    `store export` / `registry copy` / `store import`."""
    import re

    folder = env / "docs"
    folder.mkdir()
    (folder / "merger.md").write_text("# Merger\n\nThe merger closes in March.\n")
    runner = CliRunner()
    done = runner.invoke(app, ["ingest", str(folder), "--access", "Legal"])
    assert done.exit_code == 0 and "published 1" in done.output, done.output
    bad = runner.invoke(app, ["ingest", str(folder), "--access", "legal team"])
    assert bad.exit_code == 1 and "ACCESS_GROUP_INVALID" in bad.output, bad.output

    def key(groups: str) -> str:
        made = runner.invoke(app, ["clients", "key", "default", "--groups", groups])
        assert made.exit_code == 0, made.output
        return re.search(r"evs_[A-Za-z0-9_-]+", made.output).group(0)  # type: ignore[union-attr]

    def found(api_key: str) -> list[str]:
        out = runner.invoke(app, ["search", "when does the merger close", "--json",
                                  "--api-key", api_key])
        assert out.exit_code == 0, out.output
        return [r["document_version"]["document_id"] for r in json.loads(out.output)["results"]]
    assert found(key("legal")) == ["merger.md"]
    made = runner.invoke(app, ["clients", "key", "default", "--groups", "hr,legal",
                               "--delegate"])
    assert "groups: hr, legal; may delegate: yes" in made.output, made.output
    listed_keys = runner.invoke(app, ["clients", "keys", "default"]).output.splitlines()
    assert [line.split()[1:3] for line in listed_keys] == [
        ["admin", "-"], ["legal", "-"], ["hr,legal", "delegates"]]
    finance = key("finance")
    assert found(finance) == []
    listed = runner.invoke(app, ["documents", "list", "--api-key", finance])
    assert listed.exit_code == 1 and "ACCESS_GROUPS_NOT_SUPPORTED" in listed.output
    legal = key("legal")
    assert runner.invoke(app, ["store", "export", str(env / "dump")]).exit_code == 0
    assert runner.invoke(app, ["registry", "copy", "--to",
                               f"sqlite:///{env}/copy.db"]).exit_code == 0
    monkeypatch.setenv("EVIDENCE_QDRANT__URL", f"path:{env / 'server'}")
    monkeypatch.setenv("EVIDENCE_DATABASE__URL", f"sqlite:///{env}/copy.db")
    get_settings.cache_clear()
    assert runner.invoke(app, ["store", "import", str(env / "dump")]).exit_code == 0
    assert found(legal) == ["merger.md"] and found(finance) == []


def test_the_operators_changes_and_searches_are_in_the_clients_audit_trail(env: Path) -> None:
    """Issue 51 from the CLI: a key issued and revoked, an authority changed and an in-process
    search are recorded in the client's trail (actor cli), which `evidence audit` shows —
    another client's trail holds none of it."""
    import re

    runner = CliRunner()
    made = runner.invoke(app, ["clients", "create", "acme"])
    acme = re.search(r"evs_\S+", made.output).group(0)  # type: ignore[union-attr]
    other = re.search(r"evs_\S+", runner.invoke(app, ["clients", "create", "other"]).output
                      ).group(0)  # type: ignore[union-attr]
    issued = runner.invoke(app, ["clients", "key", "acme", "--groups", "legal"])
    prefix = re.search(r"evs_\S+", issued.output).group(0)[:10]  # type: ignore[union-attr]
    assert runner.invoke(app, ["clients", "revoke-key", prefix]).exit_code == 0
    assert runner.invoke(app, ["clients", "authority", "acme", "suspended"]).exit_code == 0
    assert runner.invoke(app, ["clients", "authority", "acme", "active"]).exit_code == 0
    searched = runner.invoke(app, ["search", "termination notice", "--api-key", acme])
    assert searched.exit_code == 0, searched.output
    out = runner.invoke(app, ["audit", "--json", "--api-key", acme])
    assert out.exit_code == 0, out.output
    events = json.loads(out.output)["events"]
    assert [(e["action"], e["actor"]) for e in events] == [
        ("key_issued", "cli"), ("key_revoked", "cli"), ("authority_change", "cli"),
        ("authority_change", "cli"), ("search", "cli")]
    assert events[0]["details"] == {"groups": ["legal"], "delegate": False}
    assert events[-1]["query"] == "termination notice"
    shown = runner.invoke(app, ["audit", "--action", "search", "--api-key", acme]).output
    assert "search" in shown and "termination notice" in shown
    assert json.loads(runner.invoke(app, ["audit", "--json", "--api-key", other]).output
                      )["events"] == []


def test_search_takes_changed_only_and_collapse(env: Path) -> None:
    """Issue 53: `evidence search` had neither --changed-only nor --collapse."""
    folder = env / "docs"
    folder.mkdir()
    (folder / "policy.md").write_text("# Policy\n\nThe notice period is thirty days.\n\n"
                                      "Travel is reimbursed monthly.\n")
    (folder / "copy-a.md").write_text("# Rota\n\nThe spring holiday rota is fixed.\n")
    (folder / "copy-b.md").write_text("# Rota\n\nThe spring holiday rota is fixed.\n")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(folder)]).exit_code == 0
    (folder / "policy.md").write_text("# Policy\n\nThe notice period is sixty days.\n\n"
                                      "Travel is reimbursed monthly.\n")
    assert runner.invoke(app, ["ingest", str(folder)]).exit_code == 0
    changed = runner.invoke(app, ["search", "notice period", "--changed-only", "--json"])
    assert changed.exit_code == 0, changed.output
    [row] = json.loads(changed.output)["results"]
    assert row["document_version"]["version_id"] == "v2"
    assert {i["change"] for i in row["content_evidence"]["items"]} == {"changed"}
    both = runner.invoke(app, ["search", "spring holiday rota", "--alpha", "0", "--json"])
    assert len(json.loads(both.output)["results"]) == 2
    one = runner.invoke(app, ["search", "spring holiday rota", "--alpha", "0",
                              "--collapse", "duplicates", "--json"])
    assert one.exit_code == 0, one.output
    assert len(json.loads(one.output)["results"]) == 1


def test_an_older_folder_ingested_again_says_it_reverts(env: Path) -> None:
    """Issue 53: an older copy of a folder republished its old bytes as a new version
    without a word."""
    folder = env / "docs"
    folder.mkdir()
    runner = CliRunner()
    old = "# Policy\n\nThe notice period is thirty days.\n"
    (folder / "policy.md").write_text(old)
    assert runner.invoke(app, ["ingest", str(folder)]).exit_code == 0
    (folder / "policy.md").write_text("# Policy\n\nThe notice period is sixty days.\n")
    first = runner.invoke(app, ["ingest", str(folder)])
    assert "reverted" not in first.output
    (folder / "policy.md").write_text(old)  # the old copy comes back
    again = runner.invoke(app, ["ingest", str(folder)])
    assert again.exit_code == 0, again.output
    said = " ".join(again.output.split())
    assert "reverted 1: an earlier version's bytes are current again" in said
    assert "policy.md:v3bringsbackv1'sbytes" in "".join(said.split())  # a long path folds


def test_documents_show_names_each_versions_job_for_jobs_show(env: Path) -> None:
    """Issue 53: `evidence jobs show <job_id>` needed curl first to find the id."""
    import re

    folder = env / "docs"
    folder.mkdir()
    (folder / "memo.md").write_text("# Memo\n\nA memo.\n")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(folder)]).exit_code == 0
    shown = runner.invoke(app, ["documents", "show", "memo.md"])
    assert shown.exit_code == 0, shown.output
    job_id = re.search(r"job ([0-9a-f-]{36})", shown.output).group(1)  # type: ignore[union-attr]
    job = runner.invoke(app, ["jobs", "show", job_id])
    assert job.exit_code == 0 and "succeeded" in job.output, job.output


def test_a_long_failure_reason_wraps_under_itself(env: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 53: failure-reason continuation lines fell back to column 0."""

    from app.cli import common

    monkeypatch.setattr(common, "console", TrimmedConsole(width=60, highlight=False))
    folder = env / "docs"
    folder.mkdir()
    (folder / "broken-with-a-rather-long-name.pdf").write_bytes(b"%PDF-1.4 broken")
    (folder / "fine.md").write_text("# Fine\n\nFine.\n")
    out = CliRunner().invoke(app, ["ingest", str(folder)]).output
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "broken-with" in line)
    reason = lines[start:]
    assert len(reason) > 1 and all(line.startswith("  ") for line in reason), lines
