"""`evidence mcp`: the MCP server for agents (evidence_client/mcp_server.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli.common import (
    ApiKeyOption,
    _fail,
    app,
)
from app.errors import ServiceError
from app.settings import get_settings


@app.command("mcp")
def mcp_command(
    server: Annotated[str | None, typer.Option(
        envvar="EVIDENCE_SERVER_URL", show_envvar=True,
        help="the running server's URL (default: EVIDENCE_SERVER_URL, else "
             "http://127.0.0.1:8000)")] = None,
    api_key: ApiKeyOption = None,
    http: Annotated[bool, typer.Option("--http", help="serve MCP over streamable HTTP at "
                                                      "http://HOST:PORT/mcp instead of stdio")]
    = False,
    host: Annotated[str, typer.Option(help="with --http: the address to listen on")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="with --http: the port")] = 8765,
) -> None:
    """An MCP server for agents: search, get_document, list_documents, why_not, over stdio."""
    from app.cli_http import resolve_key
    from evidence_client.mcp_server import run

    settings = get_settings()
    try:
        key = resolve_key(settings, api_key)
    except ServiceError as exc:
        _fail(exc.message)
    run(server or settings.server_url, key, http=http, host=host, port=port)


