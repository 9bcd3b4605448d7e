"""A running service for API tests: temp registry and engine, chosen models, a worker driven
by the test (drain) so every test is deterministic."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.models.loading import LoadedModels
from app.runtime import Runtime, build_runtime
from app.settings import Settings
from app.store import VectorStore
from ingest.chunking import Chunker
from ingest.embedding import BatchEmbedder
from ingest.entities import EntityExtractor
from ingest.pipeline import IngestDeps
from ingest.processing import InProcess
from ingest.worker import Worker
from tests.conftest import make_settings
from tests.factories import client_with_key


@dataclass
class Service:
    http: TestClient
    runtime: Runtime
    worker: Worker
    key: str

    def auth(self, key: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {key or self.key}"}

    def upload(self, filename: str, content: bytes | str, key: str | None = None,
               **form: Any) -> Any:
        data = content.encode() if isinstance(content, str) else content
        return self.http.post("/documents", files={"file": (filename, data)}, data=form,
                              headers=self.auth(key))

    def ingest(self, filename: str, content: bytes | str, key: str | None = None,
               **form: Any) -> dict:
        response = self.upload(filename, content, key=key, **form)
        assert response.status_code == 202, response.text
        self.worker.drain()
        return response.json()

    def search(self, key: str | None = None, **body: Any) -> Any:
        return self.http.post("/search", json=body, headers=self.auth(key))

    def new_client(self, name: str) -> str:
        return client_with_key(self.runtime.sessions, name)[1]


@contextmanager
def running_service(tmp_path: Path, models: LoadedModels, *, db_url: str | None = None,
                    store: VectorStore | None = None, entities: bool = False,
                    settings: Settings | None = None) -> Iterator[Service]:
    settings = settings or make_settings(tmp_path, db_url)
    runtime = build_runtime(settings, models=models, store=store)
    deps = IngestDeps(sessions=runtime.sessions, store=runtime.store, processor=InProcess(
        Chunker(models.count_tokens, settings.ingest.chunk_size, settings.ingest.chunk_overlap,
                settings.ingest.max_chunks),
        BatchEmbedder(models.dense, models.sparse,
                      EntityExtractor(models.spacy_path)
                      if entities and models.spacy_path else None,
                      sentences=runtime.store.sentence_vectors,
                      pooling=settings.qdrant.sentence_pooling)),
        write_batch=settings.ingest.write_batch, keep_superseded=settings.ingest.keep_superseded,
        upload_settings=settings.ingest)
    worker = Worker(deps, settings.ingest, worker_id="test-worker")
    key = client_with_key(runtime.sessions, "acme")[1]
    app = create_app(settings, runtime=runtime, start_worker=False)
    try:
        with TestClient(app) as http:
            yield Service(http=http, runtime=runtime, worker=worker, key=key)
    finally:
        runtime.close()
