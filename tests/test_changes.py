"""Changes between versions, pure (app/documents/changes.py): overlapping chunks read once,
sentences
compared folded, a replaced run paired in order, the time bound said."""

from __future__ import annotations

from app.documents.changes import changes, passages


def _chunk(i: int, text: str, start: int) -> dict:
    return {"chunk_index": i, "text": text, "char_start": start, "char_end": start + len(text),
            "page": i + 1}


def test_overlapping_chunks_are_read_once() -> None:
    one = "Alpha one. Beta two. Gamma three."
    two = "Gamma three. Delta four."  # the splitter's overlap repeats "Gamma three."
    read = passages([_chunk(1, two, one.index("Gamma")), _chunk(0, one, 0)])
    assert [p.text for p in read] == ["Alpha one.", "Beta two.", "Gamma three.", "Delta four."]
    assert [p.location["page"] for p in read] == [1, 1, 1, 2]


def test_case_and_spaces_are_no_change_and_a_replaced_run_pairs_in_order() -> None:
    before = passages([_chunk(0, "Fee is 12.  Term is one year. Old clause.", 0)])
    after = passages([_chunk(0, "FEE IS 12. Term is two years. New clause. Extra.", 0)])
    found, complete = changes(before, after)
    assert complete
    assert [(c["kind"], (c["before"] or {}).get("text"), (c["after"] or {}).get("text"))
            for c in found] == [("changed", "Term is one year.", "Term is two years."),
                                ("changed", "Old clause.", "New clause."),
                                ("added", None, "Extra.")]


def test_the_time_bound_is_said() -> None:
    before = passages([_chunk(0, "A. B.", 0)])
    after = passages([_chunk(0, "C. D.", 0)])
    assert changes(before, after, max_seconds=-1.0) == ([], False)
