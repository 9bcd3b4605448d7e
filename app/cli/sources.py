"""`evidence sync add|run|list|rm`: folders kept in sync (issue 50). A source lives where the
server reads it, so these commands talk to a running server (the one recorded in the data
folder, --server, else EVIDENCE_SERVER_URL) with the client's key."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from app.cli.common import ApiKeyOption, JsonOption, ServerOption, _show, get_settings, sync_app

EveryOption = Annotated[str | None, typer.Option(
    help="synced by the server this often: 15m, 1h, 1d (60 s to 7 days)")]


def _call(api_key: str | None, server: str | None, method: str, path: str,
          **kwargs: Any) -> Any:
    from app.cli.server_api import server_call, server_url

    settings = get_settings()
    return server_call(settings, api_key, server or server_url(settings), method, path,
                       timeout=600, **kwargs)


def _print_source(out: Console, source: dict[str, Any]) -> None:
    out.print(f"{source['source_id']}\t{source['kind']}\t{source['path']}\t"
              f"on delete: {source['on_delete']}", highlight=False)
    report = source.get("last_report")
    if report:
        counts = ", ".join(f"{name} {len(report[name])}" for name in (
            "new", "changed", "renamed", "deleted", "kept") if name in report)
        read = (f"; read {report['read']} file(s)" if "read" in report else
                "; fetched " + ", ".join(f"{name} {f['fetched']}" for name, f in
                                         (report.get("folders") or {}).items()))
        out.print(f"  last sync {str(source['last_sync_at'])[:19]}: seen {report['seen']}, "
                  f"unchanged {report['unchanged']}, {counts}, failed "
                  f"{report.get('failed_count', 0)}{read}"
                  + (" (more than one sync reads: run it again)"
                     if report.get("truncated") else ""), highlight=False)
        for failure in report.get("failed") or []:
            out.print(f"  failed {failure['path']}: {failure['code']}: {failure['message']}",
                      highlight=False, soft_wrap=True)


@sync_app.command("add")
def sync_add(
    folder: Annotated[Path, typer.Argument(help="a folder under a root the operator allows "
                                                "(EVIDENCE_SOURCES__FOLDER_ROOTS)")],
    on_delete: Annotated[str, typer.Option(help="delete | keep: a file gone from the folder")]
    = "delete",
    every: EveryOption = None,
    as_json: JsonOption = False, api_key: ApiKeyOption = None, server: ServerOption = None,
) -> None:
    """Register a folder to keep in sync (then `evidence sync run ID`, or --every)."""
    _show(lambda: _call(api_key, server, "POST", "/sources", ok=(201,), json={
        "kind": "folder", "path": str(folder.resolve()), "on_delete": on_delete,
        **({"every": every} if every else {})}), _print_source, as_json)


@sync_app.command("add-mailbox")
def sync_add_mailbox(
    host: Annotated[str, typer.Argument(help="the IMAP server")],
    user: Annotated[str, typer.Option("--user", help="the account's user name")],
    folder: Annotated[list[str] | None, typer.Option(
        "--folder", help="a folder to read, repeatable (default INBOX)")] = None,
    port: Annotated[int | None, typer.Option(help="default 993 with TLS, 143 without")] = None,
    tls: Annotated[bool, typer.Option("--tls/--no-tls", help="IMAPS from the start")] = True,
    password_env: Annotated[str, typer.Option(
        help="the environment variable holding the password (else it is asked)")]
    = "EVIDENCE_MAILBOX_PASSWORD",
    every: EveryOption = None,
    as_json: JsonOption = False, api_key: ApiKeyOption = None, server: ServerOption = None,
) -> None:
    """Register a mailbox to keep in sync (its password kept encrypted by the server)."""
    import os

    password = os.environ.get(password_env) or typer.prompt("password", hide_input=True)
    body = {"kind": "imap", "host": host, "username": user, "password": password, "tls": tls,
            "folders": folder or ["INBOX"], **({"port": port} if port else {}),
            **({"every": every} if every else {})}
    _show(lambda: _call(api_key, server, "POST", "/sources", ok=(201,), json=body),
          _print_source, as_json)


@sync_app.command("run")
def sync_run(source_id: Annotated[str, typer.Argument(help="src_… as `sync add` said")],
             as_json: JsonOption = False, api_key: ApiKeyOption = None,
             server: ServerOption = None) -> None:
    """Sync a source now: only what changed is uploaded, renamed files moved, vanished ones
    deleted or kept; its report."""
    _show(lambda: _call(api_key, server, "POST", f"/sources/{source_id}/sync",
                        params={"wait": True}), _print_source, as_json)


@sync_app.command("watch")
def sync_watch(
    source_id: Annotated[str, typer.Argument(help="a folder source's src_…")],
    debounce: Annotated[float, typer.Option(
        min=0.1, max=600, help="seconds without a change before a sync")] = 2.0,
    max_syncs: Annotated[int, typer.Option(hidden=True, min=1)] = 0,
    api_key: ApiKeyOption = None, server: ServerOption = None,
) -> None:
    """Sync a folder source now, then each time its folder changes (file-system events,
    debounced) until Ctrl-C; run where the server's folder is."""
    import threading

    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    from app.cli import common

    source = _call(api_key, server, "GET", f"/sources/{source_id}")
    if source["kind"] != "folder":
        common.err.print(f"[red]error:[/red] {source_id} is a {source['kind']} source: "
                         "watch follows folders (give a mailbox --every)")
        raise typer.Exit(1)
    changed = threading.Event()

    class Changed(FileSystemEventHandler):
        def on_any_event(self, event: object) -> None:
            changed.set()

    observer = Observer()
    observer.schedule(Changed(), source["path"], recursive=True)
    observer.start()
    syncs = 0
    try:
        while True:
            _print_source(common.console, _call(api_key, server, "POST",
                                                f"/sources/{source_id}/sync",
                                                params={"wait": True}))
            syncs += 1
            if max_syncs and syncs >= max_syncs:
                return
            changed.wait()
            changed.clear()
            while changed.wait(debounce):  # until the folder has been quiet for `debounce`
                changed.clear()
    except KeyboardInterrupt:
        return
    finally:
        observer.stop()
        observer.join(timeout=5)


@sync_app.command("list")
def sync_list(as_json: JsonOption = False, api_key: ApiKeyOption = None,
              server: ServerOption = None) -> None:
    """The client's sources and their last syncs."""
    _show(lambda: _call(api_key, server, "GET", "/sources"),
          lambda out, body: [_print_source(out, s) for s in body["items"]], as_json)


@sync_app.command("rm")
def sync_rm(source_id: Annotated[str, typer.Argument(help="src_…")],
            api_key: ApiKeyOption = None, server: ServerOption = None) -> None:
    """Forget a source (its documents stay)."""
    _show(lambda: _call(api_key, server, "DELETE", f"/sources/{source_id}", ok=(204,)) or {},
          lambda out, _body: out.print(f"removed {source_id}"), False)
