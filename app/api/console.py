"""Serving the browser console (app/console/): its files under /console/ with a strict
Content-Security-Policy, and / sending a person there."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.responses import RedirectResponse
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.console import CONSOLE_CSP, CONSOLE_DIR

SERVED = (".html", ".css", ".js", ".svg")


class ConsoleFiles(StaticFiles):
    """The console's own files only (never its Python), each with the console's CSP."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path not in ("", ".") and not path.endswith(SERVED):
            raise HTTPException(status_code=404)
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = CONSOLE_CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-cache"
        return response


def mount_console(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    @app.get("/console", include_in_schema=False)
    def to_console() -> RedirectResponse:
        return RedirectResponse("/console/", status_code=307)  # relative: no Host echoed

    app.mount("/console", ConsoleFiles(directory=CONSOLE_DIR, html=True), name="console")
