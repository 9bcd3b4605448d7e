"""E-mail threads in the registry: the messages of a thread (GET /threads/{thread_id}), and the
stated fallback for a message whose headers name no other (ingest/extract/email.py reads
``thread_id`` from Message-ID, In-Reply-To and References).

The fallback (``adopted_thread``): a message with neither In-Reply-To nor References **whose
subject says it answers or forwards** (``Re:``, ``Fwd:``, ``AW:``, ``WG:``…) joins the thread
of a message of the same client whose own headers decide its thread (a root, or a reply with
headers; never another header-less reply) with the same subject once those prefixes are
stripped, sharing at least one address (sender or recipient), dated within ``FALLBACK_DAYS``
of it: the one dated closest before it (then closest after, then undated, then the smallest
thread id). A message whose subject has no such prefix starts a conversation and never joins
another's. The answer depends on which messages are indexed, not on their order: when a
message is published, the header-less replies of its subject are threaded again
(``rethread``), so a reply indexed before its root joins it when the root arrives (a property
test over every order). Messages are read from the client's current e-mail versions of that
subject (compared by the database), the newest ``SCAN_LIMIT`` first: bounded per client.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.domain.access import Access
from app.domain.errors import NotFound
from app.domain.subjects import answers_or_forwards, own_thread
from app.registry.documents import current_versions
from app.registry.tables import Document, DocumentVersion

MAIL_KINDS = ("eml", "msg")
FALLBACK_DAYS = 30
SCAN_LIMIT = 20_000  # current e-mail versions read per lookup, newest first


MailRow = tuple[int, str, str, dict[str, Any]]  # version pk, document id, version id, document


def _mail(session: Session, client_id: str, subject: str | None = None,
          access: Access = Access()) -> list[MailRow]:
    """The client's current e-mail versions (of this thread subject: compared by the
    database, JSON path on SQLite and PostgreSQL alike), newest first: (version pk, document
    id, version id, canonical metadata's document group)."""
    stmt = (current_versions(select(DocumentVersion.id, Document.document_id,
                                    DocumentVersion.version_id,
                                    DocumentVersion.canonical_metadata), client_id=client_id,
                             access=access)
            .where(Document.kind.in_(MAIL_KINDS))
            .order_by(DocumentVersion.id.desc()).limit(SCAN_LIMIT)
            .execution_options(yield_per=500))
    if subject is not None:
        stmt = stmt.where(DocumentVersion.canonical_metadata[
            ("document", "thread_subject")].as_string() == subject)
    rows = []
    for pk, document_id, version_id, meta in session.execute(stmt):
        document = (meta or {}).get("document") or {}
        if isinstance(document, dict):
            rows.append((pk, document_id, version_id, document))
    return rows


def _when(value: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(value))
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else None


def _people(document: dict[str, Any]) -> set[str]:
    found = {document.get("from_address")} | set(document.get("to_address") or [])
    return {a for a in found if isinstance(a, str) and a}


def headerless_reply(document: dict[str, Any]) -> bool:
    """A message whose subject says it answers or forwards, but whose headers name no other:
    the one kind the fallback threads."""
    return (not (document.get("in_reply_to") or document.get("references"))
            and answers_or_forwards(str(document.get("subject") or "")))


def adopted_thread(session: Session, *, client_id: str, document: dict[str, Any],
                   mail: list[MailRow] | None = None) -> str | None:
    """The thread a header-less reply joins by the fallback, or None (it keeps its own).

    Only messages whose thread their own headers decide (a root, a reply with In-Reply-To or
    References) are joined, never another header-less reply: so the answer depends on the
    set of messages indexed, not on their order (``rethread`` brings earlier replies up to
    date when a message arrives)."""
    if not headerless_reply(document):
        return None
    subject, people, when = (document.get("thread_subject"), _people(document),
                             _when(document.get("date")))
    if not subject or not people:
        return None
    found: list[tuple[tuple[int, float], str]] = []
    for _pk, _document_id, _version_id, other in (
            _mail(session, client_id, subject) if mail is None else mail):
        if (other.get("thread_subject") != subject or not other.get("thread_id")
                or headerless_reply(other)):
            continue
        if other.get("message_id") == document.get("message_id"):
            continue
        theirs = _when(other.get("date"))
        if when and theirs and abs((when - theirs).total_seconds()) > FALLBACK_DAYS * 86400:
            continue
        if people & _people(other):
            # the message dated closest before this one, then closest after, then undated
            gap = (when - theirs).total_seconds() if when and theirs else None
            rank = (2, 0.0) if gap is None else (0, gap) if gap >= 0 else (1, -gap)
            found.append((rank, str(other["thread_id"])))
    return min(found)[1] if found else None


@dataclass(frozen=True)
class Rethreaded:
    version_pk: int
    document_id: str
    version_id: str
    canonical_metadata: dict[str, Any]


def rethread(session: Session, *, client_id: str, subject: str) -> list[Rethreaded]:
    """The client's current header-less replies of this thread subject threaded again over
    the messages indexed now — a reply indexed before its root joins the root's thread when
    the root arrives — each changed one's canonical metadata written here; the caller writes
    the same to the engine's payloads (``document.thread_id`` is a filter)."""
    mail = _mail(session, client_id, subject)
    changed = []
    for pk, document_id, version_id, document in mail:
        if document.get("thread_subject") != subject or not headerless_reply(document):
            continue
        wanted = (adopted_thread(session, client_id=client_id, document=document, mail=mail)
                  or own_thread(document.get("message_id")))
        if not wanted or wanted == document.get("thread_id"):
            continue
        version = session.get(DocumentVersion, pk)
        if version is None:
            continue
        meta = dict(version.canonical_metadata or {})
        meta["document"] = {**meta.get("document", {}), "thread_id": wanted}
        version.canonical_metadata = meta
        changed.append(Rethreaded(pk, document_id, version_id, meta))
    return changed


def thread_messages(session: Session, *, client_id: str, thread_id: str,
                    access: Access = Access()) -> list[dict[str, Any]]:
    """The thread's messages ``access`` may see in date order (undated last), each with the
    document id of the message it answers where that message is here (and visible); 404 when
    the caller has none of it."""
    found = [(document_id, version_id, document)
             for _pk, document_id, version_id, document in _mail(session, client_id,
                                                                  access=access)
             if document.get("thread_id") == thread_id]
    if not found:
        raise NotFound(f"no thread {thread_id!r}", code="THREAD_NOT_FOUND")
    by_message_id = {d.get("message_id"): doc_id for doc_id, _, d in found if d.get("message_id")}
    found.sort(key=lambda f: (_when(f[2].get("date")) is None,
                              _when(f[2].get("date")) or datetime.max, f[0]))
    return [{"document_id": document_id, "version_id": version_id,
             "from": document.get("from"), "date": document.get("date"),
             "subject": document.get("subject"), "position": position,
             "in_reply_to": by_message_id.get(f"<{document.get('in_reply_to')}>")
             or by_message_id.get(document.get("in_reply_to"))}
            for position, (document_id, version_id, document) in enumerate(found, start=1)]


def thread_sizes(session: Session, *, client_id: str, thread_ids: set[str],
                 access: Access = Access()) -> dict[str, int]:
    """{thread id: how many of the client's current messages it holds that ``access`` may
    see}."""
    sizes: dict[str, int] = {}
    if not thread_ids:
        return sizes
    for _pk, _document_id, _version_id, document in _mail(session, client_id, access=access):
        if document.get("thread_id") in thread_ids:
            sizes[document["thread_id"]] = sizes.get(document["thread_id"], 0) + 1
    return sizes
