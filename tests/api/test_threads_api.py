"""E-mail threads and mail filters over HTTP (fake models), on both stores (the embedded engine
and qdrant-client's local mode standing in for a server): a message, its reply and a forward of
the reply share one thread — by their headers, and by the stated subject fallback for a reply
without them — GET /threads lists them in date order, per client; the mail filters hold."""

from __future__ import annotations

import json

import pytest

from tests.factories import eml_bytes
from tests.fakes import fake_models
from tests.service import Service, running_service

ALICE, BOB = "Alice Chen <alice@northwind.example>", "Bob Iwu <bob@kestrel.example>"


def _mail(subject: str, body: str, *, sender: str, to: str, date: str, message_id: str,
          in_reply_to: str | None = None, references: str | None = None,
          attachments: list | None = None) -> bytes:
    raw = eml_bytes(subject, body, sender=sender, to=to, cc=None, date=date,
                    attachments=attachments or [])
    head, _, rest = raw.partition(b"\n\n")
    lines = [line for line in head.split(b"\n") if not line.lower().startswith(b"message-id")]
    lines.append(f"Message-ID: {message_id}".encode())
    if in_reply_to:
        lines.append(f"In-Reply-To: {in_reply_to}".encode())
    if references:
        lines.append(f"References: {references}".encode())
    return b"\n".join(lines) + b"\n\n" + rest


MAILS = {
    "original": _mail("Q3 budget", "Zanzibar numbers attached for review.", sender=ALICE, to=BOB,
                      date="Mon, 01 Jul 2024 09:00:00 +0000", message_id="<a1@northwind>",
                      attachments=[("q3.csv", b"line,amount\nzanzibar,10\n")]),
    "reply": _mail("Re: Q3 budget", "Zanzibar looks fine to me.", sender=BOB, to=ALICE,
                   date="Mon, 01 Jul 2024 11:00:00 +0000", message_id="<b2@kestrel>",
                   in_reply_to="<a1@northwind>", references="<a1@northwind>"),
    "forward": _mail("Fwd: Re: Q3 budget", "FYI the zanzibar thread.", sender=ALICE,
                     to="Carol Diaz <carol@northwind.example>",
                     date="Tue, 02 Jul 2024 08:00:00 +0000", message_id="<c3@northwind>",
                     references="<a1@northwind> <b2@kestrel>"),
    # a client that wrote no In-Reply-To or References: the subject fallback
    "headerless": _mail("RE: q3  budget", "Zanzibar, one more remark.", sender=BOB, to=ALICE,
                        date="Wed, 03 Jul 2024 10:00:00 +0000", message_id="<d4@kestrel>"),
    # the same subject, nobody in common: not the thread
    "stranger": _mail("Re: Q3 budget", "Zanzibar from elsewhere.",
                      sender="Eve <eve@elsewhere.example>", to="Mallory <m@elsewhere.example>",
                      date="Wed, 03 Jul 2024 11:00:00 +0000", message_id="<e5@elsewhere>"),
}


@pytest.fixture(scope="module", params=["edge", "qdrant-client"])
def svc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Service:
    from app.settings import QdrantSettings
    from app.store import open_store
    from tests.conftest import make_settings

    tmp = tmp_path_factory.mktemp(f"threads-{request.param}")
    settings = make_settings(tmp)
    settings.search.dense_floor = 0.0
    store = None
    if request.param == "qdrant-client":
        store = open_store(QdrantSettings(url=f"path:{tmp / 'local'}"), dense_model="fake",
                           dense_dim=384)
    with running_service(tmp, fake_models(), settings=settings, store=store) as s:
        for name, raw in MAILS.items():  # the reply's own thread id needs no parent
            s.ingest(f"{name}.eml", raw, document_id=name)
        yield s


def _meta(svc: Service, document_id: str) -> dict:
    body = svc.http.get(f"/documents/{document_id}", headers=svc.auth()).json()
    return body["versions"][-1]["canonical_metadata"]["document"]


def test_a_message_its_reply_and_a_forward_share_one_thread(svc: Service) -> None:
    threads = {name: _meta(svc, name)["thread_id"] for name in MAILS}
    assert threads["original"] == threads["reply"] == threads["forward"] == threads["headerless"]
    assert threads["stranger"] != threads["original"]
    assert threads["original"].startswith("th-")


