"""`evidence mcp`: the MCP server for agents (evidence_client/mcp_server.py)."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from app.cli.common import (
    ApiKeyOption,
    _fail,
    app,
    get_settings,
)
from app.domain.errors import ServiceError


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
    print_config: Annotated[bool, typer.Option(
        "--print-config", help="print an MCP host's configuration for this server (the "
                               "command's absolute path, the key) and exit")] = False,
) -> None:
    """An MCP server for agents: search, get_document, list_documents, why_not, over stdio."""
    from app.cli.server_api import resolve_key

    settings = get_settings()
    try:
        key = resolve_key(settings, api_key)
    except ServiceError as exc:
        _fail(exc.message)
    from app.cli.server_api import server_url

    url = server or server_url(settings)
    if print_config:
        import json

        print(json.dumps(host_config(url, key), indent=2))
        return
    from evidence_client.mcp_server import run  # the MCP SDK: only to serve (1–3 s to load)

    # stdio is the protocol's channel: the log says only what is wrong (no line per request)
    logging.basicConfig(level=logging.WARNING)
    for noisy in ("httpx", "mcp", "mcp.server.lowlevel.server"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    run(url, key, http=http, host=host, port=port)


def host_config(url: str, key: str) -> dict:
    """What an MCP host (Claude Desktop and others) needs to start this server, working as
    pasted: the absolute path of this very `evidence` (a host does not inherit the venv's
    PATH)."""
    import shutil
    import sys
    from pathlib import Path

    beside = Path(sys.executable).with_name("evidence")
    command = str(beside) if beside.exists() else (shutil.which("evidence") or "evidence")
    return {"mcpServers": {"evidence": {"command": command,
                                        "args": ["mcp", "--server", url],
                                        "env": {"EVIDENCE_API_KEY": key}}}}


