"""Pair two indexes' per-query nDCG@10, same queries: ``evidence eval --compare A B --json-out``
writes each configuration's per-query figures; this pairs one run of one report with one run
of another (e.g. today's default on an index built by the old code against the new default on
one built by this code) and prints B − A with its paired bootstrap 95 % interval.

    python -m bench.paired_indexes OLD.json NAME_IN_OLD NEW.json NAME_IN_NEW
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("a", type=Path)
    parser.add_argument("a_run")
    parser.add_argument("b", type=Path)
    parser.add_argument("b_run")
    args = parser.parse_args()

    from app.calibration.stats import paired

    a = json.loads(args.a.read_text())["compare"]["per_query"][args.a_run]
    b = json.loads(args.b.read_text())["compare"]["per_query"][args.b_run]
    if set(a) != set(b):
        raise SystemExit(f"the runs judged other queries ({len(a)} vs {len(b)})")
    result = paired(f"{args.a.name}:{args.a_run}", a, f"{args.b.name}:{args.b_run}", b)
    print(f"{len(a)} queries; A {result.mean_a:.4f}, B {result.mean_b:.4f}; B − A = "
          f"{result.diff:+.4f} [{result.low:+.4f}, {result.high:+.4f}] (wins {result.wins}, "
          f"losses {result.losses}, ties {result.ties})")


if __name__ == "__main__":
    main()