def test_get_thread_lists_its_messages_in_date_order(svc: Service) -> None:
    thread_id = _meta(svc, "reply")["thread_id"]
    r = svc.http.get(f"/threads/{thread_id}", headers=svc.auth())
    assert r.status_code == 200, r.text
    messages = r.json()["messages"]
    assert [(m["document_id"], m["position"], m["in_reply_to"]) for m in messages] == [
        ("original", 1, None), ("reply", 2, "original"), ("forward", 3, None),
        ("headerless", 4, None)]
    assert messages[0]["from"] == ALICE and messages[1]["subject"] == "Re: Q3 budget"


def test_another_client_never_sees_the_thread(svc: Service) -> None:
    thread_id = _meta(svc, "reply")["thread_id"]
    other = svc.new_client("other-threads")
    r = svc.http.get(f"/threads/{thread_id}", headers=svc.auth(other))
    assert r.status_code == 404 and r.json()["error"]["code"] == "THREAD_NOT_FOUND"
    assert svc.http.get("/threads/not-a-thread", headers=svc.auth()).status_code == 422


@pytest.mark.parametrize("filters, expected", [
    ({"document.from_address": "alice@northwind.example"}, ["forward", "original"]),
    ({"document.from_name": "Bob Iwu"}, ["headerless", "reply"]),
    ({"document.to_address": "carol@northwind.example"}, ["forward"]),
    ({"document.has_attachments": True}, ["original"]),
    ({"document.has_attachments": False}, ["forward", "headerless", "reply", "stranger"]),
])
def test_mail_filters_on_both_stores(svc: Service, filters: dict, expected: list[str]) -> None:
    r = svc.search(query="zanzibar", alpha=1.0, limit=20, filters=filters)
    assert r.status_code == 200, r.text
    found = sorted({row["document_version"]["document_id"] for row in r.json()["results"]})
    assert found == expected, json.dumps(filters)


def test_the_thread_id_filter(svc: Service) -> None:
    thread_id = _meta(svc, "original")["thread_id"]
    r = svc.search(query="zanzibar", alpha=1.0, limit=20,
                   filters={"document.thread_id": thread_id})
    assert sorted(row["document_version"]["document_id"] for row in r.json()["results"]) == [
        "forward", "headerless", "original", "reply"]


def test_collapse_thread_gives_one_row_per_thread(svc: Service) -> None:
    plain = svc.search(query="zanzibar", alpha=1.0, limit=20).json()
    # five mails and the original's attachment, a document of its own
    assert plain["meta"]["total"] == 6 and all("thread" not in r for r in plain["results"])
    body = svc.search(query="zanzibar", alpha=1.0, limit=20, collapse="thread").json()
    rows = body["results"]
    thread_id = _meta(svc, "original")["thread_id"]
    assert body["meta"]["total"] == 3 and [r["rank"] for r in rows] == [1, 2, 3]
    threaded = [r for r in rows if "thread" in r]
    # each thread where its best message ranked without collapsing
    order = list(dict.fromkeys(t for r in plain["results"] if (t := _meta(
        svc, r["document_version"]["document_id"]).get("thread_id"))))
    assert [r["thread"]["thread_id"] for r in threaded] == order
    assert {r["thread"]["thread_id"]: r["thread"]["messages"] for r in threaded} == {
        thread_id: 4, _meta(svc, "stranger")["thread_id"]: 1}


