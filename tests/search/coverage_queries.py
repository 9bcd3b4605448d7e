"""A judged set for evidence coverage (issue 32): multi-part questions over documents whose
parts sit in different chunks (a clause a chunk), each part a word of the clause's own text
(headings are no chunk text: they were reworded once so, before the new picker ran), and where,
as in real contracts and handbooks, one topic fills several clauses. A part is a query word
(a literal term); coverage is the share of a question's parts that occur in the row's cited
items (bench/evidence_coverage.py, tests/search/test_evidence_coverage.py)."""

from __future__ import annotations

FILLER = ("The parties record here the general provisions that apply throughout this "
          "agreement, in the order in which they were negotiated and signed. ")


def _clause(title: str, body: str) -> str:
    return f"## {title}\n\n" + f"{body} " * 6 + FILLER * 6  # a clause a chunk, on its topic


# one topic's clauses apart and together, as documents have them (a picker that only skips
# direct neighbours must not pass by luck of the layout)
CONTRACT = "# Services agreement\n\n" + "\n\n".join([
    _clause("Termination", "Either party may terminate this agreement with ninety days "
            "written notice. Termination for cause takes effect at once."),
    _clause("Confidentiality", "Confidential information stays confidential for five years."),
    _clause("Termination on insolvency", "Termination also follows an insolvency of either "
            "party; termination notices go to the registered office."),
    _clause("Liability", "Liability of either party is capped at the fees of twelve months."),
    _clause("Termination assistance", "After termination the supplier assists the transfer "
            "for six months; termination assistance is billed at cost."),
    _clause("Termination fee", "Termination before the second year costs a termination "
            "charge; termination by the customer for convenience needs notice."),
    _clause("Effects of termination", "On termination all licences end; termination does not "
            "end accrued rights, and termination notices are final."),
    _clause("Fees", "The monthly fees are invoiced in advance; fees are payable within thirty "
            "days."),
])

HANDBOOK = "# Employee handbook\n\n" + "\n\n".join([
    _clause("Holiday", "You get 25 days of paid holiday; holiday requests go to your manager."),
    _clause("Sickness", "Sickness absence is reported on the first day."),
    _clause("Holiday carry-over", "Unused holiday may be carried over: five holiday days at "
            "most."),
    _clause("Parental leave", "Parental leave is sixteen weeks, paid in full."),
    _clause("Holiday booking", "Book holiday early: holiday in August is shared out, and "
            "holiday over two weeks needs approval."),
    _clause("Public holidays", "Public holiday dates follow the region; holiday pay on public "
            "holidays is doubled."),
    _clause("Expenses", "Travel expenses are reimbursed monthly; reimbursement needs receipts."),
])

DOCUMENTS = {"contract": CONTRACT, "handbook": HANDBOOK}

# (question, the document it asks about)
QUESTIONS = [
    ("fees and termination", "contract"),
    ("termination notice liability capped", "contract"),
    ("confidential information and termination", "contract"),
    ("fees invoiced liability", "contract"),
    ("holiday and expenses reimbursement", "handbook"),
    ("holiday carried over and parental leave", "handbook"),
    ("sickness reported and holiday requests", "handbook"),
    ("expenses receipts and sickness", "handbook"),
]
