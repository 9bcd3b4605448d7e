"""A folder source kept in sync (issue 50): each sync compares the folder with what the last
one saw, file by file, and changes only what changed.

- a file whose size and modification time are as last seen is not read;
- one that reads differently (its SHA-256) is a new version of its document;
- a new path holding the bytes of a path that vanished is that file renamed: the same
  document under its new path, nothing re-read or re-indexed;
- a new path otherwise is a new document (its id from its path, as `evidence ingest` names
  it); a vanished one is deleted with its document (``on_delete: "delete"``) or left
  (``"keep"``).

Every file's change is one registry transaction (its upload or rename or deletion with its
row in ``source_files``), so a sync stopped halfway has lost nothing and doubles nothing: the
next sync sees what the last one recorded. Paths are the folder's own: symbolic links that
lead out of it are skipped, and the folder must lie under a root the operator allows.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.domain.errors import BadRequest, Conflict, Forbidden, NotFound, ServiceError
from app.domain.formats import SUPPORTED, document_id_for
from app.registry.tables import Document, Source, SourceFile, utcnow

ON_DELETE = ("delete", "keep")
FAILED_SHOWN = 50  # failures a report names (all are counted)


def allowed_folder(path: str, roots: list[Path]) -> Path:
    """The folder, resolved (links followed), when it is a folder under an allowed root;
    403 ``SOURCE_PATH_NOT_ALLOWED`` otherwise (no roots: none is), 422
    ``SOURCE_PATH_NOT_FOUND`` for one that is not a folder."""
    if not roots:
        raise Forbidden("no folder may be a source: the operator allows none "
                        "(EVIDENCE_SOURCES__FOLDER_ROOTS)", code="SOURCE_PATH_NOT_ALLOWED")
    try:
        resolved = Path(path).resolve()
    except (ValueError, OSError):  # a NUL byte, a loop of links
        raise BadRequest(f"{path[:300]!r} is not a folder", code="SOURCE_PATH_NOT_FOUND") from None
    if not any(resolved == root or root in resolved.parents for root in roots):
        raise Forbidden(f"{path[:300]} is not under a folder the operator allows "
                        "(EVIDENCE_SOURCES__FOLDER_ROOTS)", code="SOURCE_PATH_NOT_ALLOWED")
    if not resolved.is_dir():
        raise BadRequest(f"{path[:300]} is not a folder", code="SOURCE_PATH_NOT_FOUND")
    return resolved


def create(session: Session, *, client_id: str, path: str, on_delete: str,
           max_per_client: int, kind: str = "folder") -> Source:
    count = session.scalar(select(func.count()).select_from(Source)
                           .where(Source.client_id == client_id)) or 0
    if count >= max_per_client:
        raise Conflict(f"this client already has {count} sources, the most it may keep "
                       "(EVIDENCE_SOURCES__MAX_PER_CLIENT)", code="SOURCE_LIMIT_REACHED")
    source = Source(source_id=f"src_{secrets.token_hex(8)}", client_id=client_id,
                    kind=kind, path=path, on_delete=on_delete, created_at=utcnow())
    session.add(source)
    session.flush()
    return source


def get(session: Session, *, client_id: str, source_id: str) -> Source:
    source = session.scalar(select(Source).where(Source.client_id == client_id,
                                                 Source.source_id == source_id))
    if source is None:
        raise NotFound(f"no source {source_id!r}", code="SOURCE_NOT_FOUND")
    return source


def listing(session: Session, *, client_id: str) -> list[Source]:
    return list(session.scalars(select(Source).where(Source.client_id == client_id)
                                .order_by(Source.id)))


@dataclass
class Seen:
    """A file of the folder as this sync found it."""

    rel: str
    path: Path
    size: int
    mtime_ns: int
    sha256: str | None = None  # read only where needed


@dataclass
class Report:
    seen: int = 0
    unchanged: int = 0
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    renamed: list[dict[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)  # the files whose bytes were read
    skipped: list[dict[str, str]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    truncated: bool = False

    def progress(self) -> dict[str, Any]:
        return {"seen": self.seen, "read": len(self.read), "new": len(self.new),
                "changed": len(self.changed), "renamed": len(self.renamed),
                "deleted": len(self.deleted), "failed": len(self.failed)}

    def as_dict(self) -> dict[str, Any]:
        return {"seen": self.seen, "unchanged": self.unchanged, "new": self.new,
                "changed": self.changed, "renamed": self.renamed, "deleted": self.deleted,
                "kept": self.kept, "read": len(self.read), "skipped": self.skipped[:50],
                "failed": self.failed[:FAILED_SHOWN], "failed_count": len(self.failed),
                "truncated": self.truncated}


MAX_WALK = 1_000_000  # files a sync lists (stat only); past it the folder is not followed


def walk(root: Path, max_files: int, report: Report) -> dict[str, Seen]:
    """The folder's supported files by their path under it (links leading out skipped),
    at most ``max_files`` of them listed (past it: ``truncated``, and nothing is taken for
    vanished)."""
    found: dict[str, Seen] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink() and root not in path.resolve().parents:
                report.skipped.append({"path": rel, "why": "a link out of the folder"})
                continue
            if path.suffix.lower() not in SUPPORTED:
                continue
            if len(found) >= max_files:
                report.truncated = True
                return found
            try:
                stat = path.stat()
            except OSError as exc:
                report.failed.append({"path": rel, "code": "SOURCE_FILE_UNREADABLE",
                                      "message": str(exc)[:300]})
                continue
            found[rel] = Seen(rel, path, stat.st_size, stat.st_mtime_ns)
    return found


def note_progress(session: Session, source_pk: int, counts: dict[str, Any]) -> None:
    """The running sync's counts on its source, its lease renewed (in the caller's
    transaction, with the file or message it recorded)."""
    from app.sources.service import LEASE

    session.execute(update(Source).where(Source.id == source_pk).values(
        progress=counts, sync_lease_until=utcnow() + LEASE))


def _hash(seen: Seen, report: Report) -> bytes | None:
    try:
        content = seen.path.read_bytes()
    except OSError as exc:
        report.failed.append({"path": seen.rel, "code": "SOURCE_FILE_UNREADABLE",
                              "message": str(exc)[:300]})
        return None
    seen.sha256 = hashlib.sha256(content).hexdigest()
    report.read.append(seen.rel)
    return content


# (session, path in the folder, bytes, document id) → whether the bytes were already its
Upload = Callable[[Session, str, bytes, str], object]
Forget = Callable[[Session, Document], None]


def sync(sessions: sessionmaker[Session], source_pk: int, *, client_id: str,
         max_files: int, upload: Upload, forget: Forget) -> dict[str, Any]:
    """One sync of a folder source (see the module's rules); its report, also kept on the
    source. ``upload`` registers a file as a version of the document named; ``forget``
    deletes a document (its points and rows)."""
    with sessions() as s:
        source = s.get(Source, source_pk)
        if source is None or source.client_id != client_id:
            raise NotFound("the source is gone", code="SOURCE_NOT_FOUND")
        root, on_delete = Path(source.path), source.on_delete
        index = {f.rel_path: (f.size, f.mtime_ns, f.sha256, f.document_id)
                 for f in s.scalars(select(SourceFile).where(SourceFile.source_pk == source_pk))}
    report = Report()
    if not root.is_dir():
        raise BadRequest(f"the folder {root} is gone", code="SOURCE_PATH_NOT_FOUND")
    found = walk(root, MAX_WALK, report)
    report.seen = len(found)
    contents: dict[str, bytes] = {}
    for rel, seen in found.items():
        known = index.get(rel)
        if known is not None and known[:2] == (seen.size, seen.mtime_ns):
            seen.sha256 = known[2]
            report.unchanged += 1
            continue
        if len(report.read) >= max_files:  # the rest at the next sync
            report.truncated = True
            continue
        content = _hash(seen, report)
        if content is not None:
            contents[rel] = content
    gone = {rel: row for rel, row in index.items() if rel not in found}
    if report.truncated:
        gone = {}  # a file not read yet may be a vanished one renamed: deletions wait
    by_hash: dict[str, list[str]] = {}
    for rel, row in gone.items():
        by_hash.setdefault(row[2], []).append(rel)

    def record(s: Session, seen: Seen, document_id: str) -> None:
        note_progress(s, source_pk, report.progress())
        row = s.get(SourceFile, (source_pk, seen.rel))
        if row is None:
            s.add(SourceFile(source_pk=source_pk, rel_path=seen.rel, size=seen.size,
                             mtime_ns=seen.mtime_ns, sha256=seen.sha256 or "",
                             document_id=document_id))
        else:
            row.size, row.mtime_ns, row.sha256, row.document_id = (
                seen.size, seen.mtime_ns, seen.sha256 or "", document_id)

    for rel, content in contents.items():
        seen, known = found[rel], index.get(rel)
        try:
            with sessions() as s:
                if known is not None and known[2] == seen.sha256:  # touched, not changed
                    report.unchanged += 1
                elif known is not None:
                    upload(s, rel, content, known[3])
                    report.changed.append(rel)
                elif by_hash.get(seen.sha256 or ""):  # the bytes of a vanished path: renamed
                    old = by_hash[seen.sha256 or ""].pop(0)
                    document_id = gone.pop(old)[3]
                    s.execute(delete(SourceFile).where(SourceFile.source_pk == source_pk,
                                                       SourceFile.rel_path == old))
                    document = s.scalar(select(Document).where(
                        Document.client_id == client_id, Document.document_id == document_id))
                    if document is not None:
                        document.path, document.updated_at = rel, utcnow()
                    record(s, seen, document_id)
                    s.commit()
                    report.renamed.append({"from": old, "to": rel})
                    continue
                else:
                    document_id = document_id_for(rel)
                    upload(s, rel, content, document_id)
                    report.new.append(rel)
                    record(s, seen, document_id)
                    s.commit()
                    continue
                record(s, seen, known[3])
                s.commit()
        except ServiceError as exc:
            report.failed.append({"path": rel, "code": exc.code, "message": exc.message[:300]})
    for rel, row in gone.items():
        with sessions() as s:
            if on_delete == "delete":
                document = s.scalar(select(Document).where(Document.client_id == client_id,
                                                           Document.document_id == row[3]))
                if document is not None:
                    forget(s, document)
                report.deleted.append(rel)
            else:
                report.kept.append(rel)
            s.execute(delete(SourceFile).where(SourceFile.source_pk == source_pk,
                                               SourceFile.rel_path == rel))
            s.commit()
    return keep_report(sessions, source_pk, report.as_dict())


def keep_report(sessions: sessionmaker[Session], source_pk: int,
                report: dict[str, Any]) -> dict[str, Any]:
    """A sync's report (or error) on its source, as of now; the report."""
    with sessions() as s:
        source = s.get(Source, source_pk)
        if source is not None:
            source.last_sync_at, source.last_report = utcnow(), report
            s.commit()
    return report
