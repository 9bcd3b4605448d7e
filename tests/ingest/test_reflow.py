"""Text as a person reads it (ingest/extract/reflow.py): a paragraph's wrapped lines joined,
hyphens at a line's end undone only where the joined word is a word, list items, headings and
table rows kept as lines; pdfminer's text boxes ordered column by column; values wrapped over
two lines read whole. On pure inputs, a PDF written line by line as a word processor wraps
it, and a real two-column paper typeset by LaTeX (tests/fixtures/pdf/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.entities import rule_entities
from ingest.extract.pdf import extract_pdf
from ingest.extract.reflow import (
    Paragraph,
    box_order,
    join_lines,
    page_paragraphs,
    reflow_map,
    reflow_text,
    split_items,
)
from ingest.extract.text import extract_markdown, extract_text
from tests.factories import wrapped_pdf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pdf"


@pytest.mark.parametrize("lines, joined", [
    (["the parties to this agree-", "ment agree"], "the parties to this agreement agree"),
    (["a well-", "known supplier"], "a well-known supplier"),  # "wellknown" is no word
    (["our conﬁ-", "dence"], "our conﬁdence"),  # a ligature is read as its letters
    (["IBAN IE70", "BOFI 9000 1712 3456 78"], "IBAN IE70 BOFI 9000 1712 3456 78"),
    (["the fee is EUR 1,200-", "50 a month"], "the fee is EUR 1,200- 50 a month"),  # no word
    (["Cross-", "Border trade"], "Cross- Border trade"),  # a capital: not a continuation
    (["  spaced  ", "", "out"], "spaced out"),
])
def test_lines_join_into_a_paragraph(lines: list[str], joined: str) -> None:
    assert join_lines(lines) == joined


def test_a_list_item_starts_a_paragraph_of_its_own() -> None:
    lines = ["Terms:", "• first item", "wrapped on", "(b) second", "4. fourth clause",
             "2024 was a year"]
    assert split_items(lines) == [[0], [1, 2], [3], [4, 5]]


def test_plain_text_reflows_and_keeps_its_structure() -> None:
    text = ("Pay to IBAN IE70\nBOFI 9000 1712 3456 78 by the end of\nthe month.\n\n"
            "# Heading\nNext line\n- item one\n  continued\n- item two\n| a | b |\n| 1 | 2 |\n"
            "hard break  \nafter it\n```\ncode\n  kept\n```")
    assert reflow_text(text).split("\n") == [
        "Pay to IBAN IE70 BOFI 9000 1712 3456 78 by the end of the month.", "",
        "# Heading", "Next line", "- item one continued", "- item two", "| a | b |",
        "| 1 | 2 |", "hard break  ", "after it", "```", "code", "  kept", "```"]
    # every source line is accounted for: a paragraph says how many it covers
    assert sum(n for _, n in reflow_map(text)) == text.count("\n") + 1


def test_text_and_markdown_files_read_their_paragraphs_whole() -> None:
    txt = extract_text(b"The fee is EUR 12,000.\n00 is not a sentence start\n\nNew one.\n",
                       "a.txt")
    assert [(b.text, b.line_start, b.line_end) for b in txt.blocks] == [
        ("The fee is EUR 12,000. 00 is not a sentence start", 1, 2), ("New one.", 4, 4)]
    md = extract_markdown(b"# T\n\nA para-\ngraph here.\n\n    code\n    block\n", "a.md")
    assert [b.text for b in md.blocks] == ["A paragraph here.", "code\n    block"]


def _box(text: str, x0: float, x1: float, top: float) -> dict:
    return {"text": text, "x0": x0, "x1": x1, "top": top}


def test_boxes_are_read_column_by_column_and_cells_of_a_row_together() -> None:
    boxes = [_box("Title across the page\n", 50, 550, 40),
             _box("left one\nleft two\n", 50, 280, 100),
             _box("right one\nright two\n", 320, 550, 100),
             _box("left three\n", 50, 280, 200),
             _box("Footer across\n", 50, 550, 700)]
    cuts = [(285.0, 315.0)]
    assert [[b["text"].split("\n")[0] for b in row] for row in box_order(boxes, cuts)] == [
        ["Title across the page"], ["left one"], ["left three"], ["right one"],
        ["Footer across"]]
    # without a gutter found, two paragraphs side by side are still two, never one row
    assert len(box_order(boxes[1:3], [])) == 2
    cells = [_box("Date\n", 50, 100, 300), _box("Amount\n", 150, 200, 300.5),
             _box("•\n", 50, 55, 400), _box("an item that\nwraps\n", 60, 300, 400)]
    assert page_paragraphs(cells, []) == [Paragraph("Date Amount", 1, 1),
                                          Paragraph("• an item that wraps", 2, 3)]


def test_a_pdf_wrapped_line_by_line_reads_its_iban_and_phone_whole() -> None:
    pdf = wrapped_pdf([
        ["Statement of account"],
        ["Please transfer the balance to our account IBAN IE70",
         "BOFI 9000 1712 3456 78 before the end of the month, or call us on +49",
         "40 555 0199 with any question about this statement."],
        ["4. Audit. The supplier keeps records for five years."],
    ])
    blocks = extract_pdf(pdf, "statement.pdf").blocks
    assert [(b.text[:40], b.page, b.line_start, b.line_end) for b in blocks] == [
        ("Statement of account", 1, 1, 1),
        ("Please transfer the balance to our accou", 1, 2, 4),
        ("4. Audit. The supplier keeps records for", 1, 5, 5)]
    found, _ = rule_entities(blocks[1].text)
    assert found["account_numbers"] == ["IE70 BOFI 9000 1712 3456 78"]
    assert found["phone_numbers"] == ["+49 40 5550199"]


def test_a_real_two_column_paper_reads_as_paragraphs_in_column_order() -> None:
    """A LaTeX paper (tests/fixtures/pdf/README.md): its wrapped lines come out as whole
    sentences, each page's line ranges in order, the left column before the right."""
    extracted = extract_pdf((FIXTURES / "naacl06-shinyama.pdf").read_bytes(), "naacl.pdf")
    page2 = [b for b in extracted.blocks if b.page == 2]
    texts = [b.text for b in page2]
    suppose = next(i for i, t in enumerate(texts) if t.startswith("Suppose that there are"))
    generally = next(i for i, t in enumerate(texts) if t.startswith("Generally, in a clustering"))
    assert suppose < generally  # left column, then right
    assert ("Suppose that there are two articles A and B, and both report hurricane-related "
            "news.") in texts[suppose]
    assert "\n" not in texts[suppose]
    for page in {b.page for b in extracted.blocks}:
        ranges = [(b.line_start, b.line_end) for b in extracted.blocks if b.page == page]
        assert ranges[0][0] == 1 and all(a <= b for a, b in ranges)
        assert all(ranges[k][1] + 1 == ranges[k + 1][0] for k in range(len(ranges) - 1))
    # a word hyphenated at a line's end and known comes back whole
    assert "give more confidence to" in " ".join(b.text for b in extracted.blocks)


