from app.search.rerank import rerank, rerank_depth
from tests.fakes import FakeReranker
from tests.search.helpers import cand


def test_depth_is_three_times_limit_between_20_and_50() -> None:
    assert [rerank_depth(n) for n in (1, 7, 10, 17, 200)] == [20, 21, 30, 50, 50]


def test_reranker_order_wins_over_fused_order_for_the_head() -> None:
    fused = [cand("a", 0, fused=0.3, text="nothing here"),
             cand("b", 0, fused=0.2, text="budget report"),
             cand("c", 0, fused=0.1, text="budget")]
    out = rerank("budget report", fused, reranker=FakeReranker(), limit=10, timeout_s=5)
    assert out.reranked and out.count == 3 and out.warning is None
    assert [c.document_id for c in out.ranked] == ["b", "c", "a"]
    assert out.ranked[0].rerank_score == 2.0


def test_only_the_head_is_reranked_and_the_tail_keeps_fused_order() -> None:
    fused = [cand(f"d{i:02}", 0, fused=1 - i / 100, text="x") for i in range(25)]
    fused.append(cand("zz", 0, fused=0.0, text="budget report"))
    out = rerank("budget report", fused, reranker=FakeReranker(), limit=5, timeout_s=5)
    assert out.count == 20
    assert out.ranked[-1].document_id == "zz" and out.ranked[-1].rerank_score is None


def test_no_reranker_slow_reranker_and_failing_reranker_degrade_with_a_warning() -> None:
    fused = [cand("a", 0, fused=0.3), cand("b", 0, fused=0.2)]
    none = rerank("q", fused, reranker=None, limit=10, timeout_s=1)
    slow = rerank("q", fused, reranker=FakeReranker(delay_s=0.5), limit=10, timeout_s=0.05)
    bad = rerank("q", fused, reranker=FakeReranker(fail=True), limit=10, timeout_s=1)
    for out, needle in ((none, "no reranker"), (slow, "did not answer within 0.05 s"),
                        (bad, "failed")):
        assert not out.reranked and out.count == 0
        assert out.ranked == fused
        assert needle in (out.warning or "")
