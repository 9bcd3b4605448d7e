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

Issue 51's rules, measured on a judged set written before them (tests/ingest/
judged_entities_51.json; docs/BENCHMARKS.md):

- an organisation named with its legal form is read by a rule before spaCy: a run of
  capitalised words ending in a legal form cleanco knows (``Harbor View Properties LLC``,
  ``HARBOR VIEW PROPERTIES, L.L.C.``, ``Baltic Freight Oy``) — the small model misses some and
  cuts others to ``L.L.C.``; a span that is nothing but a legal form is never an organisation;
- an e-mail's From, To and Cc display names are persons (``From: Marta Lindqvist <…>``)
  unless they look like an organisation (a legal form, or a word such as Accounts, Team,
  Support); the same names anywhere in the message are persons, never re-typed by the NER
  (``known_persons``: the message's header names, which the pipeline passes for every chunk);
- contract roles and document parts (Supplier, Buyer, Lessee, Annex A, Schedule 2 …) are
  labelled by the EntityRuler, so the NER cannot call them persons;
- a person of one word is kept only as part of a fuller name the same text (or the known
  persons) holds: ``Okafor`` beside ``Daniel Okafor``, never ``Bill`` or ``Kestrel`` alone.

The before/after precision and recall per group on a judged set (tests/ingest/judged_entities.json)
is in docs/BENCHMARKS.md (bench/entity_precision.py).
"""

from __future__ import annotations

import email.utils
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from app.domain.entity_values import (
    DATE_SPAN,
    MONEY_SPAN,
    currency_in_header,
    date_key,
    entity_identity,
    foreign_date_span,
    money_key,
    organization_name,
)
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


@lru_cache(maxsize=1)
def legal_forms() -> frozenset[tuple[str, ...]]:
    """cleanco's legal forms of the world's companies, each as its folded tokens
    (``L.L.C.`` folds to ``('llc',)``, ``GmbH & Co. KG`` to ``('gmbh', '&', 'co', 'kg')``)."""
    from cleanco.clean import prepare_default_terms

    return frozenset(tuple(tokens) for _n, tokens in prepare_default_terms())


# A run of capitalised words (and the joiners inside a company's name), a comma allowed before
# its later words: where an organisation with its legal form may stand
NAME_WORD = r"(?:[A-Z][\w'’&.\-]*|&)"
ORG_RUN = re.compile(rf"(?<![\w&]){NAME_WORD}(?:(?:,?[ \t]+|[ \t]*&[ \t]*)"
                     rf"(?:{NAME_WORD}|of|and|de|la|du|van|von|der))*")
RUN_TOKEN = re.compile(r"[^\s,]+")
# words a sentence or a line starts with that are no part of a company's name
NOT_NAME_START = frozenset(
    "the a an and or to from for by with between dear re attn invoice vendor supplier buyer "
    "customer client payee payer seller purchaser lessor lessee tenant landlord cc".split())


def _fold_token(token: str) -> str:
    return re.sub(r"[^\w&]", "", token).casefold()


def legal_form_orgs(text: str) -> list[tuple[str, int, int]]:
    """(name, start, end) of each organisation written with its legal form: a capitalised
    run whose last one to four tokens are a legal form cleanco knows, with a name word before
    it (never the form alone)."""
    forms = legal_forms()
    found = []
    for run in ORG_RUN.finditer(text):
        tokens = [(m.group(0), run.start() + m.start(), run.start() + m.end())
                  for m in RUN_TOKEN.finditer(run.group(0))]
        start = i = 0
        while i < len(tokens):  # "A LLC and B Ltd": each name ends at its own form
            n = next((n for n in (4, 3, 2, 1) if i > start and i + n <= len(tokens) and tuple(
                _fold_token(t) for t, _, _ in tokens[i:i + n]) in forms), 0)
            if not n:
                i += 1
                continue
            name = tokens[start:i]
            while name and name[0][0].casefold() in NOT_NAME_START:
                name = name[1:]
            if any(_fold_token(t) and (_fold_token(t),) not in forms for t, _, _ in name):
                end = tokens[i + n - 1][2]
                found.append((text[name[0][1]:end], name[0][1], end))
            start = i = i + n
    return found


HEADER_LINE = re.compile(r"^(?:From|To|Cc|Bcc|Reply-To|Sender): (.+)$", re.MULTILINE)
# a header name that is a mailbox of a department or a service, not a person
ORG_WORDS = frozenset(
    "accounts account payable receivable team support service services sales billing info "
    "office department desk helpdesk admin administration noreply no-reply newsletter hr "
    "finance legal procurement operations customer notifications alerts group".split())


def header_persons(text: str) -> list[str]:
    """The display names of an e-mail's From, To and Cc lines (as ingest/extract/email.py
    writes them) that are persons (``is_person_name``)."""
    names = []
    for line in HEADER_LINE.finditer(text):
        for name, _address in email.utils.getaddresses([line.group(1)]):
            if is_person_name(name):
                names.append(" ".join(name.split()))
    return list(dict.fromkeys(names))


def message_persons(headers: dict) -> list[str]:
    """The persons an e-mail's From, To and Cc name (its extracted headers: ``from``, ``to``,
    ``cc`` as ingest/extract/email.py keeps them)."""
    values = [headers.get("from")] + list(headers.get("to") or []) + list(headers.get("cc") or [])
    names = [" ".join(name.split()) for name, _ in email.utils.getaddresses(
        [str(v) for v in values if v]) if is_person_name(name)]
    return list(dict.fromkeys(names))


def is_person_name(name: str) -> bool:
    """Two to four capitalised words, no digits, no legal form, no word of a department
    (``Accounts Payable``, ``Kestrel Support``): a person's display name."""
    words = name.split()
    if not 2 <= len(words) <= 4 or re.search(r"[\d@]", name):
        return False
    if not all(re.fullmatch(r"[A-ZÀ-Þ][\w'’\-.]*", w) for w in words):
        return False
    folded = [_fold_token(w) for w in words]
    if any(w in ORG_WORDS for w in folded):
        return False
    forms = legal_forms()
    return not any(tuple(folded[-n:]) in forms for n in (1, 2, 3) if len(folded) > n)


