"""The outermost door: every request gets an id, a log line and its metrics.

The id is the caller's ``X-Request-ID`` when it is a sane token (≤ 128 of letters, digits and
``._-:``), else a new one; it is echoed on the response, carried by every log line of the
request (app/ops/logs.py) and by every error body's ``details.request_id`` (app/api/errors.py).
Metrics label a request by its route template (``/documents/{document_id}``), never by its
raw path, so a caller cannot grow the label set.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.ops import metrics
from app.ops.logs import request_id

log = logging.getLogger("evidence.access")
REQUEST_ID_HEADER = b"x-request-id"
SANE_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")


def _route(scope: Scope) -> str:
    route = scope.get("route")
    return getattr(route, "path", None) or "unmatched"


class Observe:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(REQUEST_ID_HEADER, b"").decode(
            "latin-1")
        rid = given if SANE_ID.fullmatch(given) else uuid.uuid4().hex
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []),
                                      (REQUEST_ID_HEADER, rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route, method = _route(scope), scope.get("method", "")
            metrics.HTTP_REQUESTS.labels(method, route, str(status)).inc()
            metrics.HTTP_SECONDS.labels(method, route).observe(seconds)
            log.info("%s %s %d", method, scope.get("path", "")[:200], status,
                     extra={"fields": {"method": method, "route": route, "status": status,
                                       "ms": round(seconds * 1000, 2)}})
            request_id.reset(token)
