"""`evidence ingest`: a folder's files, here or through a running server."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from app.cli import common
from app.cli.common import (
    ApiKeyOption,
    ServerOption,
    _fail,
    _fail_with,
    app,
    get_settings,
)
from app.cli.server_api import running_server, server_url
from app.domain.errors import ServiceError, StoreLocked
from app.domain.formats import KINDS

SKIPPED_SHOWN = 20


def pick_files(folder: Path, max_bytes: int) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The files to ingest under FOLDER (or FOLDER itself), and those left out with why."""
    from app.domain.formats import SUPPORTED

    candidates = [folder] if folder.is_file() else sorted(
        p for p in folder.rglob("*") if p.is_file())
    files, skipped = [], []
    for path in candidates:
        if path.suffix.lower() not in SUPPORTED:
            skipped.append((path, f"unsupported type {path.suffix or '(no extension)'}"))
        elif path.stat().st_size > max_bytes:
            skipped.append((path, f"over the upload limit of {max_bytes:,} bytes "
                                  "(EVIDENCE_INGEST__MAX_UPLOAD_BYTES)"))
        else:
            files.append(path)
    return files, skipped


INGEST_HELP = (
    f"Ingest files of every supported kind ({', '.join(KINDS)}); each becomes a published "
    "version.\n\n"
    "A file's document_id is its path under FOLDER, so ingesting the same folder again makes new "
    "versions of changed files (unchanged ones are left as they are). Runs in-process (the "
    "API's own code path) unless the embedded engine is held by a running `evidence serve` or "
    "--server is given, in which case files are uploaded to the server.")


@app.command(help=INGEST_HELP)  # the kinds from app/domain/formats.py, the list the API takes
def ingest(
    folder: Annotated[Path, typer.Argument(exists=True, help="a file or a folder (recursive)")],
    source: Annotated[str | None, typer.Option(help="source label for these documents")] = None,
    access: Annotated[str | None, typer.Option(
        help="access groups, comma-separated (e.g. legal,finance): only keys holding one of "
             "them, and admin keys, see these documents; \"\" makes them visible to every "
             "key; absent: new documents are, existing ones keep theirs")] = None,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    from app.cli.folder_ingest import ingest_in_process, ingest_via_server
    from app.domain.access import parse_groups
    from app.domain.formats import SUPPORTED

    settings = get_settings()
    try:
        groups = parse_groups(access, what="--access") if access is not None else None
    except ServiceError as exc:
        _fail_with(exc)
    files, skipped = pick_files(folder, settings.ingest.max_upload_bytes)
    root = folder if folder.is_dir() else folder.parent
    for path, why in skipped[:SKIPPED_SHOWN]:
        common.err.print(f"skipped {escape(path.relative_to(root).as_posix())}: {why}")
    if len(skipped) > SKIPPED_SHOWN:
        common.err.print(f"skipped {len(skipped) - SKIPPED_SHOWN} more files")
    if not files:
        _fail(f"no supported files under {folder} ({', '.join(SUPPORTED)})")
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=common.err)
    try:
        running = server or running_server(settings)
        if running:
            summary = ingest_via_server(settings, files, root, source, api_key, running,
                                        progress, groups)
        else:
            try:
                summary = ingest_in_process(settings, files, root, source, api_key, progress,
                                            groups)
            except StoreLocked:
                url = server_url(settings)
                common.err.print(f"the embedded engine is in use; sending to {url}")
                summary = ingest_via_server(settings, files, root, source, api_key, url,
                                            progress, groups)
    except ServiceError as exc:
        _fail_with(exc)
    common.console.print(f"published {summary['published']}, failed {summary['failed']}, "
                         f"unchanged {summary['unchanged']} of {len(files)} files"
                         + (f" (skipped {len(skipped)})" if skipped else ""))
    from app.cli.search_answers import indented

    reverted = summary.get("reverted") or []
    if reverted:  # an older folder ingested again: its files become new versions, reverts
        common.console.print(f"reverted {len(reverted)}: an earlier version's bytes are "
                             "current again (evidence changes DOC shows what went back)")
        for line in reverted:
            common.console.print(indented(Text(line), 2))
    for line in summary["errors"]:  # wrapped under themselves, never back at column 0
        common.console.print(indented(Text(line, style="yellow"), 2))
    if summary["failed"]:
        raise typer.Exit(2)


