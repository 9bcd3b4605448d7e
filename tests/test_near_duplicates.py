"""MinHash signatures (app/documents/near_duplicates.py): the same text one signature, a one-clause
change near, an unrelated text far, a short text none."""

from __future__ import annotations

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
