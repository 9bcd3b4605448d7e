"""The CLI's side of the HTTP API: one client for every command that talks to a server, turning
every way a call can fail into a ServiceError the CLI prints as one line (never a traceback)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
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
    """A running server's API with the caller's key, through the public client
    (evidence_client: one client, several doors); a context manager (one connection). Its
    errors become ServiceErrors naming the CLI's own remedies."""

    def __init__(self, url: str, key: str, timeout: float = 120) -> None:
        from evidence_client import EvidenceClient

        self.url = url.rstrip("/")
        self._client = EvidenceClient(self.url, api_key=key, timeout=timeout, retries=1)

    def __enter__(self) -> ServerApi:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._client.close()

    def call(self, method: str, path: str, *, ok: tuple[int, ...] = (200,),
             **kwargs: Any) -> Any:
        """The JSON body of a successful answer; anything else raises a one-line error."""
        from evidence_client import EvidenceError
        from evidence_client.client import Call

        try:
            return self._client._run(Call(method, path, ok=ok, **kwargs))  # noqa: SLF001
        except EvidenceError as exc:
            raise cli_error(exc, self.url) from None


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
