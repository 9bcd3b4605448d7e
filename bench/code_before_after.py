"""Two versions of the code on one index: each query's nDCG@10 under one configuration,
written by each checkout, then compared per query with the paired bootstrap interval of
`evidence eval --compare` (which compares configurations within one version of the code).

    evidence eval ../shared/data/scifact --alphas 0.5 --work-dir /tmp/sf      # the index, once
    (cd <old checkout> && EVIDENCE_MODELS__DIR=$PWD/models python \\
        /path/to/bench/code_before_after.py --work-dir /tmp/sf --out /tmp/before.json)
    python bench/code_before_after.py --work-dir /tmp/sf --out /tmp/after.json
    python bench/code_before_after.py --compare /tmp/before.json /tmp/after.json

The code that answers is whichever ``app`` the working directory's checkout holds: the script
puts the working directory first on the import path.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared/data/scifact")
    parser.add_argument("--work-dir", type=Path)
    parser.add_argument("--config", default="fusion=rank,alpha=0.5")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    sys.path.insert(0, os.getcwd())
    from evaluation.compare import paired

    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        result = paired("before", before["per_query"], "after", after["per_query"])
        print(f"{before['config']} on {len(before['per_query'])} queries: before "
              f"{result.mean_a:.4f} ({before['code']}), after {result.mean_b:.4f} "
              f"({after['code']}); after − before {result.diff:+.4f} [{result.low:+.4f}, "
              f"{result.high:+.4f}], {result.wins} / {result.losses} / {result.ties} "
              "(better / worse / tied)")
        return
    if args.work_dir is None or args.out is None:
        parser.error("--work-dir and --out, or --compare BEFORE AFTER")
    from app.settings import Settings
    from evaluation import beir
    from evaluation.compare import Config, per_query_ndcg
    from evaluation.runner import open_eval_runtime

    data = beir.load(args.dataset)
    runtime, client_id = open_eval_runtime(Settings(), args.work_dir)
    try:
        scores = per_query_ndcg(runtime, client_id, data, Config.parse(args.config))
    finally:
        runtime.close()
    args.out.write_text(json.dumps({"code": os.getcwd(), "config": args.config,
                                    "per_query": scores}))
    print(f"{len(scores)} queries, mean nDCG@10 {sum(scores.values()) / len(scores):.4f}")


if __name__ == "__main__":
    main()
