"""The browser console in real Chromium (Debian's, driven by Playwright), against a live server
with the real models: sign in, upload and watch it publish, search and see the <mark>, the
"why" numbers equal to the API's, compare modes, the 409 and enabling discovery, a bad key,
an XSS document inert, every request to 127.0.0.1, no console errors, two screen sizes."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.live import LiveServer, live_server, worker_running

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright for Python is not installed")
if CHROMIUM is None:
    pytest.skip("no Chromium on this machine (apt-get install -y chromium)",
                allow_module_level=True)

HANDBOOK = """# Employee Handbook

## Vacation

Every full-time employee receives 25 days of paid vacation per calendar year.

## Expenses

Travel expenses are reimbursed within 30 days of submission.
"""
HOSTILE = """# Notes <script>window.__xss = 1</script>

The calibration widget <img src=x onerror="window.__xss = 2"> must be inert.
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, real_models) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    with live_server(tmp_path_factory.mktemp("console"), real_models, entities=True) as live, \
            worker_running(live, every_s=0.1):
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield launched
        finally:
            launched.close()


class Watched:
    """A page whose requests and console errors are recorded."""

    def __init__(self, browser, server: LiveServer, width: int = 1280, height: int = 800):  # type: ignore[no-untyped-def]
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: d.accept())
        self.server = server

    def sign_in(self, key: str) -> None:
        page = self.page
        page.goto(self.server.url + "/")  # / sends a person to the console
        page.get_by_label("API key").fill(key)
        page.get_by_label("API key").press("Enter")  # keyboard only

    def search(self, query: str) -> None:
        box = self.page.get_by_role("searchbox", name="Search")
        box.fill(query)
        box.press("Enter")  # the submit handler marks the results loading at once
        self.page.locator('#results[data-state="done"]').wait_for()

    def close(self) -> None:
        stray = [u for u in self.requests  # (blob: ones are the console's own images)
                 if not u.removeprefix("blob:").startswith(self.server.url)]
        assert not stray, stray  # nothing leaves 127.0.0.1
        assert not [e for e in self.errors if "401" not in e and "409" not in e], self.errors
        self.context.close()


@pytest.fixture
def watched(browser, server: LiveServer) -> Iterator[Watched]:  # type: ignore[no-untyped-def]
    w = Watched(browser, server)
    yield w
    w.close()


def _upload(w: Watched, tmp_path: Path, name: str, text: str, access: str = "") -> None:
    page = w.page
    page.get_by_role("button", name="Documents", exact=True).click()
    path = tmp_path / name
    path.write_text(text)
    page.get_by_label("File", exact=True).set_input_files(str(path))
    page.get_by_label("Access groups (optional)").fill(access)
    page.get_by_role("button", name="Upload").click()
    page.locator("#upload-status .job span").filter(has_text=f"{name}: published as").wait_for(
        timeout=60_000)
    # the list refreshes after the job says published: wait for it, not for a busy machine
    page.locator("#documents tbody tr").filter(has_text=name).first.wait_for(timeout=30_000)


def test_loading_the_console_asks_nothing_it_is_refused(watched: Watched) -> None:
    """Issue 38: a 401 in the browser's console on load (the browser asked /favicon.ico,
    which the API's gate refuses): the console names its own icon."""
    watched.page.goto(watched.server.url + "/")
    watched.page.get_by_label("API key").wait_for()
    watched.page.wait_for_timeout(500)  # the icon is asked after the load event
    assert watched.errors == []
    assert watched.server.url + "/console/favicon.svg" in watched.requests


def test_a_wrong_key_shows_the_apis_message(watched: Watched) -> None:
    watched.sign_in("not-a-key")
    alert = watched.page.locator("#sign-in-error")
    alert.filter(has_text="API_KEY_INVALID").wait_for()
    assert "API key" in alert.inner_text()
    assert watched.page.locator("#view-search").is_hidden()
    assert "not-a-key" not in watched.page.url  # never in a URL


