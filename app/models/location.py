"""Where the installed models are, from any working directory (issue 38).

``evidence models install`` writes them to ``models.dir`` (``./models`` unless
``EVIDENCE_MODELS__DIR`` says otherwise) and records that folder's absolute path in the user's
data directory (platformdirs: ``~/.local/share/evidence-search/models-dir`` on Linux,
``XDG_DATA_HOME`` honoured). Settings that name no folder look, in order, at
``EVIDENCE_MODELS_DIR``, ``./models`` where it holds a manifest (a checkout, the image), then
the recorded folder — so ``evidence models show`` or ``evidence serve`` run from ``/tmp`` find
what was installed from the checkout. Standard library and platformdirs only: settings import
this.
"""

from __future__ import annotations

import os
from pathlib import Path

MANIFEST_FILE = "manifest.json"  # app/models/manifest.MANIFEST_NAME (a test keeps them equal)
APP_NAME = "evidence-search"
RECORD_NAME = "models-dir"
FROM_RECORD = "recorded at install"  # how found() names a folder it took from the record


def record_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME, appauthor=False)) / RECORD_NAME


def record(models_dir: Path) -> Path | None:
    """Remember ``models_dir`` (made absolute) for every later working directory; the record's
    path, or None where the user's data directory cannot be written (then only
    ``EVIDENCE_MODELS__DIR`` or ``./models`` find them, and nothing else fails)."""
    path = record_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{models_dir.resolve()}\n")
    except OSError:
        return None
    return path


def recorded() -> Path | None:
    """The folder the last install recorded, where it still holds a manifest."""
    try:
        text = record_path().read_text().strip()
    except (OSError, ValueError):
        return None
    folder = Path(text) if text else None
    return folder if folder is not None and (folder / MANIFEST_FILE).is_file() else None


def found(default: Path) -> tuple[Path, str]:
    """(the models folder, how it was found) for settings that name none."""
    named = os.environ.get("EVIDENCE_MODELS_DIR")
    if named:
        return Path(named), "EVIDENCE_MODELS_DIR"
    if (default / MANIFEST_FILE).is_file():
        return default, "the working directory"
    kept = recorded()
    if kept is not None:
        return kept, f"{FROM_RECORD} ({record_path()})"
    return default, "the default (nothing installed yet)"
