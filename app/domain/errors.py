"""Domain errors. Domain code raises these; the API renders them in one error shape."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """An error with a stable code, an HTTP status and a message a person can act on."""

    code = "INTERNAL_ERROR"
    http_status = 500
    # Would the same input fail the same way again? The worker retries only what is not.
    permanent = False

    def __init__(self, message: str, *, code: str | None = None, http_status: int | None = None,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        if http_status:
            self.http_status = http_status
        self.details = details or {}

    def __reduce__(self) -> tuple:
        """Pickled whole (code, status, details), as it crosses from the ingestion child."""
        return (_rebuild, (type(self), self.message, self.code, self.http_status, self.details))


def _rebuild(cls: type[ServiceError], message: str, code: str, http_status: int,
             details: dict[str, Any]) -> ServiceError:
    error = cls.__new__(cls)
    ServiceError.__init__(error, message, code=code, http_status=http_status, details=details)
    return error


class BadRequest(ServiceError):
    code, http_status = "INVALID_REQUEST", 422
    permanent = True


class NotFound(ServiceError):
    code, http_status = "NOT_FOUND", 404
    permanent = True


class Unauthorized(ServiceError):
    code, http_status = "UNAUTHORIZED", 401
    permanent = True


class Forbidden(ServiceError):
    code, http_status = "PUBLICATION_AUTHORITY_INACTIVE", 403
    permanent = True


class Conflict(ServiceError):
    code, http_status = "CONFLICT", 409
    permanent = True


class PayloadTooLarge(ServiceError):
    code, http_status = "FILE_TOO_LARGE", 413
    permanent = True


class UnsupportedMediaType(ServiceError):
    code, http_status = "UNSUPPORTED_FILE_TYPE", 415
    permanent = True


class Unavailable(ServiceError):
    code, http_status = "SERVICE_UNAVAILABLE", 503


class ModelMismatchError(ServiceError):
    """The collection was built by another dense model than the one installed."""

    code, http_status = "EMBEDDING_MODEL_MISMATCH", 503


class ModelsNotInstalled(ServiceError):
    code, http_status = "MODELS_NOT_INSTALLED", 503


class ExtractionError(ServiceError):
    """A document that can never be ingested as it is (corrupt, encrypted, empty): permanent."""

    code, http_status = "EXTRACTION_FAILED", 422
    permanent = True


class StoreLocked(ServiceError):
    """The embedded engine's folder is held by another process (a running `evidence serve`)."""

    code, http_status = "STORE_LOCKED", 503


class StoreRejected(ServiceError):
    """The vector engine refused one write twice: this document's own data is at fault, so its
    job fails for good while the engine (reopened) goes on serving everyone else."""

    code, http_status = "STORE_REJECTED", 422
    permanent = True


class StoreNeedsReindex(ServiceError):
    """The collection scores BM25 in a way this version no longer uses: re-index it."""

    code, http_status = "STORE_NEEDS_REINDEX", 503
