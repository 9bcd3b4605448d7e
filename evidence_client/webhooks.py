"""Checking a watch's webhook on the receiving side: the server signs each POST's exact body
with the watch's secret (``X-Evidence-Signature: sha256=<hex HMAC-SHA256>``)."""

from __future__ import annotations

import hashlib
import hmac


def signature(secret: str, body: bytes) -> str:
    """The header's value for ``body``: what the server sends (app/watches/webhooks.py signs
    with this very function) and what a receiver compares."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    """Whether ``header`` (the X-Evidence-Signature value) signs ``body`` with ``secret``;
    compared in constant time. Pass the raw body bytes, before any JSON parsing."""
    if not header or not header.startswith("sha256="):
        return False
    return hmac.compare_digest(header, signature(secret, body))
