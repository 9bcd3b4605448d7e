from app.search.grouping import group_versions, with_evidence
from tests.search.helpers import cand


def test_versions_rank_by_best_chunk_and_hold_three_items() -> None:
    ranked = [cand("a", 5), cand("b", 0), cand("a", 9), cand("a", 1), cand("a", 12),
              cand("b", 3)]
    versions = with_evidence(group_versions(ranked))
    assert [(v.document_id, v.total, v.truncated) for v in versions] == [
        ("a", 4, True), ("b", 2, False)]
    assert [c.chunk_index for c in versions[0].evidence] == [5, 9, 1]


def test_overlapping_neighbours_give_way_to_a_distinct_chunk() -> None:
    # by rank 4, 5, 3 would all be neighbours of 4; distinct chunk 9 takes a slot first,
    # and the best neighbour (5) fills the last one; items stay in rank order
    versions = with_evidence(group_versions([cand("a", 4), cand("a", 5), cand("a", 3),
                                             cand("a", 9)]))
    assert [c.chunk_index for c in versions[0].evidence] == [4, 5, 9]
    assert versions[0].total == 4


def test_neighbours_fill_in_when_nothing_distinct_is_left() -> None:
    versions = with_evidence(group_versions([cand("a", 4), cand("a", 5), cand("a", 3)]))
    assert [c.chunk_index for c in versions[0].evidence] == [4, 5, 3]


def test_two_versions_of_one_document_are_two_rows() -> None:
    versions = group_versions([cand("a", 0, version="v1"), cand("a", 0, version="v2")])
    assert [(v.document_id, v.version_id) for v in versions] == [("a", "v1"), ("a", "v2")]


def test_grouping_alone_picks_no_evidence() -> None:
    assert group_versions([cand("a", 0)])[0].evidence == ()


def test_evidence_covers_the_querys_words_before_repeating_the_best_one() -> None:
    """"fees and termination": three termination clauses outrank the fee clause; the second
    pick is the fee clause (it adds "fees"), the third the best termination clause left."""
    from app.search.spans import query_terms

    ranked = [cand("c", 0, text="Termination with notice; termination for cause."),
              cand("c", 4, text="Termination on insolvency."),
              cand("c", 8, text="Termination assistance after termination."),
              cand("c", 12, text="The monthly fees are invoiced in advance.")]
    (version,) = with_evidence(group_versions(ranked), query_terms("fees and termination"))
    assert [c.chunk_index for c in version.evidence] == [0, 4, 12]  # rank order kept
    (plain,) = with_evidence(group_versions(ranked))  # no words: rank order, as before
    assert [c.chunk_index for c in plain.evidence] == [0, 4, 8]


def test_a_chunk_adding_a_word_beats_a_better_ranked_one_that_adds_none() -> None:
    from app.search.spans import query_terms

    ranked = [cand("c", 0, text="alpha beta"), cand("c", 3, text="alpha"),
              cand("c", 6, text="beta"), cand("c", 9, text="gamma alpha")]
    (version,) = with_evidence(group_versions(ranked), query_terms("alpha beta gamma"))
    assert [c.chunk_index for c in version.evidence] == [0, 3, 9]  # 9 adds gamma; then rank


def test_a_neighbour_that_adds_words_is_cited_one_that_adds_none_gives_way() -> None:
    """"sickness reported and holiday requests": the holiday clause (chunk 0) ranks first;
    the sickness clause is its neighbour (chunk 1) and the only chunk adding "sickness" and
    "reported", so it is cited rather than a distant holiday clause adding nothing; for the
    third, adding nothing either way, chunk 2 (a neighbour of 1) gives way to chunk 4."""
    from app.search.spans import query_terms

    ranked = [cand("h", 0, text="Holiday requests go to your manager."),
              cand("h", 2, text="Unused holiday may be carried over."),
              cand("h", 1, text="Sickness absence is reported on the first day."),
              cand("h", 4, text="Holiday in August is shared out.")]
    terms = query_terms("sickness reported and holiday requests")
    (version,) = with_evidence(group_versions(ranked), terms)
    assert [c.chunk_index for c in version.evidence] == [0, 1, 4]


def test_a_part_beyond_the_pool_is_cited_only_for_a_word_the_pool_lacks() -> None:
    """Twelve termination clauses fill the pool (ten read); the interest clause, found for the
    missing word by with_parts, is cited third; a part adding nothing is not cited."""
    from dataclasses import replace

    from app.search.grouping import missing_terms
    from app.search.spans import query_terms

    ranked = [cand("a", i, text=f"Termination of schedule {i}.") for i in range(12)]
    terms = query_terms("termination and interest")
    (version,) = group_versions(ranked)
    assert missing_terms(version, terms) == {"interest"}
    interest = cand("a", 119, text="Interest accrues on late payment.")
    (cited,) = with_evidence([replace(version, parts=(interest,))], terms)
    assert [c.chunk_index for c in cited.evidence] == [0, 2, 119]  # parts after the ranked
    idle = cand("a", 130, text="Termination of schedule 130.")
    (cited,) = with_evidence([replace(version, parts=(idle,))], terms)
    assert [c.chunk_index for c in cited.evidence] == [0, 2, 4]  # neighbours give way