def test_upload_search_explain_compare_and_documents(watched: Watched, server: LiveServer,
                                                      tmp_path: Path) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    assert page.evaluate("sessionStorage.getItem('evidence.apiKey')") == server.keys["acme"]
    _upload(watched, tmp_path, "handbook.md", HANDBOOK)
    assert "handbook.md" in page.locator("#documents tbody").inner_text()

    page.get_by_role("button", name="Search", exact=True).first.click()
    page.get_by_label("Why this result").check()
    watched.search("paid vacation days")
    card = page.locator("#results .card").first
    assert "handbook.md" in card.inner_text() and "Employee Handbook" in card.inner_text()
    marks = [m.lower() for m in card.locator("mark").all_inner_texts()]
    assert "vacation" in marks and "paid" in marks
    # the why numbers are the API's explain numbers
    api = httpx.post(f"{server.url}/search", headers={"X-API-Key": server.keys["acme"]},
                     json={"query": "paid vacation days", "alpha": 0.5, "explain": True,
                           "limit": 10, "offset": 0, "filters": {}, "scope": "content",
                           "rerank": False}).json()
    scores = api["results"][0]["content_evidence"]["items"][0]["scores"]
    shown = card.locator(".score-dense").first.inner_text()
    assert f"dense {scores['dense']:.4f} (rank {scores['dense_rank']}" in shown
    assert f"fused {scores['fused']:.6f}" in card.locator(".score-fused").first.inner_text()
    assert page.locator("#timings .bar").count() >= 5  # the stages as bars
    assert card.locator(".snippet").first.inner_text()  # the snippet, marked, is shown
    watched.search('"paid vacation" -toner')
    page.locator("#search-meta .syntax").filter(has_text='phrase "paid vacation"').wait_for()
    page.get_by_label("Clear matches only").check()
    watched.search("paid vacation days")
    page.locator("#search-meta .syntax").filter(has_text="clear matches: kept").wait_for()
    page.get_by_label("Clear matches only").uncheck()
    page.get_by_label("Why not (document id)").fill("nowhere.pdf")
    watched.search("paid vacation days")
    page.locator(".diagnosis").filter(has_text="Why nowhere.pdf: NOT_FOUND").wait_for()
    page.get_by_label("Why not (document id)").fill("")

    page.get_by_role("button", name="Compare modes").click()
    page.get_by_label("Query to compare").fill("travel expenses reimbursed")
    page.get_by_label("Query to compare").press("Enter")
    columns = page.locator("#compare section")
    columns.nth(2).locator("li").first.wait_for()
    assert columns.count() == 3
    assert "in all three" in page.locator("#compare").inner_text()
    # issue 53: each mode's top passage and why it came up, not only ids
    keyword = columns.nth(0)
    assert "reimbursed" in keyword.locator(".compare-passage").first.inner_text()
    assert keyword.locator(".compare-passage mark").count() >= 1
    assert keyword.locator(".compare-why").first.inner_text().startswith("came up by its words:")

    page.get_by_role("button", name="Documents").click()
    page.get_by_role("button", name="Open handbook.md").click()
    detail = page.locator("#document-detail")
    detail.filter(has_text="published").wait_for()
    page.get_by_role("button", name="Search", exact=True).first.click()
    watched.search("paid vacation days")
    # the README's picture: EVIDENCE_CONSOLE_SCREENSHOT=docs/console.png pytest tests/console
    page.screenshot(path=os.environ.get("EVIDENCE_CONSOLE_SCREENSHOT",
                                        str(tmp_path / "console.png")))


def test_the_409_shows_readiness_and_enables_discovery(watched: Watched,
                                                       server: LiveServer) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.get_by_label("Scope").select_option("metadata")
    box = page.get_by_role("searchbox", name="Search")
    box.fill("handbook")
    box.press("Enter")
    notice = page.locator("#readiness")
    notice.filter(has_text="needs metadata discovery: it is disabled").wait_for()
    page.get_by_role("button", name="Enable metadata discovery").click()
    notice.filter(has_text="Metadata discovery is").wait_for()
    me = httpx.get(f"{server.url}/clients/me", headers={"X-API-Key": server.keys["acme"]})
    assert me.json()["metadata_discovery"]["state"] in ("discovering", "ready")


def test_a_hostile_document_renders_inert(watched: Watched, server: LiveServer,
                                          tmp_path: Path) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    _upload(watched, tmp_path, "notes.md", HOSTILE)
    page.get_by_role("button", name="Search", exact=True).first.click()
    page.get_by_label("Scope").select_option("content")
    watched.search("calibration widget inert")
    text = page.locator("#results").inner_text()
    assert "<img src=x onerror=" in text  # shown as text …
    assert page.evaluate("window.__xss") is None  # … and never run
    assert page.locator("#results img, #results script").count() == 0
    csp = httpx.get(f"{server.url}/console/").headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_readable_at_desktop_and_phone_sizes(browser, server: LiveServer,  # type: ignore[no-untyped-def]
                                             size: tuple[int, int]) -> None:
    w = Watched(browser, server, *size)
    try:
        w.sign_in(server.keys["acme"])
        w.page.locator("#who").filter(has_text="Signed in").wait_for()
        w.search("paid vacation days")
        overflow = w.page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{overflow}px wider than a {size[0]}px screen"
        unlabelled = w.page.evaluate("""[...document.querySelectorAll('input, select, button')]
            .filter(e => !e.closest('[hidden]'))
            .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
                         && !e.textContent.trim()).map(e => e.id || e.outerHTML)""")
        assert unlabelled == []
    finally:
        w.close()


