"""The CLI's side of the HTTP API: one client for every command that talks to a server, turning
every way a call can fail into a ServiceError the CLI prints as one line (never a traceback)."""

from __future__ import annotations

from typing import Any

import httpx

from app.errors import ServiceError, Unauthorized
from app.settings import Settings

KEY_ADVICE = "pass --api-key or set EVIDENCE_API_KEY"


def resolve_key(settings: Settings, api_key: str | None) -> str:
    """The key given, else the first client's key the embedded default wrote on first start."""
    from app.runtime import local_key

    key = api_key or local_key(settings)
    if not key:
        raise Unauthorized(f"no API key: {KEY_ADVICE} (the first `evidence serve` writes "
                           f"one to {settings.data_dir}/initial-api-key.txt)",
                           code="API_KEY_MISSING")
    return key


class ServerApi:
    """A running server's API with the caller's key; a context manager (one connection)."""

    def __init__(self, url: str, key: str, timeout: float = 120) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=timeout,
                                  headers={"Authorization": f"Bearer {key}"})

    def __enter__(self) -> ServerApi:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._http.close()

    def call(self, method: str, path: str, *, ok: tuple[int, ...] = (200,),
             **kwargs: Any) -> Any:
        """The JSON body of a successful answer; anything else raises a one-line error."""
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.ConnectError:
            raise ServiceError(f"cannot reach the server at {self.url}: start it with "
                               "`evidence serve`, or pass --server with its URL",
                               code="SERVER_UNREACHABLE") from None
        except httpx.TimeoutException:
            raise ServiceError(f"the server at {self.url} did not answer in time",
                               code="SERVER_TIMEOUT") from None
        except httpx.HTTPError as exc:
            raise ServiceError(f"talking to {self.url} failed: {exc}",
                               code="SERVER_ERROR") from None
        if response.status_code in ok:
            return response.json() if response.content else None
        raise error_from(response)


def server_call(settings: Settings, api_key: str | None, server: str, method: str, path: str,
                timeout: float = 120, **kwargs: Any) -> Any:
    """One call to a running server with the caller's key (``ServerApi.call``)."""
    with ServerApi(server, resolve_key(settings, api_key), timeout=timeout) as api:
        return api.call(method, path, **kwargs)


def error_from(response: httpx.Response) -> ServiceError:
    """The server's error in the one shape, or what the status says when there is none."""
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
        details = error.get("details") or {}
    except (ValueError, KeyError, TypeError):
        code, message, details = "HTTP_ERROR", f"HTTP {response.status_code} from " \
            f"{response.request.url}: {response.text[:200]}", {}
    if response.status_code == 401:
        message = f"the server refused the API key ({message}): {KEY_ADVICE}"
    return ServiceError(message, code=code, http_status=response.status_code, details=details)
