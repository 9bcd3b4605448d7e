"""`evidence search`: the API's own answer, in-process or from a running server, printed so it
reads at 80 columns: one block per Document Version (numbers on its own line, the snippet
wrapped beneath), never a table whose columns collapse."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.text import Text

from app.cli.server_api import resolve_key, server_call
from app.domain.errors import BadRequest, ServiceError

if TYPE_CHECKING:  # the search stack loads only for the commands that search here
    from pydantic import BaseModel
    from sqlalchemy.orm import Session

    from app.registry.clients import Caller
    from app.search.service import SearchService
    from app.settings import Settings

SNIPPET_CHARS = 300
M = TypeVar("M", bound="BaseModel")


def indented(renderable: Text, left: int) -> Padding:
    """Indented and wrapped within the width, without padding the line out to it."""
    return Padding(renderable, (0, 0, 0, left), expand=False)


def parse_filter_options(options: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` options as the API's filters: the value is read as JSON when it is JSON
    (``12``, ``true``, ``["a","b"]``, a range ``{"gte": 1000}``, a negation ``{"not":
    "draft"}``) and as a string otherwise; a key given twice means any of its values."""
    filters: dict[str, Any] = {}
    for option in options:
        key, sep, raw = option.partition("=")
        if not sep or not key.strip():
            raise BadRequest(f"--filter {option!r} is not KEY=VALUE (e.g. --filter "
                             "custom.project=Apollo, --filter kind=pdf)", code="INVALID_FILTER")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        if value is None:
            value = raw  # null is no filter value: the text as typed
        key = key.strip()
        if key in filters:
            before = filters[key] if isinstance(filters[key], list) else [filters[key]]
            value = before + (value if isinstance(value, list) else [value])
        filters[key] = value
    return filters


def parsed_body(model: type[M], body: dict[str, Any]) -> M:
    """A request body as the API's schema reads it; refused with the API's own code."""
    from pydantic import ValidationError

    from app.api.errors import readable_validation_error

    try:
        return model(**body)
    except ValidationError as exc:
        # located as the API locates them (in the body), so the codes are the API's
        code, message = readable_validation_error(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()])
        raise ServiceError(message, code=code, http_status=422) from None


@contextmanager
def in_process_service(settings: Settings, api_key: str | None, *, with_dense: bool = True
                       ) -> Iterator[tuple[Session, Caller, SearchService]]:
    """The search service in this process, for the key's active client, in one registry
    transaction: what `evidence search` and `evidence calibrate` run on without a server.
    StoreLocked where a running server holds the engine (found before any model loads)."""
    from app.models.loading import load_models
    from app.models.manifest import Manifest
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import build_runtime
    from app.search.pipeline import SearchEngine
    from app.search.service import SearchService
    from app.store import open_store

    key = resolve_key(settings, api_key)
    manifest = Manifest.load(settings.models.dir)
    store = open_store(settings.qdrant, dense_model=manifest.dense.model if manifest.dense
                       else "none", dense_dim=manifest.dense_dim)
    models = load_models(settings.models.dir, threads=settings.models.threads,
                         with_dense=with_dense)
    runtime = build_runtime(settings, models=models, store=store)
    try:
        with transaction(runtime.sessions) as s:
            client = reg.caller_for_key(s, secret=key)
            reg.require_active(client.authority)
            yield s, client, SearchService(SearchEngine(runtime.store, runtime.models,
                                                        settings.search),
                                           settings.search.hybrid_alpha)
    finally:
        runtime.close()


def search_in_process(settings: Settings, body: dict[str, Any], api_key: str | None
                      ) -> dict[str, Any]:
    from app.api.presenter import evidence_result, search_audit, search_query
    from app.api.schemas import SearchRequest
    from app.ops.audit import record_cli

    request = parsed_body(SearchRequest, body)
    alpha = request.alpha if request.alpha is not None else settings.search.hybrid_alpha
    with in_process_service(settings, api_key, with_dense=alpha > 0) as (s, client, service):
        answer = service.answer(s, client_id=client.id, query=search_query(request),
                                access=client.access)
        record_cli(s, settings.audit, client, "search", query=request.query,
                   details=search_audit(answer))
    return evidence_result(answer, explain=request.explain).model_dump(mode="json")


