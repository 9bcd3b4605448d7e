"""Each query's chance floor (app/search/chance.py): the hand-computed rule, its robustness to
on-topic background passages, both sides of the minimum; and through the search, opt-in, with
explain saying where each floor came from."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.search.chance import Z, chance_floor, chance_score
from tests.fakes import FakeDense, fake_models
from tests.service import running_service


def _background(cosines: list[float]) -> np.ndarray:
    """Unit vectors whose cosine with (1, 0) is each value given."""
    return np.array([[c, np.sqrt(1 - c * c)] for c in cosines], dtype=np.float32)


def test_the_rule_by_hand_and_a_few_on_topic_passages_move_nothing() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    bulk = [0.10, 0.12, 0.14, 0.16]
    # median 0.14; |deviations| 0.04 0.02 0 0.02 0.76 → MAD 0.02
    expected = 0.14 + 4.85 * 1.4826 * 0.02
    assert Z == 4.85
    assert chance_score(query, _background([*bulk, 0.90])) == pytest.approx(expected, abs=1e-6)
    assert chance_score(query, _background([*bulk, 0.99])) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(("minimum", "value", "chance_rules"), [
    (0.20, 0.2838, True),   # the chance score (0.2838) is over the minimum
    (0.30, 0.30, False),    # the minimum is higher
])
def test_the_floor_is_the_higher_of_chance_and_the_minimum(minimum: float, value: float,
                                                           chance_rules: bool) -> None:
    own = chance_floor([2.0, 0.0], _background([0.10, 0.12, 0.14, 0.16, 0.90]),
                       minimum=minimum)  # an unnormalised query is normalised first
    assert (own.value, own.chance >= own.minimum) == (value, chance_rules)
    assert own.chance == pytest.approx(0.2838, abs=1e-4)


def test_the_search_applies_it_only_when_asked_and_explain_says_so(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    background = rng.normal(size=(300, FakeDense.dim)).astype(np.float32)
    background /= np.linalg.norm(background, axis=1, keepdims=True)
    models = replace(fake_models(), chance_background=background)
    query = "budget report"
    expected = chance_floor(FakeDense().embed_query(query), background, minimum=0.18)
    for rule in ("fixed", "chance"):
        from tests.conftest import make_settings

        settings = make_settings(tmp_path / rule)
        settings.search.dense_floor_rule = rule  # type: ignore[assignment]
        with running_service(tmp_path / rule, models, settings=settings) as svc:
            svc.ingest("a.txt", "the budget report for apollo", document_id="a")
            lanes = svc.search(query=query, alpha=1, explain=True).json()["meta"]["lanes"]
            [dense] = [lane for lane in lanes if lane["lane"] == "dense"]
            if rule == "fixed":
                assert (dense["floor"], dense["floor_from"], dense["chance"]) == (
                    0.26, "fixed", None)
            else:
                assert dense["floor"] == pytest.approx(expected.value, abs=1e-4)
                assert dense["chance"] == pytest.approx(expected.chance, abs=1e-4)
                assert dense["floor_from"] == ("chance" if expected.chance >= 0.18
                                               else "minimum")
