"""A webhook receiver on 127.0.0.1 for the watch tests (API, client, CLI)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """A webhook receiver on 127.0.0.1: records each POST; answers with ``statuses`` in turn
    (then 200)."""

    def __init__(self) -> None:
        self.posts: list[tuple[dict[str, str], bytes]] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.append((dict(self.headers), body))
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def allowed_by(self, server: object) -> Receiver:
        """This receiver's host and port added to a live server's webhook allow-list (a host
        without a port admits 80 and 443 only); the server as tests/live.py runs it."""
        entry = f"127.0.0.1:{self.port}"
        for watch in {id(g): g for g in (server.runtime.settings.watch,  # type: ignore[attr-defined]
                                         server.app.state.watch_runner.settings)}.values():  # type: ignore[attr-defined]
            watch.webhook_hosts = ",".join(filter(None, (watch.webhook_hosts, entry)))
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
