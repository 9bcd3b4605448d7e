"""A small judged set for entity-aware search: six finance documents full of look-alike
numbers, and queries that write an amount, a day or an id another way than the document does.
Used by tests/api/test_entity_search.py and bench/entity_queries.py (docs/BENCHMARKS.md)."""

from __future__ import annotations

DOCUMENTS = {
    "wire": "Wire transfer confirmation. A wire of $10,000.00 was sent on 15 January 2024 "
            "from checking account ACCT-998877 to Kestrel Logistics, reference TXN-2024-001.",
    "payroll": "Payroll run for March 2024. 42 employees were paid from ACCT-998870; the total "
               "was 185,000 USD, and 15 contractors were paid on 1 March 2024.",
    "lease": "Warehouse lease. The lease was signed on June 1st 2024 for five years; the "
             "monthly rent is €2,300 payable to Ostrava Property on the first of each month.",
    "count": "Warehouse count sheet: 10000 crates in aisle 15, 2024 pallets in bay 998877, "
             "2300 cartons and 1250 drums counted on the night shift.",
    "board": "Board notes from January 15: the 2024 budget of ten thousand items was approved, "
             "and the audit committee will meet again in June.",
    "invoice": "Invoice INV-2024-0115 dated 2024-02-15 from Globex for consulting: £1,250.00 "
               "due within 30 days; late payments accrue interest of 2 %.",
}

# (query, the document it must find first, the shape it is written in)
QUERIES = [
    ("10000 dollars", "wire", "money"), ("$10,000", "wire", "money"),
    ("USD 10000", "wire", "money"), ("€2300", "lease", "money"),
    ("EUR 2,300", "lease", "money"), ("£1250", "invoice", "money"),
    ("1,250 GBP", "invoice", "money"),
    ("2024-01-15", "wire", "date"), ("Jan 15, 2024", "wire", "date"),
    ("15/01/2024", "wire", "date"), ("June 1st 2024", "lease", "date"),
    ("1 June 2024", "lease", "date"), ("15 February 2024", "invoice", "date"),
    ("ACCT 998877", "wire", "id"), ("acct998877", "wire", "id"),
    ("ACCT-998870", "payroll", "id"), ("inv20240115", "invoice", "id"),
]
