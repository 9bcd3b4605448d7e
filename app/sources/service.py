"""Running a source's sync, from a request or the server's scheduler: one at a time per
source across processes (a lease taken by a guarded UPDATE), the sync by the source's kind,
the worker woken for what it uploaded."""

from __future__ import annotations

import logging
import re
import threading
from datetime import timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from app.documents.deletion import delete_document
from app.documents.uploads import accept_upload
from app.domain.errors import BadRequest, Conflict, NotFound, ServiceError
from app.registry.tables import Document, Source, utcnow
from app.sources import folder, mailbox
from app.sources.folder import keep_report

log = logging.getLogger(__name__)
# a sync renews its lease with every file or message it records; one not renewed for this
# long was a dead process's, and the next sync may start
LEASE = timedelta(minutes=5)
EVERY = re.compile(r"^([1-9][0-9]{0,5})([smhd])$")
UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MIN_EVERY_S, MAX_EVERY_S = 60, 7 * 86400


def every_seconds(text: str | None) -> int | None:
    """"15m", "1h", "1d" as seconds (60 s to 7 days); None: synced by hand only."""
    if text is None:
        return None
    found = EVERY.match(text.strip())
    seconds = int(found.group(1)) * UNIT_S[found.group(2)] if found else 0
    if not MIN_EVERY_S <= seconds <= MAX_EVERY_S:
        raise BadRequest("every: a number and s, m, h or d, from 60 s to 7 days (15m, 1h)",
                         code="INVALID_REQUEST")
    return seconds


def claim(session: Session, source_pk: int) -> bool:
    """Take the source's sync lease (committed); False where a sync of it runs."""
    now = utcnow()
    taken = session.execute(update(Source).where(
        Source.id == source_pk,
        or_(Source.sync_lease_until.is_(None), Source.sync_lease_until < now))
        .values(sync_lease_until=now + LEASE)).rowcount
    session.commit()
    return bool(taken)


def release(session: Session, source_pk: int) -> None:
    session.execute(update(Source).where(Source.id == source_pk)
                    .values(sync_lease_until=None, progress=None))
    session.commit()


def claim_or_refuse(runtime: Any, source_pk: int) -> None:
    """Take the source's sync lease; 409 ``SOURCE_SYNC_RUNNING`` while another sync runs."""
    with runtime.sessions() as s:
        if not claim(s, source_pk):
            source_id = s.get(Source, source_pk).source_id  # type: ignore[union-attr]
            raise Conflict(f"{source_id} is being synced; ask again when it ends (GET "
                           "/sources/{id} shows its progress)", code="SOURCE_SYNC_RUNNING")


def run_in_background(runtime: Any, source_pk: int, wake: Any = None) -> None:
    """Claim the source's lease now (409 while another sync runs), then sync it in a thread
    of its own; its progress on the source meanwhile, its report (or error) after."""
    claim_or_refuse(runtime, source_pk)

    def work() -> None:
        try:
            run_sync(runtime, source_pk, wake, claimed=True)
        except ServiceError as exc:
            _failed(runtime, source_pk, exc.code, exc.message)
        except Exception as exc:  # noqa: BLE001 - the thread's last word: logged and said
            log.exception("a source sync failed")
            _failed(runtime, source_pk, "SOURCE_SYNC_FAILED", type(exc).__name__)

    threading.Thread(target=work, name=f"source-sync-{source_pk}", daemon=True).start()


def _failed(runtime: Any, source_pk: int, code: str, message: str) -> None:
    keep_report(runtime.sessions, source_pk, {"error": {"code": code,
                                                        "message": message[:500]}})


def run_sync(runtime: Any, source_pk: int, wake: Any = None, *,
             claimed: bool = False) -> dict[str, Any]:
    """One sync of the source, under its lease (taken here unless ``claimed``: 409
    ``SOURCE_SYNC_RUNNING`` while another runs); its report."""
    settings = runtime.settings.sources
    with runtime.sessions() as s:
        source = s.get(Source, source_pk)
        if source is None:
            raise NotFound("the source is gone", code="SOURCE_NOT_FOUND")
        client_id, source_id, kind = source.client_id, source.source_id, source.kind
        path, secret = source.path, source.secret
    if not claimed:
        claim_or_refuse(runtime, source_pk)
    limits = runtime.settings.limits.metadata()

    def upload(s: Session, rel: str, content: bytes, document_id: str) -> bool:
        return accept_upload(s, settings=runtime.settings.ingest, limits=limits,
                             client_id=client_id, filename=rel.rsplit("/", 1)[-1],
                             content=content, document_id=document_id, custom={},
                             source=source_id, path=rel).deduplicated

    def forget(s: Session, document: Document) -> None:
        delete_document(s, runtime.store, document)

    try:
        if kind == "imap":
            password = mailbox.password_of(settings.key(), secret)
            report = mailbox.sync(runtime.sessions, source_pk, client_id=client_id,
                                  password=password, max_messages=settings.max_messages,
                                  max_bytes=settings.max_message_bytes,
                                  timeout=settings.imap_timeout_s, upload=upload)
        else:
            folder.allowed_folder(path, settings.roots())  # still allowed
            report = folder.sync(runtime.sessions, source_pk, client_id=client_id,
                                 max_files=settings.max_files, upload=upload, forget=forget)
    finally:
        with runtime.sessions() as s:
            release(s, source_pk)
    if wake is not None:
        wake()
    return report


def due(session: Session, limit: int = 10) -> list[int]:
    """Sources whose interval has passed since their last sync, and not syncing now."""
    now = utcnow()
    rows = session.execute(select(Source.id, Source.every_s, Source.last_sync_at).where(
        Source.every_s.is_not(None),
        or_(Source.sync_lease_until.is_(None), Source.sync_lease_until < now))
        .order_by(Source.last_sync_at.is_not(None), Source.last_sync_at)).all()
    return [pk for pk, every, last in rows
            if last is None or last + timedelta(seconds=every) <= now][:limit]


class SourceScheduler:
    """Syncs the sources with an interval when it comes (every serving process runs one;
    the lease keeps a source's syncs one at a time)."""

    def __init__(self, runtime: Any, wake: Any = None, poll_s: float = 15.0) -> None:
        self.runtime, self.wake, self.poll_s = runtime, wake, poll_s

    def run_once(self) -> int:
        with self.runtime.sessions() as s:
            pks = due(s)
        done = 0
        for pk in pks:
            try:
                run_sync(self.runtime, pk, self.wake)
                done += 1
            except Conflict:
                continue  # another process took it
            except ServiceError as exc:  # its report says nothing new: log the reason
                log.warning("a scheduled source sync failed: %s", exc.code,
                            extra={"fields": {"source_pk": pk}})
            except Exception:  # noqa: BLE001 - one source's failure stops no other
                log.exception("a scheduled source sync failed")
        return done

    def run_forever(self, stop: threading.Event) -> None:
        while not stop.wait(self.poll_s):
            self.run_once()
