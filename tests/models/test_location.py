"""The installed models found from any working directory (app/models/location.py): the
explicit setting, ./models, the folder recorded at install, a stale record ignored, and
`evidence models show` saying where they are and how they were found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app import cli
from app.models import location
from app.models.manifest import MANIFEST_NAME
from app.settings import ModelSettings, get_settings
from tests.conftest import MODELS_DIR


@pytest.fixture
def elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A working directory without ./models, a user data directory of the test's own."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("EVIDENCE_MODELS__DIR", raising=False)
    monkeypatch.delenv("EVIDENCE_MODELS_DIR", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    get_settings.cache_clear()
    return tmp_path


def _installed(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST_NAME).write_text("{}")
    return folder


def test_the_manifest_names_agree() -> None:
    assert location.MANIFEST_FILE == MANIFEST_NAME


def test_nothing_installed_or_recorded_is_the_default(elsewhere: Path) -> None:
    models = ModelSettings()
    assert (models.dir, models.found_by) == (Path("./models"),
                                             "the default (nothing installed yet)")


def test_the_recorded_folder_is_found_from_another_directory(elsewhere: Path) -> None:
    installed = _installed(elsewhere / "checkout" / "models")
    assert location.record(installed) == elsewhere / "xdg" / "evidence-search" / "models-dir"
    models = ModelSettings()
    assert models.dir == installed.resolve()
    assert models.found_by.startswith("recorded at install")


def test_models_in_the_working_directory_come_before_the_record(elsewhere: Path) -> None:
    location.record(_installed(elsewhere / "checkout" / "models"))
    _installed(Path("models"))
    assert ModelSettings().dir == Path("./models")


def test_a_stale_record_is_ignored(elsewhere: Path) -> None:
    gone = _installed(elsewhere / "gone")
    location.record(gone)
    (gone / MANIFEST_NAME).unlink()
    assert ModelSettings().found_by == "the default (nothing installed yet)"


def test_a_named_folder_wins_both_spellings(elsewhere: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    location.record(_installed(elsewhere / "checkout" / "models"))
    monkeypatch.setenv("EVIDENCE_MODELS_DIR", str(elsewhere / "mine"))
    assert ModelSettings().dir == elsewhere / "mine"
    assert ModelSettings(dir=elsewhere / "named").dir == elsewhere / "named"  # the setting


def test_an_unwritable_data_directory_records_nothing_and_fails_nothing(
        elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (elsewhere / "file").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(elsewhere / "file"))  # a file, not a folder
    assert location.record(_installed(elsewhere / "m")) is None
    assert location.recorded() is None


def test_models_show_from_another_folder_says_where_and_how(elsewhere: Path) -> None:
    if not (MODELS_DIR / MANIFEST_NAME).exists():
        pytest.skip(f"no models installed in {MODELS_DIR}: run `evidence models install`")
    location.record(MODELS_DIR)
    shown = CliRunner().invoke(cli.app, ["models", "show"])
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert str(MODELS_DIR.resolve()) in said and "found by recorded at install" in said
    as_json = CliRunner().invoke(cli.app, ["models", "show", "--json"])
    assert json.loads(as_json.output)["profile"]
    location.record_path().unlink()
    get_settings.cache_clear()
    missing = CliRunner().invoke(cli.app, ["models", "show"])
    assert missing.exit_code == 1
    assert "no models installed in" in missing.output and "run `evidence models install`" in \
        " ".join(missing.output.split())
