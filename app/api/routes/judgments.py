"""A client's own judgments and the calibration they justify (issue 37): POST/GET/DELETE
/judgments, POST/GET/DELETE /clients/me/calibration. Thin: the registry keeps judgments and the
applied choice (app/registry/judgments.py), app/calibration/service.py chooses."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from sqlalchemy.orm import Session

from app.api.deps import PublishingClientDep, RuntimeDep, SearchServiceDep, SessionDep
from app.api.schemas import (
    CalibrationOut,
    CalibrationRunOut,
    CalibrationState,
    JudgmentList,
    JudgmentOut,
    JudgmentsIn,
    JudgmentsStored,
    SearchDefaults,
    error_responses,
)
from app.calibration import runs as calibration_runs_service
from app.calibration.service import Setting, record_judgments_of
from app.registry import calibration_runs
from app.registry import judgments as judgments_registry
from app.registry.tables import CalibrationRun
from app.runtime import Runtime
from app.search.service import SearchService

router = APIRouter(tags=["calibration"])


@router.post("/judgments", response_model=JudgmentsStored,
             responses=error_responses(400, 401, 403, 409, 413, 422, 500))
def record_judgments(body: JudgmentsIn, session: SessionDep,
                     client: PublishingClientDep) -> JudgmentsStored:
    """Judgments of your own: this document (or the document of this chunk) answers this query
    this well (0–3). A pair judged again takes the new grade. They are this client's alone;
    at most 10,000 (409 JUDGMENT_LIMIT_REACHED, nothing stored, past it)."""
    total = record_judgments_of(session, client_id=client.id, items=body.items)
    return JudgmentsStored(stored=len(body.items), total=total)


@router.get("/judgments", response_model=JudgmentList,
            responses=error_responses(401, 403, 422, 500))
def list_judgments(session: SessionDep, client: PublishingClientDep,
                   offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
                   limit: Annotated[int, Query(ge=1, le=500)] = 100) -> JudgmentList:
    """The client's judgments, oldest first."""
    rows = judgments_registry.page(session, client_id=client.id, offset=offset, limit=limit)
    return JudgmentList(items=[JudgmentOut(query=j.query, document_id=j.document_id,
                                           grade=j.grade, created_at=j.created_at)
                               for j in rows],
                        total=judgments_registry.count(session, client_id=client.id))


@router.delete("/judgments", status_code=204, responses=error_responses(401, 403, 422, 500))
def clear_judgments(session: SessionDep, client: PublishingClientDep) -> Response:
    """Every judgment of the client (an applied calibration stays until DELETE
    /clients/me/calibration)."""
    judgments_registry.clear(session, client_id=client.id)
    return Response(status_code=204)


@router.post("/clients/me/calibration", response_model=CalibrationRunOut, status_code=202,
             responses=error_responses(401, 403, 409, 422, 500, 503))
def calibrate(runtime: RuntimeDep, session: SessionDep, client: PublishingClientDep,
              service: SearchServiceDep, response: Response) -> CalibrationRunOut:
    """Start choosing this client's alpha and fusion from its own judgments, in the background
    (202, and ``Location``: the run to follow with GET): every judged query (up to 300)
    searched under each of 10 configurations, the choice made by 5-fold cross-validation and
    compared with the defaults per query by a paired bootstrap interval; applied to the
    searches that leave alpha or fusion open only when the interval is above zero. 409
    NOT_ENOUGH_JUDGMENTS under 10 judged queries, CALIBRATION_RUNNING while one runs; 503
    CALIBRATIONS_BUSY when the server runs its most."""
    run = calibration_runs_service.start(runtime.sessions, session, service, client_id=client.id,
                                         default=service_defaults(runtime, service))
    response.headers["Location"] = f"/clients/me/calibration/runs/{run.id}"
    return run_out(run)


@router.get("/clients/me/calibration/runs/{run_id}", response_model=CalibrationRunOut,
            responses=error_responses(401, 403, 404, 422, 500))
def get_calibration_run(run_id: Annotated[str, Path(max_length=36)], session: SessionDep,
                        client: PublishingClientDep) -> CalibrationRunOut:
    """A calibration run of this client's: its progress, then its report or why it failed (a
    run whose server stopped is failed, CALIBRATION_INTERRUPTED, within a minute)."""
    return run_out(calibration_runs.get(session, client_id=client.id, run_id=run_id))


def run_out(run: CalibrationRun) -> CalibrationRunOut:
    total = max(run.searches_total, 1)
    return CalibrationRunOut(
        run_id=run.id, status=run.status,  # type: ignore[arg-type]
        progress=round(min(run.searches_done / total, 1.0), 4),
        searches_done=run.searches_done, searches_total=run.searches_total,
        created_at=run.created_at, finished_at=run.finished_at,
        report=CalibrationOut(**run.report) if run.report else None,
        error_code=run.error_code, error=run.error)


@router.get("/clients/me/calibration", response_model=CalibrationState,
            responses=error_responses(401, 403, 422, 500))
def get_calibration(runtime: RuntimeDep, session: SessionDep, client: PublishingClientDep,
                    service: SearchServiceDep) -> CalibrationState:
    """The defaults this client's searches use: its calibrated ones, or the service's."""
    state = calibration_state(session, client.id, service_defaults(runtime, service))
    latest = calibration_runs.latest(session, client_id=client.id)
    return state.model_copy(update={"latest_run": run_out(latest) if latest else None})


@router.delete("/clients/me/calibration", status_code=204,
               responses=error_responses(401, 403, 422, 500))
def reset_calibration(session: SessionDep, client: PublishingClientDep) -> Response:
    """Back to the service's defaults."""
    judgments_registry.reset(session, client_id=client.id)
    return Response(status_code=204)


def service_defaults(runtime: Runtime, service: SearchService) -> Setting:
    return Setting(alpha=service.default_alpha, fusion=runtime.settings.search.fusion)


def calibration_state(session: Session, client_id: str, default: Setting) -> CalibrationState:
    own = judgments_registry.calibration(session, client_id=client_id)
    return CalibrationState(
        applied=SearchDefaults(alpha=own.alpha, fusion=own.fusion) if own else None,
        applied_at=own.applied_at if own else None,
        defaults=SearchDefaults(alpha=default.alpha, fusion=default.fusion),
        report=CalibrationOut(**own.report) if own else None)
