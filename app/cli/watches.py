"""`evidence watch add|list|matches|rm`: standing queries. Watches live where the server
evaluates them, so these commands always talk to a running server (--server, else
EVIDENCE_SERVER_URL) with the client's key."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from app.cli.common import ApiKeyOption, JsonOption, ServerOption, _show, get_settings, watch_app
from app.cli.server_api import server_url

NameOption = Annotated[str | None, typer.Option(help="a label of your own")]


def _call(api_key: str | None, server: str | None, method: str, path: str,
          **kwargs: Any) -> Any:
    from app.cli.server_api import server_call

    settings = get_settings()
    return server_call(settings, api_key, server or server_url(settings), method, path,
                       timeout=30, **kwargs)


@watch_app.command("add")
def watch_add(
    query: Annotated[str, typer.Argument(help="free text, as POST /search takes it")],
    scope: Annotated[str, typer.Option(help="content | metadata | both")] = "content",
    filters: Annotated[list[str] | None, typer.Option(
        "--filter", "-f", metavar="KEY=VALUE",
        help="an exact filter, repeatable, as `evidence search` takes it")] = None,
    alpha: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, help="dense weight (default HYBRID_ALPHA, 0.5)")] = None,
    webhook: Annotated[str | None, typer.Option(
        metavar="URL", help="POST each match here, signed (only hosts the operator allows: "
                            "EVIDENCE_WATCH__WEBHOOK_HOSTS)")] = None,
    name: NameOption = None,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Watch for new versions this search would return, like POST /watches; prints the
    webhook secret once."""
    from app.cli.search_answers import parse_filter_options

    body = {"query": query, "scope": scope, "filters": parse_filter_options(filters or []),
            **{k: v for k, v in (("alpha", alpha), ("webhook_url", webhook), ("name", name))
               if v is not None}}
    _show(lambda: _call(api_key, server, "POST", "/watches", json=body, ok=(201,)),
          print_created, as_json)


@watch_app.command("list")
def watch_list(
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """The client's watches, like GET /watches."""
    _show(lambda: _call(api_key, server, "GET", "/watches"), print_watches, as_json)


@watch_app.command("matches")
def watch_matches(
    watch_id: Annotated[str, typer.Argument(help="wat_… as `watch add` printed it")],
    cursor: Annotated[str | None, typer.Option(
        help="the next_cursor a previous call printed: only what matched since")] = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help="matches per page")] = 50,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """The versions a watch matched, oldest first, like GET /watches/{id}/matches."""
    from urllib.parse import quote

    params: dict[str, Any] = {"limit": limit, **({"cursor": cursor} if cursor else {})}
    _show(lambda: _call(api_key, server, "GET", f"/watches/{quote(watch_id, safe='')}/matches",
                        params=params), print_matches, as_json)


@watch_app.command("rm")
def watch_rm(
    watch_id: Annotated[str, typer.Argument(help="wat_…")],
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Delete a watch and its matches, like DELETE /watches/{id}."""
    from urllib.parse import quote

    _show(lambda: _call(api_key, server, "DELETE", f"/watches/{quote(watch_id, safe='')}",
                        ok=(204,)) or {"deleted": watch_id},
          lambda out, answer: out.print(f"deleted {answer['deleted']}"), False)


# -- printing, at 80 columns -------------------------------------------------------------------

def _line(watch: dict[str, Any]) -> Text:
    head = Text(watch["watch_id"], style="cyan")
    if watch.get("name"):
        head.append(f"  {watch['name']}")
    head.append(f"  {watch['matches']} match{'es' if watch['matches'] != 1 else ''}",
                style="dim")
    return head


def _terms(watch: dict[str, Any]) -> Text:
    terms = Text(f"    “{watch['query']}” · {watch['scope']}")
    if watch.get("alpha") is not None:
        terms.append(f" · alpha {watch['alpha']:g}")
    for key, value in (watch.get("filters") or {}).items():
        terms.append(f" · {key}={value}")
    if watch.get("webhook_url"):
        terms.append(f"\n    → {watch['webhook_url']}", style="dim")
    return terms


def print_created(console: Console, watch: dict[str, Any]) -> None:
    console.print(_line(watch))
    console.print(_terms(watch))
    console.print(Text("    webhook secret, shown once (verify deliveries with it):"))
    console.print(Text(f"    {watch['secret']}", style="bold"), soft_wrap=True)


def print_watches(console: Console, listing: dict[str, Any]) -> None:
    items = listing["items"]
    console.print(Text(f"{len(items)} watch{'es' if len(items) != 1 else ''}", style="bold"))
    for watch in items:
        console.print(_line(watch))
        console.print(_terms(watch))


def print_matches(console: Console, page: dict[str, Any]) -> None:
    from app.cli.document_views import indented

    items = page["items"]
    console.print(Text(f"{len(items)} match{'es' if len(items) != 1 else ''}"
                       + (" (more: pass --cursor)" if page["has_more"] else ""), style="bold"))
    for match in items:
        head = Text(f"{match['document_id']} {match['version_id']}", style="cyan")
        head.append(f"  {match['matched_at'][:16].replace('T', ' ')}", style="dim")
        delivery = match.get("delivery")
        if delivery:
            head.append(f"  webhook {delivery['state']}", style="dim")
        console.print(head)
        for item in match["evidence"][:3]:
            snippet = (item.get("snippet") or {}).get("text") or item["text"]
            console.print(indented(Text(" ".join(snippet.split())[:300]), 4))
    console.print(Text(f"next cursor: {page['next_cursor']}", style="dim"))
