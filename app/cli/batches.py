"""`evidence search --batch names.txt --out hits.csv`: a list of queries searched as one batch
(issue 51) — through the running server's job (POST /searches/batch/upload, its progress
polled) or, with none running, in this process through the same service code — with a
progress bar; the hits written as CSV or JSON lines (by --out's extension)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.domain.errors import ServiceError

if TYPE_CHECKING:
    from app.settings import Settings

POLL_S = 0.5


def export_format(out: Path) -> str:
    return "jsonl" if out.suffix.lower() in (".jsonl", ".ndjson", ".json") else "csv"


def run_batch(settings: Settings, api_key: str | None, server: str | None, source: Path,
              out: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The batch run to its end and its export written to ``out``; the batch's status."""
    from app.cli.server_api import running_server, server_url
    from app.domain.errors import StoreLocked

    try:
        data = source.read_bytes()
    except OSError as error:
        raise ServiceError(f"cannot read {source}: {error.strerror}",
                           code="FILE_UNREADABLE") from None
    running = server or running_server(settings)
    if running:
        return _via_server(settings, api_key, running, source.name, data, out, options)
    try:
        return _in_process(settings, api_key, source.name, data, out, options)
    except StoreLocked:
        return _via_server(settings, api_key, server_url(settings), source.name, data, out,
                           options)


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from app.cli import common

    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeRemainingColumn(), console=common.err,
                    transient=True)


def _via_server(settings: Settings, api_key: str | None, server: str, name: str, data: bytes,
                out: Path, options: dict[str, Any]) -> dict[str, Any]:
    from app.cli.server_api import ServerApi, resolve_key

    with ServerApi(server, resolve_key(settings, api_key)) as api:
        batch = api.call("POST", "/searches/batch/upload", ok=(202,),
                         files={"file": (name, data)}, data={"options": json.dumps(options)})
        with _progress() as bar:
            task = bar.add_task("searching", total=batch["total"], completed=batch["done"])
            while batch["status"] in ("queued", "running"):
                time.sleep(POLL_S)
                batch = api.call("GET", f"/searches/batch/{batch['batch_id']}")
                bar.update(task, completed=batch["done"])
        content = api.call("GET", f"/searches/batch/{batch['batch_id']}/results",
                           params={"format": export_format(out)}, raw=True)
    out.write_bytes(content)
    return batch


def _in_process(settings: Settings, api_key: str | None, name: str, data: bytes, out: Path,
                options: dict[str, Any]) -> dict[str, Any]:
    from app.api.presenter import batch_hits
    from app.api.schemas import MAX_QUERY_CHARS
    from app.cli.search_answers import in_process_service
    from app.ops.audit import record_cli
    from app.registry import search_batches as batches_registry
    from app.search.batches import (
        BatchSearch,
        csv_text,
        export_lines,
        export_rows,
        read_query_list,
        search_one,
    )

    queries = read_query_list(data, max_queries=settings.batch.max_queries,
                              max_chars=MAX_QUERY_CHARS)
    shared = BatchSearch(**options)
    alpha = shared.alpha if shared.alpha is not None else settings.search.hybrid_alpha
    with in_process_service(settings, api_key, with_dense=alpha > 0) as (s, client, service):
        batch = batches_registry.create(s, client_id=client.id, key_id=client.key_id,
                                        name=name[:200], request=shared.as_json(),
                                        queries=queries)
        with _progress() as bar:
            task = bar.add_task("searching", total=len(queries))
            for index in range(len(queries)):
                search_one(s, service, batch_hits, batch, index, refuse=index == 0)
                bar.update(task, completed=index + 1)
        batches_registry.finish(s, batch_pk=batch.id, status="done")
        s.flush()
        s.refresh(batch)
        with out.open("w", encoding="utf-8", newline="") as f:
            if export_format(out) == "csv":
                for piece in csv_text(export_rows(s, batch)):
                    f.write(piece)
            else:
                for line in export_lines(s, batch):
                    f.write(json.dumps(line, ensure_ascii=False) + "\n")
        record_cli(s, settings.audit, client, "batch_search", target=batch.batch_id,
                   query="\n".join(q["query"] for q in queries[:20]),
                   details={"queries": len(queries), "scope": shared.scope})
        return {"batch_id": batch.batch_id, "status": batch.status, "total": batch.total,
                "done": batch.done, "hits": batch.hits, "failed_queries": batch.failed_queries}
