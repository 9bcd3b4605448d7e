"""The calling client: who it is, its metadata discovery switch and what discovery found."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.api.deps import AuditDep, ClientDep, PublishingClientDep, SessionDep
from app.api.schemas import (
    ClientOut,
    DiscoveryState,
    DiscoverySwitch,
    KeyIssued,
    KeyRequest,
    MetadataCatalog,
    MetadataKey,
    error_responses,
)
from app.domain.access import parse_groups
from app.registry import clients as clients_registry
from app.registry import discovery

router = APIRouter(tags=["clients"])


def _state(session: SessionDep, client_id: str) -> DiscoveryState:
    r = discovery.readiness(session, client_id=client_id)
    return DiscoveryState(state=r.state, progress=r.progress, indexed_versions=r.indexed,
                          published_versions=r.total)


@router.get("/clients/me", response_model=ClientOut,
             responses=error_responses(401, 422, 500))
def get_my_client(session: SessionDep, client: ClientDep) -> ClientOut:
    groups = client.access.groups
    return ClientOut(id=client.id, name=client.name,
                     publication_authority=clients_registry.authority_status(
                         session, client_id=client.id),
                     metadata_discovery=_state(session, client.id) if groups is None else None,
                     access_groups=list(groups) if groups is not None else None)


@router.post("/clients/me/metadata/discovery", response_model=DiscoveryState,
             responses=error_responses(400, 401, 403, 413, 422, 500))
def switch_discovery(body: DiscoverySwitch, request: Request, session: SessionDep,
                     client: PublishingClientDep) -> DiscoveryState:
    """Enable (or disable) metadata discovery; the worker indexes published versions' leaves
    in the background, and scope metadata | both answer once it has caught up."""
    discovery.set_enabled(session, client_id=client.id, enabled=body.enabled)
    session.commit()
    wake = getattr(request.app.state, "wake_worker", None)
    if wake is not None:
        wake()
    return _state(session, client.id)


@router.get("/clients/me/metadata", response_model=MetadataCatalog,
             responses=error_responses(401, 422, 500))
def metadata_catalog(session: SessionDep, client: ClientDep) -> MetadataCatalog:
    """The discovered metadata keys, their types and how many leaves hold each: what a caller
    can filter on and what scope metadata searches."""
    state = _state(session, client.id)
    keys = [MetadataKey(key=k, type=t, count=n)
            for k, t, n in discovery.key_catalog(session, client_id=client.id)]
    return MetadataCatalog(**state.model_dump(), keys=keys)


@router.post("/clients/me/keys", response_model=KeyIssued, status_code=201,
             responses=error_responses(400, 401, 403, 422, 500))
def issue_key(body: KeyRequest, session: SessionDep, client: ClientDep,
              audit: AuditDep) -> KeyIssued:
    """Issue another key of this client, by an admin key (one without groups: a key with
    groups is refused at the door): ``groups`` makes it see only unrestricted documents and
    those sharing one of them; ``delegate`` lets it narrow a request to the groups of the
    person it serves (X-Evidence-Groups). The key is shown once."""
    groups = parse_groups(body.groups, what="groups") if body.groups is not None else None
    key = clients_registry.issue_key(session, client_id=client.id, groups=groups,
                                     may_delegate=body.delegate)
    session.commit()
    audit.record(client, "key_issued", target=key[:10], details={
        "groups": list(groups) if groups is not None else None, "delegate": body.delegate})
    return KeyIssued(key=key, groups=list(groups) if groups is not None else None,
                     delegate=body.delegate)

