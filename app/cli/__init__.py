"""The `evidence` command: a package of small command modules (common: the shared Typer
apps, consoles and options; service, ingest, search, agents, evaluate, store, models,
clients), each registering its commands on import."""

from __future__ import annotations

from rich.markup import escape

from app.cli import (  # noqa: F401
    agents,
    audit,
    calibrate,
    clients,
    common,
    evaluate,
    ingest,
    models,
    originals,
    search,
    service,
    sources,
    store,
    watches,
)
from app.cli.common import (
    app,
    cli_error,
    clients_app,
    documents_app,
    jobs_app,
    models_app,
    registry_app,
    store_app,
    sync_app,
    threads_app,
    watch_app,
)
from app.cli.ingest import pick_files
from app.cli.service import spec_text

__all__ = ["app", "cli_error", "main", "pick_files", "spec_text"]

# The command list in the order a newcomer meets them (modules register in import order)
ORDER = ("migrate", "serve", "worker", "ingest", "openapi", "reindex", "search", "changes",
         "open", "download", "entities", "mcp", "eval", "calibrate")
app.registered_commands.sort(key=lambda c: ORDER.index(
    c.name or (c.callback.__name__ if c.callback else "")) if (
    c.name or (c.callback.__name__ if c.callback else "")) in ORDER else len(ORDER))


def _one_line_summaries() -> None:
    """Each command's line in a command list is its docstring's first paragraph as one
    sentence: Typer keeps the docstring's own line breaks there, which broke the summaries
    mid-sentence at 80 columns."""
    import inspect

    for typer_app in (app, models_app, clients_app, documents_app, jobs_app, store_app,
                      registry_app, threads_app, watch_app, sync_app):
        for command in typer_app.registered_commands:
            doc = inspect.cleandoc(command.help or (command.callback.__doc__ or "")
                                   if command.callback else command.help or "")
            if doc and command.short_help is None:
                command.short_help = " ".join(doc.split("\n\n")[0].split())


_one_line_summaries()


def main() -> None:
    """The console script: whatever goes wrong ends as one line on stderr, never a traceback
    (EVIDENCE_DEBUG=1 shows it)."""
    import os

    try:
        app()
    except Exception as exc:  # noqa: BLE001 - the last word on anything unforeseen
        if os.environ.get("EVIDENCE_DEBUG"):
            raise
        from app.settings import setting_errors

        said = setting_errors(exc)
        if said is not None:  # a bad setting: one line naming it and its value
            common.err.print(f"[red]error:[/red] {escape(said)}", soft_wrap=True)
            raise SystemExit(1) from None
        common.err.print(f"[red]error:[/red] {type(exc).__name__}: {escape(str(exc))[:500]} "
                         "(EVIDENCE_DEBUG=1 shows where)", soft_wrap=True)
        raise SystemExit(1) from None

