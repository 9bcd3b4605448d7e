"""OCR on generated scanned pages: seconds per page and character error rate, Tesseract (where
installed) against RapidOCR (from PyPI), the same pages for both.

Usage: python bench/ocr_quality.py [--pages 12] [--ingest-pages 6]

Then the effect on ingestion: one PDF of ``--ingest-pages`` pages, born-digital (a text layer)
and scanned (the same lines as images), each prepared (extract + chunk) and embedded by the real
processor with the installed models, as the worker does — seconds per document, per engine.

Pages: invoice-, statement- and receipt-like lines (amounts, dates, account and transaction
ids, names) drawn at ~200 dpi on US-letter-sized pages, then degraded as scanners and phones
do — rotation up to 1.5°, Gaussian blur 0.6–1.6, JPEG compression at quality 50–85 — seeded,
so every run reads the same pages. CER = Levenshtein distance between the text read and the
text drawn (whitespace runs folded to one space) over the drawn text's length.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import machine  # noqa: E402

WORDS = ["Invoice", "Statement", "Receipt", "Amount", "due", "paid", "Account", "Reference",
         "Kestrel", "Logistics", "Globex", "Corporation", "Jane", "Doe", "Raj", "Patel",
         "wire", "transfer", "balance", "total", "tax", "net", "period", "January", "March"]


def page_lines(rng: random.Random) -> list[str]:
    lines = [f"{rng.choice(['INVOICE', 'STATEMENT', 'RECEIPT'])} {rng.randint(2020, 2026)}-"
             f"{rng.randint(1, 9999):04d}"]
    for _ in range(rng.randint(8, 14)):
        kind = rng.randrange(4)
        if kind == 0:
            lines.append(f"Amount due: ${rng.randint(10, 99999):,}.{rng.randint(0, 99):02d}")
        elif kind == 1:
            lines.append(f"Account ACCT-{rng.randint(100000, 999999)} ref "
                         f"TXN-{rng.randint(2020, 2026)}-{rng.randint(1, 999):03d}")
        elif kind == 2:
            lines.append(f"Date: {rng.randint(1, 28)} {rng.choice(WORDS[-2:])} "
                         f"{rng.randint(2020, 2026)}")
        else:
            lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 7))))
    return lines


def scanned(lines: list[str], rng: random.Random):  # type: ignore[no-untyped-def]
    from PIL import Image

    from tests.factories import scan_image

    image = scan_image(lines, size=(1700, 2200), blur=rng.uniform(0.6, 1.6),
                       angle=rng.uniform(-1.5, 1.5))
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=rng.randint(50, 85))
    return Image.open(io.BytesIO(buf.getvalue()))


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def folded(text: str) -> str:
    return " ".join(text.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--ingest-pages", type=int, default=6)
    args = parser.parse_args()
    from ingest.extract.ocr import engine_for

    rng = random.Random(21)
    pages = [(lines, scanned(lines, rng)) for lines in (page_lines(rng)
                                                         for _ in range(args.pages))]
    print(f"machine: {machine()}")
    print(f"{args.pages} generated scanned pages, 1700 × 2200 px")
    for choice in ("tesseract", "rapidocr"):
        engine = engine_for(choice)
        if engine is None:
            print(f"{choice:9}: not installed")
            continue
        engine.read(pages[0][1], 600)  # warm-up: models loaded, caches filled
        seconds, errors, chars = [], 0, 0
        for lines, image in pages:
            truth = folded(" ".join(lines))
            t0 = time.perf_counter()
            read = folded(engine.read(image, 600).text)
            seconds.append(time.perf_counter() - t0)
            errors += levenshtein(read, truth)
            chars += len(truth)
        print(f"{engine.name:17} s/page p50 {statistics.median(seconds):.2f} "
              f"(max {max(seconds):.2f})  CER {errors / chars:.4f} ({errors} of {chars:,} "
              "characters)")
    ingestion(pages[:args.ingest_pages])


def ingestion(pages: list) -> None:  # type: ignore[type-arg]
    """Seconds to prepare and embed one PDF, born-digital against scanned."""
    from reportlab.pdfgen import canvas

    from app.domain.limits import OcrBounds
    from app.models.loading import load_models
    from bench.common import REPO
    from ingest.chunking import Chunker
    from ingest.embedding import BatchEmbedder
    from ingest.entities import EntityExtractor
    from ingest.processing import InProcess
    from tests.factories import scanned_pdf

    models = load_models(REPO / "models")
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    for lines, _ in pages:
        for i, line in enumerate(lines):
            c.drawString(72, 720 - 18 * i, line)
        c.showPage()
    c.save()
    digital, scan = buf.getvalue(), scanned_pdf([image for _, image in pages])
    print(f"ingestion of one {len(pages)}-page PDF (prepare + embed, real models):")
    for name, content, choice in (("born-digital", digital, "off"),
                                  ("scanned", scan, "tesseract"), ("scanned", scan, "rapidocr")):
        from ingest.extract.ocr import engine_for

        if choice != "off" and engine_for(choice) is None:
            continue
        work = InProcess(Chunker(models.count_tokens, 512, 50, 5000),
                         BatchEmbedder(models.dense, models.sparse,
                                       EntityExtractor(models.spacy_path)),
                         OcrBounds(engine=choice))
        t0 = time.perf_counter()
        prepared = work.prepare("pdf", content, "doc.pdf")
        t1 = time.perf_counter()
        texts = [ch.text for ch in prepared.chunks]
        work.embed(texts, texts)
        t2 = time.perf_counter()
        label = f"{name} ({prepared.quality.get('ocr_engine', 'text layer')})"
        print(f"  {label:30} {t2 - t0:6.2f} s ({t1 - t0:.2f} extract, {t2 - t1:.2f} embed, "
              f"{len(texts)} chunks)")


if __name__ == "__main__":
    main()
