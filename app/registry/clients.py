"""Clients, their API keys (stored hashed) and their publication authority."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.errors import Conflict, Forbidden, NotFound, Unauthorized
from app.registry.tables import ApiKey, Client, PublicationAuthority, utcnow

KEY_PREFIX = "evs_"
AUTHORITY_STATES = ("active", "suspended", "revoked")


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_client(session: Session, *, name: str) -> tuple[Client, str]:
    """A client with an active publication authority and one API key (returned once, in clear)."""
    if session.scalar(select(Client).where(Client.name == name)) is not None:
        raise Conflict(f"a client named {name!r} already exists", code="CLIENT_EXISTS")
    client = Client(id=str(uuid.uuid4()), name=name)
    session.add(client)
    session.add(PublicationAuthority(client_id=client.id, status="active"))
    session.flush()
    return client, issue_key(session, client_id=client.id)


def issue_key(session: Session, *, client_id: str, groups: tuple[str, ...] | None = None,
              may_delegate: bool = False) -> str:
    """A new key (returned once, in clear): ``groups`` None for an admin key, else the
    access groups it sees (app/domain/access.py); ``may_delegate``: it may narrow a
    request to the groups of the person it serves."""
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    session.add(ApiKey(id=str(uuid.uuid4()), client_id=client_id, prefix=secret[:10],
                       key_hash=hash_key(secret),
                       groups=list(groups) if groups is not None else None,
                       may_delegate=may_delegate))
    session.flush()
    return secret


def keys_of(session: Session, *, client_id: str) -> list[ApiKey]:
    """A client's keys, oldest first (their prefixes, never their secrets)."""
    return list(session.scalars(select(ApiKey).where(ApiKey.client_id == client_id)
                                .order_by(ApiKey.created_at)))


def live_keys(session: Session, *, secret_or_prefix: str) -> list[ApiKey]:
    """The unrevoked keys a full secret or a printed prefix names."""
    return list(session.scalars(select(ApiKey).where(
        (ApiKey.key_hash == hash_key(secret_or_prefix)) | (ApiKey.prefix == secret_or_prefix),
        ApiKey.revoked_at.is_(None))))


def revoke_key(session: Session, *, secret_or_prefix: str) -> int:
    """Revoke keys by full secret or by their printed prefix; returns how many."""
    keys = live_keys(session, secret_or_prefix=secret_or_prefix)
    for key in keys:
        key.revoked_at = utcnow()
    return len(keys)


@dataclass(frozen=True)
class Caller:
    """Who a request's key names, as the door reads it in one query per request: the routes
    need nothing else of the client (so no route reads it again)."""

    id: str
    name: str
    authority: str  # active | suspended | revoked (no authority row reads as revoked)
    # what this request may see of the client's documents: the key's groups, narrowed by
    # X-Evidence-Groups where it may delegate (app/domain/access.py); None: everything
    access: Access = Access()
    may_delegate: bool = False
    key_id: str | None = None  # the key's row (a watch remembers the key that made it)
    narrowed: tuple[str, ...] | None = None  # the groups X-Evidence-Groups asked for, if sent


def caller_for_key(session: Session, *, secret: str | None) -> Caller:
    """The client a key names, with its publication authority; 401 for a missing, unknown or
    revoked key."""
    if not secret:
        raise Unauthorized("an API key is required: send 'Authorization: Bearer <key>' "
                           "or 'X-API-Key: <key>'", code="API_KEY_MISSING")
    row = session.execute(
        select(ApiKey.id.label("key_id"), ApiKey.revoked_at, ApiKey.groups,
               ApiKey.may_delegate, Client.id, Client.name, PublicationAuthority.status)
        .join(Client, Client.id == ApiKey.client_id)
        .outerjoin(PublicationAuthority, PublicationAuthority.client_id == Client.id)
        .where(ApiKey.key_hash == hash_key(secret))).one_or_none()
    if row is None:
        raise Unauthorized("the API key is not known", code="API_KEY_INVALID")
    if row.revoked_at is not None:
        raise Unauthorized("the API key was revoked", code="API_KEY_REVOKED")
    return Caller(id=row.id, name=row.name, authority=row.status or "revoked",
                  access=Access(tuple(row.groups) if row.groups is not None else None),
                  may_delegate=bool(row.may_delegate), key_id=row.key_id)


def key_access(session: Session, *, key_id: str, narrowed: list[str] | None) -> Access | None:
    """What a key may see now, narrowed as a delegated request was (a watch runs as the key
    that made it); None where the key is revoked or gone: it sees nothing any more."""
    row = session.execute(select(ApiKey.groups, ApiKey.revoked_at)
                          .where(ApiKey.id == key_id)).one_or_none()
    if row is None or row.revoked_at is not None:
        return None
    held = tuple(row.groups) if row.groups is not None else None
    if narrowed is None:
        return Access(held)
    return Access(tuple(g for g in narrowed if held is None or g in held))


def get_client(session: Session, *, name: str) -> Client:
    client = session.scalar(select(Client).where(Client.name == name))
    if client is None:
        raise NotFound(f"no client named {name!r}", code="CLIENT_NOT_FOUND")
    return client


def list_clients(session: Session) -> list[Client]:
    return list(session.scalars(select(Client).order_by(Client.created_at)))


def authority_status(session: Session, *, client_id: str) -> str:
    authority = session.get(PublicationAuthority, client_id)
    return authority.status if authority else "revoked"


def require_active(status: str) -> None:
    """403 unless this publication authority status is active."""
    if status != "active":
        raise Forbidden(f"this client's publication authority is {status}",
                        details={"authority": status})


def set_authority(session: Session, *, client_id: str, status: str) -> None:
    if status not in AUTHORITY_STATES:
        raise ValueError(f"authority status must be one of {AUTHORITY_STATES}")
    authority = session.get(PublicationAuthority, client_id)
    if authority is None:
        session.add(PublicationAuthority(client_id=client_id, status=status))
    else:
        authority.status, authority.updated_at = status, utcnow()
