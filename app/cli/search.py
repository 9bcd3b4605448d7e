"""`evidence search`, `entities`, `documents list|show`, `jobs show`: the API's answers at 80
columns."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from app.cli.common import (
    ApiKeyOption,
    JsonOption,
    ServerOption,
    _show,
    app,
    documents_app,
    get_settings,
    jobs_app,
    threads_app,
)
from app.cli.server_api import running_server, server_url
from app.domain.errors import StoreLocked

if TYPE_CHECKING:
    from app.settings import Settings


@app.command()
def search(
    query: Annotated[str | None, typer.Argument(
        help='free text, as POST /search takes it; "" or "*" lists every version under the '
             "filters (newest first)")] = None,
    scope: Annotated[str, typer.Option(help="content | metadata | both")] = "content",
    filters: Annotated[list[str] | None, typer.Option(
        "--filter", "-f", metavar="KEY=VALUE",
        help="an exact filter, repeatable: kind=pdf, custom.year=2024 (JSON values: numbers, "
             "true/false, [lists]); a key given twice matches either value")] = None,
    alpha: Annotated[float | None, typer.Option(
        min=0.0, max=1.0, help="dense weight: 0 keywords only, 1 meaning only "
                               "(default HYBRID_ALPHA, 0.5)")] = None,
    rerank: Annotated[bool, typer.Option(help="rerank with the cross-encoder")] = False,
    explain: Annotated[bool, typer.Option(
        help="show each chunk's lane ranks and scores, and what each floor removed")] = False,
    limit: Annotated[int, typer.Option(min=1, max=200, help="versions per page")] = 10,
    offset: Annotated[int, typer.Option(min=0, max=199, help="versions to skip")] = 0,
    versions: Annotated[str, typer.Option(
        help="current (each document's current version) or all (superseded ones too)")]
    = "current",
    as_of: Annotated[str | None, typer.Option(
        help="search the versions current at this RFC 3339 instant, e.g. 2026-03-31T00:00:00Z")]
    = None,
    why: Annotated[list[str] | None, typer.Option(
        "--why", metavar="DOCUMENT_ID",
        help="say why this document was or was not found (repeatable, up to 10)")] = None,
    facets: Annotated[list[str] | None, typer.Option(
        "--facet", metavar="KEY",
        help="count the ranked versions' values of KEY: kind, source, custom.project, "
             "entities.organizations (repeatable, up to 10)")] = None,
    autocut: Annotated[int, typer.Option(
        "--autocut", min=0, max=10, metavar="JUMPS",
        help="stop at the JUMPS-th sharp drop of the score (1: the clear matches only)")] = 0,
    syntax: Annotated[bool, typer.Option(
        "--syntax/--plain",
        help='read "a phrase" and -word in the query (--plain: every character a word)')]
    = True,
    changed_only: Annotated[bool, typer.Option(
        "--changed-only", help="only passages added or changed since each version's "
                               "predecessor")] = False,
    collapse: Annotated[str, typer.Option(
        help="none, thread (one row per e-mail thread) or duplicates (one per exact "
             "duplicate group)")] = "none",
    sort: Annotated[str | None, typer.Option(
        help='a listing\'s order (query "" or "*"): date, updated_at or document_id')] = None,
    batch: Annotated[Path | None, typer.Option(
        "--batch", metavar="FILE", help="search every query of FILE (one a line, or a CSV with "
                                        "a query column and a name column) as one job")]
    = None,
    out: Annotated[Path | None, typer.Option(
        "--out", metavar="FILE", help="with --batch: where the hits go (.csv, or .jsonl for "
                                      "JSON lines; default hits.csv)")] = None,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Search like POST /search: one block per document version, its cited chunks beneath.
    Quote a phrase to require it ("paid holiday"); -word leaves out what holds word.
    `--batch names.txt --out hits.csv` searches a whole list (POST /searches/batch)."""
    from app.cli.search_answers import (
        parse_filter_options,
        print_answer,
        search_in_process,
        search_via_server,
    )

    settings = get_settings()
    if batch is not None:
        _search_batch(settings, batch, out or Path("hits.csv"), api_key, server, {
            "scope": scope, "filters": parse_filter_options(filters or []), "alpha": alpha,
            "limit": limit, "rerank": rerank, "versions": versions, "as_of": as_of,
            "syntax": syntax}, as_json)
        return
    if query is None:
        raise typer.BadParameter("give a query (\"\" lists what the filters select), or "
                                 "--batch FILE", param_hint="QUERY")

    def fetch() -> dict:
        body = {"query": query, "scope": scope, "filters": parse_filter_options(filters or []),
                "rerank": rerank, "explain": explain, "limit": limit, "offset": offset,
                "versions": versions, "diagnose": why or [], "syntax": syntax,
                **({"autocut": autocut} if autocut else {}),
                **({"facets": facets} if facets else {}),
                **({"alpha": alpha} if alpha is not None else {}),
                **({"as_of": as_of} if as_of else {}),
                **({"sort": sort} if sort else {}),
                **({"changed_only": True} if changed_only else {}),
                **({"collapse": collapse} if collapse != "none" else {})}
        running = server or running_server(settings)
        if running:
            return search_via_server(settings, body, api_key, running)
        try:
            return search_in_process(settings, body, api_key)
        except StoreLocked:
            return search_via_server(settings, body, api_key, server_url(settings))

    _show(fetch, lambda out, answer: print_answer(out, answer, explain=explain), as_json)


