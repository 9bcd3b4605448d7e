"""Build ``app/models/assets/chance_passages.txt.gz``: a fixed, public, topic-even sample of
English passages against which each query's own chance score is measured (app/search/chance.py).

Run by hand when the sample should change (the file is shipped; `evidence models install`
embeds it with the installed dense model):

    apt-get install -y wordnet-base && python -m app.models.build_chance_passages

Source: WordNet 3.0 (Princeton University; Debian's ``wordnet-base``, /usr/share/wordnet),
whose glosses cover every topic of English by design and whose licence allows redistribution
with its notice (kept at the head of the asset). A passage is a noun or verb synset's gloss
followed by its hyponyms' glosses ("dog: a member of the genus Canis … puppy: a young dog …"),
60 to 150 words: coherent text on one topic, the length of a short chunk. Topic-even: the same
number of passages is drawn from each of WordNet's lexicographer files (noun.plant,
noun.artifact, verb.motion … 41 in all), with a fixed seed, so no domain dominates. Nothing is
read from any corpus a search or an evaluation runs on.
"""

from __future__ import annotations

import gzip
import random
import re
from collections import defaultdict
from pathlib import Path

ASSET = Path(__file__).parent / "assets" / "chance_passages.txt.gz"
WORDNET = Path("/usr/share/wordnet")
PASSAGES = 1000
MIN_WORDS, MAX_WORDS = 60, 150
SEED = 20261202
NOTICE = """# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. Permission to use, copy, modify and
# distribute this database for any purpose and without fee or royalty is granted provided this
# notice appears on all copies (the WordNet 3.0 licence, /usr/share/doc/wordnet-base/copyright).
# Passages built by app/models/build_chance_passages.py: one a line.
"""


def synsets(pos: str) -> dict[str, tuple[int, str, str, list[str]]]:
    """{offset: (lexicographer file, first lemma, gloss, hyponym offsets)} of data.<pos>."""
    out = {}
    for line in (WORDNET / f"data.{pos}").read_text(errors="replace").splitlines():
        if line.startswith("  "):
            continue  # the licence header
        head, _, gloss = line.partition(" | ")
        fields = head.split()
        offset, lexfile, words = fields[0], int(fields[1]), int(fields[3], 16)
        lemma = fields[4].replace("_", " ")
        at = 4 + 2 * words
        pointers = int(fields[at])
        hyponyms = [fields[at + 1 + 4 * i + 1] for i in range(pointers)
                    if fields[at + 1 + 4 * i] == "~"]
        out[offset] = (lexfile, lemma, gloss.strip(), hyponyms)
    return out


def passage(table: dict, offset: str) -> str | None:
    """The synset's gloss and its hyponyms' after it, cut at MAX_WORDS; None if too short."""
    _, lemma, gloss, hyponyms = table[offset]
    parts = [f"{lemma}: {gloss}"]
    for child in hyponyms:
        if sum(len(p.split()) for p in parts) >= MAX_WORDS:
            break
        _, child_lemma, child_gloss, _ = table[child]
        parts.append(f"{child_lemma}: {child_gloss}")
    text = re.sub(r"\s+", " ", ". ".join(p.rstrip(" ;.") for p in parts)) + "."
    words = text.split()
    if len(words) < MIN_WORDS:
        return None
    return " ".join(words[:MAX_WORDS])


def build() -> list[str]:
    pools: dict[tuple[str, int], list[str]] = defaultdict(list)
    tables = {pos: synsets(pos) for pos in ("noun", "verb")}
    for pos, table in tables.items():
        for offset in sorted(table):
            text = passage(table, offset)
            if text is not None:
                pools[(pos, table[offset][0])].append(text)
    rng = random.Random(SEED)
    per_file = -(-PASSAGES // len(pools))  # ceiling: the same share from every file
    chosen = []
    for key in sorted(pools):
        pool = pools[key]
        chosen += rng.sample(pool, min(per_file, len(pool)))
    rng.shuffle(chosen)
    return chosen[:PASSAGES]


def main() -> None:
    passages = build()
    ASSET.write_bytes(gzip.compress((NOTICE + "\n".join(passages) + "\n").encode(), mtime=0))
    print(f"{len(passages)} passages → {ASSET} ({ASSET.stat().st_size // 1024} KB)")


def load_passages(path: Path = ASSET) -> list[str]:
    return [line for line in gzip.decompress(path.read_bytes()).decode().splitlines()
            if line and not line.startswith("#")]


if __name__ == "__main__":
    main()
