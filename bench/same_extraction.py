"""Whether two checkouts extract a corpus alike (issue 45): SciFact's abstracts as `evidence
eval` uploads them (``# title`` then the text, as .md), through this checkout's extractor,
written as one JSON line per document; run it in each checkout, then compare the files. The
same blocks into an unchanged chunker and search mean the same index, and the same ranking.

    python -m bench.same_extraction ../shared/data/scifact /tmp/new.jsonl
    cd /work/base && python -m bench.same_extraction ../shared/data/scifact /tmp/old.jsonl
    python -m bench.same_extraction --compare /tmp/old.jsonl /tmp/new.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))


def write(corpus_dir: Path, out: Path) -> None:
    from evaluation.beir import load
    from ingest.extract import extract

    with out.open("w") as written:
        for doc_id, (title, text) in load(corpus_dir).corpus.items():
            body = f"# {title}\n\n{text}\n" if title else text  # as evaluation/runner.py
            blocks = extract("md", body.encode(), f"{doc_id}.md").blocks
            written.write(json.dumps([doc_id, [[b.text, b.line_start, b.line_end,
                                                list(b.heading_path)] for b in blocks]],
                                     ensure_ascii=False) + "\n")


def compare(old: Path, new: Path) -> None:
    before = dict(json.loads(line) for line in old.open())
    after = dict(json.loads(line) for line in new.open())
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    print(f"{len(before):,} / {len(after):,} documents; {len(differ)} extract differently"
          + (f": {differ[:10]}" if differ else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    (compare if args.compare else write)(args.first, args.second)


if __name__ == "__main__":
    main()