def _search_batch(settings: Settings, source: Path, out: Path, api_key: str | None,
                  server: str | None, options: dict, as_json: bool) -> None:
    from app.cli.batches import run_batch

    options = {k: v for k, v in options.items() if v is not None}

    def show(console: Any, status: dict) -> None:
        console.print(f"{status['done']} of {status['total']} queries searched, "
                      f"{status['hits']} hits"
                      + (f", {status['failed_queries']} refused (see the error column)"
                         if status.get("failed_queries") else "") + f": {out}")

    _show(lambda: run_batch(settings, api_key, server, source, out, options), show, as_json)


@app.command()
def entities(
    group: Annotated[str, typer.Argument(
        help="persons, organizations, dates_times, locations, monetary_amounts, "
             "account_numbers, transaction_references, account_types, email_addresses, "
             "phone_numbers")],
    value: Annotated[str | None, typer.Argument(
        help="an entity (any spelling): list the documents naming it instead")] = None,
    q: Annotated[str | None, typer.Option("--q", help="a part of the value, any case")] = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help="entities per page")] = 50,
    cursor: Annotated[str | None, typer.Option(help="the cursor a page ended with")] = None,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """The people, organisations, amounts … in your current versions, like GET /entities;
    with VALUE, the documents naming it. `evidence entities persons --q okafor`."""
    from app.cli.document_views import (
        entity_documents,
        list_entities,
        print_entities,
        print_entity_documents,
    )
    from app.domain.leaves import ENTITY_GROUPS

    if group not in ENTITY_GROUPS:
        raise typer.BadParameter(f"{group}: use {', '.join(ENTITY_GROUPS)}", param_hint="GROUP")
    settings = get_settings()
    if value is not None:
        _show(lambda: entity_documents(settings, api_key, server, group, value),
              print_entity_documents, as_json)
        return
    params = {"group": group, "limit": limit, **({"q": q} if q else {}),
              **({"cursor": cursor} if cursor else {})}
    _show(lambda: list_entities(settings, api_key, server, params), print_entities, as_json)


@documents_app.command("list")
def documents_list(
    kind: Annotated[list[str] | None, typer.Option(help="a kind (pdf, docx, xlsx, csv, "
                                                        "pptx, …); repeatable")] = None,
    source: Annotated[list[str] | None, typer.Option(help="a source label; repeatable")]
    = None,
    state: Annotated[list[str] | None, typer.Option(
        help="the latest version's state: queued, indexing, published, failed; repeatable")]
    = None,
    sort: Annotated[str, typer.Option(help="created_at | updated_at | document_id")]
    = "created_at",
    desc: Annotated[bool, typer.Option("--desc", help="newest (or last) first")] = False,
    limit: Annotated[int, typer.Option(min=1, max=200, help="documents per page")] = 50,
    offset: Annotated[int, typer.Option(min=0, help="documents to skip")] = 0,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """List documents like GET /documents: name, title, state, and why the latest failed."""
    from app.cli.document_views import list_documents, print_documents
    from app.domain.formats import KINDS
    from app.registry.vocabulary import DOCUMENT_SORTS, VERSION_STATES

    for option, values, allowed in (("--kind", kind, KINDS), ("--state", state, VERSION_STATES),
                                    ("--sort", [sort], DOCUMENT_SORTS)):
        if bad := [v for v in values or [] if v not in allowed]:
            raise typer.BadParameter(f"{', '.join(bad)}: use {', '.join(allowed)}",
                                     param_hint=option)
    params = {"kind": kind or [], "source": source or [], "state": state or [], "sort": sort,
              "order": "desc" if desc else "asc", "offset": offset, "limit": limit}
    _show(lambda: list_documents(get_settings(), api_key, server, params), print_documents,
          as_json)


@documents_app.command("show")
def documents_show(
    document_id: Annotated[str, typer.Argument(help="the document's id")],
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """A document and every version of it, like GET /documents/{id}."""
    from app.cli.document_views import print_document, show_document

    _show(lambda: show_document(get_settings(), api_key, server, document_id), print_document,
          as_json)


@app.command("changes")  # `evidence changes DOC`, the spelling, and under documents
@documents_app.command("changes")
def documents_changes(
    document_id: Annotated[str, typer.Argument(help="the document's id")],
    from_version: Annotated[str | None, typer.Option(
        "--from", help="the earlier version (default: the one before --to)")] = None,
    to_version: Annotated[str | None, typer.Option(
        "--to", help="the later version (default: the current one)")] = None,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """What changed between two versions, like GET /documents/{id}/changes."""
    from app.cli.document_views import print_changes, show_changes

    _show(lambda: show_changes(get_settings(), api_key, server, document_id, from_version,
                               to_version), print_changes, as_json)


@jobs_app.command("show")
def jobs_show(
    job_id: Annotated[str, typer.Argument(help="the job id an upload answered with")],
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """An ingestion job, like GET /jobs/{id}: state, attempts, progress, error."""
    from app.cli.document_views import print_job, show_job

    _show(lambda: show_job(get_settings(), api_key, server, job_id), print_job, as_json)




@threads_app.command("show")
def threads_show(
    thread_id: Annotated[str, typer.Argument(help="a message's canonical_metadata.document."
                                                  "thread_id (th-…)")],
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """An e-mail thread's messages in date order, like GET /threads/{id}."""
    from app.cli.document_views import print_thread, show_thread

    _show(lambda: show_thread(get_settings(), api_key, server, thread_id), print_thread,
          as_json)
