"""`evidence documents list|show` and `evidence jobs show`: what GET /documents and GET /jobs
answer, from the server that --server names or that runs on this data folder (it answers at
once), else read from the registry here (no models, no engine), printed at 80 columns."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from app.cli.search_answers import indented
from app.cli.server_api import resolve_key, running_server, server_call, server_url
from app.domain.errors import Forbidden

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.settings import Settings

STATE_STYLES = {"published": "green", "failed": "red", "queued": "yellow",
                "indexing": "yellow", "superseded": "dim"}


@contextmanager
def _registry(settings: Settings, api_key: str | None) -> Iterator[tuple[Session, str]]:
    """A registry session and the client the key names."""
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    key = resolve_key(settings, api_key)
    engine, sessions = open_registry(settings)
    try:
        with transaction(sessions) as session:
            caller = reg.caller_for_key(session, secret=key)
            if caller.access.restricted:  # these views read the registry without groups
                raise Forbidden("a key with access groups reads documents through a running "
                                "server (`evidence serve`), which filters by its groups",
                                code="ACCESS_GROUPS_NOT_SUPPORTED")
            yield session, caller.id
    finally:
        engine.dispose()


def list_documents(settings: Settings, api_key: str | None, server: str | None,
                   params: dict[str, Any]) -> dict[str, Any]:
    server = server or running_server(settings)  # a running server answers at once
    if server:
        return server_call(settings, api_key, server, "GET", "/documents", params=params)
    from app.api.presenter import document_out
    from app.api.schemas import DocumentList
    from app.registry import documents as docs_registry

    with _registry(settings, api_key) as (session, client_id):
        rows, total = docs_registry.list_documents(
            session, client_id=client_id, offset=params["offset"], limit=params["limit"],
            kinds=params["kind"], sources=params["source"], states=params["state"],
            sort=params["sort"], descending=params["order"] == "desc")
        return DocumentList(documents=[document_out(r) for r in rows], total=total,
                            offset=params["offset"], limit=params["limit"]
                            ).model_dump(mode="json")


def show_document(settings: Settings, api_key: str | None, server: str | None,
                  document_id: str) -> dict[str, Any]:
    server = server or running_server(settings)  # a running server answers at once
    if server:
        return server_call(settings, api_key, server, "GET", f"/documents/{document_id}")
    from app.api.presenter import document_out
    from app.documents import reads
    from app.registry import documents as docs_registry

    with _registry(settings, api_key) as (session, client_id):
        document = docs_registry.get_document(session, client_id=client_id,
                                              document_id=document_id)
        return document_out(*reads.document_detail(session, document)
                            ).model_dump(mode="json")


def show_job(settings: Settings, api_key: str | None, server: str | None,
             job_id: str) -> dict[str, Any]:
    server = server or running_server(settings)  # a running server answers at once
    if server:
        return server_call(settings, api_key, server, "GET", f"/jobs/{job_id}")
    from app.api.presenter import job_out
    from app.registry import jobs as jobs_registry

    with _registry(settings, api_key) as (session, client_id):
        return job_out(*jobs_registry.job_with_version(session, client_id=client_id,
                                                       job_id=job_id)).model_dump(mode="json")


def _state(state: str) -> Text:
    return Text(state, style=STATE_STYLES.get(state, ""))


def print_documents(console: Console, listing: dict[str, Any]) -> None:
    docs = listing["documents"]
    first = listing["offset"] + 1
    console.print(Text(_plural(listing["total"], "document")
                       + (f", showing {first}–{first + len(docs) - 1}" if docs and (
                           listing["offset"] or len(docs) < listing["total"]) else ""),
                       style="bold"))
    for doc in docs:
        head = Text()
        head.append(doc["document_id"], style="cyan")
        head.append("  ")
        head.append_text(_state(doc["state"]))
        facts = (f"  {doc['kind']} · {_plural(doc['version_count'], 'version')} · "
                 f"{_plural(doc['chunk_count'], 'chunk')} · "
                 f"{doc['updated_at'][:16].replace('T', ' ')}")
        if len(head.plain) + len(facts) <= console.width:
            head.append(facts, style="dim")
            facts = ""
        console.print(head)
        if facts:  # a long id: the facts on a line of their own, whole, never split mid-date
            console.print(indented(Text(facts.strip(), style="dim"), 4))
        named = doc["title"] or doc["filename"]
        source = f" · {doc['source']}" if doc.get("source") else ""
        console.print(indented(Text(f"{named}{source}"), 4))
        if doc.get("error"):
            console.print(indented(Text(f"failed{_code(doc)}: {doc['error']}", style="red"), 4))


def _code(answer: dict[str, Any]) -> str:
    """`` (PDF_ENCRYPTED)`` after "failed" where the answer carries the error's code."""
    return f" ({answer['error_code']})" if answer.get("error_code") else ""


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