def test_exact_duplicates_are_reported_and_collapse(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The same invoice attached to two mails is two documents in one duplicate group, each
    linked to its own mail; the same contract saved under two names too."""
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    settings.search.dense_floor = 0.0
    invoice = b"Invoice INV-4471 from Quillfeather Ltd: 18,450 EUR due 2024-07-15."
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        for n, who in enumerate((ALICE, BOB), start=1):
            s.ingest(f"mail{n}.eml", _mail(f"Invoice {n}", "See the quillfeather invoice.",
                                           sender=who, to=ALICE, message_id=f"<m{n}@x>",
                                           date=f"Mon, 0{n} Jul 2024 09:00:00 +0000",
                                           attachments=[("invoice.txt", invoice)]),
                     document_id=f"mail{n}")
            s.worker.drain()  # the attachments' own jobs
        s.ingest("contract.txt", "Quillfeather supply contract.\n\nTerm: two years.",
                 document_id="contract")
        s.ingest("contract copy.txt", "Quillfeather   supply contract.\n\nTerm:  two years.\n",
                 document_id="contract-copy")
        s.ingest("variant.txt", "Quillfeather supply contract.\n\nTerm: three years.",
                 document_id="variant")
        listed = s.http.get("/documents", params={"limit": 50}, headers=s.auth()).json()
        attached = sorted(d["document_id"] for d in listed["documents"] if "--" in d["document_id"])
        assert len(attached) == 2
        for doc_id, other in (attached, attached[::-1]):
            body = s.http.get(f"/documents/{doc_id}", headers=s.auth()).json()
            meta = body["versions"][-1]["canonical_metadata"]
            assert meta["duplicates"] == {"exact": [other], "near": []}
            assert meta["source"]["attached_to"]["document_id"] in ("mail1", "mail2")
        copy = s.http.get("/documents/contract-copy", headers=s.auth()).json()
        assert copy["versions"][-1]["canonical_metadata"]["duplicates"]["exact"] == ["contract"]
        variant = s.http.get("/documents/variant", headers=s.auth()).json()
        assert "duplicates" not in variant["versions"][-1]["canonical_metadata"]
        found = s.search(query="quillfeather", alpha=1.0, limit=20).json()
        assert found["meta"]["total"] == 7  # 2 mails, 2 attachments, 3 contracts
        collapsed = s.search(query="quillfeather", alpha=1.0, limit=20,
                             collapse="duplicates").json()
        ids = [r["document_version"]["document_id"] for r in collapsed["results"]]
        assert collapsed["meta"]["total"] == 5 and len(ids) == 5
        assert len({"contract", "contract-copy"} & set(ids)) == 1
        assert len(set(attached) & set(ids)) == 1
        kept = next(r for r in collapsed["results"]
                    if r["document_version"]["document_id"] in ("contract", "contract-copy"))
        assert kept["canonical_metadata"]["duplicates"]["exact"] in (["contract"],
                                                                      ["contract-copy"])


CONTRACT = " ".join(
    f"Clause {n}. The supplier Quillfeather Ltd shall deliver the goods listed in schedule {n} "
    f"to the buyer's warehouse within {n + 10} days of each written order, at the prices of "
    f"schedule {n}, and shall bear the cost of carriage, insurance and any duty." for n in
    range(1, 13))


def test_a_one_clause_variant_is_a_near_duplicate_never_collapsed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Reported, never merged: "almost the same except one number" is another contract."""
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    settings.search.dense_floor = 0.0
    variant = CONTRACT.replace("within 15 days", "within 45 days")
    assert variant != CONTRACT
    with running_service(tmp_path, fake_models(), settings=settings) as s:
        s.ingest("contract.txt", CONTRACT, document_id="contract")
        s.ingest("variant.txt", variant, document_id="variant")
        s.ingest("other.txt", "Minutes of the board: the quillfeather audit is closed.",
                 document_id="other")
        body = s.http.get("/documents/variant", headers=s.auth()).json()
        duplicates = body["versions"][-1]["canonical_metadata"]["duplicates"]
        assert duplicates["exact"] == []
        [near] = duplicates["near"]
        assert near["document_id"] == "contract" and 0.8 <= near["similarity"] < 1.0
        other = s.http.get("/documents/other", headers=s.auth()).json()
        assert "duplicates" not in other["versions"][-1]["canonical_metadata"]
        rows = s.search(query="quillfeather", alpha=1.0, collapse="duplicates").json()["results"]
        ids = {r["document_version"]["document_id"] for r in rows}
        assert ids == {"contract", "variant", "other"}  # near duplicates stay apart
        by_id = {r["document_version"]["document_id"]: r for r in rows}
        assert by_id["contract"]["canonical_metadata"]["duplicates"]["near"][0][
            "document_id"] == "variant"


ORDERED = {
    "root": _mail("Q3 budget", "Zanzibar numbers.", sender=ALICE, to=BOB,
                  date="Mon, 01 Jul 2024 09:00:00 +0000", message_id="<r1@northwind>"),
    "answer": _mail("Re: Q3 budget", "Zanzibar is fine.", sender=BOB, to=ALICE,
                    date="Mon, 01 Jul 2024 10:00:00 +0000", message_id="<r2@kestrel>",
                    in_reply_to="<r1@northwind>"),
    # no headers and no Re: — a new conversation with the same subject, the same people
    "another": _mail("Q3 budget", "Zanzibar, a new start.", sender=ALICE, to=BOB,
                     date="Fri, 05 Jul 2024 09:00:00 +0000", message_id="<r3@northwind>"),
}


@pytest.mark.parametrize("order", [
    ("root", "answer", "another"), ("root", "another", "answer"),
    ("answer", "root", "another"), ("answer", "another", "root"),
    ("another", "root", "answer"), ("another", "answer", "root")])
def test_a_root_stays_with_its_reply_whatever_was_indexed_first(
        tmp_path, order: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """Every order of a root, its reply (In-Reply-To) and a header-less message of the same
    subject that is no reply: the root and its reply share a thread, the other message has
    its own (it once pulled the root away when indexed first)."""
    from tests.conftest import make_settings

    with running_service(tmp_path, fake_models(), settings=make_settings(tmp_path)) as svc:
        for name in order:
            svc.ingest(f"{name}.eml", ORDERED[name], document_id=name)
        threads = {name: _meta(svc, name)["thread_id"] for name in ORDERED}
    assert threads["root"] == threads["answer"] != threads["another"], (order, threads)


FALLBACK = {
    "root": _mail("Budget review", "Zanzibar figures for review.", sender=ALICE, to=BOB,
                  date="Mon, 01 Jul 2024 09:00:00 +0000", message_id="<p1@northwind>"),
    # two replies whose mail client wrote no In-Reply-To or References
    "first": _mail("Re: Budget review", "Zanzibar: agreed.", sender=BOB, to=ALICE,
                   date="Tue, 02 Jul 2024 09:00:00 +0000", message_id="<p2@kestrel>"),
    "second": _mail("RE: budget  review", "Zanzibar: one more thing.", sender=ALICE, to=BOB,
                    date="Wed, 03 Jul 2024 09:00:00 +0000", message_id="<p3@northwind>"),
    "stranger": _mail("Re: Budget review", "Zanzibar elsewhere.",
                      sender="Eve <eve@elsewhere.example>", to="Mallory <m@elsewhere.example>",
                      date="Tue, 02 Jul 2024 10:00:00 +0000", message_id="<p4@elsewhere>"),
}


def test_the_fallback_threads_the_same_for_every_indexing_order(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """All 24 orders of a root, two header-less replies and a stranger's message of the same
    subject, each order a client of its own: the replies join the root's thread — also when
    indexed before it (they are threaded again when it arrives) — in the registry and in the
    engine (the thread filter finds them), and the stranger keeps its own thread."""
    import itertools

    from app.domain.subjects import own_thread
    from tests.conftest import make_settings

    settings = make_settings(tmp_path)
    settings.search.dense_floor = 0.0
    root_thread, stranger_thread = own_thread("<p1@northwind>"), own_thread("<p4@elsewhere>")
    with running_service(tmp_path, fake_models(), settings=settings) as svc:
        for number, order in enumerate(itertools.permutations(FALLBACK)):
            key = svc.new_client(f"order-{number}")
            for name in order:
                svc.ingest(f"{name}.eml", FALLBACK[name], key=key, document_id=name)
            threads = {name: svc.http.get(f"/documents/{name}", headers=svc.auth(key)).json()[
                "versions"][-1]["canonical_metadata"]["document"]["thread_id"]
                for name in FALLBACK}
            assert threads == {"root": root_thread, "first": root_thread,
                               "second": root_thread, "stranger": stranger_thread}, order
            found = svc.search(key, query="zanzibar", limit=10,
                               filters={"document.thread_id": root_thread}).json()
            assert sorted(r["document_version"]["document_id"] for r in found["results"]) == [
                "first", "root", "second"], order
