"""`evidence ingest`: in-process through the same upload and worker code as the API, or, when
a server holds the embedded engine, through the server's HTTP API."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.progress import Progress

from app.cli.server_api import ServerApi, resolve_key
from app.domain.errors import ServiceError

if TYPE_CHECKING:
    from app.settings import Settings


def _summary() -> dict[str, Any]:
    return {"published": 0, "failed": 0, "unchanged": 0, "errors": [], "reverted": []}


def ingest_in_process(settings: Settings, files: list[Path], root: Path, source: str | None,
                      api_key: str | None, progress: Progress,
                      groups: tuple[str, ...] | None = None) -> dict[str, Any]:
    from app.documents.access import relabel
    from app.documents.uploads import accept_upload, document_id_for
    from app.registry import clients as reg
    from app.registry.database import transaction
    from app.registry.tables import IngestionJob
    from app.runtime import build_runtime, ensure_first_client
    from ingest.service import build_worker

    runtime = build_runtime(settings)
    try:
        created = ensure_first_client(settings, runtime.sessions)
        if created:
            # the key on a line of its own: copied whole, never wrapped after a space
            progress.console.print(f"created the first client 'default'; its API key:\n{created}")
        key = resolve_key(settings, api_key)
        summary = _summary()
        job_ids: dict[str, str] = {}
        with transaction(runtime.sessions) as s:
            client = reg.caller_for_key(s, secret=key)
            reg.require_active(client.authority)
        for path in files:
            try:
                with transaction(runtime.sessions) as s:
                    upload = accept_upload(
                        s, settings=settings.ingest, client_id=client.id, filename=path.name,
                        content=path.read_bytes(),
                        document_id=document_id_for(path.relative_to(root).as_posix()),
                        custom={}, source=source, path=str(path.relative_to(root)),
                        access=client.access, groups=groups)
                    if groups is not None:  # an existing document is relabelled
                        relabel(s, runtime.store, upload.document, groups, client.access)
                    if upload.deduplicated and upload.version.state == "published":
                        summary["unchanged"] += 1
                    else:
                        job_ids[upload.job.id] = str(path)
                    if upload.reverts_to:
                        summary["reverted"].append(
                            f"{path}: {upload.version.version_id} brings back "
                            f"{upload.reverts_to}'s bytes")
            except ServiceError as exc:
                summary["failed"] += 1
                summary["errors"].append(f"{path}: {exc.message}")
        worker = build_worker(runtime)
        task = progress.add_task("ingesting", total=len(job_ids))
        with progress:
            while True:
                worker.drain()
                with transaction(runtime.sessions) as s:
                    jobs = [s.get(IngestionJob, j) for j in job_ids]
                    done = [j for j in jobs if j is not None and j.status in
                            ("succeeded", "failed")]
                    progress.update(task, completed=len(done))
                    if len(done) == len(jobs):
                        for j in jobs:
                            if j.status == "succeeded":
                                summary["published"] += 1
                            else:
                                summary["failed"] += 1
                                summary["errors"].append(f"{job_ids[j.id]}: {j.error}")
                        break
                time.sleep(0.5)  # a job is waiting out its retry backoff
        worker.close()
        return summary
    finally:
        runtime.close()


def ingest_via_server(settings: Settings, files: list[Path], root: Path, source: str | None,
                      api_key: str | None, server: str, progress: Progress,
                      groups: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Upload each file, then follow the jobs; bytes the server already holds come back
    deduplicated with their finished job and count as unchanged."""
    with ServerApi(server, resolve_key(settings, api_key)) as api:
        api.call("GET", "/clients/me")  # reachable, and the key is good: before any progress
        return _upload_all(api, files, root, source, progress, groups)


def _upload_all(api: ServerApi, files: list[Path], root: Path, source: str | None,
                progress: Progress, groups: tuple[str, ...] | None = None) -> dict[str, Any]:
    from app.domain.formats import document_id_for  # not uploads': the registry, 0.4 s

    summary = _summary()
    pending: dict[str, Path] = {}
    with progress:
        task = progress.add_task("uploading", total=len(files))
        for path in files:
            rel = path.relative_to(root).as_posix()
            data = {"document_id": document_id_for(rel), "path": rel}
            if source:
                data["source"] = source
            if groups is not None:
                data["access"] = ",".join(groups)
            try:
                body = api.call("POST", "/documents", ok=(202,), data=data,
                                files={"file": (path.name, path.read_bytes())})
            except ServiceError as exc:
                if exc.code in ("SERVER_UNREACHABLE", "API_KEY_INVALID", "API_KEY_MISSING"):
                    raise  # no file will fare better
                summary["failed"] += 1
                summary["errors"].append(f"{path}: {exc.message}")
            else:
                if body["deduplicated"] and body["status"] == "succeeded":
                    summary["unchanged"] += 1
                else:
                    pending[body["job_id"]] = path
                if body.get("reverts_to"):
                    summary["reverted"].append(f"{path}: {body['version_id']} brings back "
                                               f"{body['reverts_to']}'s bytes")
            progress.advance(task)
        task = progress.add_task("indexing", total=len(pending))
        while pending:
            for job_id, path in list(pending.items()):
                job = api.call("GET", f"/jobs/{job_id}")
                if job["status"] in ("succeeded", "failed"):
                    pending.pop(job_id)
                    progress.advance(task)
                    if job["status"] == "succeeded":
                        summary["published"] += 1
                    else:
                        summary["failed"] += 1
                        summary["errors"].append(f"{path}: {job.get('error')}")
            if pending:
                time.sleep(0.5)
    return summary
