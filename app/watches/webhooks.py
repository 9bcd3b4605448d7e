"""Webhooks: where they may go (the signing itself is evidence_client.webhooks.signature, the
same function a receiver checks with).

Only hosts an operator names in ``EVIDENCE_WATCH__WEBHOOK_HOSTS`` are ever called (checked at
creation — a 422 — and again before each POST, so removing a host stops its deliveries), no
redirect is followed (a redirect could lead anywhere), and the URL may carry no user or
password. The body is signed as GitHub and Stripe sign theirs: ``X-Evidence-Signature:
sha256=<hex HMAC-SHA256 of the exact body bytes with the watch's secret>``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from app.domain.errors import BadRequest

SIGNATURE_HEADER = "X-Evidence-Signature"
MAX_URL_CHARS = 2000


def host_allowed(url: str, allowed: frozenset[str]) -> bool:
    """Is ``url``'s host (or host:port) among the operator's allowed entries?"""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    host = (parts.hostname or "").lower()
    return bool(host) and (host in allowed or f"{host}:{port}" in allowed)


def checked_url(url: str, allowed: frozenset[str]) -> str:
    """The webhook URL as given, or a 422 saying what is wrong with it."""
    if len(url) > MAX_URL_CHARS:
        raise BadRequest(f"webhook_url is longer than {MAX_URL_CHARS} characters",
                         code="WEBHOOK_URL_INVALID")
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadRequest("webhook_url must be an absolute http:// or https:// URL",
                         code="WEBHOOK_URL_INVALID")
    if parts.username is not None or parts.password is not None:
        raise BadRequest("webhook_url must not carry a user or password: the signature "
                         "authenticates the sender", code="WEBHOOK_URL_INVALID")
    if not host_allowed(url, allowed):
        named = ", ".join(sorted(allowed)) or "none"
        raise BadRequest(f"webhooks may only go to hosts the operator allows "
                         f"(EVIDENCE_WATCH__WEBHOOK_HOSTS: {named}); {parts.hostname!r} is "
                         "not one of them", code="WEBHOOK_HOST_NOT_ALLOWED")
    return url
