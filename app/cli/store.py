"""`evidence store export|import`, `evidence registry copy`: moving an index and a registry."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli import common
from app.cli.common import (
    _fail,
    _fail_with,
    get_settings,
    registry_app,
    store_app,
)
from app.domain.errors import ServiceError


@store_app.command("export")
def store_export(
    folder: Annotated[Path, typer.Argument(help="where the batches go (resumed if there)")],
    batch: Annotated[int, typer.Option(min=1, max=10_000, help="points per batch file")]
    = 1000,
) -> None:
    """Every point of the configured engine (vectors and payload) into FOLDER: a backup, or
    the first half of a move to a Qdrant server. Stop the server first in the embedded
    default (the engine admits one process); run again to resume."""
    common.refuse_while_served(get_settings(), "export again (it resumes)")
    from app.models.manifest import Manifest
    from app.store import open_store
    from app.store.transfer import export_points

    settings = get_settings()
    try:
        manifest = Manifest.load(settings.models.dir)
        dense = manifest.dense.model if manifest.dense else "none"
        store = open_store(settings.qdrant, dense_model=dense, dense_dim=manifest.dense_dim)
        try:
            done = export_points(store, folder, dense_model=dense,
                                 dense_dim=manifest.dense_dim, batch=batch,
                                 on_batch=lambda n: common.err.print(f"exported {n:,} points"))
        finally:
            store.close()
    except ServiceError as exc:
        _fail_with(exc)
    common.console.print(f"exported {done.points:,} points in {done.batches} batches to {folder}")


@store_app.command("import")
def store_import(
    folder: Annotated[Path, typer.Argument(exists=True, file_okay=False,
                                           help="a folder `evidence store export` wrote")],
) -> None:
    """Every exported point into the configured engine (EVIDENCE_QDRANT__URL for a server),
    then a check that it holds every one; run again to resume."""
    common.refuse_while_served(get_settings(), "import again (it resumes)")
    from app.store import open_store
    from app.store.transfer import import_points, read_manifest

    settings = get_settings()
    try:
        manifest = read_manifest(folder)
        store = open_store(settings.qdrant, dense_model=manifest.dense_model,
                           dense_dim=manifest.dense_dim)
        try:
            report = import_points(store, folder)
        finally:
            store.close()
    except ServiceError as exc:
        _fail_with(exc)
    if report.missing:
        _fail(f"imported {report.points:,} points but the target lacks {report.missing:,} of "
              "them: run the import again")
    common.console.print(f"imported {report.points:,} points in {report.batches} batches; "
                         "every one is in the target")
    if report.sentences_left_out:
        common.console.print("the export holds sentence vectors but the target collection "
                             "was made without them: they were left out (chunks are not "
                             "scored by their best sentence there); import into a new "
                             "collection to keep them")


@registry_app.command("copy")
def registry_copy(
    to: Annotated[str, typer.Option("--to", help="the target database URL, e.g. "
                                    "postgresql+psycopg://user:pw@host/db (must be empty)")],
) -> None:
    """Copy the configured registry (EVIDENCE_DATABASE__URL) into an empty database: the
    registry's half of moving from the embedded default to a cluster."""
    from app.registry.database import make_engine
    from app.registry.transfer import copy_registry

    settings = get_settings()
    source, target = make_engine(settings.database.url), make_engine(to)
    try:
        copied = copy_registry(source, target, on_table=lambda name, n: common.err.print(
            f"{name}: {n:,} rows"))
    except ServiceError as exc:
        _fail_with(exc)
    finally:
        source.dispose()
        target.dispose()
    common.console.print(f"copied {sum(copied.values()):,} rows in {len(copied)} tables")


