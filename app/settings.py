"""One settings tree for the whole service (pydantic-settings, prefix ``EVIDENCE_``).

Nested groups are set with a double underscore: ``EVIDENCE_DATABASE__URL``,
``EVIDENCE_QDRANT__URL``, ``EVIDENCE_SEARCH__HYBRID_ALPHA``. Only entry points (app factory,
CLI, worker) call :func:`get_settings`; everything else receives the group it needs.

The embedded default needs nothing installed beside the package: SQLite at
``<data_dir>/evidence.db``, the embedded Qdrant engine under ``<data_dir>/qdrant`` (``data_dir``
is ``./data`` unless ``EVIDENCE_DATA_DIR`` says otherwise) and models under ``./models``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.domain.limits import IDENTITY_CACHE_POINTS, MetadataLimits, OcrBounds

# The first client's key, written in the data folder by the embedded default's first start
# (app/runtime.ensure_first_client) and read by the CLI (app/cli/server_api.resolve_key)
INITIAL_KEY_FILE = "initial-api-key.txt"


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DatabaseSettings(_Group):
    """Registry database. SQLite by default; PostgreSQL at scale (``postgresql+psycopg://…``)."""

    # unset: SQLite at <data_dir>/evidence.db (Settings fills it in)
    url: str = ""


class QdrantSettings(_Group):
    """Vector engine: the embedded Qdrant Edge shard unless ``url`` names a server or cluster."""

    # unset: <data_dir>/qdrant (Settings fills it in)
    path: Path = Path("")
    url: str | None = None
    api_key: SecretStr | None = None
    collection: str = "evidence_chunks"
    # Points whose document, version and chunk index the lanes read from memory instead of
    # the engine's payload copy (app/store/identity.py); 0: always from the engine
    identity_cache: int = Field(IDENTITY_CACHE_POINTS, ge=0, le=10_000_000)
    # A new collection may store each chunk's sentence vectors (a multivector, 16-bit
    # floats), so the dense lane can score a chunk by its best sentence (search.sentence_depth)
    # without embedding anything at query time. Off by default: made the way that helps
    # (pooling "separate") they cost ingestion ×1.8 the dense model's time — below the
    # project's speed goal of 0.75 × the embedder alone — and the way that costs nothing
    # ("contextual") showed no gain (docs/BENCHMARKS.md, "Sentence vectors at the embedder's
    # speed"). ~4.6× the dense vectors' storage. Fixed when a collection is made and recorded
    # with it; an existing collection keeps what it was made with (`evidence reindex` into a
    # new one to change it).
    sentence_vectors: bool = False
    # How they are made (ingest/embedding.py): "separate" embeds each sentence again behind
    # the chunk's title (the short-query gain: +0.020 [+0.006, +0.036] on SciFact, one and two
    # words); "contextual" pools each sentence's tokens from the chunk's own forward pass
    # (late chunking: no second pass, no gain shown: +0.006 [−0.003, +0.016]).
    sentence_pooling: Literal["contextual", "separate"] = "separate"


class ModelSettings(_Group):
    """Where the models live. The service loads only from ``dir``, never from a hub."""

    dir: Path = Path("./models")
    # Measured on SciFact abstracts read whole (up to 512 tokens), 2 cores: 123 ms/text at batch
    # 1, 185 at 4, 257 at 16 — padding to a batch's longest text costs more than batching saves
    # (docs/BENCHMARKS.md). fastembed's default of 256 also took ~11 GB.
    embed_batch_size: int = Field(1, ge=1, le=512)
    # ONNX threads for each ingestion worker's models (unset: the cores shared among
    # ingest.workers; with one thread each, two workers' models ran the dense model at 27
    # ms/chunk together against 37 for one model on two threads).
    threads: int | None = None
    # ONNX threads for the query model in the serving process. One: ONNX's idle threads spin,
    # and two cost 45 ms of CPU per search against 28 with one (docs/BENCHMARKS.md), for 4 ms
    # of latency. Applies where ingestion runs in its child process (the default).
    query_threads: int | None = Field(1, ge=1)
    # how ``dir`` was found (app/models/location.py), for `evidence models show`
    _found_by: str = PrivateAttr("EVIDENCE_MODELS__DIR")

    @model_validator(mode="after")
    def _found_from_anywhere(self) -> ModelSettings:
        """Unnamed, the folder is found from any working directory (app/models/location.py)."""
        if "dir" not in self.model_fields_set:
            from app.models.location import found

            self.dir, self._found_by = found(self.dir)
        return self

    @property
    def found_by(self) -> str:
        return self._found_by


class SearchSettings(_Group):
    """Search defaults. Floors left unset take the installed model profile's calibrated values."""

    hybrid_alpha: float = Field(0.5, ge=0.0, le=1.0)
    # "rank" is the contract's weighted reciprocal-rank fusion; "dbsf" and "relative_score"
    # (opt-in, outside the contract) fuse scaled lane scores instead (app/search/fusion.py).
    fusion: Literal["rank", "dbsf", "relative_score"] = "rank"
    # Whether the score fusions apply the lane floors too (rank fusion always does): chosen by
    # a cross-validated, paired comparison (docs/BENCHMARKS.md).
    score_fusion_floors: bool = True
    # Rank fusion's constant: alpha/(k + dense rank) + (1 − alpha)/(k + BM25 rank). Chosen by
    # 5-fold cross-validation over SciFact's dev claims whole and cut to 4 words (every fold
    # chose 2 of 2|5|10|20|60; +0.024 [+0.008, +0.041] over 60, docs/BENCHMARKS.md). 60 is
    # Cormack et al.'s (2009) web-track value; the contract names none.
    rrf_k: int = Field(2, ge=1, le=1000)
    dense_floor: float | None = None
    # fixed: the profile's (or dense_floor's) one floor for every query; chance: each query's
    # own chance score, at least the profile's minimum (app/search/chance.py; opt-in: measured
    # worse than fixed at equal chance, docs/BENCHMARKS.md)
    dense_floor_rule: Literal["fixed", "chance"] = "fixed"
    sparse_floor: float | None = None
    embed_timeout_s: float = 10.0
    rerank_timeout_s: float = 10.0
    # Chunk candidates one lane may fetch to fill a page of Document Versions: at least
    # min_depth (score fusions scale by these candidates), at most candidate_ceiling.
    min_depth: int = Field(100, ge=10, le=10000)
    # Pseudo-relevance feedback (app/search/feedback.py): the first pass's best chunks
    # sharpen the query and the lanes ask again. 0: off (measured in docs/BENCHMARKS.md).
    prf_docs: int = Field(0, ge=0, le=20)
    prf_dense_beta: float = Field(0.5, ge=0.0, le=2.0)
    prf_terms: int = Field(10, ge=0, le=100)
    prf_sparse_weight: float = Field(0.5, ge=0.0, le=2.0)
    candidate_ceiling: int = Field(1000, ge=50, le=10000)
    # Issue 37's two lane rescorings (app/search/lane_rescore.py), each kept or dropped by its
    # paired interval on SciFact (docs/BENCHMARKS.md). title_weight (dropped, 0): the BM25
    # lane adds weight × the BM25 score of a chunk's title and headings (1: a title word counts
    # twice, BM25F's usual boost). sentence_depth (kept, 20: two pages of the default limit,
    # stated before measuring; 5-fold cross-validation chose 20–40 on short queries, and no
    # depth differs on whole claims): the dense lane's first N chunks score as their best
    # sentence where it beats them — the engine's MaxSim over the sentence vectors stored at
    # ingestion (~0 ms); nothing on a collection made without them (qdrant.sentence_vectors).
    title_weight: float = Field(0.0, ge=0.0, le=10.0)
    sentence_depth: int = Field(20, ge=0, le=100)
    # The public background's weight in every client's BM25 IDF, in pseudo-chunks
    # (app/search/bm25.py: a client's own counts take over as its corpus grows past it; 0: the
    # client's counts alone). Chosen by cross-validation on SciFact (docs/BENCHMARKS.md).
    bm25_prior_chunks: float = Field(1000.0, ge=0.0, le=1e7)
    # The entity lane's weight in the fusion (a query naming an amount, day or id: the chunks
    # holding it exactly; app/search/lanes.py lane_query). 0: off. It sits on the words side,
    # scaled by 1 - alpha as BM25 is (app/search/fusion.py): 2.0 gives it at the default alpha
    # 0.5 exactly the weight 1.0 had before it was scaled, the one chosen on the judged entity
    # queries of tests/search/entity_queries.py (docs/BENCHMARKS.md).
    entity_weight: float = Field(2.0, ge=0.0, le=20.0)
    # a query in a language the dense model was not trained on: its alpha times this (1: as
    # asked); chosen by cross-validation on the multilingual judged set (docs/BENCHMARKS.md)
    foreign_dense_weight: float = Field(0.25, ge=0.0, le=1.0)
    # Sentences of evidence chunks matched by meaning alone that the dense model compares with
    # the query per page, for their snippets (5–12 ms each on the query thread: SciFact p50
    # 23 → 32 ms at 4); the rest centre on the sentence sharing most word stems. 0: stems only
    snippet_sentences: int = Field(4, ge=0, le=64)
    # Searches served at once (their worker threads); unset: one per core. More only queue
    # on the interpreter's lock, which the engine holds too: at 50 clients on 2 cores, 63
    # req/s in FastAPI's 40 shared threads against 82 in 2 or 4 (docs/BENCHMARKS.md).
    threads: int | None = Field(None, ge=1, le=64)


class IngestSettings(_Group):
    """Upload limits, chunking and job retry policy."""

    # Superseded versions kept per document (with their chunks); older ones are deleted as a
    # new version is published. None: keep every version.
    keep_superseded: int | None = Field(None, ge=0)

    max_upload_bytes: int = 50 * 1024 * 1024
    chunk_size: int = 512
    chunk_overlap: int = 50
    # Chunks embedded, written and checkpointed together.
    write_batch: int = Field(64, ge=1, le=4096)
    # A document making more chunks fails at once (DOCUMENT_TOO_LONG) instead of holding the
    # worker: ~1,200 chunks per MB of plain text, ~0.1 s of embedding each on 2 cores.
    max_chunks: int = Field(5000, ge=1)
    max_attempts: int = Field(3, ge=1)
    # Attempts lost to a worker's death are not the document's fault and do not count in
    # max_attempts; a job lost more often than this fails (WORKER_CRASHED), so a document that
    # kills its worker every time still ends. Above the handful of restarts an operator's
    # deploys or an orchestrator's evictions cause during one long job.
    max_crashes: int = Field(5, ge=0)
    backoff_base_s: float = 2.0
    lease_s: float = 300.0
    # A running job renews its lease and records progress at most this often (and at least
    # three times per lease): renewing after every step cost ~10 ms per small document.
    heartbeat_s: float = Field(2.0, gt=0)
    # A job that has run this long gives the worker to a client running fewer jobs whose job
    # waits, after its current batch (~1 s), and resumes from its checkpoint later (fair turns;
    # 0: after every batch). 2 s, as extract_slice_s: the waiting note is published within
    # about 5 s on two busy cores (docs/BENCHMARKS.md, issue 47; at 10 s it waited up to 12 s);
    # a turn given up costs a claim and a checkpoint, not the extraction (kept from 1 s).
    slice_s: float = Field(2.0, ge=0)
    # An extraction that has run this long while another client's job waits goes on in a
    # child of its own, and the worker serves that job (a new extraction child starts in
    # about a second); the job resumes when its extraction ends (ingest/processing.py).
    extract_slice_s: float = Field(2.0, ge=0)
    poll_interval_s: float = 0.5
    # Jobs indexed at once, each by a worker thread with its own processing children. A job is
    # a chain (claim, extract, embed, write, publish) mostly waiting on one step: two keep
    # both cores busy where one left them half idle (300 SciFact abstracts on 2 cores: 91
    # ms/document with one, 64 with two, 64 with three; docs/BENCHMARKS.md). Each worker's
    # embedding child holds its own models (~300 MB).
    workers: int = Field(2, ge=1, le=16)
    # Extraction, chunking and embedding run in a child process, so a large document's Python
    # work never holds the API's interpreter (ingest/processing.py); false: in the worker thread.
    child_process: bool = True
    # A worker's children (extraction; embedding, which holds the models) are closed after
    # this long without work, and start again with the next job (a few seconds): an idle
    # server gave 1.9 GB back in the real-files bench (docs/BENCHMARKS.md). A minute rides
    # out the pauses of a folder ingest without paying that start per file (0: never).
    child_idle_s: float = Field(60.0, ge=0)
    # Deleted documents' text leaves the embedded engine's segments by a compaction the worker
    # runs between jobs, at most this often (0: never). It holds the GIL ~1 s per 60k chunks.
    compact_interval_s: float = Field(60.0, ge=0)
    # OCR of scanned PDF pages and images (ingest/extract/ocr.py): auto takes Tesseract where
    # it is installed, else RapidOCR (a dependency); off fails images and leaves scans unread
    ocr_engine: Literal["auto", "tesseract", "rapidocr", "off"] = "auto"
    ocr_max_pages: int = Field(300, ge=1, le=100_000)
    ocr_page_seconds: float = Field(60.0, gt=0)
    ocr_max_pixels: int = Field(60_000_000, ge=100_000)
    ocr_dpi: int = Field(200, ge=72, le=600)
    # Extraction's time bounds, in the child process (killed at the bound): a document, and a
    # page of a paged one without the next page reported. The document bound covers the OCR
    # of ocr_max_pages pages at ~2 s each (docs/BENCHMARKS.md).
    extract_seconds: float = Field(900.0, gt=0)
    extract_page_seconds: float = Field(180.0, gt=0)

    def ocr(self) -> OcrBounds:
        return OcrBounds(engine=self.ocr_engine, max_pages=self.ocr_max_pages,
                         page_seconds=self.ocr_page_seconds, max_pixels=self.ocr_max_pixels,
                         dpi=self.ocr_dpi)


class LimitSettings(_Group):
    """Bounds on what a client may send (app/domain/limits.py, app/api/guard.py). Checked before the
    key is: an oversized body is refused while it is read, never parsed."""

    json_body_bytes: int = Field(1024 * 1024, ge=1024)
    # A multipart upload may exceed the file limit by this much (form fields, boundaries).
    multipart_margin_bytes: int = Field(1024 * 1024, ge=1024)
    metadata_depth: int = Field(8, ge=1, le=32)
    metadata_keys: int = Field(256, ge=1, le=10_000)
    metadata_key_chars: int = Field(128, ge=1, le=1024)
    metadata_string_chars: int = Field(8192, ge=1, le=1_000_000)
    metadata_bytes: int = Field(65536, ge=1024, le=16 * 1024 * 1024)
    filter_values: int = Field(100, ge=1, le=10_000)

    def metadata(self) -> MetadataLimits:
        return MetadataLimits(depth=self.metadata_depth, keys=self.metadata_keys,
                              key_chars=self.metadata_key_chars,
                              string_chars=self.metadata_string_chars,
                              total_bytes=self.metadata_bytes)


class WatchSettings(_Group):
    """Standing queries (app/watches/): their bounds, and where their webhooks may go.

    ``webhook_hosts``: comma-separated ``host:port`` pairs an operator allows webhooks to (a
    bare host: its ports 80 and 443 only; default none: a watch with a webhook_url is
    refused) — never the private network or a cloud metadata service unless named here, and
    never the server's own address (app/watches/webhooks.py)."""

    webhook_hosts: str = ""
    max_per_client: int = Field(100, ge=1, le=10_000)
    max_matches: int = Field(1000, ge=10, le=1_000_000)  # kept per watch, the oldest dropped
    poll_s: float = Field(1.0, gt=0, le=60)
    timeout_s: float = Field(5.0, gt=0, le=60)  # one webhook POST
    max_attempts: int = Field(6, ge=1, le=20)
    backoff_base_s: float = Field(2.0, ge=0, le=3600)  # doubled each attempt, capped at 1 h
    delivery_threads: int = Field(4, ge=1, le=32)

    def allowed_hosts(self) -> frozenset[str]:
        return frozenset(h.strip().lower() for h in self.webhook_hosts.split(",") if h.strip())


class SourcesSettings(_Group):
    """Sources followed by the server (app/sources/): ``folder_roots``, the folders (comma-
    separated absolute paths) under which a client may register a folder source — none by
    default, so no client can read the server's disk until an operator says where."""

    folder_roots: str = ""
    max_per_client: int = Field(20, ge=1, le=1000)
    max_files: int = Field(10_000, ge=1, le=1_000_000)  # new or changed files one sync reads
    # a Fernet key (cryptography) that encrypts mailbox passwords at rest; unset: no mailbox
    # sources. Make one: python -c "from cryptography.fernet import Fernet; print(Fernet.
    # generate_key().decode())"
    secret_key: SecretStr | None = None
    max_messages: int = Field(2_000, ge=1, le=1_000_000)  # messages one sync fetches
    max_message_bytes: int = Field(25 * 1024 * 1024, ge=1024, le=1 << 30)
    imap_timeout_s: float = Field(30.0, gt=0, le=600)

    def roots(self) -> list[Path]:
        return [Path(r.strip()).resolve() for r in self.folder_roots.split(",") if r.strip()]

    def key(self) -> str | None:
        return self.secret_key.get_secret_value() if self.secret_key is not None else None


class EntitySettings(_Group):
    """Entities read at ingestion and in queries (ingest/entities.py,
    app/domain/identifiers.py). ``phone_region``: the country (ISO 3166 alpha-2, ``IE``,
    ``US``) whose national phone numbers (``01 555 0142``) are read as phones; unset: only
    international ones (``+353 …``, ``00353 …``). Read from the environment by the ingestion
    children too, so set it there (EVIDENCE_ENTITIES__PHONE_REGION)."""

    phone_region: str | None = None

    @field_validator("phone_region")
    @classmethod
    def _known_region(cls, value: str | None) -> str | None:
        if not value:
            return None
        import phonenumbers

        region = value.strip().upper()
        if region not in phonenumbers.SUPPORTED_REGIONS:
            raise ValueError(f"{value!r} is no region phonenumbers knows: an ISO 3166 "
                             "alpha-2 code such as IE, GB, US, DE")
        return region


class AuditSettings(_Group):
    """The audit trail (app/ops/audit.py, GET /audit): who searched what, read, downloaded,
    exported or deleted which document, changed a key or a document's access — per client,
    kept ``retention_days``. ``queries`` false: a search is recorded without its text (for an
    operator who must not keep what people asked); ``enabled`` false: nothing is recorded."""

    enabled: bool = True
    queries: bool = True
    retention_days: int = Field(365, ge=1, le=36_500)
    flush_s: float = Field(0.5, gt=0, le=60)  # written in the background this often


class BatchSettings(_Group):
    """Batch searches (POST /searches/batch, app/search/batches.py): their bounds, and how
    much of the search capacity they may take. A batch query runs only when no interactive
    search is in flight, one at a time per process, the clients' batches in turn, then rests
    ``rest_ratio`` × its own time before the next (so interactive p50 keeps within its goal
    while a batch runs: docs/BENCHMARKS.md, issue 51)."""

    max_queries: int = Field(1000, ge=1, le=100_000)
    max_results: int = Field(50, ge=1, le=200)  # per query
    max_active_per_client: int = Field(3, ge=1, le=100)  # queued or running
    keep: int = Field(50, ge=1, le=10_000)  # finished batches kept per client, oldest dropped
    rest_ratio: float = Field(0.5, ge=0, le=100)


class LogSettings(_Group):
    """Log lines on stderr: ``json`` (one object a line) or ``text``."""

    format: Literal["json", "text"] = "text"


class Settings(BaseSettings):
    """The whole configuration; see README's configuration table."""

    model_config = SettingsConfigDict(
        env_prefix="EVIDENCE_", env_nested_delimiter="__", extra="forbid", env_file=None
    )

    data_dir: Path = Path("./data")
    # In the embedded default the worker runs inside the serving process (the embedded engine
    # locks its folder against a second process). Set false when a separate `evidence worker` runs.
    embedded_worker: bool = True
    # The server the CLI talks to when the embedded engine is held by a running `evidence serve`
    # (set: it wins over the one `evidence serve` records in the data folder;
    # app/cli/server_api.py).
    server_url: str = "http://127.0.0.1:8000"
    # The operator's credential for /metrics (and `evidence worker --metrics-port`), sent as
    # `Authorization: Bearer …`: the metrics show every client's activity. Unset: no metrics.
    metrics_token: SecretStr | None = None
    database: DatabaseSettings = DatabaseSettings()
    qdrant: QdrantSettings = QdrantSettings()
    # a factory: the folder is found when the settings are read, from the working directory then
    models: ModelSettings = Field(default_factory=ModelSettings)
    search: SearchSettings = SearchSettings()
    ingest: IngestSettings = IngestSettings()
    limits: LimitSettings = LimitSettings()
    watch: WatchSettings = WatchSettings()
    sources: SourcesSettings = SourcesSettings()
    entities: EntitySettings = EntitySettings()
    audit: AuditSettings = AuditSettings()
    batch: BatchSettings = BatchSettings()
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log: LogSettings = LogSettings()

    @model_validator(mode="after")
    def _under_data_dir(self) -> Settings:
        """``data_dir`` is the root of everything the embedded default writes: the registry
        and the engine live under it unless their own settings name another place."""
        if not self.database.url:
            self.database = self.database.model_copy(
                update={"url": f"sqlite:///{self.data_dir / 'evidence.db'}"})
        if self.qdrant.path == Path(""):
            self.qdrant = self.qdrant.model_copy(update={"path": self.data_dir / "qdrant"})
        return self


# The contract names the default alpha HYBRID_ALPHA; EVIDENCE_SEARCH__HYBRID_ALPHA wins if both.
CONTRACT_ALIASES = {"HYBRID_ALPHA": "EVIDENCE_SEARCH__HYBRID_ALPHA"}


def setting_errors(exc: Exception) -> str | None:
    """A settings ValidationError as one line naming each variable and its value
    (``EVIDENCE_SEARCH__RRF_K='abc': Input should be a valid integer``); None for others."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError) or exc.title != "Settings":
        return None
    parts = []
    for error in exc.errors()[:3]:
        name = "EVIDENCE_" + "__".join(str(p).upper() for p in error["loc"])
        value = f"={error['input']!r}" if not isinstance(error.get("input"), dict) else ""
        msg = str(error["msg"])  # a validator's own words after pydantic's "Value error, "
        said = msg.removeprefix("Value error, ") if msg.startswith("Value error, ") \
            else msg.split(",")[0]
        parts.append(f"{name}{value}: {said}")
    return "invalid setting: " + "; ".join(parts)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    for contract_name, ours in CONTRACT_ALIASES.items():
        if contract_name in os.environ and ours not in os.environ:
            os.environ[ours] = os.environ[contract_name]
    return Settings()
