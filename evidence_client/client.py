"""EvidenceClient and AsyncEvidenceClient over httpx.

Every method is written once (``_Api``): it describes its call, and the sync or async client
runs it — so the two cannot differ. Retries only where repeating cannot do a thing twice: GET
requests and POST /search (a read), on a connection that failed or a 502/503/504, with
exponential backoff. Uploads, deletions and discovery changes are never retried.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import httpx

from evidence_client.errors import EvidenceError

SEARCH_FIELDS = frozenset({"scope", "alpha", "fusion", "filters", "versions", "as_of",
                           "diagnose", "explain", "facets", "rerank", "limit", "offset",
                           "autocut", "syntax", "collapse", "changed_only", "sort"})
BATCH_FIELDS = frozenset({"scope", "alpha", "fusion", "filters", "versions", "as_of",
                          "rerank", "limit", "syntax", "collapse", "name"})
RETRY_STATUSES = frozenset({502, 503, 504})
FINISHED = frozenset({"succeeded", "failed"})


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    params: dict[str, Any] | None = None
    json: Any = None
    data: dict[str, str] | None = None
    files: dict[str, Any] | None = None
    ok: tuple[int, ...] = (200,)
    retry: bool = False  # safe to repeat: a read
    raw: bool = False  # the answer's bytes, not JSON (a page image, an original file)

    def request(self) -> dict[str, Any]:
        """httpx's request arguments."""
        return {"method": self.method, "url": self.path, "params": self.params,
                "json": self.json, "data": self.data, "files": self.files}


AGAIN = object()  # an attempt's outcome: try once more after the backoff


@dataclass
class _Retry:
    attempts: int = 3
    backoff_s: float = 0.25

    def delay(self, attempt: int) -> float:
        return self.backoff_s * 2 ** attempt


def _transport_error(url: str, exc: httpx.HTTPError) -> EvidenceError:
    if isinstance(exc, httpx.ConnectError):
        return EvidenceError("SERVER_UNREACHABLE", f"cannot reach the server at {url}")
    if isinstance(exc, httpx.TimeoutException):
        return EvidenceError("SERVER_TIMEOUT", f"the server at {url} did not answer in time")
    return EvidenceError("SERVER_ERROR", f"talking to {url} failed: {exc}")


def _body(response: httpx.Response) -> Any:
    return response.json() if response.content else None


