"""The watch runner: each first publication (the registry's outbox) against the client's
watches, then each match's webhook — in the serving process, beside the API, never inside
ingestion (publishing only writes an outbox row, so a slow or dead receiver cannot hold a job).

A watch matches a version when its own search — the watch's query, scope, alpha and filters, with
the same floors and the same client — returns that version, asked with the version named
(``document_id`` and ``version_id`` filters, ``versions: all`` so a version superseded a moment
after its publication is still judged as it was published). The evidence recorded is the
search's own, as POST /search would cite it. A watch sees versions published after it was made.

Two threads: ``evaluate`` (one search per event and watch) and ``deliver`` (webhook POSTs, a few
at once, each bounded by ``watch.timeout_s``, retried with doubling backoff); several serving
processes may run both, the registry's guarded claims keeping every event and delivery single.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.orm import Session, sessionmaker

from app.domain.access import Access
from app.domain.errors import ServiceError
from app.registry import watches as watches_registry
from app.registry.clients import key_access
from app.registry.tables import DocumentVersion, Watch, WatchMatch
from app.search.service import SearchAnswer, SearchQuery, SearchService
from app.settings import WatchSettings
from app.watches.webhooks import DELIVERY_HEADER, SIGNATURE_HEADER, host_allowed, own_address
from evidence_client.webhooks import signature  # the one signing rule, both sides

log = logging.getLogger(__name__)
Render = Callable[[SearchAnswer], dict[str, Any]]  # the answer's first row's evidence, as JSON
EVENTS_PER_ROUND = 50
DELIVERY_NAMESPACE = uuid.UUID("0b7c2f4e-5d1a-4b8e-9c3f-7a2e6d4b1c90")


def admits(spec: Any, value: str) -> bool:
    """Would an exact filter's value (a value, a list, {"not": …}) let ``value`` through?"""
    if isinstance(spec, dict) and "not" in spec:
        negated = spec["not"] if isinstance(spec["not"], list) else [spec["not"]]
        return value not in negated
    if isinstance(spec, list):
        return value in spec
    return spec == value


def restricted_query(request: Mapping[str, Any], document_id: str, version_id: str
                     ) -> SearchQuery | None:
    """The watch's search asked about one version, or None when its own filters exclude it."""
    filters = dict(request.get("filters") or {})
    for key, value in (("document_id", document_id), ("version_id", version_id)):
        if key in filters and not admits(filters[key], value):
            return None
        filters[key] = value
    return SearchQuery(query=request["query"], scope=request.get("scope", "content"),
                       alpha=request.get("alpha"), filters=filters, versions="all", limit=1)


def delivery_id(watch: Watch, match: WatchMatch) -> str:
    """The delivery's id, the same on every try of one match (a receiver drops a repeat by
    it), opaque: the registry's row numbers, which count every client's matches, stay in."""
    return "dlv_" + uuid.uuid5(DELIVERY_NAMESPACE, f"{watch.watch_id}/{match.id}").hex[:24]


def webhook_body(watch: Watch, match: WatchMatch) -> bytes:
    """The JSON a webhook receives (signed as these exact bytes)."""
    return json.dumps({
        "event": "watch.match", "delivery_id": delivery_id(watch, match),
        "watch_id": watch.watch_id, "name": watch.name, "query": watch.request.get("query"),
        "match": match_json(match)}, ensure_ascii=False, separators=(",", ":")).encode()


def match_json(match: WatchMatch) -> dict[str, Any]:
    return {"document_id": match.document_id, "version_id": match.version_id,
            "matched_at": match.matched_at.isoformat().replace("+00:00", "Z"),
            "evidence": match.evidence.get("content", []),
            "metadata_evidence": match.evidence.get("metadata", [])}


