"""Reading order of PDF pages in columns (ingest/extract/columns.py), on PDFs drawn with
reportlab: two and three columns read one by one, a title across the page where it stands,
a one-column page as pdfplumber reads it with its wrapped lines joined (a paragraph a block,
ingest/extract/reflow.py)."""

from __future__ import annotations

import io
import textwrap

import pytest

from ingest.extract import extract

LEFT = ("The agency proposes to amend the reporting rule for small carriers. Comments on the "
        "proposal are due within sixty days of publication in this issue.")
MIDDLE = ("Section four replaces the annual filing with a quarterly statement of revenue, and "
          "exempts carriers with fewer than ten vehicles from the audit.")
RIGHT = ("The rule takes effect on the first day of the second quarter after adoption, and the "
         "agency will publish guidance before that date for every carrier.")


def _page(columns: list[str], title: str | None = None, footer: str | None = None) -> bytes:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    c.setFont("Helvetica", 10)
    width = (612 - 72 * 2 - 24 * (len(columns) - 1)) / len(columns)
    if title:
        c.drawString(72, 740, title)
    for n, text in enumerate(columns):
        x = 72 + n * (width + 24)
        for i, line in enumerate(textwrap.wrap(text * 2, int(width / 5.2))):
            c.drawString(x, 710 - i * 13, line)
    if footer:
        c.drawString(72, 60, footer)
    c.showPage()
    c.save()
    return buf.getvalue()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("columns", [[LEFT, RIGHT], [LEFT, MIDDLE, RIGHT]])
def test_columns_are_read_one_after_the_other(columns: list[str]) -> None:
    title = "Federal Register Vol. 89 Proposed Rules for Small Carriers and Their Annual Filings"
    footer = "Page 12 of 40, printed in the Federal Register on the first of March 2024"
    lines = [b.text for b in extract("pdf", _page(columns, title, footer), "fr.pdf").blocks]
    assert (lines[0], lines[-1]) == (title, footer)  # across the page: where they stand
    assert len(lines) == len(columns) + 2  # each column's wrapped lines one paragraph
    body = lines[1:-1]
    # no line mixes two columns: each is a piece of one column's text
    owner = [next(n for n, c in enumerate(columns) if _flat(line) in _flat(c * 2).replace(
        ".T", ". T").replace(".S", ". S") or _flat(line) in _flat(c * 2)) for line in body]
    assert owner == sorted(owner)  # the first column's lines, then the next column's
    assert set(owner) == set(range(len(columns)))


def test_a_page_in_one_column_reads_as_pdfplumber_reads_it_its_lines_joined() -> None:
    import pdfplumber

    data = _page([LEFT + " " + MIDDLE])
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        plain = pdf.pages[0].extract_text().strip()
    [block] = extract("pdf", data, "one.pdf").blocks
    assert "\n" in plain and block.text == plain.replace("\n", " ")
    assert (block.line_start, block.line_end) == (1, plain.count("\n") + 1)


def test_gutters_need_words_on_both_sides_and_ignore_margins() -> None:
    from ingest.extract.columns import gutters

    def word(x0: float, top: float) -> dict:
        return {"text": "w", "x0": x0, "x1": x0 + 20, "top": top, "bottom": top + 10}

    two = [word(x, t) for t in range(0, 600, 12) for x in (72, 100, 128, 340, 368, 396)]
    assert [(round(a), round(b)) for a, b in gutters(two)] == [(149, 340)]
    lopsided = [word(x, t) for t in range(0, 600, 12) for x in (72, 100, 128, 156, 184)] + [
        word(400, 0)]  # one word far right: no column there
    assert gutters(lopsided) == []
    assert gutters(two[:30]) == []  # too few words to tell


ROWS = [("Rank", "Country", "People"), ("1", "India", "1,428,627,663"),
        ("2", "China", "1,425,671,352"), ("3", "United States", "339,996,563")]


def _turned_table(angle: int) -> bytes:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    c.setFont("Helvetica", 11)
    c.translate(306, 396)
    c.rotate(angle)  # a landscape table printed on a portrait page
    for i, row in enumerate(ROWS):
        for j, cell in enumerate(row):
            c.drawString(-200 + j * 130, 100 - i * 20, cell)
    c.showPage()
    c.save()
    return buf.getvalue()


@pytest.mark.parametrize("angle", [90, -90])
def test_a_table_turned_a_quarter_reads_a_row_a_line_in_order(angle: int) -> None:
    """It came out one cell a line, the rows reversed."""
    blocks = extract("pdf", _turned_table(angle), "turned.pdf").blocks
    assert [b.text for b in blocks] == [" ".join(row) for row in ROWS]
    assert [b.line_start for b in blocks] == [1, 2, 3, 4]
