"""Metadata discovery cost: leaves/s and time to readiness for N published versions.

Versions carry realistic canonical metadata (the service's own groups, a few custom fields)
and entities; discovery is enabled and the worker's catch-up step runs until ready.

    python bench/discovery.py --versions 1000 [--db-url postgresql+psycopg://…]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", type=int, default=1000)
    parser.add_argument("--db-url", default=None)
    args = parser.parse_args()

    from sqlalchemy import func, select

    from app.domain.metadata import completed_metadata, upload_metadata
    from app.registry import clients, discovery
    from app.registry import documents as docs
    from app.registry.database import make_engine, make_sessionmaker, migrate, transaction
    from app.registry.tables import MetadataLeaf

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(args.db_url or f"sqlite:///{tmp}/bench.db")
        migrate(engine)
        sessions = make_sessionmaker(engine)
        with transaction(sessions) as s:
            client, _ = clients.create_client(s, name=f"bench-{time.time_ns()}")
            for i in range(args.versions):
                meta = upload_metadata(
                    filename=f"doc{i}.pdf", mime_type="application/pdf", size_bytes=1000 + i,
                    sha256=f"{i:064x}", kind="pdf", source="bench", path=f"folder/doc{i}.pdf",
                    custom={"project": ["Apollo", "Gemini", "Mercury"][i % 3],
                            "year": 2020 + i % 5, "reviewed": i % 2 == 0,
                            "tags": ["finance", f"team-{i % 7}"]})
                up = docs.register_upload(
                    s, client_id=client.id, document_id=f"doc{i}", kind="pdf",
                    filename=f"doc{i}.pdf", mime_type="application/pdf", content=b"x",
                    sha256=f"{i:064x}", canonical_metadata=meta, source="bench", path=None,
                    max_attempts=3)
                up.version.entities = {"persons": ["Ada Lovelace", "Alan Turing"],
                                       "account_numbers": [f"ACCT-{100000 + i}"],
                                       "monetary_amounts": [f"${i},000"]}
                docs.mark_published(s, version=up.version, chunk_count=4, canonical_metadata=(
                    completed_metadata(meta, title=f"Report {i}", page_count=3, chunk_count=4,
                                       char_count=4000, warnings=[], extra={})))
            discovery.set_enabled(s, client_id=client.id, enabled=True)
        t0 = time.perf_counter()
        while True:
            with transaction(sessions) as s:
                if discovery.catch_up(s, limit=200) == 0:
                    break
        seconds = time.perf_counter() - t0
        with transaction(sessions) as s:
            leaves = s.scalar(select(func.count()).select_from(MetadataLeaf).where(
                MetadataLeaf.client_id == client.id))
            ready = discovery.readiness(s, client_id=client.id)
        print(f"machine: {machine()}; database: {engine.dialect.name}")
        print(f"{args.versions} versions, {leaves} leaves ({leaves / args.versions:.0f} each)")
        print(f"ready ({ready.state}) after {seconds:.2f} s: {leaves / seconds:,.0f} leaves/s, "
              f"{args.versions / seconds:,.0f} versions/s")
        engine.dispose()


if __name__ == "__main__":
    main()
