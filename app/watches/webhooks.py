"""Webhooks: where they may go (the signing itself is evidence_client.webhooks.signature, the
same function a receiver checks with).

Only hosts an operator names in ``EVIDENCE_WATCH__WEBHOOK_HOSTS`` are ever called (checked at
creation — a 422 — and again before each POST, so removing a host stops its deliveries), no
redirect is followed (a redirect could lead anywhere), and the URL may carry no user or
password. The body is signed as GitHub and Stripe sign theirs: ``X-Evidence-Signature:
sha256=<hex HMAC-SHA256 of the exact body bytes with the watch's secret>``.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import urlsplit

from app.domain.errors import BadRequest

SIGNATURE_HEADER = "X-Evidence-Signature"
DELIVERY_HEADER = "X-Evidence-Delivery"  # the same on every try of one match: drop a repeat
MAX_URL_CHARS = 2000
DEFAULT_PORTS = frozenset({80, 443})  # what an allowed host without a port admits
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "0.0.0.0", "::"})


def _target(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) as the sender will use them: httpx's own parser, the one that
    sends the POST (a URL it cannot send is refused here, not found at delivery — a
    header-injecting ``\r\n`` once failed a whole batch of deliveries), then the checks it
    leaves out: no whitespace or control character anywhere, a port in range, http(s)."""
    import httpx

    if len(url) > MAX_URL_CHARS:
        raise ValueError(f"longer than {MAX_URL_CHARS} characters")
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise ValueError("a space or control character in the URL")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(str(exc)) from None
    parts = urlsplit(url)
    port = parts.port  # raises ValueError out of range
    scheme = parsed.scheme.lower()
    if scheme not in ("http", "https"):
        raise ValueError("not an http:// or https:// URL")
    if not parsed.host:
        raise ValueError("no host")
    if parts.username is not None or parts.password is not None:
        raise PermissionError("a user or password in the URL")
    return scheme, parsed.host.lower(), port or (443 if scheme == "https" else 80)


def host_allowed(url: str, allowed: frozenset[str],
                 own: tuple[str, int] | None = None) -> bool:
    """Is ``url``'s host and port among the operator's allowed entries — ``host:port`` that
    port, a bare ``host`` its default ports only (80, 443: an allowed host used to open every
    port on it, the server's own API and PostgreSQL's included) — and not the server's own
    listening address (``own``: its host and port)?"""
    try:
        _scheme, host, port = _target(url)
    except (ValueError, PermissionError):
        return False
    host = host.strip("[]")
    if own is not None and port == own[1] and (host == own[0] or _is_local(host)):
        return False
    return f"{host}:{port}" in allowed or (host in allowed and port in DEFAULT_PORTS)


def _is_local(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def checked_url(url: str, allowed: frozenset[str], own: tuple[str, int] | None = None) -> str:
    """The webhook URL as given, or a 422 saying what is wrong with it."""
    try:
        _scheme, host, _port = _target(url)
    except PermissionError:
        raise BadRequest("webhook_url must not carry a user or password: the signature "
                         "authenticates the sender", code="WEBHOOK_URL_INVALID") from None
    except ValueError as exc:
        raise BadRequest(f"webhook_url must be an absolute http:// or https:// URL ({exc})",
                         code="WEBHOOK_URL_INVALID") from None
    if not host_allowed(url, allowed, own):
        named = ", ".join(sorted(allowed)) or "none"
        raise BadRequest(f"webhooks may only go to the hosts and ports the operator allows "
                         f"(EVIDENCE_WATCH__WEBHOOK_HOSTS: {named}; a host without a port "
                         f"allows 80 and 443), never to this server itself; {host!r} at this "
                         "port is not one of them", code="WEBHOOK_HOST_NOT_ALLOWED")
    return url


def own_address(data_dir: Path) -> tuple[str, int] | None:
    """Where this server listens — the record a live `evidence serve` keeps in its data folder
    (app/cli/server_api.recorded_server) — so a webhook never POSTs to the API itself; None
    where no live server recorded one (tests, embedded use)."""
    import json
    import os

    try:
        record = json.loads((data_dir / "server.json").read_text())
        os.kill(int(record["pid"]), 0)
        parts = urlsplit(str(record["url"]))
        return (parts.hostname or "").lower(), int(parts.port or 80)
    except (OSError, ValueError, KeyError, TypeError):
        return None
