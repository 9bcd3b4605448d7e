"""`evidence audit`: the client's audit trail (GET /audit, issue 51) — from the running server,
else read from the registry here — one line an event at 80 columns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from app.cli.common import ApiKeyOption, JsonOption, ServerOption, _show, app, get_settings
from app.cli.search_answers import indented


@app.command()
def audit(
    since: Annotated[str | None, typer.Option(
        help="events at or after this RFC 3339 instant, e.g. 2026-03-01T00:00:00Z")] = None,
    actor: Annotated[str | None, typer.Option(help="a key's id or prefix")] = None,
    action: Annotated[list[str] | None, typer.Option(
        help="search, batch_search, batch_export, document_read, download, page_view, "
             "export, delete, access_change, key_issued; repeatable")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="events per page")] = 100,
    after: Annotated[int, typer.Option(min=0, help="the cursor a page ended with")] = 0,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Who searched what, read, downloaded or deleted which document, issued a key or
    changed access, oldest first (an admin key's; like GET /audit)."""
    params: dict[str, Any] = {"limit": limit, "after": after, "action": action or [],
                              **({"since": since} if since else {}),
                              **({"actor": actor} if actor else {})}
    _show(lambda: read_audit(params, api_key, server), print_audit, as_json)


def read_audit(params: dict[str, Any], api_key: str | None, server: str | None
               ) -> dict[str, Any]:
    from app.cli.document_views import _registry
    from app.cli.server_api import running_server, server_call
    from app.domain.errors import BadRequest
    from app.ops.audit import ACTIONS
    from app.registry import audit as audit_registry

    settings = get_settings()
    server = server or running_server(settings)
    if server:
        return server_call(settings, api_key, server, "GET", "/audit", params=params)
    if unknown := [a for a in params["action"] if a not in ACTIONS]:
        raise BadRequest(f"unknown action(s) {', '.join(unknown)}: use {', '.join(ACTIONS)}",
                         code="INVALID_REQUEST")
    since = None
    if params.get("since"):
        try:
            since = datetime.fromisoformat(params["since"].replace("Z", "+00:00"))
        except ValueError:
            raise BadRequest("--since is an RFC 3339 instant, e.g. 2026-03-01T00:00:00Z",
                             code="INVALID_REQUEST") from None
        if since.utcoffset() is None:
            raise BadRequest("--since needs its UTC offset, e.g. 2026-03-01T00:00:00Z",
                             code="INVALID_REQUEST")
    with _registry(settings, api_key) as (session, client_id):
        rows = audit_registry.read(session, client_id=client_id, since=since,
                                   actor=params.get("actor"), actions=params["action"],
                                   after=params["after"], limit=params["limit"] + 1)
        page = rows[:params["limit"]]
        return {"events": [{"id": e.id, "at": e.at.isoformat(), "action": e.action,
                            "key_id": e.key_id, "key_prefix": prefix, "actor": e.actor,
                            "target": e.target, "query": e.query, "details": e.details}
                           for e, prefix in page],
                "next_cursor": page[-1][0].id if len(rows) > params["limit"] else None}


def print_audit(out: Console, page: dict[str, Any]) -> None:
    if not page["events"]:
        out.print("no events")
    for e in page["events"]:
        who = e.get("key_prefix") or e.get("actor") or "?"
        line = (f"{e['at'][:19].replace('T', ' ')}  {escape(who):<10}  {e['action']:<14}"
                f"  {escape(e.get('target') or '')}")
        out.print(line.rstrip(), overflow="fold")  # no target: no spaces after the action
        if e.get("query"):
            out.print(indented(Text(e["query"].replace("\n", " | ")), 4))
    if page.get("next_cursor"):
        out.print(f"more: evidence audit --after {page['next_cursor']}")
