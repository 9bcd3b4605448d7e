"""The CLI's side of the HTTP API: one client for every command that talks to a server, turning
every way a call can fail into a ServiceError the CLI prints as one line (never a traceback)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.domain.errors import ServiceError, Unauthorized

if TYPE_CHECKING:
    from app.settings import Settings

KEY_ADVICE = "pass --api-key or set EVIDENCE_API_KEY"
SERVER_RECORD = "server.json"  # in the data folder, while `evidence serve` runs


@contextmanager
def recorded_server(settings: Settings, host: str, port: int) -> Iterator[None]:
    """While `evidence serve` runs: where it listens, and its pid, in its data folder, so
    every CLI command sharing that folder finds it on any port (issue 38)."""
    import json
    import os

    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    path = settings.data_dir / SERVER_RECORD
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"url": f"http://{shown}:{port}", "pid": os.getpid()}))
    # uvicorn re-raises SIGTERM after its graceful shutdown, with the handler it found; with
    # the default one the process would end before the record is removed (a stale record is
    # ignored anyway: its pid is gone)
    previous = signal.getsignal(signal.SIGTERM)
    if previous is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        if previous is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, previous)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def server_url(settings: Settings) -> str:
    """The server the CLI talks to: EVIDENCE_SERVER_URL where set, else the one a running
    `evidence serve` recorded in the data folder (a record whose process is gone is ignored),
    else the default. ``--server`` overrides all three where a command takes it."""
    import os

    if "EVIDENCE_SERVER_URL" in os.environ:
        return settings.server_url
    return running_server(settings) or settings.server_url


def running_server(settings: Settings) -> str | None:
    """Where to send a command while a live `evidence serve` holds this data folder — the URL
    it recorded, or EVIDENCE_SERVER_URL where set (it wins, as in server_url) — else None (no
    record, or its process is gone). Commands that could run in this process ask it first: a
    running server holds the engine anyway, and asking it spares loading models (issue 38)."""
    import json
    import os

    try:
        record = json.loads((settings.data_dir / SERVER_RECORD).read_text())
        os.kill(int(record["pid"]), 0)  # raises where no such process is alive
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return settings.server_url if "EVIDENCE_SERVER_URL" in os.environ else str(record["url"])


def resolve_key(settings: Settings, api_key: str | None) -> str:
    """The key given, else the first client's key the embedded default wrote on first start."""
    key = api_key or local_key(settings)
    if not key:
        raise Unauthorized(f"no API key: {KEY_ADVICE} (the first `evidence serve` writes "
                           f"one to {settings.data_dir}/initial-api-key.txt)",
                           code="API_KEY_MISSING")
    return key


def local_key(settings: Settings) -> str | None:
    """The first client's key, written by the embedded default's first start."""
    from app.settings import INITIAL_KEY_FILE

    path = settings.data_dir / INITIAL_KEY_FILE
    return path.read_text().strip() if path.exists() else None


class ServerApi:
    """A running server's API with the caller's key; a context manager. JSON calls go over the
    standard library's http.client (httpx and its HTTP/2 stack took 0.14 s of every command
    to import — more than the call itself); uploads (multipart) through the public client
    (evidence_client). Either way its errors become ServiceErrors naming the CLI's own
    remedies."""

    def __init__(self, url: str, key: str, timeout: float = 120) -> None:
        self.url, self.key, self.timeout = url.rstrip("/"), key, timeout
        self._client: Any = None

    def __enter__(self) -> ServerApi:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._client is not None:
            self._client.close()

    def call(self, method: str, path: str, *, ok: tuple[int, ...] = (200,),
             **kwargs: Any) -> Any:
        """The JSON body of a successful answer; anything else raises a one-line error."""
        if not (kwargs.get("files") or kwargs.get("data")):
            return json_call(self.url, self.key, method, path, ok=ok, timeout=self.timeout,
                             params=kwargs.get("params"), body=kwargs.get("json"),
                             raw=bool(kwargs.get("raw")))
        from evidence_client import EvidenceClient, EvidenceError
        from evidence_client.client import Call

        if self._client is None:
            self._client = EvidenceClient(self.url, api_key=self.key, timeout=self.timeout,
                                          retries=1)
        try:
            return self._client._run(Call(method, path, ok=ok, **kwargs))  # noqa: SLF001
        except EvidenceError as exc:
            raise cli_error(exc, self.url) from None


