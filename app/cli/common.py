"""What every command shares: the Typer apps, the consoles, one-line failures with the
CLI's own remedies, the common options."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment

from app.domain.errors import ServiceError

if TYPE_CHECKING:
    from app.settings import Settings

# help as click writes it: wrapped at the terminal's width, nothing cut — Typer's rich panels
# cut a long default or example ("./data/eval/<datas…") to fit their columns at 80 (issue 53)
PLAIN_HELP = {"rich_markup_mode": None}
app = typer.Typer(help="Evidence Search: document-version search on Qdrant.",
                  no_args_is_help=True, pretty_exceptions_enable=False, **PLAIN_HELP)
models_app = typer.Typer(help="Install and inspect the models under ./models.", **PLAIN_HELP)
clients_app = typer.Typer(help="Clients, API keys and publication authority.", **PLAIN_HELP)
documents_app = typer.Typer(help="The documents a client holds (GET /documents).", **PLAIN_HELP)
jobs_app = typer.Typer(help="Ingestion jobs (GET /jobs/{id}).", **PLAIN_HELP)
threads_app = typer.Typer(help="E-mail threads (GET /threads/{id}).", **PLAIN_HELP)
app.add_typer(models_app, name="models")
app.add_typer(clients_app, name="clients")
app.add_typer(documents_app, name="documents")
app.add_typer(jobs_app, name="jobs")
app.add_typer(threads_app, name="threads")
watch_app = typer.Typer(help="Standing queries: matches of each new version (POST /watches).",
                        **PLAIN_HELP)
app.add_typer(watch_app, name="watch")
sync_app = typer.Typer(help="Folders kept in sync with their documents (POST /sources).",
                       **PLAIN_HELP)
app.add_typer(sync_app, name="sync")
store_app = typer.Typer(help="Move the vector index between engines; back it up.", **PLAIN_HELP)
registry_app = typer.Typer(help="The registry database (documents, versions, jobs, clients).",
                           **PLAIN_HELP)
app.add_typer(store_app, name="store")
app.add_typer(registry_app, name="registry")
# The consoles every command prints to; commands reach them as ``common.console`` /
# ``common.err`` so a test (or a caller) can swap them here for every command at once.
class TrimmedConsole(Console):
    """A console whose lines end at their last character: rich leaves the space it wrapped
    at, and pads a table's or a panel's lines out to the width — runs of spaces to column 80
    in a pipe, a copied answer or a diff (issue 53 item 6)."""

    _TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$", re.M)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return self._TRAILING.sub(r"\1", super()._render_buffer(buffer))


console = TrimmedConsole()
err = TrimmedConsole(stderr=True)


def get_settings() -> Settings:
    """The settings, imported when a command first needs them: pydantic-settings and the
    settings' models are 0.25 s that `evidence --help` has no use for."""
    from app.settings import get_settings as settings

    return settings()


def _logging() -> None:
    from app.ops.logs import configure

    settings = get_settings()
    configure(settings.log_level, settings.log.format)


def _fail(message: str, code: int = 1) -> None:
    """An error as one line, never hard-wrapped (the terminal wraps it; a pipe or a log keeps
    it whole for grep)."""
    err.print(f"[red]error:[/red] {message}", soft_wrap=True)
    raise typer.Exit(code)


# What a CLI user does about an error, where the API's message names an HTTP call instead
CLI_REMEDIES = {
    "METADATA_DISCOVERY_NOT_READY": "with the CLI: evidence clients discovery NAME --enable "
                                    "(evidence clients list names the clients)",
    "PUBLICATION_AUTHORITY_INACTIVE": "restore it: evidence clients authority NAME active "
                                      "(evidence clients list names the clients)",
    "STORE_LOCKED": "stop `evidence serve` first: the embedded engine admits one process",
}


def cli_error(exc: ServiceError) -> str:
    """An error as one CLI line: its code, its message without the API's HTTP remedy, and the
    CLI's own."""
    message = exc.message.replace(", or enable discovery (POST /clients/me/metadata/discovery)",
                                  "")
    message = message.replace("; the CLI sends work to the server instead", "")
    remedy = CLI_REMEDIES.get(exc.code)
    if remedy and remedy.split(":", 1)[0] in message:
        remedy = None  # the message already says it (a remedy said twice reads as a stutter)
    return f"{exc.code}: {message}" + (f"; {remedy}" if remedy else "")


def _fail_with(exc: ServiceError) -> None:
    _fail(escape(cli_error(exc)))


def refuse_while_served(settings: Settings, then: str) -> None:
    """A command that needs the embedded engine for itself (reindex, store export and
    import, migrate, worker) is refused at once while a live `evidence serve` holds this
    data folder: before models, the registry or the engine load (reindex took 2.2 s to say
    the engine was locked; issue 46). A Qdrant server admits both: nothing is refused."""
    if settings.qdrant.url is not None:
        return
    from app.cli.server_api import running_server

    url = running_server(settings)
    if url is not None:
        _fail(f"STORE_LOCKED: `evidence serve` ({url}) holds the embedded engine in "
              f"{settings.qdrant.path}; stop it first, then {then}")



ApiKeyOption = Annotated[str | None, typer.Option(
    envvar="EVIDENCE_API_KEY", show_envvar=True,
    help="the client's API key (default: the first client's, from the data folder)")]
ServerOption = Annotated[str | None, typer.Option(
    help="a running server's URL, e.g. http://127.0.0.1:8000 (default: work here)")]
JsonOption = Annotated[bool, typer.Option("--json", help="print the API's answer as JSON")]


def _show(fetch: Callable[[], dict], render: Callable[[Console, dict], None],
          as_json: bool) -> None:
    """Fetch an answer (in-process or from a server), then print it as JSON or for people;
    a failure is one line."""
    try:
        answer = fetch()
    except ServiceError as exc:
        _fail_with(exc)
    if as_json:
        console.print_json(json.dumps(answer))
    else:
        render(console, answer)


