"""/docs and /redoc work with the network cut: every script and style comes from this server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.fixture
def svc(tmp_path: Path) -> Service:
    with running_service(tmp_path, fake_models()) as service:
        yield service


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_load_every_asset_from_this_server(svc: Service, page: str) -> None:
    html = svc.http.get(page)
    assert html.status_code == 200, html.text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']|url: ?['"]([^'"]+)['"]""", html.text)
    urls = [a or b for a, b in urls]
    assert urls and not [u for u in urls if "//" in u], urls  # no absolute URL, no CDN
    assert "cdn" not in html.text.lower()
    for url in urls:
        asset = svc.http.get(url)  # public, like the page: no API key
        assert asset.status_code == 200, url
    scripts = [u for u in urls if u.endswith(".js")]
    assert scripts and all(u.startswith("/docs-assets/") for u in scripts)
    assert len(svc.http.get(scripts[0]).content) > 500_000  # the real bundle, not a stub


def test_docs_assets_are_public_but_nothing_else_is(svc: Service) -> None:
    assert svc.http.get("/docs-assets/../documents").status_code in (401, 404)
    assert svc.http.get("/docs-assetsX/swagger-ui.css").status_code == 401
    assert svc.http.get("/docs-assets/nothing.js").status_code == 404