def test_drop_a_file_then_delete_the_document_after_confirming(watched: Watched,
                                                                server: LiveServer) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.get_by_role("button", name="Documents").click()
    page.get_by_label("Metadata JSON (optional)").fill("[1, 2]")
    page.get_by_label("Document id (optional)").fill("dropped-note")
    transfer = page.evaluate_handle("""() => {
        const t = new DataTransfer();
        t.items.add(new File(["A dropped note about quarterly widgets."], "dropped.txt",
                             {type: "text/plain"}));
        return t; }""")
    page.dispatch_event("#upload-form", "drop", {"dataTransfer": transfer})
    page.locator("#upload-status .error").filter(
        has_text="Metadata must be a JSON object").wait_for()  # checked before sending
    page.get_by_label("Metadata JSON (optional)").fill('{"team": "ops"}')
    page.dispatch_event("#upload-form", "drop", {"dataTransfer": transfer})
    page.locator("#upload-status .job span").filter(has_text="published as dropped-note").wait_for(
        timeout=60_000)
    page.get_by_role("button", name="Delete dropped-note").click()  # the dialog is accepted
    page.get_by_role("button", name="Open dropped-note").wait_for(state="detached")
    gone = httpx.get(f"{server.url}/documents/dropped-note",
                     headers={"X-API-Key": server.keys["acme"]})
    assert gone.status_code == 404


def test_facets_show_as_values_that_filter_when_clicked(watched: Watched, server: LiveServer,
                                                        tmp_path: Path) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    _upload(watched, tmp_path, "ledger.csv", "date,amount,memo\n2024-01-15,10000,holiday pay\n")
    _upload(watched, tmp_path, "leave.md",
            "# Leave\n\nHoliday pay of $10,000 in all is paid in December.\n")
    page.get_by_role("button", name="Search", exact=True).first.click()
    page.get_by_label("Facets", exact=True).fill("kind")
    watched.search("holiday pay")
    facets = page.locator("#facet-counts")
    assert "kind:" in facets.inner_text()
    page.get_by_role("button", name="Filter kind = csv").click()
    page.locator('#results[data-state="done"]').wait_for()
    page.locator("#facet-counts").filter(has_text="csv (1)").wait_for()
    cards = page.locator("#results .card").all_inner_texts()
    assert len(cards) == 1 and "ledger.csv" in cards[0]
    # a range typed as a filter value: the amounts found in the text, in dollars
    page.get_by_role("button", name="Remove filter 1").click()
    page.get_by_role("button", name="Add filter").click()
    page.get_by_label("Filter 1 key").fill("entities.monetary_amounts")
    page.get_by_label("Filter 1 value").fill('{"gte": 5000, "currency": "USD"}')
    watched.search("holiday pay")
    cards = page.locator("#results .card").all_inner_texts()
    assert len(cards) == 1 and "leave.md" in cards[0]


