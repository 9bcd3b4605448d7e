"""Judgments and the applied calibration in the registry, on SQLite and PostgreSQL: a pair
judged again is regraded, not doubled; per client; applying twice replaces."""

from __future__ import annotations

from app.registry import clients as reg
from app.registry import judgments
from app.registry.database import transaction


def test_judgments_are_regraded_per_client_and_calibration_replaced(sessions) -> None:
    with transaction(sessions) as s:
        a, _ = reg.create_client(s, name="a")
        b, _ = reg.create_client(s, name="b")
        assert judgments.record(s, client_id=a.id, items=[("fee", "contract", 3),
                                                          ("fee", "ledger", 0)]) == 2
        assert judgments.record(s, client_id=a.id, items=[("fee", "contract", 1)]) == 2
        assert judgments.record(s, client_id=b.id, items=[("fee", "contract", 2)]) == 1
        assert judgments.by_query(s, client_id=a.id) == {"fee": {"contract": 1, "ledger": 0}}
        assert judgments.by_query(s, client_id=b.id) == {"fee": {"contract": 2}}
        judgments.apply(s, client_id=a.id, alpha=0.25, fusion="rank", report={"n": 1})
        judgments.apply(s, client_id=a.id, alpha=1.0, fusion="dbsf", report={"n": 2})
    with transaction(sessions) as s:
        own = judgments.calibration(s, client_id=a.id)
        assert (own.alpha, own.fusion, own.report) == (1.0, "dbsf", {"n": 2})
        assert judgments.calibration(s, client_id=b.id) is None
        judgments.reset(s, client_id=a.id)
        judgments.clear(s, client_id=a.id)
    with transaction(sessions) as s:
        assert judgments.calibration(s, client_id=a.id) is None
        assert judgments.count(s, client_id=a.id) == 0 and judgments.count(s, client_id=b.id) == 1


def test_judgments_stop_at_the_clients_bound_and_a_regrade_still_passes(
        sessions, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Bound 3 here (10,000 in service): 3 held, a fourth is 409 with nothing stored; a pair
    already held is regraded at the bound; another client's count is its own."""
    import pytest

    from app.domain.errors import Conflict

    monkeypatch.setattr(judgments, "MAX_JUDGMENTS_PER_CLIENT", 3)
    with transaction(sessions) as s:
        a, _ = reg.create_client(s, name="a")
        b, _ = reg.create_client(s, name="b")
        assert judgments.record(s, client_id=a.id, items=[
            ("fee", "d1", 3), ("fee", "d2", 0), ("fee", "d3", 1)]) == 3
    with transaction(sessions) as s:
        with pytest.raises(Conflict) as over:
            judgments.record(s, client_id=a.id, items=[("fee", "d1", 2), ("fee", "d4", 2)])
        assert over.value.code == "JUDGMENT_LIMIT_REACHED"
        assert over.value.details == {"held": 3, "new": 1, "max": 3}
    with transaction(sessions) as s:
        assert judgments.by_query(s, client_id=a.id) == {"fee": {"d1": 3, "d2": 0, "d3": 1}}
        assert judgments.record(s, client_id=a.id, items=[("fee", "d1", 2)]) == 3
        assert judgments.record(s, client_id=b.id, items=[("fee", "d1", 1)]) == 1
