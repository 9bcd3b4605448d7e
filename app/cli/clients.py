"""`evidence clients …`: clients, keys, authority, discovery."""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli import common
from app.cli.common import (
    _fail,
    clients_app,
    get_settings,
)
from app.domain.errors import ServiceError


def _audited(session, client_id: str, action: str, target: str | None,  # type: ignore[no-untyped-def]
             details: dict | None = None) -> None:
    """An operator's change to a client recorded in that client's audit trail (actor cli)."""
    from app.ops.audit import record_cli

    record_cli(session, get_settings().audit, None, action, client_id=client_id,
               target=target, details=details)


@clients_app.command("create")
def clients_create(name: str) -> None:
    """Create a client with an active publication authority and print its API key."""
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    _engine, sessions = open_registry(get_settings())
    try:
        with transaction(sessions) as s:
            client, key = reg.create_client(s, name=name)
    except ServiceError as exc:
        _fail(exc.message)
    common.console.print(f"client [bold]{client.name}[/bold] ({client.id})")
    common.console.print(f"API key (shown once): [bold]{key}[/bold]")


@clients_app.command("list")
def clients_list() -> None:
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        for c in reg.list_clients(s):
            common.console.print(f"{c.name}\t{c.id}\t{reg.authority_status(s, client_id=c.id)}")


@clients_app.command("key")
def clients_key(name: str, groups: Annotated[str | None, typer.Option(
        help="access groups, comma-separated: the key sees unrestricted documents and those "
             "sharing one of these (absent: an admin key, it sees everything)")] = None,
        delegate: Annotated[bool, typer.Option(
            help="the key may narrow a request to the groups of the person it serves "
                 "(X-Evidence-Groups)")] = False) -> None:
    """Issue another API key for a client."""
    from app.domain.access import parse_groups
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    try:
        held = parse_groups(groups, what="--groups") if groups is not None else None
    except ServiceError as exc:
        _fail(exc.message)
    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        client_id = reg.get_client(s, name=name).id
        key = reg.issue_key(s, client_id=client_id, groups=held, may_delegate=delegate)
        _audited(s, client_id, "key_issued", key[:10], {
            "groups": list(held) if held is not None else None, "delegate": delegate})
    common.console.print(f"API key (shown once): [bold]{key}[/bold]")
    if held is not None or delegate:
        shown = (", ".join(held) if held else "none (unrestricted documents only)"
                 if held is not None else "admin (every document)")
        common.console.print(f"groups: {shown}; may delegate: {'yes' if delegate else 'no'}")


@clients_app.command("keys")
def clients_keys(name: str) -> None:
    """A client's keys: prefix, access groups (admin: every document), whether it may
    delegate, revoked or not."""
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    _engine, sessions = open_registry(get_settings())
    try:
        with transaction(sessions) as s:
            keys = reg.keys_of(s, client_id=reg.get_client(s, name=name).id)
            for k in keys:
                groups = ("admin" if k.groups is None else ",".join(k.groups) or "(none)")
                state = f"revoked {k.revoked_at:%Y-%m-%d}" if k.revoked_at else "active"
                common.console.print(f"{k.prefix}\t{groups}\t"
                                     f"{'delegates' if k.may_delegate else '-'}\t{state}",
                                     highlight=False)
    except ServiceError as exc:
        _fail(exc.message)


@clients_app.command("revoke-key")
def clients_revoke_key(key_or_prefix: str) -> None:
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        for key in reg.live_keys(s, secret_or_prefix=key_or_prefix):
            _audited(s, key.client_id, "key_revoked", key.prefix)
        count = reg.revoke_key(s, secret_or_prefix=key_or_prefix)
    common.console.print(f"revoked {count} key(s)")


@clients_app.command("authority")
def clients_authority(name: str, status: Annotated[str, typer.Argument(
        help="active | suspended | revoked")]) -> None:
    """Set a client's publication authority."""
    from app.registry import clients as reg
    from app.registry.database import open_registry, transaction

    _engine, sessions = open_registry(get_settings())
    try:
        with transaction(sessions) as s:
            client_id = reg.get_client(s, name=name).id
            reg.set_authority(s, client_id=client_id, status=status)
            _audited(s, client_id, "authority_change", name, {"status": status})
    except (ServiceError, ValueError) as exc:
        _fail(str(exc))
    common.console.print(f"{name}: publication authority {status}")


@clients_app.command("discovery")
def clients_discovery(name: str, enable: Annotated[bool, typer.Option(
        "--enable/--disable", help="turn metadata discovery on or off")] = True) -> None:
    """Switch a client's metadata discovery (scope metadata | both need it ready)."""
    from app.registry import clients as reg
    from app.registry import discovery
    from app.registry.database import open_registry, transaction

    _engine, sessions = open_registry(get_settings())
    with transaction(sessions) as s:
        client_id = reg.get_client(s, name=name).id
        discovery.set_enabled(s, client_id=client_id, enabled=enable)
    with transaction(sessions) as s:
        ready = discovery.readiness(s, client_id=client_id)
    common.console.print(f"{name}: metadata discovery {ready.state} "
                         f"({ready.indexed}/{ready.total} published versions indexed); the "
                         "worker (evidence serve or evidence worker) catches up")


