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

from app.domain.errors import ServiceError

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


# Every code a failed job can carry (``error_code``), with what it means: docs/FORMATS.md's
# table is this, written by `python -m ingest.failures` (a test keeps the two, and every code
# the extractors raise, in step).
FAILURE_CODES: dict[str, str] = {
    "PDF_ENCRYPTED": "the PDF is password-protected: upload it decrypted",
    "PDF_CORRUPT": "the PDF cannot be parsed (truncated or damaged)",
    "DOCX_CORRUPT": "the .docx is not a readable Word document",
    "DOCX_TOO_LARGE": "the .docx unzips past 256 MiB in all or 32 MiB a part",
    "XLSX_CORRUPT": "the .xlsx is not a readable workbook (or an old .xls)",
    "XLSX_TOO_LARGE": "the .xlsx unzips past 256 MiB",
    "SPREADSHEET_TOO_LARGE": "over 1,000,000 filled cells or 100 sheets",
    "CSV_CORRUPT": "the CSV cannot be read as CSV",
    "PPTX_CORRUPT": "the .pptx is not a readable presentation",
    "PPTX_TOO_LARGE": "over 2,000 slides, or unzipped past 256 MiB",
    "OFFICE_ENCRYPTED": "the Office file is password-protected (an encrypted OLE package): "
                        "upload it decrypted",
    "EMAIL_CORRUPT": "the .eml has no e-mail headers or cannot be parsed (a header that "
                     "cannot be read as written is read as text, with a warning)",
    "EMAIL_TOO_DEEP": "its parts nest deeper than 64 levels (multipart and attached messages "
                      "inside each other)",
    "MSG_CORRUPT": "the .msg is not a readable Outlook item",
    "IMAGE_CORRUPT": "the image cannot be decoded",
    "IMAGE_TOO_LARGE": "an image or rendered page over EVIDENCE_INGEST__OCR_MAX_PIXELS",
    "OCR_UNAVAILABLE": "a scan needs OCR and neither Tesseract nor RapidOCR can run",
    "OCR_TOO_MANY_PAGES": "more scanned pages than EVIDENCE_INGEST__OCR_MAX_PAGES",
    "OCR_TIMEOUT": "a page took OCR longer than EVIDENCE_INGEST__OCR_PAGE_SECONDS",
    "OCR_FAILED": "the OCR engine failed on a page",
    "EMPTY_FILE": "the file is empty (0 bytes)",
    "NO_TEXT": "nothing readable was found (an image without text, an empty sheet)",
    "UNSUPPORTED_FILE_TYPE": "no extractor reads this kind",
    "EXTRACTION_TIMEOUT": "reading the file took longer than EVIDENCE_INGEST__EXTRACT_SECONDS",
    "DOCUMENT_TOO_LONG": "more chunks than EVIDENCE_INGEST__MAX_CHUNKS",
    "EXTRACTION_FAILED": "the file could not be read (the message says why)",
    "OUT_OF_MEMORY": "processing needed more memory than the worker may use",
    "PROCESSING_FAILED": "an unexpected failure on this document's data (the message names "
                         "it); not retried, as it would fail again",
    "RETRIES_EXHAUSTED": "a passing failure (database, engine, disk) lasted through every "
                         "attempt",
    "WORKER_CRASHED": "the worker died during this job more than EVIDENCE_INGEST__MAX_CRASHES "
                      "times",
}


def error_code(exc: BaseException, *, gave_up: bool = False) -> str:
    """The stable code a failed job carries beside its ``error``."""
    if isinstance(exc, ServiceError) and exc.code in FAILURE_CODES:
        return exc.code
    if gave_up:
        return "RETRIES_EXHAUSTED"
    if isinstance(exc, MemoryError):
        return "OUT_OF_MEMORY"
    return "PROCESSING_FAILED"


def code_table() -> str:
    """docs/FORMATS.md's table of failure codes."""
    return "\n".join(["| code | the job failed because |", "|---|---|",
                      *(f"| `{code}` | {meaning} |" for code, meaning in FAILURE_CODES.items())])


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


if __name__ == "__main__":
    print(code_table())
