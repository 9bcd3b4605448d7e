"""A mailbox source kept in sync (issue 50): an IMAP account's folders, read with IMAPClient.

Per folder, the UIDVALIDITY and the last UID read are kept (``source_folders``): a sync
fetches only the messages above it; a folder whose UIDVALIDITY changed is read again. A
message's document id is its Message-ID's (``mail-`` and 16 hex digits of its SHA-256; a
message without one: its bytes'), so the same message in two folders, or read again after a
UIDVALIDITY change, is the same document and its same bytes are no new version (the upload
answers deduplicated). Each message is one transaction with its folder's new last UID, so a
sync stopped halfway loses and doubles nothing. Messages are uploaded as ``.eml``: their
attachments become documents and replies are threaded as for any e-mail. The password is
kept encrypted with the operator's key and never returned.
"""

from __future__ import annotations

import hashlib
import re
import socket
import ssl
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.domain.errors import BadRequest, Forbidden, NotFound, ServiceError, Unavailable
from app.registry.tables import Source, SourceFolder
from app.sources.folder import keep_report, note_progress

FETCH_BATCH = 25
MESSAGE_ID = re.compile(rb"^message-id:\s*(<[^>\r\n]{1,500}>)", re.IGNORECASE | re.MULTILINE)


def cipher(secret_key: str | None) -> Any:
    """The operator's Fernet; 403 ``SOURCE_SECRET_KEY_MISSING`` without a key (no mailbox
    password is kept in clear), 422-free: a bad key is the operator's, said as such."""
    if not secret_key:
        raise Forbidden("mailbox sources need EVIDENCE_SOURCES__SECRET_KEY (a Fernet key the "
                        "operator sets) to keep their passwords encrypted",
                        code="SOURCE_SECRET_KEY_MISSING")
    from cryptography.fernet import Fernet

    try:
        return Fernet(secret_key.encode())
    except (ValueError, TypeError):
        raise Unavailable("EVIDENCE_SOURCES__SECRET_KEY is not a Fernet key (32 url-safe "
                          "base64-encoded bytes)", code="SOURCE_SECRET_KEY_INVALID") from None


