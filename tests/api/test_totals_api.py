"""A total that is a lower bound is always said, and never shrinks across the pages of one
query (issue 53: 44 with total_is_lower_bound and no warning, then 50 at offset 40)."""

from __future__ import annotations

import pytest

from tests.fakes import fake_models
from tests.service import Service, running_service


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Service:
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp("totals")
    settings = make_settings(tmp)
    settings.search.sparse_floor = 0.0
    settings.search.min_depth = 20  # the lanes' first depth: the page fills before the end
    with running_service(tmp, fake_models(), settings=settings) as s:
        for i in range(60):
            s.upload(f"memo-{i}.txt", f"Apollo budget memo number {i} for the quarter.",
                     document_id=f"memo-{i}")
        s.worker.drain()
        yield s


def test_a_lower_bound_is_said_and_grows_page_by_page(svc: Service) -> None:
    seen = []
    for offset in (0, 20, 40, 55):
        meta = svc.search(query="apollo budget memo", alpha=0.0, limit=5,
                          offset=offset).json()["meta"]
        if meta["total_is_lower_bound"]:
            assert any("lower bound" in w for w in meta["warnings"]), meta["warnings"]
        seen.append(meta["total"])
    assert seen == sorted(seen), seen  # never fewer on a later page
    assert seen[-1] == 60
    first = svc.search(query="apollo budget memo", alpha=0.0, limit=5).json()["meta"]
    assert first["total_is_lower_bound"] is True and first["total"] < 60