class WatchRunner:
    def __init__(self, sessions: sessionmaker[Session], search: SearchService,
                 settings: WatchSettings, render: Render,
                 transport: httpx.BaseTransport | None = None,
                 data_dir: Path | None = None) -> None:
        self.sessions, self.search, self.settings, self.render = (
            sessions, search, settings, render)
        self.data_dir = data_dir  # where a live server records its own address
        # claimed a few rounds of the pool at a time; a claim outlives its slowest wait in the
        # pool's queue and its POST (seconds, not minutes: a crash's deliveries go out soon)
        self.claim_limit = 4 * settings.delivery_threads
        self.lease_s = settings.timeout_s * (self.claim_limit / settings.delivery_threads + 1) + 5
        self._http = httpx.Client(timeout=settings.timeout_s, follow_redirects=False,
                                  transport=transport,
                                  headers={"User-Agent": "evidence-search-webhook"})
        self._pool = ThreadPoolExecutor(settings.delivery_threads,
                                        thread_name_prefix="watch-delivery")

    # -- evaluation -------------------------------------------------------------------------

    def evaluate(self) -> int:
        """Every waiting publication against its client's watches; returns matches recorded."""
        recorded = 0
        with self.sessions() as session:
            while events := watches_registry.claim_events(session, limit=EVENTS_PER_ROUND):
                for event in events:
                    try:
                        recorded += self._evaluate_event(session, event)
                        session.delete(event)
                        session.commit()
                    except Exception:  # noqa: BLE001 - one event's failure stops no other
                        session.rollback()
                        log.warning("watch evaluation failed; it will be tried again",
                                    exc_info=True, extra={"fields": {"event": event.id}})
                        live = session.get(type(event), event.id)
                        if live is not None and watches_registry.event_failed(session, live):
                            log.error("watch evaluation dropped after repeated failures",
                                      extra={"fields": {"version_pk": live.version_pk}})
                        session.commit()
        return recorded

    def _evaluate_event(self, session: Session, event: Any) -> int:
        subject = watches_registry.event_subject(session, event)
        if subject is None:
            return 0  # deleted since: nothing to see
        version, document = subject
        recorded = 0
        for watch in watches_registry.watches_seeing(session, event):
            evidence = self.evidence_for(session, watch, version, document.document_id)
            if evidence is not None and watches_registry.record_match(
                    session, watch=watch, version=version, document_id=document.document_id,
                    evidence=evidence, max_matches=self.settings.max_matches):
                recorded += 1
        return recorded

    def evidence_for(self, session: Session, watch: Watch, version: DocumentVersion,
                     document_id: str) -> dict[str, Any] | None:
        """The evidence the watch's search cites for this version, or None if it does not
        return it. A partial answer (a lane that did not answer) that finds nothing raises, so
        the event is tried again rather than judged on half a search."""
        query = restricted_query(watch.request, document_id, version.version_id)
        if query is None:
            return None
        # it sees what the key that made it may see now (issue 48); nothing once it is revoked
        access = (key_access(session, key_id=watch.key_id, narrowed=watch.narrowed)
                  if watch.key_id is not None else Access())
        if access is None:
            return None
        try:
            answer = self.search.answer(session, client_id=watch.client_id, query=query,
                                        access=access)
        except ServiceError as exc:  # the search itself refuses (e.g. scope metadata turned off)
            log.info("a watch's search was refused: %s", exc.code,
                     extra={"fields": {"watch_id": watch.watch_id}})
            return None
        if not any(row.version_id == version.version_id and row.document_id == document_id
                   for row in answer.rows):
            if answer.status != "complete":
                raise RuntimeError(f"partial search ({answer.status}) for {watch.watch_id}")
            return None
        return self.render(answer)

    # -- delivery ---------------------------------------------------------------------------

    def deliver(self) -> int:
        """POST every due delivery, a few at once, each one's outcome recorded the moment it
        is known (a crash loses at most the deliveries in flight, each sent once more after
        its lease); returns how many were delivered."""
        with self.sessions() as session:
            due = watches_registry.claim_deliveries(session, limit=self.claim_limit,
                                                    lease_s=self.lease_s)
            jobs = [(match.id, watch.webhook_url, watch.secret, webhook_body(watch, match),
                     delivery_id(watch, match)) for match, watch in due]
        own = own_address(self.data_dir) if jobs and self.data_dir else None  # once a round
        return sum(self._pool.map(lambda job: self._deliver_one(*job, own=own), jobs))

    def _deliver_one(self, match_id: int, url: str | None, secret: str, body: bytes,
                     delivery: str, own: tuple[str, int] | None = None) -> bool:
        """One delivery: POSTed, its outcome written in a session of its own. Whatever goes
        wrong with it is its own failure, never its batch's."""
        try:
            error, permanent = self._post(url, secret, body, delivery, own)
        except Exception as exc:  # noqa: BLE001 - this delivery fails, no other
            error, permanent = f"{type(exc).__name__}: {exc}"[:500], False
        try:
            with self.sessions() as session:
                if error is None:
                    watches_registry.delivered(session, match_id=match_id)
                else:
                    watches_registry.delivery_failed(
                        session, match_id=match_id, error=error, permanent=permanent,
                        max_attempts=self.settings.max_attempts,
                        backoff_base_s=self.settings.backoff_base_s)
                session.commit()
        except Exception:  # noqa: BLE001 - unrecorded: its lease lapses, it is tried again
            log.exception("a webhook delivery's outcome could not be recorded",
                          extra={"fields": {"match": match_id}})
        return error is None

    def _post(self, url: str | None, secret: str, body: bytes, delivery: str,
              own: tuple[str, int] | None = None) -> tuple[str | None, bool]:
        """(None, False) when the receiver took it (2xx); else why not in one line, and
        whether trying again cannot help: a host no longer allowed, a URL the HTTP client
        cannot send, a 4xx other than 408 and 429 (the receiver refused this request)."""
        if not url or not host_allowed(url, self.settings.allowed_hosts(), own):
            return ("the webhook's host and port are no longer allowed "
                    "(EVIDENCE_WATCH__WEBHOOK_HOSTS)", True)
        try:
            response = self._http.post(url, content=body, headers={
                "Content-Type": "application/json", SIGNATURE_HEADER: signature(secret, body),
                DELIVERY_HEADER: delivery, "X-Evidence-Event": "watch.match"})
        except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
            return f"{type(exc).__name__}: {exc}"[:500], True
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}"[:500], False
        status = response.status_code
        if 200 <= status < 300:
            return None, False
        return f"HTTP {status}", 400 <= status < 500 and status not in (408, 429)

    def run_once(self) -> tuple[int, int]:
        """One evaluation round, then one delivery round: (matches recorded, delivered)."""
        return self.evaluate(), self.deliver()

    # -- threads ----------------------------------------------------------------------------

    def run_forever(self, stop: threading.Event) -> None:
        """Evaluate and deliver until ``stop``, each in a thread of its own (a slow receiver
        never delays the next evaluation)."""
        def loop(step: Callable[[], object], name: str) -> None:
            while not stop.is_set():
                try:
                    step()
                except Exception:  # noqa: BLE001 - the loop outlives one bad round
                    log.exception("watch %s round failed", name)
                stop.wait(self.settings.poll_s)

        threads = [threading.Thread(target=loop, args=(self.evaluate, "evaluation"),
                                    name="watch-evaluation", daemon=True),
                   threading.Thread(target=loop, args=(self.deliver, "delivery"),
                                    name="watch-delivery", daemon=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._http.close()
