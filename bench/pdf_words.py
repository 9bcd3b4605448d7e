"""PDF text against poppler's (issue 45): for each PDF of a folder, the share of the words
``pdftotext`` reads (three letters or more) that extraction does not give, words extraction
gives that poppler splits (glued: over 18 letters, no Chinese or Japanese, and not poppler's),
and ``(cid:N)`` left in.

    python -m bench.pdf_words /tmp/pdfs                 # this checkout
    cd /work/base && python -m bench.pdf_words /tmp/pdfs   # a baseline (a git worktree)

OCR is off (a scan's words are OCR's, not the text layer's); needs Debian's poppler-utils.
Prints one line per file with a loss, then the totals and the median loss a file.
"""

from __future__ import annotations

import argparse
import logging
import re
import statistics
import subprocess
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

WORD = re.compile(r"\w{3,}")
GLUED_LETTERS = 18
CJK = re.compile("[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def measure(path: Path) -> tuple[int, int, int, int] | None:
    """(poppler's words, of them missing, glued words, (cid:N) left) or None: not read."""
    from app.domain.limits import OcrBounds
    from ingest.extract import extract

    reference = subprocess.run(["pdftotext", "-q", str(path), "-"], capture_output=True,
                               text=True).stdout
    theirs = set(WORD.findall(reference))
    try:
        extracted = extract("pdf", path.read_bytes(), path.name, ocr=OcrBounds(engine="off"))
    except Exception:  # noqa: BLE001 — a failed file counts every word as missing
        return (len(theirs), len(theirs), 0, 0) if theirs else None
    text = "\n".join(b.text for b in extracted.blocks)
    ours = set(WORD.findall(text))
    # Chinese and Japanese are written without spaces: a long run of them is a sentence
    glued = [w for w in ours - theirs if len(w) > GLUED_LETTERS and not CJK.search(w)]
    return len(theirs), len(theirs - ours), len(glued), text.count("(cid:")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    totals = [0, 0, 0, 0]
    losses = []
    for path in sorted(args.folder.rglob("*.pdf")):
        found = measure(path)
        if found is None or not found[0]:
            continue
        words, missing, glued, cid = found
        totals = [a + b for a, b in zip(totals, found, strict=True)]
        losses.append(missing / words)
        if missing / words > 0.02 or glued or cid:
            print(f"{path.name[:60]:60} {words:6} words, {missing / words:6.1%} missing, "
                  f"{glued} glued, {cid} (cid:N)")
    words, missing, glued, cid = totals
    print(f"\n{len(losses)} PDFs with a text layer, {words:,} poppler words: {missing:,} missing "
          f"({missing / max(words, 1):.1%}), median a file {statistics.median(losses):.1%}; "
          f"{glued} glued words, {cid} (cid:N)")


if __name__ == "__main__":
    main()
