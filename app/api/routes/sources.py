"""Sources kept in sync (issue 50): POST/GET/DELETE /sources, POST /sources/{id}/sync. A
folder on the server's machine under a root the operator allows; a sync compares it with the
last and changes only what changed (app/sources/folder.py), then the worker ingests."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import PublishingClientDep, RuntimeDep, SessionDep
from app.api.schemas import error_responses
from app.domain.errors import BadRequest
from app.registry.tables import Source, utcnow
from app.sources import folder, mailbox
from app.sources.service import every_seconds, run_in_background, run_sync

router = APIRouter(tags=["sources"])
SourceId = Annotated[str, Path(pattern="^src_[0-9a-f]{16}$", description="src_… as created")]


class SourceCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    kind: Literal["folder", "imap"] = Field(description="a folder, or an IMAP mailbox")
    path: str | None = Field(None, min_length=1, max_length=1024,
                             description="folder: on the server's machine, under a root the "
                                         "operator allows (EVIDENCE_SOURCES__FOLDER_ROOTS)")
    on_delete: Literal["delete", "keep"] = Field(
        "delete", description="folder: a file gone from it, its document deleted or kept")
    host: str | None = Field(None, min_length=1, max_length=253, description="imap: the server")
    port: int | None = Field(None, ge=1, le=65535, description="imap: 993 with tls, else 143")
    tls: bool = Field(True, description="imap: TLS from the start (IMAPS)")
    username: str | None = Field(None, min_length=1, max_length=320)
    password: str | None = Field(None, min_length=1, max_length=1024, description=(
        "imap: kept encrypted with the operator's key, never returned"))
    folders: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=lambda: ["INBOX"], max_length=50, description="imap: the folders read")
    every: str | None = Field(None, pattern="^[1-9][0-9]{0,5}[smhd]$", description=(
        "synced by the server this often (15m, 1h, 1d; 60 s to 7 days); absent: by hand"))


class SourceOut(BaseModel):
    source_id: str
    kind: str
    path: str = Field(description="the folder, or imap://user@host:port for a mailbox")
    on_delete: str
    folders: list[str] | None = None
    every_s: int | None = Field(None, description="synced by the server this often")
    syncing: bool = Field(False, description="a sync of it runs now")
    progress: dict[str, Any] | None = Field(None, description="the running sync's counts")
    created_at: datetime
    last_sync_at: datetime | None
    last_report: dict[str, Any] | None = Field(
        description="seen, unchanged, new, changed, renamed, deleted, kept, read (files whose "
                    "bytes were read), skipped, failed, truncated")


class SourceList(BaseModel):
    items: list[SourceOut]


def _out(source: Source) -> SourceOut:
    return SourceOut(source_id=source.source_id, kind=source.kind, path=source.path,
                     on_delete=source.on_delete,
                     folders=(source.config or {}).get("folders") if source.kind == "imap"
                     else None, every_s=source.every_s,
                     syncing=source.sync_lease_until is not None
                     and source.sync_lease_until > utcnow(), progress=source.progress,
                     created_at=source.created_at,
                     last_sync_at=source.last_sync_at, last_report=source.last_report)


@router.post("/sources", status_code=201, response_model=SourceOut,
             responses=error_responses(400, 401, 403, 409, 422, 500))
def create_source(body: SourceCreate, runtime: RuntimeDep, session: SessionDep,
                  client: PublishingClientDep) -> SourceOut:
    """A folder or a mailbox to keep in sync (nothing is read until its first sync)."""
    settings = runtime.settings.sources
    if body.kind == "folder":
        if body.path is None:
            raise BadRequest("path: a folder source names its folder", code="MISSING_FIELD")
        path = folder.allowed_folder(body.path, settings.roots())
        source = folder.create(session, client_id=client.id, path=str(path),
                               on_delete=body.on_delete, max_per_client=settings.max_per_client)
    else:
        if not (body.host and body.username and body.password):
            raise BadRequest("host, username and password: a mailbox source names them",
                             code="MISSING_FIELD")
        mailbox.check_config(body.host, body.port or 0, body.folders)
        fernet = mailbox.cipher(settings.key())
        port = body.port or (993 if body.tls else 143)
        source = folder.create(session, client_id=client.id, kind="imap",
                               path=f"imap://{body.username}@{body.host}:{port}",
                               on_delete="keep", max_per_client=settings.max_per_client)
        source.config = {"host": body.host, "port": port, "tls": body.tls,
                         "username": body.username, "folders": list(dict.fromkeys(body.folders))}
        source.secret = fernet.encrypt(body.password.encode())
    source.every_s = every_seconds(body.every)
    session.commit()
    return _out(source)



@router.get("/sources", response_model=SourceList,
            responses=error_responses(401, 403, 422, 500))
def list_sources(session: SessionDep, client: PublishingClientDep) -> SourceList:
    return SourceList(items=[_out(s) for s in folder.listing(session, client_id=client.id)])


@router.get("/sources/{source_id}", response_model=SourceOut,
            responses=error_responses(401, 403, 404, 422, 500))
def get_source(session: SessionDep, client: PublishingClientDep,
               source_id: SourceId) -> SourceOut:
    return _out(folder.get(session, client_id=client.id, source_id=source_id))


@router.delete("/sources/{source_id}", status_code=204,
               responses=error_responses(401, 403, 404, 422, 500))
def delete_source(session: SessionDep, client: PublishingClientDep,
                  source_id: SourceId) -> Response:
    """The source (its documents stay: delete them as documents)."""
    session.delete(folder.get(session, client_id=client.id, source_id=source_id))
    session.commit()
    return Response(status_code=204)


@router.post("/sources/{source_id}/sync", response_model=SourceOut, status_code=202,
             responses=error_responses(401, 403, 404, 409, 422, 500, 503))
def sync_source(request: Request, response: Response, runtime: RuntimeDep,
                session: SessionDep, client: PublishingClientDep, source_id: SourceId,
                wait: Annotated[bool, Query(description=(
                    "answer when the sync has ended (200, with its report), not at once "
                    "(202: GET /sources/{id} shows its progress, then its report)"))] = False
                ) -> SourceOut:
    """Sync now: a folder compared with the last sync (only what changed uploaded, renamed
    files moved, vanished ones deleted or kept), a mailbox's new messages fetched; the
    worker then ingests. 409 ``SOURCE_SYNC_RUNNING`` while another sync of it runs."""
    source = folder.get(session, client_id=client.id, source_id=source_id)
    wake = getattr(request.app.state, "wake_worker", None)
    if wait:
        run_sync(runtime, source.id, wake)
        response.status_code = 200
    else:
        run_in_background(runtime, source.id, wake)
    session.expire_all()
    return _out(folder.get(session, client_id=client.id, source_id=source_id))
