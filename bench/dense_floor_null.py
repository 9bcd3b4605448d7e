"""The dense floor from chance (issue 24): the cosines of query/passage pairs that share no
topic, for the installed dense model — a floor that removes what cannot be told from chance.

Off-topic pairs, both ways, from two domains that share nothing:
  - SciFact's development claims (science; whole, and cut to their 4 and 3 rarest words as
    typed into a search box: evaluation/short_queries.py) against the paragraphs of this
    repository's own documentation (software engineering prose);
  - everyday search-box queries (EVERYDAY below: cooking, travel, sport, office chores;
    written before any floor was measured) against 2,000 SciFact abstracts.
No relevance judgment is read: the floor is fitted to no corpus's relevant hits. It prints
each direction's quantiles and the pooled ones; the offline profile's dense floor is the
pooled 99.9th percentile — one off-topic passage in a thousand passes it — rounded down to
two decimals (app/models/profiles.py).

    python -m bench.dense_floor_null
"""

from __future__ import annotations

import re

import numpy as np

from bench.common import REPO, SCIFACT, machine

EVERYDAY = [
    "chocolate cake recipe", "cheap flights to lisbon", "how to change a flat tyre",
    "football results saturday", "best hiking boots", "wedding dress shops",
    "guitar chords for beginners", "train timetable london to paris", "how long to boil an egg",
    "renew my passport", "pizza near me", "fix a leaking tap", "learn to knit a scarf",
    "used cars under 5000", "garden fence paint colours", "birthday party ideas for kids",
    "ski resorts in the alps", "how to tie a tie", "best coffee grinder",
    "cinema tickets tonight", "dog training tips", "apartment to rent downtown",
    "tennis racket reviews", "how to bake sourdough bread", "summer holiday packing list",
    "jazz concerts this weekend", "repair a bicycle chain", "wine pairing with fish",
    "history of the roman empire", "how to play chess openings",
    "quarterly sales figures for the northern region", "employee parking permit application",
    "office christmas party budget", "invoice payment terms thirty days",
    "annual leave carry over policy", "printer out of toner again"]
QUANTILES = (50, 99, 99.9)


def repo_paragraphs() -> list[str]:
    """Prose paragraphs (≥ 30 words, no tables or code) of README.md and docs/*.md."""
    paragraphs = []
    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for block in re.split(r"\n\s*\n", path.read_text()):
            if len(block.split()) >= 30 and "|" not in block and "```" not in block:
                paragraphs.append(block.strip())
    return paragraphs


def off_topic_passages(dense, data) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """The two domains' passages, embedded: this repository's prose paragraphs, and 2,000
    SciFact abstracts drawn with a fixed seed."""
    engineering = dense.embed_documents(repo_paragraphs())
    rng = np.random.default_rng(0)
    sample = rng.choice(sorted(data.corpus), 2000, replace=False)
    science = dense.embed_documents([f"{data.corpus[d][0]}\n\n{data.corpus[d][1]}"
                                     for d in sample])
    return engineering, science


def off_topic_cosines() -> dict[str, np.ndarray]:
    from app.models.loading import load_models
    from evaluation import beir
    from evaluation.short_queries import shorten

    models = load_models(REPO / "models", batch_size=32)
    dense = models.dense
    assert dense is not None, "the dense model is not installed"
    data = beir.load(SCIFACT)
    engineering, science = off_topic_passages(dense, data)
    out = {}
    for label, queries in (
            ("claims, whole", data.queries),
            ("claims, 4 words", shorten(data.queries, models.sparse,
                                        models.bm25_background or {}, 4)),
            ("claims, 3 words", shorten(data.queries, models.sparse,
                                        models.bm25_background or {}, 3))):
        q = np.array([dense.embed_query(t) for t in queries.values()])
        out[f"{label} × repository docs"] = (q @ engineering.T).ravel()
    q = np.array([dense.embed_query(t) for t in EVERYDAY])
    out["everyday queries × SciFact abstracts"] = (q @ science.T).ravel()
    return out


def main() -> None:
    print(machine())
    found = off_topic_cosines()
    pooled = np.concatenate(list(found.values()))
    # each direction weighs the same in the pooled quantiles: resample to equal counts
    n = min(len(v) for v in found.values())
    rng = np.random.default_rng(0)
    balanced = np.concatenate([rng.choice(v, n, replace=False) for v in found.values()])
    print(f"{'off-topic pairs':42s} {'pairs':>8s} " + " ".join(f"p{q:<6g}" for q in QUANTILES))
    for label, values in [*found.items(), ("pooled (each direction equal)", balanced),
                          ("pooled (all pairs)", pooled)]:
        print(f"{label:42s} {len(values):8d} " + " ".join(
            f"{np.percentile(values, q):<7.3f}" for q in QUANTILES))
    floor = np.floor(np.percentile(balanced, 99.9) * 100) / 100
    print(f"dense floor: the balanced pool's 99.9th percentile, rounded down: {floor:.2f}")


if __name__ == "__main__":
    main()
