"""Entity precision and recall per group on the judged set (tests/ingest/judged_entities.json),
before and after issue 33: "before" is ingest/entities.py as a git revision held it (run from
that revision's source, with today's keys for matching, so only the finding differs), "after"
the working tree's — with its checks on, and with them off (rules only, the ablation).

    python -m bench.entity_precision [--before ecec385]
    python -m bench.entity_precision --judged tests/ingest/judged_entities_heldout.json
    python -m bench.entity_precision --cost 1000   # seconds per 1,000 SciFact abstracts

A found value matches a judged one by its key where its group has one (app/domain/entity_values
``value_key``: ``EUR 48,500.00`` = ``EUR 48500``), else folded (case and spaces); values in a
document's ``also_ok`` count neither way. Micro-averaged over the documents.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import types
from collections import Counter
from pathlib import Path

from app.domain.entity_values import entity_identity
from app.domain.leaves import ENTITY_GROUPS

JUDGED = Path(__file__).resolve().parents[1] / "tests" / "ingest" / "judged_entities.json"


def normal(group: str, value: str) -> str:
    """The judge's equivalence: one entity's spellings match (app/domain/entity_values
    ``entity_identity``: an amount's key, an organisation without its legal form …), the
    same for every run compared."""
    return entity_identity(group, value)


def score(found_per_doc: list[dict[str, list[str]]], documents: list[dict]) -> dict[str, Counter]:
    """{group: Counter(tp, fp, fn)} over the judged documents."""
    tally: dict[str, Counter] = {g: Counter() for g in ENTITY_GROUPS}
    for found, doc in zip(found_per_doc, documents, strict=True):
        for group in ENTITY_GROUPS:
            want = {normal(group, v) for v in doc["entities"].get(group, [])}
            fine = {normal(group, v) for v in doc["also_ok"].get(group, [])}
            got = {normal(group, v) for v in found.get(group, [])} - (fine - want)
            tally[group].update(tp=len(got & want), fp=len(got - want), fn=len(want - got))
    return tally


def extractor_at(revision: str, spacy_path: Path):  # type: ignore[no-untyped-def]
    """ingest/entities.py's EntityExtractor as ``revision`` wrote it."""
    source = subprocess.run(["git", "show", f"{revision}:ingest/entities.py"], check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("entities_before")
    exec(compile(source, f"{revision}:ingest/entities.py", "exec"), module.__dict__)  # noqa: S102
    return module.EntityExtractor(spacy_path)


def table(runs: dict[str, dict[str, Counter]]) -> str:
    names = list(runs)
    lines = ["| group | " + " | ".join(f"{n} P | {n} R" for n in names) + " | judged |",
             "|---" * (2 * len(names) + 2) + "|"]
    for group in ENTITY_GROUPS:
        cells = []
        for name in names:
            c = runs[name][group]
            p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else float("nan")
            r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else float("nan")
            cells += [f"{p:.2f} ({c['fp']} false)", f"{r:.2f}"]
        judged = runs[names[0]][group]["tp"] + runs[names[0]][group]["fn"]
        lines.append(f"| {group} | " + " | ".join(cells) + f" | {judged} |")
    cells = []
    for name in names:
        total = sum(runs[name].values(), Counter())
        cells += [wilson(total["tp"], total["tp"] + total["fp"]),
                  wilson(total["tp"], total["tp"] + total["fn"])]
    judged = sum(runs[names[0]].values(), Counter())
    lines.append("| **all groups** (95% Wilson) | " + " | ".join(cells)
                 + f" | {judged['tp'] + judged['fn']} |")
    return "\n".join(lines)


def wilson(hits: int, n: int, z: float = 1.96) -> str:
    """A proportion with its Wilson score interval (small counts: never outside 0…1)."""
    if not n:
        return "—"
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5 / (1 + z * z / n)
    return f"{p:.2f} [{centre - half:.2f}, {centre + half:.2f}]"


def cost(n: int, spacy_path: Path, before: str) -> None:
    """Wall seconds per extractor over N real abstracts (median of three runs each, in turn)."""
    import gzip
    import statistics
    import time

    from ingest.entities import EntityExtractor

    corpus = JUDGED.parents[3] / "shared" / "data" / "scifact" / "corpus.jsonl.gz"
    with gzip.open(corpus, "rt") as f:
        texts = [json.loads(line)["text"] for _, line in zip(range(n), f, strict=False)]
    extractors = {"before": extractor_at(before, spacy_path),
                  "after": EntityExtractor(spacy_path)}
    seconds: dict[str, list[float]] = {name: [] for name in extractors}
    for _ in range(3):
        for name, extractor in extractors.items():
            t0 = time.perf_counter()
            extractor.extract(texts)
            seconds[name].append(time.perf_counter() - t0)
    base = statistics.median(seconds["before"])
    for name, runs in seconds.items():
        print(f"{name:7} {statistics.median(runs):6.2f} s for {len(texts)} abstracts "
              f"(×{statistics.median(runs) / base:.2f})")


def main() -> None:
    from app.models.loading import load_models
    from ingest.entities import EntityExtractor

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="ecec385", help="git revision of the baseline")
    parser.add_argument("--models", type=Path, default=Path("models"))
    parser.add_argument("--judged", type=Path, default=JUDGED,
                        help="the judged set (the held-out one: judged_entities_heldout.json)")
    parser.add_argument("--show", action="store_true", help="print each false value")
    parser.add_argument("--cost", type=int, metavar="N",
                        help="time each extractor on the first N SciFact abstracts instead")
    args = parser.parse_args()
    if args.cost:
        cost(args.cost, load_models(args.models, batch_size=1).spacy_path, args.before)
        return
    documents = json.loads(args.judged.read_text())["documents"]
    texts = [d["text"] for d in documents]
    spacy_path = load_models(args.models, batch_size=1).spacy_path
    runs = {}
    for name, extractor in (("before", extractor_at(args.before, spacy_path)),
                            ("rules only", EntityExtractor(spacy_path, checks=False)),
                            ("after", EntityExtractor(spacy_path))):
        found = [extractor.extract([text])[0] for text in texts]  # a document at a time
        runs[name] = score(found, documents)
        if args.show:
            for doc, got in zip(documents, found, strict=True):
                for group, values in got.items():
                    want = {normal(group, v) for v in doc["entities"].get(group, []) +
                            doc["also_ok"].get(group, [])}
                    wrong = [v for v in values if normal(group, v) not in want]
                    if wrong:
                        print(f"{name:10} {doc['name']:18} {group:16} false: {wrong}")
    print(table(runs))


if __name__ == "__main__":
    main()
