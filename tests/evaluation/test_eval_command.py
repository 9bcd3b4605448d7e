"""`evidence eval` end to end on a small BEIR-layout fixture the test writes (real models)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.integration

CORPUS = [
    {"_id": "d1", "title": "Paid vacation", "text": "Employees receive 25 days of paid "
     "vacation every year."},
    {"_id": "d2", "title": "Invoices", "text": "Invoice PO-2231 was paid by bank transfer."},
    {"_id": "d3", "title": "Security", "text": "Rotate passwords every ninety days."},
    {"_id": "d4", "title": "Travel", "text": "Travel expenses are reimbursed within 30 days."},
    {"_id": "d5", "title": "Sick leave", "text": "Sick leave needs a doctor's note."},
]
QUERIES = [{"_id": "q1", "text": "how many holidays do I get"},
           {"_id": "q2", "text": "PO-2231"},
           {"_id": "q3", "text": "password rotation"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n"


def _fixture(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in CORPUS) + "\n")
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in QUERIES) + "\n")
    (root / "qrels" / "test.tsv").write_text(QRELS)
    return root


def test_eval_prints_every_mode_and_calibration(tmp_path: Path, real_models,  # type: ignore[no-untyped-def]
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from app.cli import app
    from app.settings import get_settings
    from tests.conftest import MODELS_DIR

    monkeypatch.setenv("EVIDENCE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("EVIDENCE_MODELS__DIR", str(MODELS_DIR))
    get_settings.cache_clear()
    dataset = _fixture(tmp_path / "tiny")
    out = tmp_path / "report.json"
    try:
        result = CliRunner().invoke(app, ["eval", str(dataset), "--calibrate", "--alphas", "0.5",
                                          "--fusion", "rank,relative_score",
                                          "--json-out", str(out)])
        assert result.exit_code == 0, result.output
        report = json.loads(out.read_text())
        modes = {m["mode"]: m for m in report["modes"]}
        assert set(modes) == {"keyword", "dense", "hybrid a=0.5",
                              "hybrid a=0.5 relative_score"}
        assert modes["hybrid a=0.5"]["ndcg10"] == pytest.approx(1.0)
        assert modes["hybrid a=0.5 relative_score"]["ndcg10"] == pytest.approx(1.0)
        assert modes["dense"]["recall100"] == pytest.approx(1.0)
        assert set(report["calibration"]) == {"dense", "sparse"}
        # a second run reuses the index: nothing to ingest
        again = CliRunner().invoke(app, ["eval", str(dataset), "--alphas", "0.5"])
        assert again.exit_code == 0 and "(0 ingested now" in again.output.replace("\n", " ")
        unknown = CliRunner().invoke(app, ["eval", str(dataset), "--fusion", "borda"])
        assert unknown.exit_code == 2 and "unknown fusion ['borda']" in unknown.output

        compared = CliRunner().invoke(app, [
            "eval", str(dataset), "--compare", "fusion=rank,alpha=0.5", "fusion=dbsf,alpha=0.5",
            "--json-out", str(out)])
        assert compared.exit_code == 0, compared.output
        text = " ".join(compared.output.split())
        assert "B − A = +0.0000, paired bootstrap 95 % interval [+0.0000, +0.0000]" in text
        assert "tied on 3" in text
        report = json.loads(out.read_text())["compare"]
        assert report["per_query"]["fusion=dbsf,alpha=0.5,floors=on"] == {
            "q1": 1.0, "q2": 1.0, "q3": 1.0}

        swept = CliRunner().invoke(app, [
            "eval", str(dataset), "--sweep", "alpha=0|1", "--base", "fusion=dbsf",
            "--folds", "3", "--json-out", str(out)])
        assert swept.exit_code == 0, swept.output
        sweep = json.loads(out.read_text())["sweep"]
        assert set(sweep["per_query"]) == {"fusion=dbsf,alpha=0.5,floors=on",
                                           "fusion=dbsf,alpha=0,floors=on",
                                           "fusion=dbsf,alpha=1,floors=on"}
        assert len(sweep["chosen"]) == 3 and 0.0 <= sweep["cv_estimate"] <= 1.0
        assert "3-fold cross-validated nDCG@10" in " ".join(swept.output.split())
        bad = CliRunner().invoke(app, ["eval", str(dataset), "--compare", "fusion=x", "a=1"])
        assert bad.exit_code == 2 and "fusion=x: use rank | dbsf | relative_score" in \
            " ".join(bad.output.split())
    finally:
        get_settings.cache_clear()


def test_the_eval_index_keeps_the_engine_settings_it_is_given(tmp_path: Path) -> None:
    """The evaluation's own embedded index, wherever the base points, with or without
    sentence vectors as the base says (an ingestion benchmark compares the two)."""
    from app.settings import QdrantSettings, Settings
    from evaluation.runner import eval_settings

    for keep in (True, False):
        base = Settings(qdrant=QdrantSettings(url="http://elsewhere:6333", sentence_vectors=keep))
        qdrant = eval_settings(base, tmp_path).qdrant
        assert (qdrant.url, qdrant.path, qdrant.sentence_vectors) == (
            None, tmp_path / "qdrant", keep)
