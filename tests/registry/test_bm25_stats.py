"""A client's BM25 statistics in the registry, on SQLite and PostgreSQL: a version's counts are
added when it becomes current and taken away when it goes; the lookup reads the client's own
chunk count and each asked term's df in one statement, nothing of another client's."""

from __future__ import annotations

from types import SimpleNamespace

from app.registry import bm25_stats
from app.registry import clients as reg
from app.registry.database import transaction


def _version(chunks: int, term_df: dict[str, int] | None):  # type: ignore[no-untyped-def]
    return SimpleNamespace(chunk_count=chunks, term_df=term_df)


def test_counts_follow_versions_per_client_and_lookup_reads_only_the_terms_asked(
        sessions) -> None:  # type: ignore[no-untyped-def]
    with transaction(sessions) as s:
        a, _ = reg.create_client(s, name="a")
        b, _ = reg.create_client(s, name="b")
        assert bm25_stats.lookup(s, client_id=a.id, terms=[7]) == (0, {})  # nothing yet
        bm25_stats.add_version(s, client_id=a.id, version=_version(3, {"7": 2, "9": 1}))
        bm25_stats.add_version(s, client_id=a.id, version=_version(2, {"7": 1, "11": 2}))
        bm25_stats.add_version(s, client_id=b.id, version=_version(5, {"7": 5}))
    with transaction(sessions) as s:
        assert bm25_stats.lookup(s, client_id=a.id, terms=[7, 11, 7, 404]) == (5, {7: 3, 11: 2})
        assert bm25_stats.lookup(s, client_id=a.id, terms=[]) == (5, {})
        assert bm25_stats.lookup(s, client_id=b.id, terms=[9, 7]) == (5, {7: 5})
        bm25_stats.remove_version(s, client_id=a.id, version=_version(3, {"7": 2, "9": 1}))
    with transaction(sessions) as s:  # a term whose df reaches 0 is gone, not a 0
        assert bm25_stats.lookup(s, client_id=a.id, terms=[7, 9, 11]) == (2, {7: 1, 11: 2})