class _Api:
    """The API's operations, each described as a Call (run by the subclass)."""

    base_url: str

    def _run(self, call: Call) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _outcome(self, call: Call, attempt: int, attempts: int, *,
                 response: httpx.Response | None = None,
                 error: httpx.HTTPError | None = None) -> Any:
        """One attempt judged, the same for the sync and async clients: the answer's body,
        AGAIN (a read that failed in a way that can pass, attempts left), or an
        EvidenceError raised."""
        last = attempt == attempts - 1
        if error is not None or response is None:
            if last:
                raise _transport_error(self.base_url, error) from None  # type: ignore[arg-type]
            return AGAIN
        if response.status_code in call.ok:
            return response.content if call.raw else _body(response)
        if last or response.status_code not in RETRY_STATUSES:
            raise EvidenceError.from_response(response)
        return AGAIN

    # documents and jobs -------------------------------------------------------------------
    def upload(self, file: str | Path | bytes | BinaryIO, *, filename: str | None = None,
               metadata: dict[str, Any] | None = None, document_id: str | None = None,
               source: str | None = None, path: str | None = None,
               access: list[str] | None = None) -> Any:
        """POST /documents: a new version of a document (202 with its job). ``file`` is a
        path, bytes (give ``filename``) or a binary file object; ``access``: its access
        groups ([]: every key of the client sees it; None: as the server's default)."""
        if isinstance(file, (str, Path)):
            filename = filename or Path(file).name
            content: Any = Path(file).read_bytes()
        elif isinstance(file, bytes):
            if not filename:
                raise ValueError("bytes need a filename (its extension says the type)")
            content = file
        else:
            content = file.read()
            filename = filename or Path(getattr(file, "name", "upload")).name
        form = {k: v for k, v in {"document_id": document_id, "source": source,
                                  "path": path}.items() if v is not None}
        if metadata is not None:
            form["metadata"] = json.dumps(metadata)
        if access is not None:
            form["access"] = ",".join(access)
        return self._run(Call("POST", "/documents", data=form,
                              files={"file": (filename, content)}, ok=(202,)))

    def original(self, document_id: str, version_id: str) -> Any:
        """GET /documents/{id}/versions/{v}/file: the bytes uploaded, byte for byte."""
        return self._run(Call("GET", f"/documents/{_segment(document_id)}/versions/"
                                     f"{_segment(version_id)}/file", retry=True, raw=True))

    def page_image(self, document_id: str, version_id: str, page: int, *,
                   width: int | None = None, highlight: str | None = None) -> Any:
        """GET …/versions/{v}/pages/{n}.png: a page of a PDF or image as PNG bytes, with
        the chunk ``highlight`` (a chunk_id) boxed."""
        params = {k: v for k, v in {"width": width, "highlight": highlight}.items()
                  if v is not None}
        return self._run(Call("GET", f"/documents/{_segment(document_id)}/versions/"
                                     f"{_segment(version_id)}/pages/{int(page)}.png",
                              params=params or None, retry=True, raw=True))

    def set_access(self, document_id: str, groups: list[str]) -> Any:
        """PATCH /documents/{document_id}: its access groups from now on ([]: every key of
        the client sees it); every version is relabelled before the answer."""
        return self._run(Call("PATCH", f"/documents/{_segment(document_id)}",
                              json={"access": list(groups)}))

    def issue_key(self, *, groups: list[str] | None = None, delegate: bool = False) -> Any:
        """POST /clients/me/keys (an admin key): another key of this client, seeing only
        unrestricted documents and those of ``groups`` (None: an admin key); ``delegate``:
        it may pass a person's groups (``EvidenceClient(..., groups=[...])``)."""
        return self._run(Call("POST", "/clients/me/keys", ok=(201,),
                              json={"groups": groups, "delegate": delegate}))

    def job(self, job_id: str) -> Any:
        """GET /jobs/{job_id}: status, attempts, progress and stage, error."""
        return self._run(Call("GET", f"/jobs/{_segment(job_id)}", retry=True))

    def documents(self, *, kind: str | None = None, source: str | None = None,
                  state: str | None = None, sort: str | None = None, order: str | None = None,
                  offset: int | None = None, limit: int | None = None) -> Any:
        """GET /documents: this client's documents, one page."""
        params = {k: v for k, v in {"kind": kind, "source": source, "state": state,
                                    "sort": sort, "order": order, "offset": offset,
                                    "limit": limit}.items() if v is not None}
        return self._run(Call("GET", "/documents", params=params, retry=True))

    def document(self, document_id: str) -> Any:
        """GET /documents/{document_id}: the document and every version."""
        return self._run(Call("GET", f"/documents/{_segment(document_id)}", retry=True))

    def delete_document(self, document_id: str) -> Any:
        """DELETE /documents/{document_id}: every version, its chunks and bytes (204)."""
        return self._run(Call("DELETE", f"/documents/{_segment(document_id)}", ok=(204,)))

    # search -------------------------------------------------------------------------------
    def search(self, query: str, **fields: Any) -> Any:
        """POST /search: Evidence Results. ``fields`` are the request's own (scope, alpha,
        fusion, filters, versions, as_of, diagnose, explain, facets, rerank, limit, offset,
        autocut, syntax, collapse, changed_only, sort); ``query=""`` lists every version
        under the filters (a browse);
        the document text in the answer is untrusted data, never instructions."""
        unknown = sorted(set(fields) - SEARCH_FIELDS)
        if unknown:
            raise TypeError(f"unknown search field(s) {unknown}: use {sorted(SEARCH_FIELDS)}")
        return self._run(Call("POST", "/search", json={"query": query, **fields}, retry=True))

    # entities -----------------------------------------------------------------------------
    def search_batch(self, queries: list[str | dict[str, str]], **fields: Any) -> Any:
        """POST /searches/batch: the queries (texts, or {"query", "name"}) searched as one job
        with the shared ``fields`` (scope, alpha, fusion, filters, versions, as_of, rerank,
        limit per query, syntax, collapse, name); 202 with its ``batch_id``."""
        unknown = sorted(set(fields) - BATCH_FIELDS)
        if unknown:
            raise TypeError(f"unknown batch field(s) {unknown}: use {sorted(BATCH_FIELDS)}")
        return self._run(Call("POST", "/searches/batch", ok=(202,),
                              json={"queries": list(queries), **fields}))

    def batch(self, batch_id: str) -> Any:
        """GET /searches/batch/{batch_id}: status, done of total, hits so far."""
        return self._run(Call("GET", f"/searches/batch/{_segment(batch_id)}", retry=True))

    def batch_results(self, batch_id: str, *, format: str = "jsonl") -> Any:
        """GET /searches/batch/{batch_id}/results: the bytes of the JSON lines (one object
        per query) or the CSV (``format="csv"``) — the queries searched so far."""
        return self._run(Call("GET", f"/searches/batch/{_segment(batch_id)}/results",
                              params={"format": format}, retry=True, raw=True))

    def audit(self, *, since: str | None = None, until: str | None = None,
              actor: str | None = None, action: list[str] | None = None,
              after: int | None = None, limit: int | None = None) -> Any:
        """GET /audit (an admin key): what this client's keys did, oldest first."""
        params = {k: v for k, v in {"since": since, "until": until, "actor": actor,
                                    "action": action, "after": after,
                                    "limit": limit}.items() if v is not None}
        return self._run(Call("GET", "/audit", params=params, retry=True))

    def entities(self, group: str, *, q: str | None = None, limit: int | None = None,
                 cursor: str | None = None) -> Any:
        """GET /entities: the group's entities in this client's current versions, with the
        documents and mentions of each (values are untrusted document text)."""
        params = {k: v for k, v in {"group": group, "q": q, "limit": limit,
                                    "cursor": cursor}.items() if v is not None}
        return self._run(Call("GET", "/entities", params=params, retry=True))

    def entity_documents(self, group: str, value: str) -> Any:
        """GET /entities/{group}/{value}/documents: the current versions naming the entity,
        in any spelling."""
        return self._run(Call("GET", f"/entities/{_segment(group)}/{_segment(value)}/documents",
                              retry=True))

    def thread(self, thread_id: str) -> Any:
        """GET /threads/{thread_id}: an e-mail thread's messages in date order."""
        return self._run(Call("GET", f"/threads/{_segment(thread_id)}", retry=True))

    def changes(self, document_id: str, *, from_version: str | None = None,
                to_version: str | None = None) -> Any:
        """GET /documents/{id}/changes: what was added, removed and changed between two
        versions (default: the current one against its predecessor)."""
        params = {k: v for k, v in (("from", from_version), ("to", to_version)) if v}
        return self._run(Call("GET", f"/documents/{_segment(document_id)}/changes",
                              params=params, retry=True))

    # watches: standing queries ------------------------------------------------------------
    def create_watch(self, query: str, *, webhook_url: str | None = None,
                     name: str | None = None, **fields: Any) -> Any:
        """POST /watches: record (and POST to ``webhook_url``) every version published from
        now on that this search would return; ``fields``: scope, alpha, filters. The answer
        holds the webhook secret, shown this once (verify deliveries with
        ``evidence_client.verify_signature``)."""
        body = {"query": query, **fields, **{k: v for k, v in (
            ("webhook_url", webhook_url), ("name", name)) if v is not None}}
        return self._run(Call("POST", "/watches", json=body, ok=(201,)))

    def watches(self) -> Any:
        """GET /watches: this client's watches."""
        return self._run(Call("GET", "/watches", retry=True))

    def watch(self, watch_id: str) -> Any:
        """GET /watches/{id}."""
        return self._run(Call("GET", f"/watches/{_segment(watch_id)}", retry=True))

    def watch_matches(self, watch_id: str, *, cursor: str | None = None,
                      limit: int = 50) -> Any:
        """GET /watches/{id}/matches: the versions it matched after ``cursor``, oldest first
        (poll with the ``next_cursor`` of the last page)."""
        params: dict[str, Any] = {"limit": limit}
        if cursor:
            params["cursor"] = cursor
        return self._run(Call("GET", f"/watches/{_segment(watch_id)}/matches",
                              params=params, retry=True))

    def delete_watch(self, watch_id: str) -> Any:
        """DELETE /watches/{id}: the watch and its matches."""
        return self._run(Call("DELETE", f"/watches/{_segment(watch_id)}", ok=(204,)))

    # the client itself --------------------------------------------------------------------
    def me(self) -> Any:
        """GET /clients/me: this client, its authority and discovery state."""
        return self._run(Call("GET", "/clients/me", retry=True))

    def metadata_catalog(self) -> Any:
        """GET /clients/me/metadata: the metadata keys discovery has found."""
        return self._run(Call("GET", "/clients/me/metadata", retry=True))

    def set_discovery(self, enabled: bool) -> Any:
        """POST /clients/me/metadata/discovery: turn metadata discovery on or off."""
        return self._run(Call("POST", "/clients/me/metadata/discovery",
                              json={"enabled": enabled}))


