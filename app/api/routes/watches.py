"""Standing queries: POST/GET /watches, GET/DELETE /watches/{id}, GET /watches/{id}/matches.
Thin: the registry keeps them (app/registry/watches.py), the server's watch runner evaluates
each new publication against them and delivers their webhooks (app/watches/runner.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from sqlalchemy.orm import Session

from app.api.deps import PublishingClientDep, RuntimeDep, SearchServiceDep, SessionDep
from app.api.presenter import plain_filters
from app.api.schemas import (
    WatchCreate,
    WatchDelivery,
    WatchList,
    WatchMatches,
    WatchMatchOut,
    WatchOut,
    error_responses,
)
from app.domain.access import Access
from app.registry import documents as docs_registry
from app.registry import watches as watches_registry
from app.registry.clients import Caller
from app.registry.tables import Watch, WatchMatch
from app.search.service import SearchQuery
from app.watches.runner import match_json
from app.watches.webhooks import checked_url, own_address

router = APIRouter(tags=["watches"])
WATCH_ID_PATTERN = "^wat_[0-9a-f]{16}$"
WatchId = Annotated[str, Path(pattern=WATCH_ID_PATTERN, description="wat_… as created")]


@router.post("/watches", status_code=201, response_model=WatchOut,
             responses=error_responses(400, 401, 403, 409, 413, 422, 500, 503))
def create_watch(body: WatchCreate, runtime: RuntimeDep, session: SessionDep,
                 client: PublishingClientDep, service: SearchServiceDep) -> WatchOut:
    """A standing query: every version published from now on (uploads, e-mail attachments;
    not re-indexing) that this search would return is recorded once as a match, with the
    evidence the search cites, and POSTed to webhook_url when given. The search is run once
    now, so a filter or scope it would refuse is refused here."""
    settings = runtime.settings.watch
    url = (checked_url(body.webhook_url, settings.allowed_hosts(),
                       own_address(runtime.settings.data_dir))
           if body.webhook_url else None)
    request = {"query": body.query, "scope": body.scope.value, "alpha": body.alpha,
               "filters": plain_filters(body.filters)}
    service.answer(session, client_id=client.id, query=SearchQuery(
        query=body.query, scope=request["scope"], alpha=body.alpha,
        filters=request["filters"], limit=1), access=client.access)
    watch = watches_registry.create(session, client_id=client.id, request=request,
                                    name=body.name, webhook_url=url,
                                    max_per_client=settings.max_per_client,
                                    key_id=client.key_id, narrowed=client.narrowed)
    return watch_out(watch, kept=0, secret=watch.secret)


@router.get("/watches", response_model=WatchList,
            responses=error_responses(401, 403, 422, 500))
def list_watches(session: SessionDep, client: PublishingClientDep) -> WatchList:
    """The client's watches, oldest first (never their secrets)."""
    return watch_list(session, client.id, _owner(client))


@router.get("/watches/{watch_id}", response_model=WatchOut,
            responses=error_responses(401, 403, 404, 422, 500))
def get_watch(session: SessionDep, client: PublishingClientDep, watch_id: WatchId) -> WatchOut:
    """One watch; 404 where the caller has none by that id."""
    watch = watches_registry.get(session, client_id=client.id, watch_id=watch_id,
                                 key_id=_owner(client))
    return watch_out(watch, kept=watches_registry.kept_counts(session, [watch.id]).get(
        watch.id, 0))


@router.delete("/watches/{watch_id}", status_code=204,
               responses=error_responses(401, 403, 404, 422, 500))
def delete_watch(session: SessionDep, client: PublishingClientDep,
                 watch_id: WatchId) -> Response:
    """The watch and its matches; deliveries not yet made are dropped."""
    watches_registry.remove(session, client_id=client.id, watch_id=watch_id,
                            key_id=_owner(client))
    return Response(status_code=204)


@router.get("/watches/{watch_id}/matches", response_model=WatchMatches,
            responses=error_responses(401, 403, 404, 422, 500))
def list_matches(
    session: SessionDep, client: PublishingClientDep, watch_id: WatchId,
    cursor: Annotated[str | None, Query(max_length=18, pattern="^[0-9]*$",
                                        description="next_cursor of an earlier page")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> WatchMatches:
    """The versions the watch matched, oldest first, each with its evidence (untrusted
    document text) and, with a webhook, its delivery."""
    return matches_page(session, client.id, watch_id, cursor=cursor, limit=limit,
                        owner=_owner(client), access=client.access)


def _owner(client: Caller) -> str | None:
    """A key with access groups sees the watches it made (an admin key every watch)."""
    return client.key_id if client.access.restricted else None


def watch_out(watch: Watch, *, kept: int, secret: str | None = None) -> WatchOut:
    request = watch.request
    return WatchOut(watch_id=watch.watch_id, name=watch.name, query=request["query"],
                    scope=request["scope"], alpha=request.get("alpha"),
                    filters=request.get("filters") or {}, webhook_url=watch.webhook_url,
                    created_at=watch.created_at, matches=kept,
                    matches_ever=watch.match_count, secret=secret)


def watch_list(session: Session, client_id: str, owner: str | None = None) -> WatchList:
    """GET /watches's answer (the CLI reads the registry through this too)."""
    watches = watches_registry.listing(session, client_id=client_id, key_id=owner)
    kept = watches_registry.kept_counts(session, [w.id for w in watches])
    return WatchList(items=[watch_out(w, kept=kept.get(w.id, 0)) for w in watches])


def matches_page(session: Session, client_id: str, watch_id: str, *, cursor: str | None,
                 limit: int, owner: str | None = None, access: Access = Access()
                 ) -> WatchMatches:
    """A page of the watch's matches: those of documents ``access`` may see now (a match
    recorded before its document was relabelled away is left out; the cursor still moves
    past it)."""
    watch = watches_registry.get(session, client_id=client_id, watch_id=watch_id,
                                 key_id=owner)
    after = int(cursor) if cursor else 0
    rows, more = watches_registry.matches_page(session, watch=watch, after=after, limit=limit)
    seen = docs_registry.visible_document_ids(session, client_id=client_id, access=access,
                                              document_ids={m.document_id for m in rows})
    return WatchMatches(items=[_match_out(m) for m in rows if m.document_id in seen],
                        has_more=more, next_cursor=str(rows[-1].id if rows else after))


def _match_out(match: WatchMatch) -> WatchMatchOut:
    delivery = None
    if match.delivery_state is not None:
        delivery = WatchDelivery(state=match.delivery_state,  # type: ignore[arg-type]
                                 attempts=match.attempts, delivered_at=match.delivered_at,
                                 next_attempt_at=match.next_attempt_at,
                                 last_error=match.last_error)
    return WatchMatchOut(**match_json(match), delivery=delivery)
