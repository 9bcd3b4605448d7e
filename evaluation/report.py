"""`evidence eval --compare A B` and `--sweep … --folds K`: run the configurations on one index,
print the paired comparison and the cross-validated choice, return every per-query figure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table

from app.runtime import Runtime
from evaluation.beir import Dataset
from evaluation.compare import Config, Paired, cross_validate, paired, per_query_ndcg, sweep_configs


def _print_paired(console: Console, p: Paired, data: Dataset) -> None:
    verdict = ("B better" if p.low > 0 else "A better" if p.high < 0
               else "no difference shown")
    console.print(f"A  {p.a}: nDCG@10 {p.mean_a:.4f}")
    console.print(f"B  {p.b}: nDCG@10 {p.mean_b:.4f}")
    console.print(f"B − A = {p.diff:+.4f}, paired bootstrap 95 % interval "
                  f"[{p.low:+.4f}, {p.high:+.4f}] ({verdict}); B better on {p.wins} queries, "
                  f"worse on {p.losses}, tied on {p.ties}")
    if p.movers:
        table = Table(title="queries that moved most")
        for column in ("query", "B − A", "text"):
            table.add_column(column, overflow="fold")
        for qid, diff in p.movers:
            table.add_row(qid, f"{diff:+.3f}", data.queries[qid][:70])
        console.print(table)


def run_comparison(console: Console, runtime: Runtime, client_id: str, data: Dataset, *,
                   compare: tuple[str, str] | None, sweeps: Sequence[str], base: str,
                   folds: int) -> dict[str, Any]:
    report: dict[str, Any] = {"queries": len(data.queries)}
    if compare:
        a, b = Config.parse(compare[0]), Config.parse(compare[1])
        runs = {c.name: per_query_ndcg(runtime, client_id, data, c) for c in (a, b)}
        result = paired(a.name, runs[a.name], b.name, runs[b.name])
        _print_paired(console, result, data)
        report["compare"] = {**asdict(result), "per_query": runs}
    if sweeps:
        base_config = Config.parse(base)
        configs = sweep_configs(base_config, sweeps)
        runs = {}
        for config in dict.fromkeys([base_config, *configs]):
            runs[config.name] = per_query_ndcg(runtime, client_id, data, config)
        swept = {c.name: runs[c.name] for c in configs}
        cv = cross_validate(swept, folds)
        table = Table(title=f"sweep over {base_config.name}: nDCG@10 on all "
                            f"{len(data.queries)} queries (in-sample)")
        table.add_column("configuration")
        table.add_column("nDCG@10")
        for name, scores in swept.items():
            table.add_row(name, f"{sum(scores.values()) / len(scores):.4f}")
        console.print(table)
        console.print(f"{folds}-fold cross-validated nDCG@10 of choosing by the sweep: "
                      f"{cv.estimate:.4f} (in-sample best {cv.in_sample_best}: "
                      f"{cv.in_sample_mean:.4f}); chosen per fold: {', '.join(cv.chosen)}")
        versus = paired(base_config.name, runs[base_config.name], "cross-validated choice",
                        cv.per_query)
        _print_paired(console, versus, data)
        report["sweep"] = {"base": base_config.name, "folds": folds,
                           "cv_estimate": cv.estimate, "chosen": cv.chosen,
                           "in_sample_best": cv.in_sample_best,
                           "in_sample_mean": cv.in_sample_mean,
                           "versus_base": asdict(versus), "per_query": runs}
    return report