def test_entities_list_and_a_click_searches_then_the_timeline_narrows(
        watched: Watched, server: LiveServer, tmp_path: Path) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    _upload(watched, tmp_path, "approval.txt",
            "Daniel Okafor approved the Kestrel wire on 12 March 2024.")
    _upload(watched, tmp_path, "meeting.txt",
            "Daniel Okafor met Maria Lindqvist about the Kestrel wire on 3 April 2024.")
    page.get_by_role("button", name="Entities", exact=True).click()
    page.get_by_label("Name contains").fill("okafor")
    page.get_by_role("button", name="List", exact=True).click()
    page.locator('#entities[data-state="done"]').wait_for()
    row = page.locator("#entities tbody tr").filter(has_text="Daniel Okafor")
    assert row.locator("td").nth(1).inner_text() == "2"  # two documents name him
    row.get_by_role("button", name="Search for Daniel Okafor").click()
    page.locator('#results[data-state="done"]').wait_for()
    assert page.get_by_label("Filter 1 key").input_value() == "entities.persons"
    chip = page.locator("#filter-chips .chip")  # issue 53: the filter in force is seen
    assert chip.count() == 1 and chip.inner_text().startswith("entities.persons = ")
    cards = page.locator("#results .card").all_inner_texts()
    assert sorted(c.split("\n")[0][3:] for c in cards) == ["approval.txt", "meeting.txt"]
    months = page.locator("#timeline-bars .month")
    assert months.count() == 2
    # issue 53: one plain sentence, and a one-line passage is "line 1", not "lines 1–1"
    assert page.locator("#timeline-caption").inner_text() == (
        "The days the results name fall in 2 months; click a month to keep the results that "
        "name it.")
    wheres = page.locator("#results .evidence .where").all_inner_texts()
    assert wheres and all("–1" not in w for w in wheres) and any("line 1" in w for w in wheres)
    page.get_by_role("button", name="2024-03: 1 version(s)").click()
    page.locator('#results[data-state="done"]').wait_for()
    page.locator("#timeline-bars .month").first.wait_for()
    cards = page.locator("#results .card").all_inner_texts()
    assert len(cards) == 1 and "approval.txt" in cards[0]
    # removing the entity's chip widens the search again: both documents, no filter left
    page.get_by_role("button", name="Remove filter entities.persons").click()
    page.locator('#results[data-state="done"]').wait_for()
    assert page.locator("#filter-chips .chip").count() == 1  # the month's filter stays
    assert page.locator("#filter-chips .chip").inner_text().startswith("entities.dates_times")


def test_a_thread_collapses_to_one_card_that_opens_its_messages(
        watched: Watched, server: LiveServer, tmp_path: Path) -> None:
    from tests.api.test_threads_api import MAILS

    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    for name in ("reply", "forward"):
        _upload(watched, tmp_path, f"{name}.eml", MAILS[name].decode())
    page.get_by_role("button", name="Search", exact=True).first.click()
    page.get_by_label("Collapse").select_option("thread")
    watched.search("zanzibar")
    cards = page.locator("#results .card")
    assert cards.count() == 1
    cards.first.get_by_role("button", name="Thread: 2 messages").click()
    page.locator('#results ol.thread[data-state="done"]').wait_for()
    items = cards.first.locator("ol.thread li").all_inner_texts()
    assert len(items) == 2 and items[0].startswith("reply.eml") and "answers" not in items[0]


def test_changes_side_by_side_and_a_watch_with_its_matches(
        watched: Watched, server: LiveServer, tmp_path: Path) -> None:
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    page.get_by_role("button", name="Search", exact=True).first.click()
    page.get_by_role("searchbox", name="Search").fill("annual retainer fee")
    page.get_by_role("button", name="Watch this search").click()
    page.locator("#watch-status").filter(has_text="Watching “annual retainer fee”").wait_for()
    page.get_by_role("button", name="Watch this search").click()  # issue 53: not twice
    page.locator("#watch-status").filter(has_text="Already watching").wait_for()
    watched_now = httpx.get(f"{server.url}/watches",
                            headers={"Authorization": f"Bearer {server.keys['acme']}"}).json()
    assert [w["query"] for w in watched_now["items"]].count("annual retainer fee") == 1

    for text in ("# Retainer\n\nThe annual retainer fee is 12,000 EUR.\n",
                 "# Retainer\n\nThe annual retainer fee is 24,000 EUR.\n\nAudits are yearly.\n"):
        page.get_by_role("button", name="Documents", exact=True).click()
        page.get_by_label("Document id (optional)").fill("retainer")
        _upload(watched, tmp_path, "retainer.md", text)
    server.app.state.watch_runner.run_once()

    page.get_by_role("button", name="Open retainer").click()
    page.get_by_role("button", name="What changed in v2").click()
    page.locator('#changes[data-state="done"]').wait_for()
    rows = page.locator("#changes tbody tr").all_inner_texts()
    assert rows[0].startswith("changed") and "12,000 EUR" in rows[0] and "24,000 EUR" in rows[0]
    assert rows[1].startswith("added") and "Audits are yearly." in rows[1]
    assert "Retainer" in rows[0]  # where each side stands: its heading
    # the changed words marked on each side, the amounts whole
    assert page.locator("#changes tbody tr").first.locator("mark").all_inner_texts() == [
        "12,000", "24,000"]

    page.get_by_role("button", name="Watches").click()
    page.locator('#watches[data-state="done"]').wait_for()
    page.get_by_role("button", name="Matches of annual retainer fee").click()
    page.locator('#watch-matches[data-state="done"]').wait_for()
    cards = page.locator("#watch-matches .card").all_inner_texts()
    assert [c.splitlines()[0] for c in cards] == ["retainer v1", "retainer v2"]
    assert page.locator("#watch-matches mark").count() >= 2  # the search's own spans
    page.get_by_role("button", name="Delete watch annual retainer fee").click()
    page.locator("#watches-caption").filter(has_text="0 watch(es)").wait_for()