@dataclass(frozen=True)
class _Failed:
    """What cli_error reads of a failed call (as evidence_client's EvidenceError holds it)."""

    code: str
    message: str
    status: int | None = None
    details: dict[str, Any] | None = None


def json_call(url: str, key: str, method: str, path: str, *, ok: tuple[int, ...] = (200,),
              timeout: float = 120, params: dict[str, Any] | None = None,
              body: Any = None, raw: bool = False) -> Any:
    """One JSON call to the API, answered as evidence_client answers it: the body of a
    success (``raw``: its bytes — a page image, an original file), else the API's one error
    shape (or the plain HTTP status a proxy gave) as a ServiceError; a server that cannot be
    reached or does not answer in time said so."""
    import http.client
    import json
    import socket
    from urllib.parse import urlencode, urlsplit

    parts = urlsplit(url)
    connection = (http.client.HTTPSConnection if parts.scheme == "https"
                  else http.client.HTTPConnection)(parts.hostname or "", parts.port,
                                                   timeout=timeout)
    query = urlencode([(k, _param(v)) for k, values in (params or {}).items()
                       for v in (values if isinstance(values, list | tuple) else [values])
                       if v is not None])
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json",
               "User-Agent": "evidence-cli"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, parts.path.rstrip("/") + path + (f"?{query}" if query
                                                                       else ""),
                           body=data, headers=headers)
        response = connection.getresponse()
        content = response.read()
    except (TimeoutError, socket.timeout):
        raise cli_error(_Failed("SERVER_TIMEOUT", f"the server at {url} did not answer in "
                                                  "time"), url) from None
    except (ConnectionError, socket.gaierror):
        raise cli_error(_Failed("SERVER_UNREACHABLE", f"cannot reach the server at {url}"),
                        url) from None
    except (OSError, http.client.HTTPException) as exc:
        raise cli_error(_Failed("SERVER_ERROR", f"talking to {url} failed: {exc}"),
                        url) from None
    finally:
        connection.close()
    if response.status in ok:
        return content if raw else json.loads(content) if content else None
    try:
        error = json.loads(content)["error"]
        details = dict(error.get("details") or {})
        details.pop("request_id", None)
        failed = _Failed(str(error["code"]), str(error["message"]), response.status, details)
    except (ValueError, KeyError, TypeError):
        failed = _Failed("HTTP_ERROR", f"HTTP {response.status}: "
                                       f"{content[:200].decode('utf-8', 'replace')}",
                         response.status)
    raise cli_error(failed, url)


def _param(value: Any) -> str:
    """A query parameter as httpx writes it (true / false, not Python's True / False)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def cli_error(exc: Any, url: str) -> ServiceError:
    """The public client's EvidenceError as the CLI says it: with the remedy to type."""
    if exc.code == "SERVER_UNREACHABLE":
        return ServiceError(f"cannot reach the server at {url}: start it with `evidence "
                            "serve`, or pass --server with its URL", code=exc.code)
    message = exc.message
    if exc.status == 401:
        message = f"the server refused the API key ({message}): {KEY_ADVICE}"
    return ServiceError(message, code=exc.code, http_status=exc.status or 502,
                        details=exc.details)


def server_call(settings: Settings, api_key: str | None, server: str, method: str, path: str,
                timeout: float = 120, **kwargs: Any) -> Any:
    """One call to a running server with the caller's key (``ServerApi.call``)."""
    with ServerApi(server, resolve_key(settings, api_key), timeout=timeout) as api:
        return api.call(method, path, **kwargs)
