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
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from sqlalchemy.orm import Session, sessionmaker

from app.domain.errors import ServiceError
from app.registry import watches as watches_registry
from app.registry.tables import DocumentVersion, Watch, WatchMatch
from app.search.service import SearchAnswer, SearchQuery, SearchService
from app.settings import WatchSettings
from app.watches.webhooks import SIGNATURE_HEADER, host_allowed
from evidence_client.webhooks import signature  # the one signing rule, both sides

log = logging.getLogger(__name__)
Render = Callable[[SearchAnswer], dict[str, Any]]  # the answer's first row's evidence, as JSON
EVENTS_PER_ROUND = 50


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


def webhook_body(watch: Watch, match: WatchMatch) -> bytes:
    """The JSON a webhook receives (signed as these exact bytes)."""
    return json.dumps({
        "event": "watch.match", "watch_id": watch.watch_id, "name": watch.name,
        "query": watch.request.get("query"),
        "match": match_json(match)}, ensure_ascii=False, separators=(",", ":")).encode()


def match_json(match: WatchMatch) -> dict[str, Any]:
    return {"document_id": match.document_id, "version_id": match.version_id,
            "matched_at": match.matched_at.isoformat().replace("+00:00", "Z"),
            "evidence": match.evidence.get("content", []),
            "metadata_evidence": match.evidence.get("metadata", [])}


class WatchRunner:
    def __init__(self, sessions: sessionmaker[Session], search: SearchService,
                 settings: WatchSettings, render: Render,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.sessions, self.search, self.settings, self.render = (
            sessions, search, settings, render)
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
        try:
            answer = self.search.answer(session, client_id=watch.client_id, query=query)
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
        """POST every due delivery, a few at once; returns how many were delivered."""
        with self.sessions() as session:
            due = watches_registry.claim_deliveries(
                session, limit=4 * self.settings.delivery_threads)
            jobs = [(match.id, watch.webhook_url, watch.secret, webhook_body(watch, match))
                    for match, watch in due]
        outcomes = list(self._pool.map(lambda job: (job[0], self._post(*job[1:])), jobs))
        with self.sessions() as session:
            for match_id, error in outcomes:
                if error is None:
                    watches_registry.delivered(session, match_id=match_id)
                else:
                    watches_registry.delivery_failed(
                        session, match_id=match_id, error=error,
                        max_attempts=self.settings.max_attempts,
                        backoff_base_s=self.settings.backoff_base_s)
            session.commit()
        return sum(error is None for _, error in outcomes)

    def _post(self, url: str | None, secret: str, body: bytes) -> str | None:
        """None when the receiver took it (2xx); else why not, in one line."""
        if not url or not host_allowed(url, self.settings.allowed_hosts()):
            return "the webhook's host is no longer allowed (EVIDENCE_WATCH__WEBHOOK_HOSTS)"
        try:
            response = self._http.post(url, content=body, headers={
                "Content-Type": "application/json", SIGNATURE_HEADER: signature(secret, body),
                "X-Evidence-Event": "watch.match"})
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}"[:500]
        if 200 <= response.status_code < 300:
            return None
        return f"HTTP {response.status_code}"

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