def test_versions_and_as_of_controls_mark_superseded_rows(
        watched: Watched, server: LiveServer, tmp_path: Path) -> None:
    """Issue 38: the console asks for every version (or those current at an instant) and says
    which rows are superseded; a facet without values is not shown."""
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    for text in ("The gazebo permit costs 120 EUR.", "The gazebo permit costs 180 EUR."):
        page.get_by_role("button", name="Documents", exact=True).click()
        page.get_by_label("Document id (optional)").fill("gazebo")
        _upload(watched, tmp_path, "gazebo.txt", text)
    page.get_by_role("button", name="Search", exact=True).first.click()
    page.get_by_label("Versions").select_option("all")
    watched.search("gazebo permit")
    cards = page.locator("#results .card")
    assert cards.count() == 2
    marked = page.locator("#results .superseded").all_inner_texts()
    assert len(marked) == 1 and marked[0].startswith("Superseded by v2")
    assert "(no values)" not in page.locator("#facet-counts").inner_text()
    page.get_by_label("Versions").select_option("current")
    page.get_by_label("As of").fill("2001-01-01T00:00")
    box = page.get_by_role("searchbox", name="Search")
    box.fill("gazebo permit")
    box.press("Enter")
    page.locator('#results[data-state="done"]').wait_for(state="attached")
    page.locator("#search-meta .warnings").wait_for()
    assert page.locator("#results .card").count() == 0
    assert "current at as_of" in page.locator("#search-meta").inner_text()


def test_the_upload_form_sets_access_groups(watched: Watched, server: LiveServer,
                                            tmp_path: Path) -> None:
    """Issue 48: the console's upload form sends its access groups; the document then
    carries them (and only keys holding one of them, and admin keys, see it)."""
    import httpx

    watched.sign_in(server.keys["acme"])
    watched.page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    _upload(watched, tmp_path, "board.md", "# Board\n\nMinutes of the board.\n",
            access="Board, legal")
    listed = httpx.get(f"{server.url}/documents", headers={
        "Authorization": f"Bearer {server.keys['acme']}"}).json()["documents"]
    assert [d["access"] for d in listed if d["document_id"] == "board.md"] == [
        ["board", "legal"]]
    assert watched.errors == []


def test_a_citation_opens_its_page_with_the_words_boxed(watched: Watched, server: LiveServer,
                                                        tmp_path: Path) -> None:
    """Issue 49: a PDF's cited item has "Show page N"; the page opens in a viewer (its
    image drawn by the server with the cited words boxed), pages turn, past the last one the
    API's code shows, and the original downloads byte for byte."""
    from tests.factories import pdf_bytes

    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    lease = pdf_bytes(["Page one: the parties.", "Page two: the deposit is refundable."])
    path = tmp_path / "lease.pdf"
    path.write_bytes(lease)
    page.get_by_role("button", name="Documents", exact=True).click()
    page.get_by_label("File", exact=True).set_input_files(str(path))
    page.get_by_role("button", name="Upload").click()
    page.locator("#upload-status .job span").filter(has_text="lease.pdf: published as").wait_for(
        timeout=60_000)
    page.get_by_role("button", name="Search", exact=True).first.click()
    watched.search("deposit refundable")
    page.get_by_role("button", name="Show page 2 of lease.pdf").click()
    title = page.locator("#page-title")
    title.filter(has_text="page 2").wait_for()
    image = page.locator("#page-image")

    def drawn_width() -> int:
        for _ in range(100):  # (the console's CSP forbids wait_for_function's eval)
            width = image.evaluate("i => i.complete ? i.naturalWidth : 0")
            if width:
                return width
            page.wait_for_timeout(100)
        return 0
    assert drawn_width() == 900 and image.get_attribute("src").startswith("blob:")
    viewer = page.locator("#page-viewer")
    viewer.get_by_role("button", name="Zoom in").click()
    title.filter(has_text="page 2").wait_for()
    page.wait_for_timeout(300)
    assert drawn_width() == 1200
    viewer.get_by_role("button", name="Previous page").click()
    title.filter(has_text="page 1").wait_for()
    viewer.get_by_role("button", name="Next page").click()
    title.filter(has_text="page 2").wait_for()
    with page.expect_download() as download:
        viewer.get_by_role("button", name="Download original").click()
    assert Path(download.value.path()).read_bytes() == lease


