"""Paired comparisons, bootstrap intervals and cross-validation, hand-checked."""

from __future__ import annotations

import pytest

from evaluation.compare import (
    Config,
    bootstrap_interval,
    cross_validate,
    folds_of,
    paired,
    sweep_configs,
)


def test_configs_parse_over_a_base_and_name_themselves() -> None:
    base = Config.parse("fusion=dbsf,floors=off")
    assert base == Config(fusion="dbsf", alpha=0.5, floors=False, rerank=False, depth=100)
    assert Config.parse("depth=400", base).name == "fusion=dbsf,alpha=0.5,floors=off,depth=400"
    assert Config.parse("alpha=0.3", base).name == "fusion=dbsf,alpha=0.3,floors=off"
    assert Config.parse("dense_floor=0.26,rrf_k=5").name == (
        "fusion=rank,alpha=0.5,floors=on,dense_floor=0.26,rrf_k=5")
    assert Config.parse("alpha=1,floor_rule=chance").name == (
        "fusion=rank,alpha=1,floors=on,floor_rule=chance")
    assert Config.parse("title=1,sentences=20").name == (
        "fusion=rank,alpha=0.5,floors=on,title=1,sentences=20")
    assert Config.parse("title=0") == Config()  # sentences: the settings' depth unless named
    assert Config.parse("sentences=0").name == "fusion=rank,alpha=0.5,floors=on,sentences=0"
    for bad in ("fusion=borda", "alpha=2", "depth=5000", "depth=x", "top=3", "alpha",
                "dense_floor=2", "rrf_k=0", "rrf_k=x", "floor_rule=median", "title=11",
                "title=-1", "sentences=101", "sentences=x"):
        with pytest.raises(ValueError):
            Config.parse(bad)
    grid = sweep_configs(base, ["alpha=0.3|0.7", "floors=on|off"])
    assert [c.name for c in grid] == [
        "fusion=dbsf,alpha=0.3,floors=on", "fusion=dbsf,alpha=0.3,floors=off",
        "fusion=dbsf,alpha=0.7,floors=on", "fusion=dbsf,alpha=0.7,floors=off"]


def test_a_constant_difference_has_a_zero_width_interval() -> None:
    assert bootstrap_interval([0.1] * 50) == pytest.approx((0.1, 0.1))


def test_the_interval_covers_the_mean_and_narrows_with_more_queries() -> None:
    diffs = [0.2, -0.1, 0.05, 0.0, 0.15, -0.05, 0.1, 0.0] * 5  # mean 0.04375
    low, high = bootstrap_interval(diffs)
    assert low < 0.04375 < high
    wider = bootstrap_interval(diffs[:8])
    assert wider[1] - wider[0] > high - low
    assert bootstrap_interval(diffs, seed=1) != (low, high)  # a resampling, seeded


def test_paired_counts_wins_losses_ties_and_the_biggest_movers() -> None:
    a = {"q1": 0.5, "q2": 1.0, "q3": 0.0, "q4": 0.3}
    b = {"q1": 0.6, "q2": 0.2, "q3": 0.0, "q4": 0.3}
    result = paired("A", a, "B", b, movers=2)
    assert (result.wins, result.losses, result.ties) == (1, 1, 2)
    assert result.diff == pytest.approx((0.1 - 0.8) / 4)
    assert result.mean_a == pytest.approx(0.45) and result.mean_b == pytest.approx(0.275)
    assert [(q, round(d, 3)) for q, d in result.movers] == [("q2", -0.8), ("q1", 0.1)]
    with pytest.raises(ValueError):
        paired("A", a, "B", {"q1": 0.1})


def test_folds_partition_the_queries_the_same_way_every_run() -> None:
    qids = [f"q{i}" for i in range(10)]
    folds = folds_of(qids, 3)
    assert sorted(q for fold in folds for q in fold) == sorted(qids)
    assert [len(f) for f in folds] == [4, 3, 3]
    assert folds == folds_of(list(reversed(qids)), 3)
    with pytest.raises(ValueError):
        folds_of(qids, 1)


def test_cross_validation_scores_each_fold_with_the_choice_made_without_it() -> None:
    # "lucky" wins only on q0 and q1 by a lot; "steady" is better everywhere else
    qids = [f"q{i}" for i in range(6)]
    steady = {q: 0.6 for q in qids}
    lucky = {q: 0.5 for q in qids} | {"q0": 1.0, "q1": 1.0}
    cv = cross_validate({"steady": steady, "lucky": lucky}, k=6)
    # in-sample, lucky's mean 0.667 beats steady's 0.6
    assert (cv.in_sample_best, round(cv.in_sample_mean, 3)) == ("lucky", 0.667)
    # holding out q0 (or q1): the rest make lucky 0.6 = steady 0.6, the tie goes to the first
    # given (steady) → 0.6 on it; holding out any other query: lucky (0.7) chosen → 0.5
    assert cv.per_query == {"q0": 0.6, "q1": 0.6, "q2": 0.5, "q3": 0.5, "q4": 0.5, "q5": 0.5}
    assert cv.estimate == pytest.approx(3.2 / 6)
    assert sorted(cv.chosen) == ["lucky"] * 4 + ["steady"] * 2


def test_the_cuts_of_one_query_share_a_fold() -> None:
    qids = [f"q{i}@{c}" for i in range(10) for c in (0, 4)]
    folds = folds_of(qids, 5)
    assert sorted(q for f in folds for q in f) == sorted(qids)
    for fold in folds:
        assert {q.split("@")[0] for q in fold} == {q.split("@")[0] for q in fold
                                                    if q.endswith("@0")}
        assert len(fold) == 4  # two queries, both cuts