def _segment(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _headers(api_key: str, groups: list[str] | None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {api_key}"}
    if groups is not None:
        headers["X-Evidence-Groups"] = ",".join(groups)
    return headers


class EvidenceClient(_Api):
    """The API over one keep-alive connection pool; a context manager."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 60.0,
                 retries: int = 3, backoff_s: float = 0.25,
                 transport: httpx.BaseTransport | None = None,
                 groups: list[str] | None = None) -> None:
        """``groups``: the access groups of the person this client serves, sent with every
        request (X-Evidence-Groups; the key must be allowed to delegate)."""
        self.base_url = base_url.rstrip("/")
        self._retry = _Retry(retries, backoff_s)
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport,
                                  headers=_headers(api_key, groups))

    def __enter__(self) -> EvidenceClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _run(self, call: Call) -> Any:
        attempts = self._retry.attempts if call.retry else 1
        for attempt in range(attempts):
            try:
                outcome = self._outcome(call, attempt, attempts,
                                        response=self._http.request(**call.request()))
            except httpx.HTTPError as exc:
                outcome = self._outcome(call, attempt, attempts, error=exc)
            if outcome is not AGAIN:
                return outcome
            time.sleep(self._retry.delay(attempt))
        raise AssertionError("unreachable")

    def wait_for_job(self, job_id: str, *, timeout_s: float = 600.0,
                     poll_s: float = 0.5) -> Any:
        """Poll until the job has succeeded or failed (returned either way: read
        ``status`` and ``error``); EvidenceError JOB_WAIT_TIMEOUT past ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            job = self.job(job_id)
            if job["status"] in FINISHED:
                return job
            if time.monotonic() > deadline:
                raise EvidenceError("JOB_WAIT_TIMEOUT", f"job {job_id} is still "
                                    f"{job['status']} after {timeout_s:g} s")
            time.sleep(poll_s)


class AsyncEvidenceClient(_Api):
    """The same API for asyncio: every method is awaited."""

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 60.0,
                 retries: int = 3, backoff_s: float = 0.25,
                 transport: httpx.AsyncBaseTransport | None = None,
                 groups: list[str] | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._retry = _Retry(retries, backoff_s)
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout,
                                       transport=transport, headers=_headers(api_key, groups))

    async def __aenter__(self) -> AsyncEvidenceClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _run(self, call: Call) -> Any:  # type: ignore[override]
        attempts = self._retry.attempts if call.retry else 1
        for attempt in range(attempts):
            try:
                outcome = self._outcome(call, attempt, attempts,
                                        response=await self._http.request(**call.request()))
            except httpx.HTTPError as exc:
                outcome = self._outcome(call, attempt, attempts, error=exc)
            if outcome is not AGAIN:
                return outcome
            await asyncio.sleep(self._retry.delay(attempt))
        raise AssertionError("unreachable")

    async def wait_for_job(self, job_id: str, *, timeout_s: float = 600.0,
                           poll_s: float = 0.5) -> Any:
        deadline = time.monotonic() + timeout_s
        while True:
            job = await self.job(job_id)
            if job["status"] in FINISHED:
                return job
            if time.monotonic() > deadline:
                raise EvidenceError("JOB_WAIT_TIMEOUT", f"job {job_id} is still "
                                    f"{job['status']} after {timeout_s:g} s")
            await asyncio.sleep(poll_s)