# an entity group's one member, for "1 person" (the groups' names are plural)
ENTITY_SINGULAR = {"persons": "person", "organizations": "organization",
                   "dates_times": "date or time", "locations": "location",
                   "monetary_amounts": "monetary amount", "account_numbers": "account number",
                   "transaction_references": "transaction reference",
                   "account_types": "account type", "email_addresses": "e-mail address",
                   "phone_numbers": "phone number"}


def entity_count(n: int, group: str) -> str:
    """``1 person``, ``2 persons``, ``1 date or time``, ``3 dates times``."""
    return f"{n:,} " + (ENTITY_SINGULAR.get(group, group) if n == 1
                        else group.replace("_", " "))


def _fields(rows: list[tuple[Any, Any]], label_width: int = 8) -> Table:
    """Label and value columns: a long value wraps under itself, not under the label."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, min_width=label_width)
    grid.add_column(overflow="fold")
    for label, value in rows:
        grid.add_row(label, value)
    return grid


def print_document(console: Console, doc: dict[str, Any]) -> None:
    console.print(Text(doc["document_id"], style="bold cyan"))
    console.print(indented(_fields([
        (Text(label), Text(str(value))) for label, value in (
            ("title", doc["title"]), ("file", doc["filename"]), ("kind", doc["kind"]),
            ("source", doc["source"]), ("path", doc["path"]),
            ("current", doc["current_version_id"]), ("created", doc["created_at"]),
            ("updated", doc["updated_at"])) if value]), 2))
    versions = doc.get("versions") or []
    if versions:
        console.print(indented(_fields([
            (Text(f"{v['version_id']:>4} ") + _state(v["state"]),
             Text(f"{v['filename']} · {_plural(v['size_bytes'], 'byte')} · "
                  f"{_plural(v['chunk_count'], 'chunk')} · {v['created_at'][:16]}"
                  + (f"\njob {v['job_id']}" if v.get("job_id") else "")
                  + (f"\nfailed{_code(v)}: {v['error']}" if v.get("error") else ""),
                  style="dim"))
            for v in versions]), 2))
    if doc.get("error"):
        console.print(indented(Text(f"latest version failed{_code(doc)}: {doc['error']}",
                                    style="red"), 2))


def print_job(console: Console, job: dict[str, Any]) -> None:
    head = Text(f"job {job['job_id']}  ")
    head.append_text(_state(job["status"]) if job["status"] != "succeeded"
                     else Text("succeeded", style="green"))
    console.print(head)
    console.print(Text(f"  {job['document_id']} {job['version_id']} · attempt "
                       f"{job['attempts']}/{job['max_attempts']} · "
                       f"{job['progress']:.0%} done"))
    if job.get("stage"):
        stage = job["stage"]
        console.print(Text(f"  {stage['name']} {stage['done']:,}/{stage['total']:,} "
                           f"{stage['unit']}"))
    for label in ("created_at", "started_at", "finished_at"):
        if job.get(label):
            console.print(Text(f"  {label.removesuffix('_at'):8} {job[label]}", style="dim"))
    if job.get("error"):
        console.print(Text(f"  error{_code(job)}: {job['error']}", style="red"))


def list_entities(settings: Settings, api_key: str | None, server: str | None,
                  params: dict[str, Any]) -> dict[str, Any]:
    """GET /entities, or the registry read the same way."""
    server = server or running_server(settings)  # a running server answers at once
    if server:
        return server_call(settings, api_key, server, "GET", "/entities", params=params)
    from app.api.schemas import EntityList
    from app.documents.reads import entities_listing

    with _registry(settings, api_key) as (session, client_id):
        return EntityList.model_validate(entities_listing(
            session, client_id, params["group"], q=params.get("q"), limit=params["limit"],
            cursor=params.get("cursor"))).model_dump(mode="json")


def entity_documents(settings: Settings, api_key: str | None, server: str | None,
                     group: str, value: str) -> dict[str, Any]:
    """GET /entities/{group}/{value}/documents, or the registry read the same way."""
    server = server or running_server(settings)  # a running server answers at once
    if server:
        from urllib.parse import quote

        return server_call(settings, api_key, server, "GET",
                           f"/entities/{group}/{quote(value, safe='')}/documents")
    from app.api.schemas import EntityDocuments
    from app.documents.reads import entity_documents_listing

    with _registry(settings, api_key) as (session, client_id):
        return EntityDocuments.model_validate(entity_documents_listing(
            session, client_id, group, value)).model_dump(mode="json")


def print_entities(console: Console, listing: dict[str, Any]) -> None:
    items = listing["items"]
    console.print(Text(entity_count(listing["total"], listing["group"])
                       + (f", showing {len(items)}" if len(items) < listing["total"] else ""),
                       style="bold"))
    for item in items:
        line = Text(item["value"], style="cyan")
        line.append(f"  {_plural(item['documents'], 'document')} · "
                    f"{_plural(item['mentions'], 'mention')}", style="dim")
        console.print(line)
        others = [s for s in item["spellings"] if s != item["value"]]
        if others:
            console.print(indented(Text("also: " + " · ".join(others), style="dim"), 4))
    if listing.get("next_cursor"):
        console.print(Text(f"more: --cursor {listing['next_cursor']}", style="dim"))


def print_entity_documents(console: Console, answer: dict[str, Any]) -> None:
    console.print(Text(f"{answer['value']} ({answer['group'].replace('_', ' ')}): "
                       f"{_plural(len(answer['items']), 'document')}", style="bold"))
    for item in answer["items"]:
        line = Text(item["document_id"], style="cyan")
        line.append(f"  {item['version_id']} · {_plural(item['mentions'], 'mention')}",
                    style="dim")
        console.print(line)
        console.print(indented(Text(item["title"] or item["filename"]), 4))


def show_thread(settings: Settings, api_key: str | None, server: str | None,
                thread_id: str) -> dict[str, Any]:
    """GET /threads/{thread_id}, or the registry read the same way."""
    server = server or running_server(settings)  # a running server answers at once
    if server:
        from urllib.parse import quote

        return server_call(settings, api_key, server, "GET", f"/threads/{quote(thread_id)}")
    from app.api.schemas import ThreadOut
    from app.documents.reads import thread_listing

    with _registry(settings, api_key) as (session, client_id):
        return ThreadOut.model_validate(thread_listing(session, client_id, thread_id)
                                        ).model_dump(mode="json", by_alias=True)


def print_thread(console: Console, thread: dict[str, Any]) -> None:
    console.print(Text(f"thread {thread['thread_id']}: "
                       f"{_plural(len(thread['messages']), 'message')}", style="bold"))
    for message in thread["messages"]:
        head = Text(f"{message['position']:>3}. ")
        head.append(message["document_id"], style="cyan")
        head.append(f"  {(message.get('date') or 'undated')[:16]}", style="dim")
        if message.get("in_reply_to"):
            head.append(f"  ↳ {message['in_reply_to']}", style="dim")
        console.print(head)
        console.print(indented(Text(f"{message.get('from') or '?'} · "
                                    f"{message.get('subject') or '(no subject)'}"), 5))


def show_changes(settings: Settings, api_key: str | None, server: str | None,
                 document_id: str, from_version: str | None,
                 to_version: str | None) -> dict[str, Any]:
    """GET /documents/{id}/changes (its engine read needs the server while one runs)."""
    params = {k: v for k, v in (("from", from_version), ("to", to_version)) if v}
    server = server or running_server(settings)  # a running server answers at once
    if server:
        from urllib.parse import quote

        return server_call(settings, api_key, server, "GET",
                           f"/documents/{quote(document_id, safe='')}/changes", params=params)
    from app.api.schemas import ChangesOut
    from app.documents.version_changes import version_changes
    from app.domain.errors import StoreLocked
    from app.models.manifest import Manifest
    from app.store import open_store

    manifest = Manifest.load(settings.models.dir)
    try:
        store = open_store(settings.qdrant, dense_model=manifest.dense.model
                           if manifest.dense else "none", dense_dim=manifest.dense_dim)
    except StoreLocked:  # a running server holds the engine: ask it
        return show_changes(settings, api_key, server_url(settings), document_id, from_version,
                            to_version)
    try:
        from app.registry import documents as docs_registry

        with _registry(settings, api_key) as (session, client_id):
            document = docs_registry.get_document(session, client_id=client_id,
                                                  document_id=document_id)
            from_id, to_id, found, complete = version_changes(
                session, store, document, from_version=from_version, to_version=to_version)
            return ChangesOut(document_id=document_id, from_version=from_id, to_version=to_id,
                              complete=complete, changes=found).model_dump(mode="json",
                                                                           by_alias=True)
    finally:
        store.close()


def print_changes(console: Console, answer: dict[str, Any]) -> None:
    console.print(Text(f"{answer['document_id']}: {answer['from'] or '(nothing)'} → "
                       f"{answer['to']}, {_plural(len(answer['changes']), 'change')}"
                       + ("" if answer["complete"] else " (stopped at a bound)"),
                       style="bold"))
    marks = {"added": ("+", "green"), "removed": ("-", "red"), "changed": ("~", "yellow")}
    for change in answer["changes"]:
        mark, style = marks[change["kind"]]
        for side, prefix in (("before", "-"), ("after", "+")):
            if change[side] is None:
                continue
            where = change[side]["location"]
            place = (f"p.{where['page']}" if where.get("page") else
                     f"lines {where['line_start']}-{where['line_end']}"
                     if where.get("line_start") else "")
            line = Text(f"{mark if change['kind'] != 'changed' else prefix} ", style=style)
            line.append(change[side]["text"])
            if place:
                line.append(f"  ({place})", style="dim")
            console.print(line)
