"""Settings read from the environment (app/settings.py)."""

from __future__ import annotations

import pytest

from app.settings import get_settings


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    for name in ("HYBRID_ALPHA", "EVIDENCE_SEARCH__HYBRID_ALPHA"):
        monkeypatch.setenv(name, "0")  # recorded, so the teardown restores the original
        monkeypatch.delenv(name)
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def test_the_contracts_hybrid_alpha_is_read(fresh: pytest.MonkeyPatch) -> None:
    fresh.setenv("HYBRID_ALPHA", "0.2")
    assert get_settings().search.hybrid_alpha == 0.2


def test_the_evidence_spelling_wins_when_both_are_set(fresh: pytest.MonkeyPatch) -> None:
    fresh.setenv("HYBRID_ALPHA", "0.2")
    fresh.setenv("EVIDENCE_SEARCH__HYBRID_ALPHA", "0.7")
    assert get_settings().search.hybrid_alpha == 0.7


def test_the_default_is_the_contracts_half(fresh: pytest.MonkeyPatch) -> None:
    assert get_settings().search.hybrid_alpha == 0.5