def rule_entities(text: str, known_persons: Sequence[str] = (), *, names: bool = True
                  ) -> tuple[Entities, list[Span]]:
    """What the rules find in ``text`` ({group: values}) and the spans they read.
    ``known_persons``: names the document says are persons (an e-mail's header names);
    ``names=False``: without the name rules (the ablation's "rules only")."""
    found: Entities = {}
    spans: list[Span] = []
    for ident in find_identifiers(text):
        _add(found, ident.group, ident.value)
        spans.append((ident.start, ident.end))
    taken = list(spans)

    def free(start: int, end: int) -> bool:
        return not any(start < e and s < end for s, e in taken)

    def take(group: str, value: str, span: Span) -> None:
        _add(found, group, value)
        spans.append(span)
        taken.append(span)

    if names:
        for name in dict.fromkeys([*known_persons, *header_persons(text)]):
            for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                if free(m.start(), m.end()):
                    take("persons", name, m.span())
        for name, start, end in legal_form_orgs(text):
            if free(start, end):
                take("organizations", name, (start, end))

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
    for pattern in (DATE_SPAN, foreign_date_span()):
        for m in pattern.finditer(text):
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
# A contract's parties by their role, and its parts: the small model reads them as names
ROLE_WORDS = ("supplier", "buyer", "seller", "purchaser", "vendor", "customer", "client",
              "contractor", "subcontractor", "lessor", "lessee", "landlord", "tenant",
              "licensor", "licensee", "employer", "employee", "guarantor", "borrower",
              "lender", "party", "parties", "consultant", "agent", "principal", "beneficiary")
DOCUMENT_PARTS = ("annex", "schedule", "appendix", "exhibit", "attachment", "clause",
                  "section", "article", "chapter", "paragraph")
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
        {"label": "ROLE", "pattern": [{"LOWER": {"IN": list(ROLE_WORDS)}}]},
        {"label": "DOCUMENT_PART", "pattern": [
            {"LOWER": {"IN": list(DOCUMENT_PARTS)}},
            {"TEXT": {"REGEX": r"^(?:[A-Z]{1,2}|\d{1,3}(?:\.\d{1,3})*|[IVX]{1,5})\.?$"}}]},
        {"label": "DOCUMENT_PART", "pattern": [{"LOWER": {"IN": list(DOCUMENT_PARTS)}}]},
    ]


NER_LANGUAGE = "en"  # the spaCy model's (en_core_web_sm): its names are kept for English only


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

    def extract(self, texts: Sequence[str], known_persons: Sequence[str] = (),
                languages: Sequence[str] | None = None) -> list[Entities]:
        """Each text's entities; ``known_persons``: names the document says are persons (an
        e-mail's header names: ingest/pipeline.py passes them with every chunk);
        ``languages``: each text's (app/models/languages.py) — the English model's names only
        for English text, the rules (identifiers, amounts, days in every supported language)
        for all."""
        languages = languages or ["en"] * len(texts)
        english = [i for i, lang in enumerate(languages) if lang == NER_LANGUAGE]
        docs = dict(zip(english, self._nlp.pipe([texts[i] for i in english],
                                                batch_size=self._batch), strict=True))
        return [self._entities(text, docs[i], known_persons) if i in docs
                else rule_entities(text, known_persons, names=self._checks)[0]
                for i, text in enumerate(texts)]

    def _entities(self, text: str, doc,  # type: ignore[no-untyped-def]
                  known_persons: Sequence[str] = ()) -> Entities:
        found, spans = rule_entities(text, known_persons, names=self._checks)
        headers = table_headers(text) if self._checks else set()
        known = {entity_identity("persons", n)
                 for n in [*known_persons, *found.get("persons", [])]} if self._checks else set()
        for ent in doc.ents:
            group = LABEL_GROUPS.get(ent.label_)
            value = ent.text.strip(SPAN_EDGES)
            # a rule already read this span (an IBAN's digits read as a date, "$" dropped)
            if not group or not value or any(ent.start_char < e and s < ent.end_char
                                              for s, e in spans):
                continue
            if self._checks:
                group = checked_group(group, value, headers)
                if group and entity_identity("persons", value) in known:
                    group = "persons"  # a header's person, whatever the NER said
                elif group == "organizations" and not organization_name(value):
                    group = None  # a legal form alone ("L.L.C."): its name was cut off
            if group:
                _add(found, group, value)
        if self._checks and found.get("persons"):
            found["persons"] = lone_names_dropped(found["persons"], known)
            if not found["persons"]:
                del found["persons"]
        return found


def lone_names_dropped(persons: Iterable[str], known: set[str]) -> list[str]:
    """Persons of one word kept only where a fuller name holds it (this text's persons or the
    known ones): ``Okafor`` beside ``Daniel Okafor``; ``Bill``, ``Kestrel`` alone go."""
    persons = list(persons)
    words = {w for p in [*persons, *known] if len(p.split()) > 1
             for w in entity_identity("persons", p).split()}
    return [p for p in persons if len(p.split()) > 1 or entity_identity("persons", p) in words]
