"""Search-box queries cut from long ones (evaluation/short_queries.py): the rarest words by the
public background's frequency, in their order, stopwords never, nothing read from a corpus."""

from __future__ import annotations

from app.models.encoders import SparseVec
from evaluation.short_queries import shorten

STOPWORDS = {"the", "of", "in", "a"}
FREQUENCY = {"reduces": 1e-5, "volume": 3e-5, "thyroid": 2e-6, "treatment": 5e-5}


class WordIds:
    """One term id per word (its position in a fixed list); stopwords have none."""

    words = ["reduces", "volume", "thyroid", "treatment", "goitre", "radioiodine", "multinodular"]

    def embed_documents(self, texts: list[str]) -> list[SparseVec]:
        return [SparseVec([] if t.lower() in STOPWORDS else [self.words.index(t.lower())],
                          [] if t.lower() in STOPWORDS else [1.0]) for t in texts]


def test_the_rarest_words_are_kept_in_their_order() -> None:
    background = {WordIds.words.index(w): f for w, f in FREQUENCY.items()}
    claims = {"q1": "Radioiodine treatment of multinodular goitre reduces the thyroid volume.",
              "q2": "The thyroid"}
    # unlisted words (radioiodine, multinodular, goitre) are rarest, then thyroid (2e-6)
    assert shorten(claims, WordIds(), background, 4) == {  # type: ignore[arg-type]
        "q1": "Radioiodine multinodular goitre thyroid", "q2": "thyroid"}
    assert shorten(claims, WordIds(), background, 2)["q1"] == (  # type: ignore[arg-type]
        "Radioiodine goitre")  # a tie among the unlisted: by the word (capitals first)


def test_several_cuts_make_one_query_set_judged_by_the_same_qrels() -> None:
    import pytest

    from evaluation.beir import Dataset
    from evaluation.short_queries import with_cuts

    background = {WordIds.words.index(w): f for w, f in FREQUENCY.items()}
    data = Dataset(corpus={}, queries={"q1": "Radioiodine treatment of multinodular goitre"},
                   qrels={"q1": {"d1": 1}})
    both = with_cuts(data, [0, 2], WordIds(), background)  # type: ignore[arg-type]
    assert both.queries == {"q1@0": "Radioiodine treatment of multinodular goitre",
                            "q1@2": "Radioiodine goitre"}
    assert both.qrels == {"q1@0": {"d1": 1}, "q1@2": {"d1": 1}}
    assert with_cuts(data, [2], WordIds(), background).queries == {  # type: ignore[arg-type]
        "q1": "Radioiodine goitre"}
    with pytest.raises(ValueError):
        with_cuts(data, [0, 0], WordIds(), background)  # type: ignore[arg-type]
