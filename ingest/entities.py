"""Entities per chunk: rules for what has a checkable form, spaCy for names, and a check per group
that every span must pass before it is kept.

What has a form is read by rules over the raw text, first: validated identifiers
(app/domain/identifiers.py: IBAN, BIC, e-mail, phone), account numbers and transaction references
(regular expressions: spaCy's tokenizer splits ``ACCT-998877`` at the hyphen), whole days
(``5 November 2024``, ``2024/11/03``: the small model cuts them short), amounts beside a
currency, amounts in a table column whose header names a currency, and account types. A span a
rule read is never read again by spaCy (an IBAN's digit groups are not a date).

spaCy's small model finds persons, organisations, places, dates and amounts, with an
EntityRuler placed before its NER: currency codes, job titles and form labels (IBAN, Email,
Debit…) are labelled as what they are, so the NER cannot call them an organisation or a person,
and those labels map to no group. Then each span passes its group's check (``checked_group``):

- a date must name a day, month, year, quarter or time (a month name, a year, a numeric date,
  ``10:30``); a duration (``5 days``) or a run of digit groups (part of an account) is not one;
- a person has no digits, currency or ``@``, is not a table header of the chunk, and a name
  ending in a legal or trade form (``Ltd``, ``GmbH``, ``Line``) is an organisation;
- an organisation is not a currency code, a bare number or a header;
- an amount spaCy found is kept only where it names a currency (app/domain/entity_values.py's rule);
- no span crosses a line or a table cell (a name never does; ``EUR 48,500.00\\nVAT`` is two
  things); separators at a span's edges are trimmed.

The before/after precision and recall per group on a judged set (tests/ingest/judged_entities.json)
is in docs/BENCHMARKS.md (bench/entity_precision.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from app.domain.entity_values import DATE_SPAN, MONEY_SPAN, currency_in_header, date_key, money_key
from app.domain.identifiers import find_identifiers
from app.store.payload import COLUMN_SEPARATOR, COLUMNS_LABEL

LABEL_GROUPS = {
    "PERSON": "persons", "ORG": "organizations", "DATE": "dates_times", "TIME": "dates_times",
    "GPE": "locations", "LOC": "locations", "FAC": "locations", "MONEY": "monetary_amounts",
}

# An account number: a label, then digits — one run, or groups of four (``0019 4006 4475``)
ACCOUNT_NUMBER = re.compile(r"\b(?:ACCT|ACC|ACCOUNT)[-#:]?\s?"
                            r"(?:\d{4}(?:[ ]\d{4})+(?:[ ]\d{1,4})?|\d{4,})\b", re.IGNORECASE)
TRANSACTION_REF = re.compile(r"\bTXN-\d{2,}(?:-\d+)*\b", re.IGNORECASE)
ACCOUNT_TYPE = re.compile(
    r"\b(checking|savings|money market|brokerage|current|credit card|certificate of deposit|"
    r"retirement|IRA|401\(k\))\s+accounts?\b", re.IGNORECASE)

# A form's fields on one line: "Header: value · Header: value"
ROW_CELL = re.compile(r"(?:^|(?<= · ))([^:·\n]{1,80}?): ([^·\n]*?)(?= · |$)", re.MULTILINE)
CURRENCY_COLUMN = re.compile(r"^(?:currency|ccy|curr?|währung|devise|moneda|valuta)\b",
                             re.IGNORECASE)
AMOUNT_COLUMN = re.compile(r"\b(?:amount|amt|debit|credit|balance|total|subtotal|price|value|"
                           r"net|gross|vat|tax|fees?|cost|payment|paid|sum|charge)\b",
                           re.IGNORECASE)
PLAIN_NUMBER = re.compile(r"[-−]?\(?\d[\d,.' ]*\)?")

Entities = dict[str, list[str]]
Span = tuple[int, int]


def _add(found: Entities, group: str, value: str) -> None:
    bucket = found.setdefault(group, [])
    if value not in bucket:
        bucket.append(value)


def table_rows(text: str) -> Iterator[list[tuple[str, str]]]:
    """(header, value) of each cell of each table row in ``text``: rows under a ``Columns:``
    line (ingest/extract/sheets.py's chunks), cells by position, and ``Header: value · …``
    lines (a form's fields)."""
    columns: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(COLUMNS_LABEL):
            columns = line[len(COLUMNS_LABEL):].split(COLUMN_SEPARATOR)
            continue
        if not line.strip():
            continue
        named = [(m.group(1).strip(), m.group(2).strip()) for m in ROW_CELL.finditer(line)]
        if columns is not None and not (named and all(
                h in columns or h.startswith("column ") for h, _ in named)):
            yield [(h.strip(), v.strip()) for h, v in zip(columns, line.split(COLUMN_SEPARATOR),
                                                          strict=False)]
            continue
        if named:
            yield named


def table_money(text: str) -> list[str]:
    """Amounts in table cells: a number under a header naming a currency (``Debit (EUR)``,
    ``Amount USD``, ``€``: a symbol or an ISO code in capitals), or under an amount header
    (``Amount``, ``Debit``…) in a row whose currency column names one. A zero is an empty
    cell, not an amount. Written as ``EUR 48500`` (app/domain/entity_values.money_key reads it)."""
    found = []
    for cells in table_rows(text):
        row_currency = next((currency_in_header(value) for header, value in cells
                             if CURRENCY_COLUMN.match(header) and currency_in_header(value)),
                            None)
        for header, value in cells:
            if not PLAIN_NUMBER.fullmatch(value) or not re.search(r"[1-9]", value):
                continue
            currency = currency_in_header(header) or (
                row_currency if AMOUNT_COLUMN.search(header) else None)
            if currency:
                found.append(f"{currency} {value}")
    return found


def rule_entities(text: str) -> tuple[Entities, list[Span]]:
    """What the rules find in ``text`` ({group: values}) and the spans they read."""
    found: Entities = {}
    spans: list[Span] = []
    for ident in find_identifiers(text):
        _add(found, ident.group, ident.value)
        spans.append((ident.start, ident.end))
    taken = list(spans)

    def free(start: int, end: int) -> bool:
        return not any(start < e and s < end for s, e in taken)

    for group, pattern in (("account_numbers", ACCOUNT_NUMBER),
                           ("transaction_references", TRANSACTION_REF)):
        for m in pattern.finditer(text):
            if free(m.start(), m.end()):
                _add(found, group, m.group(0).upper())
                spans.append(m.span())
    for m in MONEY_SPAN.finditer(text):
        if free(m.start(), m.end()) and money_key(m.group(0)):
            _add(found, "monetary_amounts", m.group(0))
            spans.append(m.span())
    for m in DATE_SPAN.finditer(text):
        if free(m.start(), m.end()) and date_key(m.group(0)):
            _add(found, "dates_times", m.group(0))
            spans.append(m.span())
    for value in table_money(text):
        _add(found, "monetary_amounts", value)
    for m in ACCOUNT_TYPE.finditer(text):
        _add(found, "account_types", m.group(1).lower())
    return found, spans


# -- the checks every spaCy span passes -------------------------------------------------------

JOB_TITLES = ("CEO", "CFO", "COO", "CTO", "CIO", "CMO", "CISO", "CRO", "CCO", "CPO", "VP", "SVP",
              "EVP", "MD")
TITLE_WORDS = ("chairman", "chairwoman", "chairperson", "president", "director", "manager",
               "treasurer", "controller", "comptroller", "accountant", "auditor", "secretary",
               "counsel", "clerk", "officer", "analyst", "supervisor")
# Labels of a form or a ledger that the small model reads as names
FORM_LABELS = ("IBAN", "BIC", "SWIFT", "VAT", "Email", "E-mail", "Phone", "Tel", "Fax", "Debit",
               "Credit", "Balance", "Amount", "Total", "Subtotal", "Invoice", "Ref", "Subject",
               "Attn")
SPAN_EDGES = " \t|·:;,"  # a table's separators the small model takes into a span
# Legal and trade forms that end an organisation's name
ORG_ENDINGS = frozenset(
    "ltd limited llc llp inc corp corporation co company gmbh ag kg sa sas sarl nv bv plc pte "
    "oy ab as spa srl group holdings holding bank line lines logistics shipping partners trust "
    "foundation fund capital insurance airlines university associates consulting".split())

MONTH_OR_DAY = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?", re.IGNORECASE)
YEAR = re.compile(r"(?<![\d.,])(?:1[5-9]|20|21)\d{2}(?:s|'s)?(?![\d.,])")
NUMERIC_DATE = re.compile(r"\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b")
TIME_OF_DAY = re.compile(r"\b\d{1,2}(?::\d{2}|\s?[ap]\.?m\.?)", re.IGNORECASE)
QUARTER = re.compile(r"\b(?:Q[1-4]|H[12]|FY)\s?'?\d{2,4}\b", re.IGNORECASE)
DIGIT_GROUPS = re.compile(r"\d{4,}\D+\d{4,}")


def is_date_span(value: str) -> bool:
    """A day, month, year, quarter, range of them, or a time of day — never a duration or
    a run of digit groups."""
    if date_key(value):
        return True
    if DIGIT_GROUPS.search(value) and not NUMERIC_DATE.search(value):
        return False
    return bool(MONTH_OR_DAY.search(value) or YEAR.search(value) or NUMERIC_DATE.search(value)
                or TIME_OF_DAY.search(value) or QUARTER.search(value))


def table_headers(text: str) -> set[str]:
    """The header names of a chunk's table rows, folded: never a person or an organisation."""
    return {header.casefold() for cells in table_rows(text) for header, _ in cells if header}


def checked_group(group: str, value: str, headers: set[str]) -> str | None:
    """The group a spaCy span is kept in (None: dropped), by the checks the module states."""
    from app.domain.entity_values import iso_currency_codes

    if (not value or "\n" in value or "|" in value or len(value) > 100
            or value.casefold() in headers):
        return None  # across lines or table cells, or a header: never one entity
    words = value.split()
    if group == "persons":
        if re.search(r"[\d@$€£¥]", value) or any(w in iso_currency_codes() for w in words):
            return None
        if re.sub(r"\W", "", words[-1]).casefold() in ORG_ENDINGS and len(words) > 1:
            return "organizations"
        return group if any(w[:1].isupper() for w in words) else None
    if group in ("organizations", "locations"):
        if value in iso_currency_codes() or not re.search(r"[^\W\d_]", value):
            return None
        return None if sum(c.isdigit() for c in value) * 2 > len(value) else group
    if group == "dates_times":
        return group if is_date_span(value) else None
    if group == "monetary_amounts":
        return group if money_key(value) else None
    return group


def ruler_patterns() -> list[dict]:
    from app.domain.entity_values import iso_currency_codes

    return [
        {"label": "CURRENCY", "pattern": [{"TEXT": {"IN": sorted(iso_currency_codes())}}]},
        {"label": "JOB_TITLE", "pattern": [{"TEXT": {"IN": list(JOB_TITLES)}}]},
        {"label": "JOB_TITLE", "pattern": [{"LOWER": {"IN": list(TITLE_WORDS)}}]},
        *({"label": "FORM_LABEL", "pattern": [{"LOWER": word.lower()}]} for word in FORM_LABELS),
    ]


class EntityExtractor:
    """spaCy with only the components NER needs, an EntityRuler before the NER, batched with
    ``nlp.pipe``; ``checks=False`` gives the bare model's spans (the benchmark's baseline)."""

    def __init__(self, spacy_path: Path, batch_size: int = 32, checks: bool = True) -> None:
        import spacy

        self._nlp = spacy.load(spacy_path, exclude=["tagger", "parser", "attribute_ruler",
                                                    "lemmatizer", "senter"])
        if checks:
            ruler = self._nlp.add_pipe("entity_ruler", before="ner")
            ruler.add_patterns(ruler_patterns())
        self._nlp.max_length = 2_000_000
        self._batch = batch_size
        self._checks = checks

    def extract(self, texts: Sequence[str]) -> list[Entities]:
        return [self._entities(text, doc) for text, doc in
                zip(texts, self._nlp.pipe(texts, batch_size=self._batch), strict=True)]

    def _entities(self, text: str, doc) -> Entities:  # type: ignore[no-untyped-def]
        found, spans = rule_entities(text)
        headers = table_headers(text) if self._checks else set()
        for ent in doc.ents:
            group = LABEL_GROUPS.get(ent.label_)
            value = ent.text.strip(SPAN_EDGES)
            # a rule already read this span (an IBAN's digits read as a date, "$" dropped)
            if not group or not value or any(ent.start_char < e and s < ent.end_char
                                              for s, e in spans):
                continue
            if self._checks:
                group = checked_group(group, value, headers)
            if group:
                _add(found, group, value)
        return found
