"""The door: what every request passes before a route sees it (pure ASGI middleware).

- ``CatchAll`` (outermost): an unexpected exception answers 500 in the one error shape and the
  connection stays usable. (Starlette's own handler answers, then re-raises, and the server
  then drops a keep-alive connection, failing the client's next request too.)
- ``Gate``: the body is bounded before anything reads it and the API key is checked before the
  body is read at all. A Content-Length over the limit is refused at once; a body without one
  is counted as it streams and cut off at the limit. Unauthenticated callers get their 401
  without the server reading, parsing or storing what they sent.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Any

import anyio
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import error_body
from app.domain.access import GROUPS_HEADER, Access, delegated
from app.domain.errors import Forbidden, ServiceError
from app.registry import clients as clients_registry
from app.registry.database import transaction

log = logging.getLogger(__name__)
PUBLIC_PATHS = frozenset({"/", "/health", "/healthz", "/readyz", "/metrics", "/docs",
                          "/docs/oauth2-redirect", "/redoc", "/openapi.json", "/console"})
CONSOLE = "/console"  # the browser console's files (app/api/console.py): public, it signs in
DOCS_ASSETS = "/docs-assets"  # Swagger UI and ReDoc's scripts (app/main.py), public too


async def _answer(scope: Scope, receive: Receive, send: Send, status: int, code: str,
                  message: str, details: dict[str, Any] | None = None) -> None:
    await JSONResponse(error_body(code, message, details), status_code=status)(
        scope, receive, send)


def _is_public(path: str) -> bool:
    return (path in PUBLIC_PATHS or path.startswith(DOCS_ASSETS + "/")
            or path.startswith(CONSOLE + "/"))


class CatchAll:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:  # noqa: BLE001 - the one place unexpected errors end
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if not started:
                await _answer(scope, receive, send, 500, "INTERNAL_ERROR",
                              "an unexpected error occurred; it has been logged",
                              {"type": type(exc).__name__})


class Gate:
    def __init__(self, app: ASGIApp, *, json_limit: int, multipart_limit: int) -> None:
        self.app, self.json_limit, self.multipart_limit = app, json_limit, multipart_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        multipart = headers.get("content-type", "").lower().startswith("multipart/form-data")
        limit = self.multipart_limit if multipart else self.json_limit
        code = "FILE_TOO_LARGE" if multipart else "REQUEST_TOO_LARGE"
        too_large = (f"the request body is over the limit of {limit:,} bytes"
                     + (" (the upload limit plus a margin for the form)" if multipart else ""))
        declared = headers.get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                await _answer(scope, receive, send, 400, "INVALID_REQUEST",
                              "Content-Length is not a number")
                return
            if int(declared) > limit:
                await _answer(scope, receive, send, 413, code, too_large,
                              {"limit_bytes": limit})
                return
        if not _is_public(scope["path"]):
            refused = await self._authenticate(scope, headers)
            if refused is not None:
                await _answer(scope, receive, send, refused.http_status, refused.code,
                              refused.message, refused.details)
                return

        received, cut_off, sent = 0, False, False

        async def counting_receive() -> Message:
            nonlocal received, cut_off
            if cut_off:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:  # the route sees a disconnect; we answer 413 below
                    cut_off = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal sent
            if cut_off:
                return  # the route's answer to the cut-off body is replaced by the 413
            sent = sent or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not cut_off:
                raise
        if cut_off and not sent:
            await _answer(scope, receive, send, 413, code, too_large, {"limit_bytes": limit})

    @staticmethod
    async def _authenticate(scope: Scope, headers: dict[str, str]) -> ServiceError | None:
        """Resolve the API key to its caller (kept in the request state for the routes)."""
        secret = headers.get("x-api-key")
        authorization = headers.get("authorization", "")
        if authorization.lower().startswith("bearer "):
            secret = authorization[7:].strip()
        runtime = scope["app"].state.runtime

        def lookup() -> clients_registry.Caller:
            with transaction(runtime.sessions) as session:
                return clients_registry.caller_for_key(session, secret=secret)

        try:
            caller = await anyio.to_thread.run_sync(lookup)
            caller = with_access(caller, headers.get(GROUPS_HEADER), scope["method"],
                                 scope["path"])
        except ServiceError as exc:
            return exc
        scope.setdefault("state", {})["caller"] = caller
        return None


# What a caller with access groups may call (issue 48): the doors that filter by its groups.
# Every other door — an admin key's: judgments and calibration set the client's defaults, the
# metadata catalogue counts everything, keys are issued — answers 403
# ACCESS_GROUPS_NOT_SUPPORTED, never an answer built from documents it may not see; a new door
# joins this list with the tests that show it filters (tests/api/test_access_groups_api.py).
GROUP_DOORS = tuple((door.split(" ")[0], re.compile(door.split(" ")[1])) for door in (
    "POST /documents", "GET /documents", "GET /documents/[^/]+", "PATCH /documents/[^/]+",
    "DELETE /documents/[^/]+", "GET /documents/[^/]+/changes", "GET /jobs/[^/]+",
    "GET /documents/[^/]+/versions/[^/]+/file", "GET /documents/[^/]+/versions/[^/]+/pages/.+",
    "POST /search", "GET /clients/me", "GET /entities", "GET /entities/.+/documents",
    "GET /threads/[^/]+", "POST /watches", "GET /watches", "GET /watches/[^/]+",
    "DELETE /watches/[^/]+", "GET /watches/[^/]+/matches", "POST /searches/batch",
    "POST /searches/batch/upload", "GET /searches/batch", "GET /searches/batch/[^/]+",
    "GET /searches/batch/[^/]+/results", "DELETE /searches/batch/[^/]+"))


def with_access(caller: clients_registry.Caller, groups_header: str | None, method: str,
                path: str) -> clients_registry.Caller:
    """The caller with the groups this request runs with (the key's, narrowed by
    X-Evidence-Groups: app/domain/access.delegated); 403 where it has groups and the door
    does not filter by them yet."""
    groups = delegated(caller.access.groups, caller.may_delegate, groups_header)
    if groups is not None and not any(m == method and p.fullmatch(path.rstrip("/") or "/")
                                      for m, p in GROUP_DOORS):
        raise Forbidden(f"{method} {path[:200]} does not filter by access groups yet: call it "
                        "with a key without groups", code="ACCESS_GROUPS_NOT_SUPPORTED")
    return replace(caller, access=Access(groups), narrowed=groups if groups_header is not None
                   else None)
