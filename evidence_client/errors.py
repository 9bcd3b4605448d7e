"""One exception type for every way a call can fail, carrying what the server said."""

from __future__ import annotations

from typing import Any

import httpx


class EvidenceError(Exception):
    """A failed call: ``code`` is the API's stable error code (or a transport code such as
    ``SERVER_UNREACHABLE``), ``status`` the HTTP status (None when no answer came),
    ``request_id`` the server's id for its logs."""

    def __init__(self, code: str, message: str, *, status: int | None = None,
                 request_id: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status = code, message, status
        self.request_id, self.details = request_id, details or {}

    @classmethod
    def from_response(cls, response: httpx.Response) -> EvidenceError:
        """The API's one error shape {"error": {code, message, details}}, or a plain HTTP
        error where a proxy answered instead."""
        try:
            error = response.json()["error"]
            details = dict(error.get("details") or {})
            return cls(str(error["code"]), str(error["message"]), status=response.status_code,
                       request_id=details.pop("request_id", None)
                       or response.headers.get("X-Request-ID"), details=details)
        except (ValueError, KeyError, TypeError):
            return cls("HTTP_ERROR", f"HTTP {response.status_code}: {response.text[:200]}",
                       status=response.status_code,
                       request_id=response.headers.get("X-Request-ID"))
