"""Which ingestion failures are worth a retry.

A document that fails the same way every time (unreadable, too long, a decompression bomb, a
parser's or regex's limit, a bug met on its data) fails at once with a reason a person can act
on; retrying it only spends the worker's time three times over. Only failures that can pass on
their own — the registry or the engine busy or unreachable, a disk momentarily full, the
processing child killed — are retried with backoff.
"""

from __future__ import annotations

import errno
from concurrent.futures.process import BrokenProcessPool

import httpx
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.errors import ServiceError

# errno values of an OSError that says "the machine, not the document"
PASSING_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EAGAIN, errno.EMFILE, errno.ENFILE,
                  errno.ECONNREFUSED, errno.ECONNRESET, errno.EPIPE, errno.ETIMEDOUT}
TRANSIENT_TYPES: tuple[type[BaseException], ...] = (
    OperationalError, InterfaceError, PoolTimeout, httpx.TransportError, BrokenProcessPool)


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, ServiceError):
        return not exc.permanent
    if isinstance(exc, TRANSIENT_TYPES):
        return True
    try:
        from qdrant_client.http.exceptions import ResponseHandlingException

        if isinstance(exc, ResponseHandlingException):
            return True
    except ImportError:  # pragma: no cover - qdrant-client is a dependency
        pass
    return isinstance(exc, OSError) and exc.errno in PASSING_ERRNOS


def reason(exc: BaseException) -> str:
    """What the job's ``error`` says: the domain message, or what went wrong and that it was
    not retried because it would fail again."""
    if isinstance(exc, ServiceError):
        return exc.message
    if isinstance(exc, MemoryError):
        return ("processing this document needed more memory than the worker may use; split "
                "it into smaller documents")
    detail = str(exc)[:300] or "no detail"
    return (f"this document could not be processed ({type(exc).__name__}: {detail}); it would "
            "fail the same way again, so it was not retried")
