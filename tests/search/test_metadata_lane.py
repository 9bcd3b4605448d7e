from app.domain.leaves import Leaf
from app.search.metadata_lane import fuse_versions, lookup_terms, rank_versions


def test_versions_rank_by_best_leaf_then_leaf_count_then_id() -> None:
    rows = [("b", "v1", Leaf("custom.project", "string", "Apollo")),
            ("a", "v1", Leaf("document.title", "string", "Apollo budget")),
            ("c", "v1", Leaf("custom.project", "string", "Apollo")),
            ("c", "v1", Leaf("document.title", "string", "About Apollo")),
            ("d", "v1", Leaf("custom.project", "string", "Gemini"))]
    hits = rank_versions("apollo", rows)
    assert [(h.document_id, len(h.matches)) for h in hits] == [("c", 2), ("b", 1), ("a", 1)]
    assert hits[0].matches[0].match == "exact"


def test_filters_and_allowed_versions_narrow_without_reordering() -> None:
    rows = [("a", "v1", Leaf("custom.project", "string", "Apollo")),
            ("b", "v1", Leaf("custom.project", "string", "Apollo"))]
    leaves = {("a", "v1"): [Leaf("custom.year", "number", 2024)],
              ("b", "v1"): [Leaf("custom.year", "number", 2023)]}
    assert [h.document_id for h in rank_versions("apollo", rows, leaves,
                                                 {"custom.year": [2023]})] == ["b"]
    assert [h.document_id for h in rank_versions("apollo", rows, leaves,
                                                 {"custom.year": ["2023"]})] == []
    assert [h.document_id for h in rank_versions("apollo", rows,
                                                 allowed={("a", "v1")})] == ["a"]


def test_lookup_terms_fold_words_identifiers_and_numbers() -> None:
    words, exact = lookup_terms("Invoice PO-2231 of 1,200")
    assert words == ["1", "200", "2231", "invoice", "po"]
    assert exact == ["invoice po-2231 of 1,200", "po-2231"]
    assert "1200.0" in lookup_terms("1,200")[1]  # a query that is a number


def test_both_lanes_fused_by_rank_hand_computed() -> None:
    fused = fuse_versions({("a", "v1"): 1, ("b", "v1"): 2}, {("b", "v1"): 1, ("c", "v1"): 2})
    # b: 1/62 + 1/61 = 0.03252; a: 1/61 = 0.01639; c: 1/62 = 0.01613
    assert fused == [(("b", "v1"), {"content": 2, "metadata": 1}),
                     (("a", "v1"), {"content": 1}), (("c", "v1"), {"metadata": 2})]


def test_lane_ranks_are_the_unfiltered_places_of_the_kept_versions() -> None:
    from app.search.service import lane_ranks

    a, b, c, d = ("a", "v1"), ("b", "v1"), ("c", "v1"), ("d", "v1")
    assert lane_ranks([b, d], None) == {b: 1, d: 2}
    # b and c were 2nd and 3rd unfiltered; d, beyond the unfiltered depth, ranks after all
    assert lane_ranks([b, c, d], [a, b, c]) == {b: 2, c: 3, d: 4}


def test_a_tie_in_scope_both_goes_to_the_content_lanes_higher_score() -> None:
    """agreement (a metadata hit at rank 1) and handbook (a content hit at rank 1) tie on the
    fused rank; the id used to decide (agreement first). The content lanes' score decides now,
    and two content hits that tie go by their scores too."""
    fused = fuse_versions({("handbook", "v1"): 1}, {("agreement", "v1"): 1},
                          content_scores={("handbook", "v1"): 0.4})
    assert [key for key, _ in fused] == [("handbook", "v1"), ("agreement", "v1")]
    fused = fuse_versions({("a", "v1"): 1, ("b", "v1"): 2}, {("b", "v1"): 1, ("a", "v1"): 2},
                          content_scores={("a", "v1"): 0.2, ("b", "v1"): 0.3})
    assert [key for key, _ in fused] == [("b", "v1"), ("a", "v1")]
    assert [key for key, _ in fuse_versions({("a", "v1"): 1}, {("b", "v1"): 1})] == [
        ("a", "v1"), ("b", "v1")]  # nothing to tell them apart: the id
