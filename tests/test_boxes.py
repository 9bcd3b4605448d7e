"""Where a chunk's words stand on their pages (app/documents/boxes.py)."""

from __future__ import annotations

from app.documents.boxes import MAX_BOXES, SCALE, align, cited_boxes, page_words


def _word(text: str, x0: float, y0: float, x1: float, y1: float) -> tuple:
    return (text, x0, y0, x1, y1)


PAGES = {
    3: [_word("Payment", 0.1, 0.10, 0.2, 0.12), _word("terms:", 0.21, 0.10, 0.3, 0.12),
        _word("indem-", 0.1, 0.20, 0.2, 0.22), _word("nity", 0.1, 0.23, 0.15, 0.25)],
    4: [_word("Thirty", 0.1, 0.05, 0.2, 0.07), _word("days.", 0.21, 0.05, 0.3, 0.07)],
}


def test_words_are_aligned_across_a_page_end_and_reflow() -> None:
    text = "PAYMENT terms indemnity Thirty days."
    found = align(text, 3, PAGES)
    assert [(text[s:e], page) for s, e, page, *_ in found] == [
        ("PAYMENT", 3), ("terms", 3), ("Thirty", 4), ("days.", 4)]  # folded; hyphenated: none
    assert found[0][3:] == [1000, 1000, 2000, 1200]  # × SCALE
    assert align(text, None, PAGES) == [] and align(text, 9, PAGES) == []


def test_the_cited_words_are_merged_a_box_a_line() -> None:
    text = "PAYMENT terms indemnity Thirty days."
    words = align(text, 3, PAGES)
    both = cited_boxes(words, [(0, 13)])  # "PAYMENT terms": one line
    assert both == [{"page": 3, "x0": 0.1, "y0": 0.1, "x1": 0.3, "y1": 0.12}]
    across = cited_boxes(words, [(0, len(text))])
    assert [b["page"] for b in across] == [3, 4]
    assert cited_boxes(words, [(14, 23)]) == []  # "indemnity" has no box
    assert cited_boxes(words, [(0, 1)]) == [both[0] | {"x1": 0.2}]  # a span inside one word


def test_at_most_max_boxes_an_item() -> None:
    words = [[i * 2, i * 2 + 1, 1, 0, i * 100, 100, i * 100 + 50] for i in range(MAX_BOXES + 5)]
    assert len(cited_boxes(words, [(0, 10_000)])) == MAX_BOXES


def test_pdfplumber_words_become_page_relative() -> None:
    [word] = page_words([{"text": "x", "x0": 61.2, "top": 79.2, "x1": 122.4, "bottom": 800}],
                        612, 792)
    assert word == ("x", 0.1, 0.1, 0.2, 1.0)  # clamped to the page
    assert page_words([{"text": "x", "x0": 1, "top": 1, "x1": 2, "bottom": 2}], 0, 792) == []
    assert SCALE == 10_000
