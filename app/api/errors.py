"""One error shape for every failure: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.domain.errors import ServiceError
from app.ops.logs import request_id

# Request-validation failures on these fields get their own stable code.
FIELD_CODES = {
    "query": "INVALID_QUERY", "alpha": "INVALID_ALPHA", "scope": "INVALID_SCOPE",
    "limit": "INVALID_LIMIT", "offset": "INVALID_OFFSET", "filters": "INVALID_FILTER",
    "rerank": "INVALID_REQUEST", "explain": "INVALID_REQUEST", "fusion": "INVALID_FUSION",
    "versions": "INVALID_VERSIONS", "as_of": "INVALID_AS_OF", "diagnose": "INVALID_DIAGNOSE",
    "access": "ACCESS_GROUP_INVALID", "groups": "ACCESS_GROUP_INVALID",
}
# body fields only (GET /documents?sort= keeps INVALID_REQUEST, as it always answered)
BODY_FIELD_CODES = {"sort": "INVALID_SORT", "queries": "INVALID_QUERY_LIST"}


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict:
    """The one error shape; ``details.request_id`` names the request in the logs."""
    details = dict(details or {})
    rid = request_id.get()
    if rid is not None:
        details.setdefault("request_id", rid)
    return _encodable({"error": {"code": code, "message": message, "details": details}})


def _encodable(value: Any) -> Any:
    """Strings UTF-8 can encode: an error may quote a client's lone surrogate back, and the
    JSON encoder would fail on it (a 500 while reporting a 422)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encodable(v) for v in value]
    return value


def _field_path(loc: Any) -> list[Any]:
    """The field path without its location prefix (body, query, path, header, form)."""
    loc = list(loc)
    return loc[1:] if loc and loc[0] in ("body", "query", "path", "header", "form") else loc


def _validation_code(errors: list[dict[str, Any]]) -> str:
    first = errors[0] if errors else {}
    if first.get("type") == "extra_forbidden":
        return "UNKNOWN_FIELD"
    if first.get("type") == "json_invalid":
        return "INVALID_JSON"
    where = list(first.get("loc", ()))[:1]
    loc = _field_path(first.get("loc", ()))
    if where == ["body"] and loc and loc[0] in BODY_FIELD_CODES:
        return BODY_FIELD_CODES[loc[0]]
    if loc and isinstance(loc[0], str) and loc[0] in FIELD_CODES:
        return FIELD_CODES[loc[0]]
    if first.get("type") == "missing":
        return "MISSING_FIELD"
    return "INVALID_REQUEST"


def _readable(errors: list[dict[str, Any]]) -> str:
    parts = []
    for e in errors[:5]:
        loc = ".".join(str(p) for p in _field_path(e.get("loc", ())))
        msg = str(e.get("msg", "invalid")).removeprefix("Value error, ")
        if e.get("type") == "extra_forbidden":
            msg = "unknown field"
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def readable_validation_error(errors: list[Any]) -> tuple[str, str]:
    """(stable code, message) for pydantic's errors: the API's 422 and the CLI's one line."""
    errors = [{k: v for k, v in e.items() if k in ("loc", "msg", "type")} for e in errors]
    return _validation_code(errors), _readable(errors)


def _allowed_methods(req: Request) -> list[str] | None:
    """The methods the spec documents for this path, across its routes (Starlette's own 405
    names only the first route that matched, so GET /documents hid POST /documents); None
    for a path outside the spec (the console), whose 405 keeps Starlette's header."""
    table = getattr(req.app.state, "allowed_methods", None)
    if table is None:
        # a literal path before a templated one that also matches it (/searches/batch/upload
        # before /searches/batch/{batch_id})
        paths = sorted(req.app.openapi().get("paths", {}).items(),
                       key=lambda item: item[0].count("{"))
        table = [(re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"),
                  sorted(m.upper() for m in ops if m in _HTTP_METHODS))
                 for path, ops in paths]
        req.app.state.allowed_methods = table
    for pattern, methods in table:
        if pattern.match(req.url.path):
            return methods
    return None


_HTTP_METHODS = frozenset({"get", "put", "post", "delete", "patch", "head", "options", "trace"})


def _unparsable_body(req: Request, cause: BaseException | None) -> tuple[str, str]:
    """(code, message) for a body FastAPI could not parse."""
    if "multipart/" in req.headers.get("content-type", ""):
        return "MULTIPART_INVALID", ("the multipart body could not be parsed: send the file "
                                     "as the form field 'file' (multipart/form-data)")
    if isinstance(cause, RecursionError):
        return "BODY_TOO_DEEP", "the JSON body nests too deeply to be read"
    if isinstance(cause, UnicodeDecodeError):
        return "INVALID_JSON", "the JSON body is not valid UTF-8"
    return "INVALID_JSON", "the JSON body could not be parsed"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service(_req: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(error_body(exc.code, exc.message, exc.details),
                            status_code=exc.http_status)

    @app.exception_handler(RequestValidationError)
    async def _validation(_req: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{k: v for k, v in e.items() if k in ("loc", "msg", "type")}
                  for e in exc.errors()]
        code, message = readable_validation_error(errors)
        return JSONResponse(error_body(code, message, {"errors": errors}), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(req: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(exc.status_code, "HTTP_ERROR")
        message = str(exc.detail)
        if exc.status_code == 400:  # FastAPI could not parse the body: say what was wrong
            code, message = _unparsable_body(req, exc.__cause__ or exc.__context__)
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405 and (allowed := _allowed_methods(req)) is not None:
            headers = {**(headers or {}), "Allow": ", ".join(allowed)}  # RFC 9110
        return JSONResponse(error_body(code, message), status_code=exc.status_code,
                            headers=headers)

    # Unexpected exceptions are answered by app/api/guard.py's CatchAll (connection kept).
