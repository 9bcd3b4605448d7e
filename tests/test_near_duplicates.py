"""MinHash signatures (app/documents/near_duplicates.py): the same text one signature, a one-clause
change near, an unrelated text far, a short text none."""

from __future__ import annotations

import pytest

from app.documents.near_duplicates import NEAR_THRESHOLD, NUM_PERM, bands, signature, similarity
from tests.api.test_threads_api import CONTRACT


def test_signatures_of_same_near_and_far_texts() -> None:
    one, again = signature([CONTRACT]), signature([" ".join(CONTRACT.split())])
    assert one is not None and len(one) == NUM_PERM and one == again
    near = signature([CONTRACT.replace("within 15 days", "within 45 days")])
    far = signature([" ".join(f"an unrelated sentence number {n} about lunch" for n in
                              range(40))])
    assert NEAR_THRESHOLD <= similarity(one, near) < 1.0
    assert similarity(one, far) < 0.2
    assert len(set(bands(one)) & set(bands(near))) >= 1  # found by a shared band
    assert not set(bands(one)) & set(bands(far))


def test_a_short_text_has_no_signature() -> None:
    assert signature(["Minutes: the audit is closed."]) is None
    assert signature([]) is None


SHORT = ("This lease between Harbor View Properties LLC and Kestrel Holdings Ltd may be "
         "terminated by either party with ninety days written notice delivered to the address "
         "above and the deposit is returned within thirty days.")  # 37 words


def test_a_short_contract_with_one_word_changed_is_near_and_with_five_is_not() -> None:
    """Issue 53: 5-word shingles made one changed word of ~40 an estimated 0.76, under 0.8."""
    from app.documents.near_duplicates import shingle_words

    assert shingle_words(len(SHORT.split())) == 1  # ⌊38 / 20⌋
    one = signature([SHORT.replace("ninety days", "sixty days")])
    five = signature([SHORT.replace("ninety", "sixty").replace("thirty", "ten")
                      .replace("written", "oral").replace("lease", "licence")
                      .replace("deposit", "bond")])
    base = signature([SHORT])
    assert base and one and five
    assert similarity(base, one) >= NEAR_THRESHOLD
    assert similarity(base, five) < NEAR_THRESHOLD


@pytest.mark.parametrize("words, k", [(19, 1), (39, 2), (40, 2), (59, 3), (99, 5), (100, 5),
                                      (5000, 5)])
def test_shingles_grow_with_the_text_to_five_words(words: int, k: int) -> None:
    from app.documents.near_duplicates import shingle_words

    assert shingle_words(words) == k