def test_the_sources_view_lists_each_source_with_its_last_sync(
        watched: Watched, server: LiveServer, tmp_path: Path) -> None:
    """Issue 50: the console lists sources with what their last sync found, and syncs one
    on request."""
    import httpx

    share = tmp_path / "share"
    share.mkdir()
    (share / "memo.md").write_text("# Memo\n\nA memo.")
    server.runtime.settings.sources = server.runtime.settings.sources.model_copy(
        update={"folder_roots": str(share)})
    auth = {"Authorization": f"Bearer {server.keys['acme']}"}
    made = httpx.post(f"{server.url}/sources", json={"kind": "folder", "path": str(share)},
                      headers=auth).json()
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    page.get_by_role("button", name="Sources", exact=True).click()
    row = page.locator("#sources tbody tr").filter(has_text=str(share))
    row.filter(has_text="not synced yet").wait_for()
    row.get_by_role("button", name=f"Sync {share}").click()
    page.locator("#sources tbody tr").filter(has_text="new 1").wait_for()
    assert made["source_id"] in page.locator("#sources").inner_text()


def test_the_batch_view_uploads_a_list_and_exports_its_hits(
        watched: Watched, server: LiveServer, tmp_path: Path) -> None:
    """Issue 51: a list uploaded in the console runs as a batch, its progress shown, its
    hits downloadable as CSV."""
    names = tmp_path / "names.txt"
    names.write_text("paid vacation\ntravel expenses reimbursed\n")
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    page.get_by_role("button", name="Batch search", exact=True).click()
    page.get_by_label("List", exact=True).set_input_files(str(names))
    page.get_by_role("button", name="Search the list").click()
    row = page.locator("#batches tbody tr").filter(has_text="names.txt")
    row.first.wait_for()
    server.app.state.batch_runner.run_until_idle()  # the live server runs no runner thread
    page.get_by_role("button", name="Batch search", exact=True).click()
    row.filter(has_text="2 of 2 queries").first.wait_for()
    assert page.locator('#batches[data-state="done"]').count() == 1
    with page.expect_download() as download:
        row.first.get_by_role("button", name="CSV").click()
    saved = tmp_path / "hits.csv"
    download.value.save_as(saved)
    lines = saved.read_text().splitlines()
    assert lines[0].startswith("query_index,name,query,rank") and len(lines) >= 3


def test_a_result_found_by_its_heading_says_so(watched: Watched, server: LiveServer,
                                               tmp_path: Path) -> None:
    """Issue 53: "why this result" could not show why a chunk holding none of the query's
    words was found: its heading held them."""
    page = watched.page
    watched.sign_in(server.keys["acme"])
    page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
    _upload(watched, tmp_path, "badges.md",
            "# Site rules\n\n## Gazebo termination fee\n\nBadges are returned at the gate.")
    page.get_by_role("button", name="Search", exact=True).first.click()
    watched.search("gazebo termination fee")
    said = page.locator("#results .context-matches").first
    said.wait_for()
    assert "heading" in said.inner_text()
    assert said.locator("mark").all_inner_texts()[:2] == ["Gazebo", "termination"]


@pytest.mark.parametrize("width", [1280, 900, 700, 390])
def test_a_label_and_its_field_stay_on_one_row(browser, server: LiveServer,  # type: ignore[no-untyped-def]
                                               width: int) -> None:
    """Issue 53: "Why not (document id)" and "As of" sat at a row's end, their fields on the
    next."""
    w = Watched(browser, server, width=width, height=900)
    try:
        w.sign_in(server.keys["acme"])
        w.page.locator("#who").filter(has_text="Signed in as client acme").wait_for()
        for field in ("why", "as-of", "facets"):
            label = w.page.locator(f'label[for="{field}"]').bounding_box()
            box = w.page.locator(f"#{field}").bounding_box()
            assert label and box
            middle = label["y"] + label["height"] / 2
            assert box["y"] <= middle <= box["y"] + box["height"], (field, label, box)
    finally:
        w.close()
