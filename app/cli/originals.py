"""`evidence download DOC[:VERSION]` and `evidence open DOC[:VERSION] --page N` (issue 49):
the file as uploaded, and a page as PNG with a cited chunk boxed — from a running server
(the one recorded in the data folder, or --server), else from the registry here."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer

from app.cli import common
from app.cli.common import ApiKeyOption, ServerOption, _fail_with, app, get_settings
from app.domain.errors import NotFound, ServiceError

TargetArg = Annotated[str, typer.Argument(
    help="DOC or DOC:VERSION (v1, v2 …; default: the current version, else the latest)")]


def _target(target: str) -> tuple[str, str | None]:
    document_id, _, version_id = target.partition(":")
    return document_id, version_id or None


def _fetch(api_key: str | None, server: str | None, target: str, *, page: int | None = None,
           width: int | None = None, highlight: str | None = None) -> tuple[bytes, str]:
    """(the bytes, the version's file name): a page's PNG where ``page`` is given, else the
    original file."""
    from app.cli.server_api import running_server, server_call

    settings = get_settings()
    document_id, version_id = _target(target)
    server = server or running_server(settings)
    if server:
        document = server_call(settings, api_key, server, "GET",
                               f"/documents/{quote(document_id, safe='')}")
        version = _pick(document, version_id)
        base = (f"/documents/{quote(document_id, safe='')}/versions/"
                f"{quote(version['version_id'], safe='')}")
        if page is None:
            return server_call(settings, api_key, server, "GET", f"{base}/file",
                               raw=True), version["filename"]
        params = {k: v for k, v in {"width": width, "highlight": highlight}.items() if v}
        return server_call(settings, api_key, server, "GET", f"{base}/pages/{page}.png",
                           params=params, raw=True), version["filename"]
    return _here(settings, api_key, document_id, version_id, page, width, highlight)


def _pick(document: dict[str, Any], version_id: str | None) -> dict[str, Any]:
    versions = document.get("versions") or []
    wanted = version_id or document.get("current_version_id") or document.get(
        "latest_version_id")
    found = next((v for v in versions if v["version_id"] == wanted), None)
    if found is None:
        raise NotFound(f"{document['document_id']} has no version {wanted!r}",
                       code="VERSION_NOT_FOUND")
    return found


def _here(settings: Any, api_key: str | None, document_id: str, version_id: str | None,
          page: int | None, width: int | None, highlight: str | None) -> tuple[bytes, str]:
    from app.cli.document_views import _registry
    from app.documents.pages import DEFAULT_WIDTH, chunk_highlight, render_page
    from app.documents.reads import kind_of
    from app.registry import documents as docs_registry

    with _registry(settings, api_key) as (session, client_id):
        document = docs_registry.get_document(session, client_id=client_id,
                                              document_id=document_id)
        versions = docs_registry.versions_of(session, document_pk=document.id)
        wanted = version_id or document.current_version_id or (
            versions[-1].version_id if versions else None)
        version = next((v for v in versions if v.version_id == wanted), None)
        if version is None:
            raise NotFound(f"{document_id} has no version {wanted!r}", code="VERSION_NOT_FOUND")
        content = docs_registry.version_content(session, version_pk=version.id)
        if page is None:
            return content, version.filename
        boxes = (chunk_highlight(session, client_id=client_id, chunk_id=highlight)
                 if highlight else [])
        return render_page(key=(version.id, version.content_sha256), kind=kind_of(version),
                           content=content, page=page, width=width or DEFAULT_WIDTH,
                           boxes=boxes), version.filename


@app.command("download")
def download(target: TargetArg,
             out: Annotated[Path | None, typer.Option(
                 help="where to write it (default: its file name, here)")] = None,
             api_key: ApiKeyOption = None, server: ServerOption = None) -> None:
    """Write a version's file as it was uploaded, byte for byte."""
    try:
        content, filename = _fetch(api_key, server, target)
    except ServiceError as exc:
        _fail_with(exc)
    path = out or Path(Path(filename).name or "download")
    path.write_bytes(content)
    common.console.print(f"wrote {path} ({len(content):,} bytes)")


@app.command("open")
def open_page(target: TargetArg,
              page: Annotated[int, typer.Option(min=1, help="the page, 1-based")] = 1,
              width: Annotated[int, typer.Option(min=100, max=2000, help="pixels")] = 1000,
              highlight: Annotated[str | None, typer.Option(
                  help="a chunk_id of that version (an evidence item's): its words boxed")]
              = None,
              out: Annotated[Path, typer.Option(help="where to write the PNG")] = Path(
                  "page.png"),
              api_key: ApiKeyOption = None, server: ServerOption = None) -> None:
    """Write a page of a PDF, scan or photo as PNG, a cited chunk's words boxed."""
    try:
        png, _ = _fetch(api_key, server, target, page=page, width=width, highlight=highlight)
    except ServiceError as exc:
        _fail_with(exc)
    out.write_bytes(png)
    common.console.print(f"wrote {out} (page {page})")
