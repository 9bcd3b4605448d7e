"""Autocut: stop an answer at a sharp drop of its score (Weaviate's ``autocut``,
weaviate/weaviate entities/autocut/autocut.go, is the anchor; written here in a few lines
rather than depended on).

The rule: the ranked scores, best first, are scaled so the first is 0 and the last 1, and set
against the straight line from (0, 0) to (1, 1) over their positions; where that difference
has a local maximum the curve has just jumped — the scores fell sharply right there. The
answer keeps the versions before the ``jumps``-th such jump. Scores that never vary (or fewer
than two) cut nothing. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

# Autocut looks at this many versions at least (the search deepens to find them), so where it
# cuts does not depend on the page asked for
AUTOCUT_SPAN = 50
MAX_JUMPS = 10


def autocut(scores: Sequence[float], jumps: int = 1) -> int:
    """How many of ``scores`` (best first) to keep: those before the ``jumps``-th jump."""
    n = len(scores)
    if n <= 1 or jumps <= 0 or scores[0] == scores[-1]:
        return n
    first, last = scores[0], scores[-1]
    step = 1.0 / (n - 1)
    diff = [(s - first) / (last - first) - i * step for i, s in enumerate(scores)]
    found = 0
    for i in range(1, n):
        after = diff[i + 1] if i + 1 < n else float("-inf")
        if diff[i] > diff[i - 1] and diff[i] > after:
            found += 1
            if found >= jumps:
                return i
    return n
