"""Changes between versions, pure (app/documents/changes.py): overlapping chunks read once,
sentences (the one segmenter's) compared folded, a removed and an added sentence paired only
when alike (ratio ≥ 0.5, both sides of it), changed words marked whole, the time bound said."""

from __future__ import annotations

from app.documents.changes import SIMILAR, changes, marks, passages, similarity


def _chunk(i: int, text: str, start: int) -> dict:
    return {"chunk_index": i, "text": text, "char_start": start, "char_end": start + len(text),
            "page": i + 1}


def test_overlapping_chunks_are_read_once() -> None:
    one = "Alpha is one. Beta is two. Gamma is three."
    two = "Gamma is three. Delta is four."  # the splitter's overlap repeats "Gamma is three."
    read = passages([_chunk(1, two, one.index("Gamma")), _chunk(0, one, 0)])
    assert [p.text for p in read] == ["Alpha is one.", "Beta is two.", "Gamma is three.",
                                      "Delta is four."]
    assert [p.location["page"] for p in read] == [1, 1, 1, 2]
    assert read[3].span == (16, 30)  # where it stands in its own chunk


def _found(before: str, after: str) -> list[tuple]:
    found, complete = changes(passages([_chunk(0, before, 0)]), passages([_chunk(0, after, 0)]))
    assert complete
    return [(c["kind"], (c["before"] or {}).get("text"), (c["after"] or {}).get("text"))
            for c in found]


def test_case_and_spaces_are_no_change_and_alike_sentences_pair_in_order() -> None:
    assert _found("Fee is 12 a year.  Term is one year. Old clause stays here.",
                  "FEE IS 12 A YEAR. Term is two years. Old clause stays there. Extra one here."
                  ) == [("changed", "Term is one year.", "Term is two years."),
                        ("changed", "Old clause stays here.", "Old clause stays there."),
                        ("added", None, "Extra one here.")]


def test_the_contract_case_amounts_whole_and_unlike_clauses_removed_and_added() -> None:
    """The issue's contract: a fee and a notice period changed, an audit clause removed and
    an exclusivity clause added in its place — four changes, each once, amounts whole."""
    v1 = ("The monthly fee is EUR 12,000.00 (twelve thousand euros). The service fee is "
          "1,200.50 per month. 4. Audit. The buyer may audit the supplier once a year. "
          "Either party may terminate with ninety days notice.")
    v2 = ("The monthly fee is EUR 14,000.00 (fourteen thousand euros). The service fee is "
          "1,200.50 per month. 4. Exclusivity. The supplier shall not serve competitors. "
          "Either party may terminate with sixty days notice.")
    assert _found(v1, v2) == [
        ("changed", "The monthly fee is EUR 12,000.00 (twelve thousand euros).",
         "The monthly fee is EUR 14,000.00 (fourteen thousand euros)."),
        ("removed", "4. Audit. The buyer may audit the supplier once a year.", None),
        ("added", None, "4. Exclusivity. The supplier shall not serve competitors."),
        ("changed", "Either party may terminate with ninety days notice.",
         "Either party may terminate with sixty days notice.")]


def test_spaces_and_case_are_no_change() -> None:
    # a re-wrapped line: extraction joins wrapped lines (ingest/extract/reflow.py), so only
    # spacing differs — tests/api/test_changes_api.py reads two differently wrapped PDFs
    assert _found("The fee is due monthly  in advance.", "the fee is due monthly in advance."
                  ) == []


def test_similarity_on_both_sides_of_the_line() -> None:
    assert SIMILAR == 0.5
    # 4 of 8 words in common: 2 × 4 / 16 = 0.5, alike
    assert similarity("a b c d e f g h", "a b c d w x y z") == 0.5
    assert _found("a1 b1 c1 d1 e1 f1 g1 h1.", "a1 b1 c1 d1 w1 x1 y1 z1.")[0][0] == "changed"
    # 3 of 8: 0.375, unlike
    assert similarity("a b c d e f g h", "a b c w x y z q") == 0.375
    assert [k for k, _, _ in _found("a1 b1 c1 d1 e1 f1 g1 h1.", "a1 b1 c1 w1 x1 y1 z1 q1.")
            ] == ["removed", "added"]


def test_marks_cover_the_changed_words_whole() -> None:
    before = "The fee of 1,200.50 per month is due."
    after = "The fee of 1,200.75 per month is due on the first."
    was, now = marks(before, after)
    assert [before[a:b] for a, b in was] == ["1,200.50", "due."]
    assert [after[a:b] for a, b in now] == ["1,200.75", "due on the first."]
    [change] = changes(passages([_chunk(0, before, 0)]), passages([_chunk(0, after, 0)]))[0]
    assert change["before"]["marks"] == was and change["after"]["marks"] == now


def test_the_time_bound_is_said() -> None:
    before = passages([_chunk(0, "A is a. B is b.", 0)])
    after = passages([_chunk(0, "C is c. D is d.", 0)])
    assert changes(before, after, max_seconds=-1.0) == ([], False)
