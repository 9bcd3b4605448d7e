"""`evidence calibrate [--judgments FILE]`: a client's alpha and fusion chosen from its own
judgments (POST /judgments, POST /clients/me/calibration), in-process, or through the server
holding the engine (--server, or when a running server holds it)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from app.cli.common import ApiKeyOption, JsonOption, ServerOption, _show, app, get_settings
from app.cli.server_api import running_server, server_url
from app.domain.errors import BadRequest, ServiceError, StoreLocked

if TYPE_CHECKING:
    from app.settings import Settings

BATCH = 500
POLL_S = 0.5  # how often the CLI asks a server's calibration run how far it is


def read_judgments(path: Path) -> list[dict[str, Any]]:
    """JSON lines ({"query", "document_id" | "chunk_id", "grade"}) or tab-separated
    ``query<TAB>document_id<TAB>grade`` lines (a header line is skipped)."""
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise BadRequest(f"cannot read {path}: {exc}", code="INVALID_JUDGMENTS_FILE") from None
    items = []
    for number, line in enumerate(lines, start=1):
        try:
            if line.lstrip().startswith("{"):
                items.append(json.loads(line))
                continue
            query, document_id, grade = line.split("\t")
            if number == 1 and not grade.strip().lstrip("-").isdigit():
                continue  # a header
            items.append({"query": query, "document_id": document_id, "grade": int(grade)})
        except ValueError:
            raise BadRequest(f"{path}:{number}: write a JSON object or query<TAB>document_id"
                             "<TAB>grade", code="INVALID_JUDGMENTS_FILE") from None
    return items


def _via_server(settings: Settings, api_key: str | None, server: str,
                items: list[dict[str, Any]]) -> dict[str, Any]:
    from app.cli.server_api import ServerApi, resolve_key

    with ServerApi(server, resolve_key(settings, api_key), timeout=600) as api:
        for start in range(0, len(items), BATCH):
            api.call("POST", "/judgments", json={"items": items[start:start + BATCH]})
        run = api.call("POST", "/clients/me/calibration", ok=(202,))  # it runs there
        while run["status"] == "running":
            time.sleep(POLL_S)
            run = api.call("GET", f"/clients/me/calibration/runs/{run['run_id']}")
    if run["status"] == "failed":
        raise ServiceError(run["error"], code=run["error_code"])
    return run["report"]


def _in_process(settings: Settings, api_key: str | None,
                items: list[dict[str, Any]]) -> dict[str, Any]:
    from app.api.schemas import CalibrationOut, JudgmentsIn
    from app.calibration.service import Setting, record_judgments_of, run_and_apply
    from app.cli.search_answers import in_process_service, parsed_body

    batches = [parsed_body(JudgmentsIn, {"items": items[start:start + BATCH]})
               for start in range(0, len(items), BATCH)]
    with in_process_service(settings, api_key) as (s, client, service):  # StoreLocked: server
        for batch in batches:
            record_judgments_of(s, client_id=client.id, items=batch.items)
        report = run_and_apply(s, service, client_id=client.id, default=Setting(
            alpha=settings.search.hybrid_alpha, fusion=settings.search.fusion))
    return CalibrationOut(**report.as_json()).model_dump(mode="json")


@app.command()
def calibrate(
    judgments: Annotated[Path | None, typer.Option(
        "--judgments", metavar="FILE", exists=True, dir_okay=False,
        help="judgments to add first: JSON lines {query, document_id, grade} or "
             "query<TAB>document_id<TAB>grade lines")] = None,
    as_json: JsonOption = False,
    api_key: ApiKeyOption = None,
    server: ServerOption = None,
) -> None:
    """Choose this client's alpha and fusion from its own judgments by cross-validation;
    applied only when the interval against the defaults is above zero."""
    settings = get_settings()

    def fetch() -> dict[str, Any]:
        items = read_judgments(judgments) if judgments else []
        running = server or running_server(settings)
        if running:
            return _via_server(settings, api_key, running, items)
        try:
            return _in_process(settings, api_key, items)
        except StoreLocked:
            return _via_server(settings, api_key, server_url(settings), items)

    _show(fetch, print_report, as_json)


def print_report(console: Console, report: dict[str, Any]) -> None:
    default, chosen = report["default"], report["chosen"]
    console.print(Text(f"{report['queries']} judged queries, {report['folds']}-fold "
                       "cross-validation", style="bold"))
    console.print(f"defaults  alpha {default['alpha']:g}, {default['fusion']}: "
                  f"nDCG@10 {default['ndcg']:.3f}")
    console.print(f"chosen    alpha {chosen['alpha']:g}, {chosen['fusion']}: "
                  f"nDCG@10 {chosen['ndcg']:.3f} over every query")
    low, high = report["interval"]
    console.print(f"held out  nDCG@10 {report['cross_validated_ndcg']:.3f}, "
                  f"{report['difference']:+.3f} [{low:+.3f}, {high:+.3f}] against the "
                  "defaults")
    verdict = Text("applied: " if report["applied"] else "not applied: ",
                   style="green" if report["applied"] else "yellow")
    verdict.append(report["reason"])
    console.print(verdict)