def _lines_pdf(lines: list[tuple[float, float, str]]) -> bytes:
    import io

    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for x, y, text in lines:
        c.drawString(x, y, text)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_paragraph_pdfminer_splits_only_by_alignment_is_joined_again() -> None:
    """A hanging clause number and an indented first line: pdfminer keeps lines that do not
    align in boxes of their own; the box continuing the one above is joined to it — under
    half a line apart, the text above not ending a sentence, this one in lower case."""
    blocks = extract_pdf(_lines_pdf([
        (72, 700, "4."), (92, 700, "Audit. The buyer may audit the records of the supplier"),
        (92, 686, "once a year, on thirty days notice."),  # 2 pt apart at 12 pt: joined
        (100, 640, "An indented first line of a paragraph that wraps onto"),
        (72, 626, "the next line at the margin, as Word writes it."),
        (100, 580, "A sentence that ends here, on a line much longer than the next."),
        (72, 566, "but this starts low."),  # the end said: apart
        (100, 520, "A line without its end"),
        (72, 506, "Capitalised next line."),  # upper case: apart
        (100, 460, "Another line without its end"),
        (72, 438, "lower case but ten points below."),  # over half a line: apart
    ]), "clauses.pdf").blocks
    assert [(b.text, b.line_start, b.line_end) for b in blocks] == [
        ("4. Audit. The buyer may audit the records of the supplier once a year, on thirty "
         "days notice.", 1, 2),
        ("An indented first line of a paragraph that wraps onto the next line at the margin, "
         "as Word writes it.", 3, 4),
        ("A sentence that ends here, on a line much longer than the next.", 5, 5),
        ("but this starts low.", 6, 6),
        ("A line without its end", 7, 7), ("Capitalised next line.", 8, 8),
        ("Another line without its end", 9, 9), ("lower case but ten points below.", 10, 10)]
