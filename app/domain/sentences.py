"""A chunk's sentences, one rule for every stage that reads them: the snippet's focus, the
sentence vectors stored at ingestion (app/store/payload.sentence_passages) and the stored
focus that must line up with them (app/search/snippets.best_stored_sentences).

A sentence ends at . ! ? or a line break (a heading, a list item, a table row); pieces shorter
than ``MIN_SENTENCE_CHARS`` ("Fig. 2", "ok.") are no sentence worth comparing with a query.
"""

from __future__ import annotations

import re

SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
MIN_SENTENCE_CHARS = 12
# A chunk's sentences the dense model compares with a query at query time (the first ones;
# 5–12 ms each on the query thread)
MAX_SENTENCES = 8
# A chunk's sentences kept as vectors at ingestion: every one a chunk of 512 tokens holds at
# ordinary lengths (SciFact: ~11 a chunk); the bound only caps what a pathological text of
# many tiny sentences costs (64 × 384 × 2 bytes = 48 KiB a chunk at most)
MAX_STORED_SENTENCES = 64


def sentences(text: str, limit: int = MAX_SENTENCES) -> list[tuple[int, int]]:
    """(start, end) of the text's first ``limit`` sentences worth comparing with a query."""
    found = [(m.start(), m.end()) for m in SENTENCE.finditer(text)
             if len(m.group(0).strip()) >= MIN_SENTENCE_CHARS]
    return found[:limit]
