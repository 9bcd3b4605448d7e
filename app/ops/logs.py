"""Logs as an event stream (Twelve-Factor): one line per event on stderr, JSON or text
(``EVIDENCE_LOG__FORMAT``), each carrying the request id of the request it belongs to.

A line's structured fields come from ``extra={"fields": {...}}``; callers put there what an
operator needs (client id, scope, counts, milliseconds), never an API key or document text.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s%(fields_text)s"


class _RequestContext(logging.Filter):
    """Every record gets the current request id ("-" outside a request) and its fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = getattr(record, "request_id", None) or request_id.get() or "-"
        fields = getattr(record, "fields", None) or {}
        record.fields_text = "".join(f" {k}={v}" for k, v in fields.items())
        return True


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a line is logged (as logging.lastResort
    does), so a process whose stderr is swapped (test runners, daemons) never writes to a
    closed stream."""

    @property  # type: ignore[override]
    def stream(self):  # type: ignore[no-untyped-def]
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:  # type: ignore[no-untyped-def]
        pass


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname, "logger": record.name,
            "pid": record.process,  # which of `evidence serve --workers N`'s processes
            "request_id": getattr(record, "request_id", "-"),
            "message": record.getMessage()}
        line.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """The process's logging: one stderr handler in the chosen format for every logger,
    uvicorn's included (its access log is replaced by the app's, app/api/observe.py)."""
    handler = _Stderr()
    handler.addFilter(_RequestContext())
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    # Alembic speaks only when it migrates (app/registry/database.migrate logs that it does)
    logging.getLogger("alembic").setLevel(logging.WARNING)