def search_via_server(settings: Settings, body: dict[str, Any], api_key: str | None,
                      server: str) -> dict[str, Any]:
    return server_call(settings, api_key, server, "POST", "/search", timeout=60, json=body)


def _score(value: float | None, rank: int | None = None, digits: int = 3) -> str | None:
    if value is None:
        return None
    return f"{value:.{digits}f}" + (f" #{rank}" if rank else "")


def marked_snippet(item: dict) -> Text:
    """The item's snippet (the server's, else the chunk's start) on one line, the matched words
    in bold, with … where the chunk goes on."""
    text = item["text"]
    cut = item.get("snippet") or {"start": 0, "end": min(len(text), SNIPPET_CHARS)}
    start, end = cut["start"], cut["end"]
    marks = sorted((s["start"], s["end"]) for s in item.get("literal_spans") or []
                   if start <= s["start"] and s["end"] <= end)
    out = Text("…" if start > 0 else "")
    at = start
    for a, b in marks:
        if a < at:
            continue
        out.append(text[at:a].replace("\n", " "))
        out.append(text[a:b].replace("\n", " "), style="bold yellow")
        at = b
    out.append(text[at:end].replace("\n", " "))
    if end < len(text):
        out.append("…")
    return out


def _where(item: dict[str, Any]) -> str:
    if item.get("page"):
        return f"p. {item['page']}"
    table = item.get("location") or {}
    if table.get("rows"):  # a spreadsheet's or CSV's chunk: its sheet and rows
        first, last = table["rows"][0], table["rows"][-1]
        rows = f"row {first}" if first == last else f"rows {first}–{last}"
        return f"{table['sheet']} {rows}" if table.get("sheet") else rows
    if item.get("line_start"):
        first, last = item["line_start"], item.get("line_end") or item["line_start"]
        return f"line {first}" if first == last else f"lines {first}–{last}"
    return ""


def _version_note(ref: dict[str, Any]) -> str:
    """A superseded version (versions all, as_of) says so, and by what."""
    if ref.get("is_current") is not False:
        return ""
    by = f" by {ref['superseded_by']}" if ref.get("superseded_by") else ""
    when = f" {ref['superseded_at'][:10]}" if ref.get("superseded_at") else ""
    return f" (superseded{by}{when})"


def _explained(item: dict[str, Any]) -> str:
    scores = item.get("scores") or {}
    parts = [f"{label} {text}" for label, text in (
        ("dense", _score(scores.get("dense"), scores.get("dense_rank"))),
        ("bm25", _score(scores.get("sparse"), scores.get("sparse_rank"), 2)),
        ("fused", _score(scores.get("fused"), None, 4)),
        ("rerank", _score(scores.get("rerank")))) if text]
    return " · ".join(parts)


