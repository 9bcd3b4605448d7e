"""`evidence eval`: quality through the real ingest and search, with paired intervals."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from app.cli import common
from app.cli.common import (
    _logging,
    app,
    get_settings,
)


@app.command("eval")
def eval_command(
    dataset: Annotated[Path, typer.Argument(exists=True, file_okay=False,
                                            help="BEIR layout: corpus.jsonl[.gz], queries.jsonl, "
                                                 "qrels/test.tsv")],
    work_dir: Annotated[Path | None, typer.Option(
        help="index folder, reused when run again (default ./data/eval/<dataset>)")] = None,
    alphas: Annotated[str, typer.Option(help="hybrid alphas besides 0 and 1")] = "0.3,0.5,0.7",
    calibrate: Annotated[bool, typer.Option(help="report lane score distributions and floors")]
    = False,
    share: Annotated[float, typer.Option(help="share of relevant hits a floor keeps")] = 0.99,
    json_out: Annotated[Path | None, typer.Option(help="write the figures as JSON")] = None,
    fusion: Annotated[str, typer.Option(
        help="fusions to compare on the hybrid modes: rank (the contract's), dbsf, "
             "relative_score")] = "rank",
    compare: Annotated[tuple[str, str] | None, typer.Option(
        metavar="A B", help="compare two configurations per query with a paired bootstrap "
                            "interval, e.g. --compare fusion=rank,alpha=0.5 "
                            "fusion=dbsf,alpha=0.5 (keys: fusion, alpha, floors=on|off, "
                            "rerank=on|off, depth, prf, prior, entity, dense_floor, rrf_k, "
                            "floor_rule, title, sentences)")] = None,
    sweep: Annotated[list[str] | None, typer.Option(
        help="a parameter sweep, repeatable: alpha=0.3|0.5|0.7; every combination over "
             "--base, judged by --folds cross-validation")] = None,
    base: Annotated[str, typer.Option(
        help="the configuration a sweep varies and its choice is compared with")]
    = "fusion=rank,alpha=0.5",
    folds: Annotated[int, typer.Option(min=2, help="folds of the cross-validation")] = 5,
    short_queries: Annotated[str | None, typer.Option(
        metavar="WORDS", help="cut every query to its WORDS rarest words, as typed into a "
        "search box (evaluation/short_queries.py); a list (0,4: whole and 4 words) judges "
        "the sets together, each query once per cut")] = None,
) -> None:
    """nDCG@10, recall@100, MRR@10 and latency per mode through the real ingest and search;
    with --compare or --sweep, per-query comparisons with intervals instead."""
    from rich.table import Table

    from app.search.fusion import FUSERS
    from app.search.pipeline import SearchEngine
    from evaluation import beir
    from evaluation.runner import calibrate as run_calibration
    from evaluation.runner import evaluate, ingest_corpus, open_eval_runtime

    _logging()
    logging.getLogger().setLevel(logging.WARNING)
    settings = get_settings()
    fusions = list(dict.fromkeys(f.strip() for f in fusion.split(",") if f.strip()))
    unknown = [f for f in fusions if f not in FUSERS]
    if unknown or not fusions:
        raise typer.BadParameter(f"unknown fusion {unknown}: use {', '.join(FUSERS)}",
                                 param_hint="--fusion")
    data = beir.load(dataset)
    work = work_dir or settings.data_dir / "eval" / dataset.name
    runtime, client_id = open_eval_runtime(settings, work)
    try:
        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=common.err)
        with progress:
            task = progress.add_task("ingesting", total=None)
            ingested, seconds = ingest_corpus(runtime, client_id, data,
                                    lambda done, total: progress.update(task, completed=done,
                                                                        total=total))
        common.console.print(f"{len(data.corpus)} documents in the index ({ingested} ingested "
                             f"now in {seconds:.1f} s), {len(data.queries)} queries")
        if short_queries is not None:
            from evaluation.short_queries import with_cuts

            try:
                cuts = [int(w) for w in short_queries.split(",")]
                data = with_cuts(data, cuts, runtime.models.sparse,
                                 runtime.models.bm25_background or {})
            except ValueError as exc:
                raise typer.BadParameter(str(exc), param_hint="--short-queries") from None
            first = next(iter(data.queries.values()), "")
            common.console.print(f"queries cut to {short_queries} rarest words (0: whole), "
                          f"{len(data.queries)} in all (e.g. {first!r})")
        if compare or sweep:
            from evaluation.report import run_comparison

            try:
                report = run_comparison(common.console, runtime, client_id, data, compare=compare,
                                        sweeps=sweep or [], base=base, folds=folds)
            except ValueError as exc:
                raise typer.BadParameter(str(exc)) from None
            if json_out:
                json_out.write_text(json.dumps(report, indent=2))
            return
        modes = [("keyword", 0.0, False), ("dense", 1.0, False)] + [
            (f"hybrid a={a}", float(a), False) for a in alphas.split(",") if a.strip()]
        if runtime.models.reranker is not None:
            modes.append((f"hybrid a={settings.search.hybrid_alpha} + rerank",
                          settings.search.hybrid_alpha, True))
        if runtime.models.dense is None:
            modes = [m for m in modes if m[1] == 0.0]
        results = []
        for i, name in enumerate(fusions):  # the first fusion runs every mode, others hybrid only
            engine = SearchEngine(runtime.store, runtime.models,
                                  runtime.settings.search.model_copy(update={"fusion": name}))
            compared = modes if i == 0 else [m for m in modes if 0.0 < m[1] < 1.0]
            results += evaluate(runtime, client_id, data, [
                (mode if name == "rank" else f"{mode} {name}", alpha, rerank)
                for mode, alpha, rerank in compared], engine)
        table = Table(title=f"{dataset.name}: {len(data.queries)} queries, profile "
                            f"{runtime.models.profile.name}")
        for column in ("mode", "nDCG@10", "recall@100", "MRR@10", "p50 ms", "p95 ms"):
            table.add_column(column)
        for r in results:
            table.add_row(r.mode, f"{r.ndcg10:.3f}", f"{r.recall100:.3f}", f"{r.mrr10:.3f}",
                          f"{r.p50_ms:.1f}", f"{r.p95_ms:.1f}")
        common.console.print(table)
        report: dict = {"dataset": str(dataset), "queries": len(data.queries),
                        "profile": runtime.models.profile.name,
                        "modes": [r.__dict__ for r in results]}
        if calibrate:
            lanes = run_calibration(runtime, client_id, data)
            table = Table(title=f"lane scores, best chunk per document in the top 100 "
                                f"(floor keeping {share:.0%} of relevant)")
            for column in ("lane", "relevant n", "rel p5", "rel median", "other n",
                           "other median", "floor"):
                table.add_column(column)
            from evaluation.metrics import percentile

            report["calibration"] = {}
            for lane in lanes:
                floor = lane.floor_keeping(share)
                table.add_row(lane.lane, str(len(lane.relevant)),
                              f"{percentile(lane.relevant, 5):.3f}",
                              f"{percentile(lane.relevant, 50):.3f}", str(len(lane.other)),
                              f"{percentile(lane.other, 50):.3f}", f"{floor:.3f}")
                report["calibration"][lane.lane] = {
                    "floor": floor, "share": share, "relevant_p5": percentile(lane.relevant, 5),
                    "relevant_median": percentile(lane.relevant, 50),
                    "other_median": percentile(lane.other, 50)}
            common.console.print(table)
        if json_out:
            json_out.write_text(json.dumps(report, indent=2))
    finally:
        runtime.close()