def message_document_id(raw: bytes) -> str:
    """A message's document id: from its Message-ID (the same message in any folder, read
    any number of times, is one document), else from its bytes."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    found = MESSAGE_ID.search(head)
    basis = found.group(1).strip() if found else raw
    return f"mail-{hashlib.sha256(basis).hexdigest()[:16]}"


Upload = Callable[[Session, str, bytes, str], None]  # (session, file name, bytes, document id)


def _connect(config: dict[str, Any], password: str, timeout: float) -> Any:
    from imapclient import IMAPClient
    from imapclient.exceptions import LoginError

    try:
        client = IMAPClient(config["host"], port=int(config["port"]), ssl=bool(config["tls"]),
                            timeout=timeout)
    except (OSError, socket.timeout, ssl.SSLError, ValueError) as exc:  # ValueError: a host
        # name IDNA cannot encode
        raise Unavailable(f"cannot reach the mailbox at {config['host']}:{config['port']} "
                          f"({type(exc).__name__}: {str(exc)[:200]})",
                          code="SOURCE_UNREACHABLE") from None
    try:
        client.login(config["username"], password)
    except LoginError:
        client.shutdown()
        raise Forbidden(f"the mailbox refused the login of {config['username']!r}",
                        code="SOURCE_LOGIN_FAILED") from None
    return client


def sync(sessions: sessionmaker[Session], source_pk: int, *, client_id: str, password: str,
         max_messages: int, max_bytes: int, timeout: float, upload: Upload) -> dict[str, Any]:
    """One sync of a mailbox source (the module's rules); its report, kept on the source."""
    from imapclient.exceptions import IMAPClientError

    with sessions() as s:
        source = s.get(Source, source_pk)
        if source is None or source.client_id != client_id:
            raise NotFound("the source is gone", code="SOURCE_NOT_FOUND")
        config = dict(source.config or {})
        states = {f.folder: (f.uidvalidity, f.last_uid)
                  for f in s.scalars(select(SourceFolder)
                                     .where(SourceFolder.source_pk == source_pk))}
    report: dict[str, Any] = {"seen": 0, "new": [], "unchanged": 0, "failed": [],
                              "folders": {}, "truncated": False}
    budget = max_messages
    client = _connect(config, password, timeout)
    try:
        for folder in config.get("folders") or ["INBOX"]:
            try:
                status = client.select_folder(folder, readonly=True)
            except IMAPClientError as exc:
                report["failed"].append({"path": folder, "code": "SOURCE_FOLDER_UNREADABLE",
                                         "message": str(exc)[:300]})
                continue
            validity = int(status[b"UIDVALIDITY"])
            known = states.get(folder)
            since = known[1] if known is not None and known[0] == validity else 0
            uids = sorted(u for u in client.search(["UID", f"{since + 1}:*"]) if u > since)
            if len(uids) > budget:
                uids, report["truncated"] = uids[:budget], True
            budget -= len(uids)
            fetched = 0
            for start in range(0, len(uids), FETCH_BATCH):
                batch = uids[start:start + FETCH_BATCH]
                sizes = client.fetch(batch, ["RFC822.SIZE"])
                wanted = [u for u in batch if int(sizes.get(u, {}).get(b"RFC822.SIZE", 0))
                          <= max_bytes]
                for uid in batch:
                    if uid not in wanted:
                        report["failed"].append({"path": f"{folder}/{uid}",
                                                 "code": "SOURCE_MESSAGE_TOO_LARGE",
                                                 "message": f"over {max_bytes:,} bytes"})
                bodies = client.fetch(wanted, ["BODY.PEEK[]"]) if wanted else {}
                for uid in batch:
                    report["seen"] += 1
                    raw = (bodies.get(uid) or {}).get(b"BODY[]")
                    with sessions() as s:
                        try:
                            if raw:
                                document_id = message_document_id(raw)
                                if upload(s, f"{document_id}.eml", raw, document_id):
                                    report["unchanged"] += 1
                                else:
                                    report["new"].append(f"{folder}/{uid}")
                                    fetched += 1
                        except ServiceError as exc:
                            s.rollback()
                            report["failed"].append({"path": f"{folder}/{uid}",
                                                     "code": exc.code,
                                                     "message": exc.message[:300]})
                        note_progress(s, source_pk, {"seen": report["seen"],
                                                     "new": len(report["new"]),
                                                     "failed": len(report["failed"])})
                        row = s.get(SourceFolder, (source_pk, folder))
                        if row is None:
                            s.add(SourceFolder(source_pk=source_pk, folder=folder,
                                               uidvalidity=validity, last_uid=uid))
                        else:
                            row.uidvalidity, row.last_uid = validity, uid
                        s.commit()
            report["folders"][folder] = {"uidvalidity": validity, "fetched": fetched,
                                         "read_again": known is not None
                                         and known[0] != validity}
    except (OSError, socket.timeout) as exc:
        raise Unavailable(f"the mailbox connection failed ({type(exc).__name__})",
                          code="SOURCE_UNREACHABLE") from None
    finally:
        try:
            client.logout()
        except Exception:  # noqa: BLE001 - a connection already gone
            pass
    report["failed_count"] = len(report["failed"])
    report["failed"] = report["failed"][:50]
    return keep_report(sessions, source_pk, report)


def check_config(host: str, port: int, folders: list[str]) -> None:
    if not host.strip() or any(c in host for c in "/ \t\r\n"):
        raise BadRequest("host: a host name or address", code="INVALID_REQUEST")
    if not folders:
        raise BadRequest("folders: at least one", code="INVALID_REQUEST")


def password_of(secret_key: str | None, secret: bytes | None) -> str:
    """A mailbox source's password, decrypted; 503 ``SOURCE_SECRET_KEY_INVALID`` where the
    operator's key is not the one it was encrypted with."""
    from cryptography.fernet import InvalidToken

    try:
        return cipher(secret_key).decrypt(secret or b"").decode()
    except InvalidToken:
        raise Unavailable("the mailbox password was encrypted with another "
                          "EVIDENCE_SOURCES__SECRET_KEY: set that key, or add the source again",
                          code="SOURCE_SECRET_KEY_INVALID") from None

