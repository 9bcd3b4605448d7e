"""One sentence rule for every stage (app/domain/sentences.py): pySBD with two rules of ours —
a line break ends a sentence, a fragment of fewer than three words joins its neighbour. The
hard cases a regex up to the full stop got wrong, each on both sides: where a full stop ends
a sentence and where it does not."""

from __future__ import annotations

import pytest

from app.domain.sentences import (
    MIN_SENTENCE_CHARS,
    flat_spans,
    sentences,
    spans_of,
    split,
)


def _texts(text: str) -> list[str]:
    return [text[a:b] for a, b in split(text)]


@pytest.mark.parametrize("text, expected", [
    # decimals and amounts: the full stop inside a number ends nothing
    ("The monthly fee is EUR 12,000.00 (twelve thousand euros). It is due monthly in advance.",
     ["The monthly fee is EUR 12,000.00 (twelve thousand euros).",
      "It is due monthly in advance."]),
    ("The fee of 1,200.50 per month rises to 1,200.75 per month. Version 2.1.3 applies here.",
     ["The fee of 1,200.50 per month rises to 1,200.75 per month.",
      "Version 2.1.3 applies here."]),
    # abbreviations and initials
    ("Dr. Smith met Mr. J. R. Tolkien at 3 p.m. on Jan. 5, e.g. in No. 4 Privet Dr. today.",
     ["Dr. Smith met Mr. J. R. Tolkien at 3 p.m. on Jan. 5, e.g. in No. 4 Privet Dr. today."]),
    ("Section 4.2 of the U.S. code applies, i.e. the rule. It was approved by the board.",
     ["Section 4.2 of the U.S. code applies, i.e. the rule.",
      "It was approved by the board."]),
    # clause numbers and a clause's title stay with its first sentence
    ("4. Audit. The supplier shall keep records for 5 years. 5. Term. It runs for 2 years.",
     ["4. Audit. The supplier shall keep records for 5 years.",
      "5. Term. It runs for 2 years."]),
    # URLs, e-mail addresses and identifiers
    ("See https://example.org/a.b/c.html for the details. Write to jane.doe@example.com today.",
     ["See https://example.org/a.b/c.html for the details.",
      "Write to jane.doe@example.com today."]),
    ("Ref. INV-2024.001 applies to this order. Pay to IBAN IE70 BOFI 9000 1712 3456 78 now.",
     ["Ref. INV-2024.001 applies to this order.",
      "Pay to IBAN IE70 BOFI 9000 1712 3456 78 now."]),
    # a line break ends a sentence (a heading, a list item, a table row) …
    ("Termination\nEither party may end it with notice.\n\n- ninety days in writing",
     ["Termination", "Either party may end it with notice.", "- ninety days in writing"]),
    # … and an ordinary sentence end still ends one
    ("The buyer pays within thirty days. The seller ships within ten days.",
     ["The buyer pays within thirty days.", "The seller ships within ten days."]),
])
def test_hard_cases(text: str, expected: list[str]) -> None:
    assert _texts(text) == expected


def test_a_fragment_at_a_lines_end_joins_the_sentence_before_it() -> None:
    assert _texts("The parties signed the agreement. Thank you.") == [
        "The parties signed the agreement. Thank you."]
    assert _texts("Ok.") == ["Ok."]  # alone on its line, it is all there is


def test_offsets_are_into_the_text_and_without_surrounding_spaces() -> None:
    text = "  First sentence is here.   Second one follows now.\n"
    spans = split(text)
    assert spans == [(2, 25), (28, 51)]
    assert all(not text[a:b][0].isspace() and not text[b - 1].isspace() for a, b in spans)


def test_short_ones_are_not_compared_and_the_limit_holds() -> None:
    text = "Tiny one. " + " ".join(f"Sentence number {i} is here." for i in range(10))
    found = sentences(text, 3)
    assert len(found) == 3 and all(b - a >= MIN_SENTENCE_CHARS for a, b in found)
    assert sentences("Short bit ok.", 8) == [(0, 13)]  # 13 ≥ 12 characters
    assert sentences("Short bit.", 8) == []  # 10 < 12


def test_stored_spans_are_read_back_and_refused_where_they_do_not_fit() -> None:
    text = "Alpha beta gamma. Delta epsilon zeta."
    stored = flat_spans(split(text))
    assert stored == [0, 17, 18, 37]
    assert spans_of(text, stored) == [(0, 17), (18, 37)]
    assert spans_of(text, [0, 99]) == split(text)  # past the text: found again
    assert spans_of(text, [0, 17, 18]) == split(text)  # odd: found again
    assert spans_of(text, None) == split(text)
