"""What keeping a PDF's word boxes costs ingestion (issue 49): a generated 40-page PDF (48
lines of 12 words a page), extracted with pdfplumber's words kept and without (the same
code, ``extract_words`` stubbed), median of 3; then aligning every chunk with its pages
(app/documents/boxes.align), per chunk.

    python -m bench.pdf_boxes_cost
"""

from __future__ import annotations

import io
import random
import statistics
import time

from bench.common import machine


def _pdf(pages: int = 40) -> bytes:
    from reportlab.pdfgen import canvas

    rng = random.Random(1)
    vocabulary = [w.strip(".,") for w in (
        "the parties agree that the deposit of the tenant shall be refunded within thirty "
        "days after the end of the lease unless the landlord notifies damage to the premises "
        "payment schedule invoice amount clause notice termination renewal insurance").split()]
    out = io.BytesIO()
    c = canvas.Canvas(out)
    for _ in range(pages):
        y = 760
        for _line in range(48):
            c.drawString(60, y, " ".join(rng.choice(vocabulary) for _ in range(12)))
            y -= 15
        c.showPage()
    c.save()
    return out.getvalue()


def main() -> None:
    import pdfplumber.page

    from app.documents.boxes import align
    from ingest.chunking import Chunker
    from ingest.extract import pdf as pdf_module

    data = _pdf()

    def extract() -> tuple[float, object]:
        t0 = time.perf_counter()
        found = pdf_module.extract_pdf(data, "bench.pdf")
        return time.perf_counter() - t0, found

    kept = [extract() for _ in range(3)]
    words = pdfplumber.page.Page.extract_words
    pdfplumber.page.Page.extract_words = lambda self, *a, **k: []  # type: ignore[method-assign]
    try:
        without = [extract()[0] for _ in range(3)]
    finally:
        pdfplumber.page.Page.extract_words = words  # type: ignore[method-assign]
    extracted = kept[0][1]
    chunks = Chunker(lambda text: [0] * (len(text.split()) * 13 // 10), 512, 50, 5000).chunk(
        extracted, "bench.pdf")  # type: ignore[arg-type]
    t0 = time.perf_counter()
    for chunk in chunks:
        align(chunk.text, chunk.page, extracted.page_words)  # type: ignore[attr-defined]
    per_chunk = (time.perf_counter() - t0) / max(len(chunks), 1)
    with_s, without_s = statistics.median(s for s, _ in kept), statistics.median(without)
    print(machine())
    print(f"extraction of 40 pages: {with_s:.2f} s with words kept, {without_s:.2f} s "
          f"without ({with_s / without_s:.2f}×)")
    print(f"alignment: {len(chunks)} chunks, {per_chunk * 1000:.1f} ms a chunk")


if __name__ == "__main__":
    main()
