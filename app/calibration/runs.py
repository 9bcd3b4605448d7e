"""A calibration as a background run (issue 47): POST answers 202 at once with the run, which
searches in a thread of its own and reports its progress; GET follows it to its report.

Why a thread of the API process, not the ingestion queue: a calibration is searches — the
search service, its models and its engine live here, and a worker may run elsewhere. Bounded:
one run a client (the registry's constraint), ``MAX_RUNNING`` a process (503 CALIBRATIONS_BUSY
past it), and paced — after each search the run waits as long as that search took, so it
holds at most about half a core and live searches keep the rest.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.orm import Session, sessionmaker

from app.calibration.service import Setting, run_and_apply, search_count
from app.domain.errors import ServiceError, Unavailable
from app.registry import calibration_runs
from app.registry.database import transaction
from app.registry.tables import CalibrationRun
from app.search.service import SearchService

log = logging.getLogger(__name__)

MAX_RUNNING = 2  # calibrations searching at once in one server process
PACE = 1.0  # after a search, wait this many times as long as it took
BEAT_EVERY_S = 1.0  # progress written at most this often

_slots = threading.BoundedSemaphore(MAX_RUNNING)


def start(sessions: sessionmaker[Session], session: Session, search: SearchService, *,
          client_id: str, default: Setting) -> CalibrationRun:
    """The client's new run, started: 409 NOT_ENOUGH_JUDGMENTS or CALIBRATION_RUNNING, 503
    CALIBRATIONS_BUSY, before anything runs."""
    total = search_count(session, client_id=client_id, default=default)
    if not _slots.acquire(blocking=False):
        raise Unavailable(f"{MAX_RUNNING} calibrations are running on this server; start this "
                          "one again in a minute", code="CALIBRATIONS_BUSY",
                          details={"running": MAX_RUNNING, "retry_after_s": 60})
    try:
        run = calibration_runs.start(session, client_id=client_id, searches_total=total)
        thread = threading.Thread(target=_run, args=(sessions, search, run.id, client_id,
                                                     default), name=f"calibration-{run.id[:8]}",
                                  daemon=True)
        thread.start()
    except BaseException:
        _slots.release()
        raise
    return run


def _run(sessions: sessionmaker[Session], search: SearchService, run_id: str,
         client_id: str, default: Setting) -> None:
    try:
        with transaction(sessions) as session:
            report = run_and_apply(session, search, client_id=client_id, default=default,
                                   after_search=_progress(sessions, run_id))
            calibration_runs.succeed(session, run_id=run_id, report=report.as_json())
    except ServiceError as exc:  # judgments deleted meanwhile: NOT_ENOUGH_JUDGMENTS …
        _fail(sessions, run_id, exc.code, exc.message)
    except Exception as exc:  # never left running: the reason is the run's, the trace logged
        log.exception("calibration run %s failed", run_id)
        _fail(sessions, run_id, "CALIBRATION_FAILED",
              f"the calibration stopped: {type(exc).__name__}; nothing was applied")
    finally:
        _slots.release()


def _fail(sessions: sessionmaker[Session], run_id: str, code: str, message: str) -> None:
    with transaction(sessions) as session:
        calibration_runs.fail(session, run_id=run_id, code=code, message=message)


def _progress(sessions: sessionmaker[Session], run_id: str) -> Callable[[], None]:
    """After each search: count it, write the count at most every ``BEAT_EVERY_S`` (in a
    transaction of its own, so GET sees it), then wait ``PACE`` × the search's time."""
    done, last_beat, last_search = 0, time.monotonic(), time.monotonic()

    def after_search() -> None:
        nonlocal done, last_beat, last_search
        done += 1
        now = time.monotonic()
        if now - last_beat >= BEAT_EVERY_S:
            with transaction(sessions) as session:
                calibration_runs.beat(session, run_id=run_id, searches_done=done)
            last_beat = now
        if PACE > 0:
            time.sleep(PACE * (now - last_search))
        last_search = time.monotonic()

    return after_search