def print_answer(console: Console, answer: dict[str, Any], *, explain: bool = False) -> None:
    meta = answer["meta"]
    total = f"{meta['total']}{'+' if meta['total_is_lower_bound'] else ''}"
    plural = "" if meta["total"] == 1 else "s"
    shown = (f", showing {meta['offset'] + 1}–{meta['offset'] + len(answer['results'])}"
             if answer["results"] and (meta["offset"] or meta["has_more"]) else "")
    asked = (f"{meta['query']!r}" if meta["query"].strip() not in ("", "*")
             else "every version under the filters")  # a browse: no words, a stated order
    console.print(Text(f"{asked}: {total} document version{plural}{shown} "
                       f"(scope {meta.get('scope', 'content')})", style="bold"))
    for row in answer["results"]:
        ref = row["document_version"]
        lanes = ", ".join(f"{c['lane']} #{c['rank']}" for c in row["retrieval_contributions"])
        title = (row.get("canonical_metadata") or {}).get("document", {}).get("title")
        head = Text()
        head.append(f"{row['rank']:>2}. ", style="bold")
        head.append(f"{ref['document_id']} {ref['version_id'] or ''}", style="cyan")
        note = _version_note(ref)
        if note:
            head.append(note, style="yellow")
        if title:
            head.append(f" — {title}")
        tag = f"  [{lanes}]"
        if len(head.plain) + len(tag) <= console.width:
            head.append(tag, style="dim")
            tag = ""
        console.print(head)
        if tag:  # never wrapped to column 0: the lanes on a line of their own, indented
            console.print(indented(Text(tag.strip(), style="dim"), 4))
        items = row["content_evidence"]["items"]
        for item in items:
            where = _where(item)
            line = Text(f"{where}: " if where else "", style="dim")
            line.append_text(marked_snippet(item))
            console.print(indented(line, 4))
            if explain and item.get("scores"):
                console.print(indented(Text(_explained(item), style="dim"), 6))
        if row["content_evidence"]["truncated"]:
            more = row["content_evidence"]["total"] - len(items)
            console.print(indented(Text(f"… {more} more matching chunk(s)", style="dim"), 4))
        for leaf in row["metadata_evidence"]["items"]:
            console.print(indented(Text(f"{leaf['key']} = {json.dumps(leaf['value'])} "
                                       f"({leaf['match']})", style="magenta"), 4))
    said = []
    if meta.get("query_syntax"):
        syntax = meta["query_syntax"]
        said += [f'phrase "{p}"' for p in syntax["phrases"]]
        said += [f"without {w}" for w in syntax["exclusions"]]
        said.append(f"removed {syntax['removed_by_phrases'] + syntax['removed_by_exclusions']}")
    if meta.get("autocut"):
        cut = meta["autocut"]
        said.append(f"autocut kept {cut['kept']} of {cut['of']}")
    if said:
        console.print(Text("  " + " · ".join(said), style="dim"))
    retrieval = meta["retrieval"]
    searched = retrieval.get("lanes")
    console.print(Text(f"alpha {retrieval['alpha']}"
                       + (f" · lanes {', '.join(searched)}" if searched else "")
                       + f" · reranked {'yes' if retrieval['reranked'] else 'no'} · "
                       f"{meta['query_time_ms']:.1f} ms", style="dim"))
    if retrieval.get("status") == "partial":
        failed = ", ".join(f"{f['lane']} ({f['code']})" for f in retrieval.get("failures", []))
        console.print(f"[yellow]partial answer:[/yellow] {escape(failed)} did not answer")
    if meta.get("applied_filters"):
        console.print(Text("filters: " + json.dumps(meta["applied_filters"]), style="dim"))
    if explain:
        for lane in meta.get("lanes") or []:
            console.print(Text(
                f"{lane['lane']} lane: fetched {lane['fetched']}, kept {lane['kept']}"
                + (f" at or over the floor {lane['floor']:g}" if lane["floor"] is not None
                   else " (no floor)")
                + {"chance": " (this query's chance score)",
                   "minimum": f" (the minimum; its chance score {lane.get('chance') or 0:g})"
                   }.get(lane.get("floor_from") or "", ""), style="dim"))
        timings = ", ".join(f"{k} {v:.1f}" for k, v in meta.get("timings", {}).items())
        console.print(Text(f"timings ms: {timings}", style="dim"))
    for key, values in (meta.get("facets") or {}).items():
        shown = " · ".join(f"{json.dumps(v['value'], ensure_ascii=False)} {v['count']}"
                           for v in values) or "(no values)"
        console.print(indented(Text(f"{key}: {shown}"), 0))
    for warning in meta.get("warnings", []):
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}")
    for diagnosis in meta.get("diagnostics") or []:
        print_diagnosis(console, diagnosis)


def print_diagnosis(console: Console, d: dict[str, Any]) -> None:
    """`--why`: the status, the sentence, and each lane's numbers."""
    head = Text("why ", style="bold")
    head.append(f"{d['document_id']} {d['version_id'] or ''}".rstrip(), style="cyan")
    head.append(f": {d['status']}", style="bold")
    console.print(head)
    console.print(indented(Text(d["message"]), 4))
    for lane in d.get("lanes") or []:
        if lane["score"] is None:
            words = "no match"
        else:
            where = (f"rank {lane['rank']}" if lane["rank"] is not None
                     else f"beyond rank {lane['beyond']}")
            floor = (f", floor {lane['floor']:g}" if lane["floor"] is not None else "")
            verdict = "passed" if lane["passed"] else "under the floor"
            words = (f"{lane['chunk_id']} scored {lane['score']:.4g} ({where}{floor}): "
                     f"{verdict}")
        name = "bm25" if lane["lane"] == "sparse" else lane["lane"]
        console.print(indented(Text(f"{name}: {words}", style="dim"), 4))
    for key, values in (d.get("filters") or {}).items():
        console.print(indented(Text(f"filter {key}: its values {json.dumps(values)}",
                                    style="dim"), 4))
