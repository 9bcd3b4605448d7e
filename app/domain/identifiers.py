"""Identifiers investigators trace — IBANs, BICs, e-mail addresses, phone numbers — found in
text, validated by the libraries made for them, and keyed in one folded form, so a value written
with or without spaces, in any case, is the same entity.

Rules stated here (the same for a document's chunks and for a query):

- an **IBAN** is a country code, two check digits and up to 30 letters or digits, written
  compact or in groups; it counts only when python-stdnum's checksum (ISO 13616, mod 97)
  passes — an invalid IBAN is not an IBAN. Group ``account_numbers``; key ``id:<compact,
  lower case>`` (the key every account number has, so ``DE89 3704 …`` = ``de8937…``).
- a **BIC** (SWIFT code) counts only when the word BIC or SWIFT stands just before it (an
  8-letter capitalised word such as BUSINESS is a well-formed BIC) and python-stdnum accepts
  it. Group ``account_numbers`` (it names the bank side of an account); key ``id:<lower>``.
- an **e-mail address** counts when email-validator accepts its syntax (no DNS is asked).
  Group ``email_addresses``; key ``email:<lower case>``.
- a **phone number** counts when written internationally — ``+44 20 7946 0958``, or with the
  ``00`` international prefix (``0035315550142``, ``00 44 20 7946 0958``), with spaces, dashes
  or dots or none — and phonenumbers validates it (``VALID`` leniency: the country's own
  lengths and ranges). A national number (``01 555 0142``) is ambiguous without its country,
  and digit runs in ledgers would otherwise read as phones: it counts only where the operator
  names the country (``EVIDENCE_ENTITIES__PHONE_REGION=IE``, read from the environment so the
  ingestion children see it too), and only written with a separator or its trunk ``0``.
  Group ``phone_numbers``; key ``phone:<E.164>``.

The contract's eight entity groups have no place for e-mail addresses and phone numbers; they
are two added groups (app/domain/leaves.py ENTITY_GROUPS), filterable and faceted like the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Identifier:
    group: str  # the entity group it is stored under
    value: str  # as shown: the library's own printed form
    key: str  # the one folded form the entity lane and filters match on
    start: int  # where it was written in the text
    end: int


_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b", re.IGNORECASE)
_BIC = re.compile(r"\b(?:BIC|SWIFT)(?:\s?(?:code|/BIC))?\s?[:#]?\s?([A-Z]{6}[A-Z0-9]{2}"
                  r"(?:[A-Z0-9]{3})?)\b")
_EMAIL = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
MAX_IDENTIFIERS = 200  # per text: a chunk listing thousands reads the first ones


def _ibans(text: str) -> list[Identifier]:
    from stdnum import iban

    found = []
    for match in _IBAN.finditer(text):
        # the greedy run may take a following word ("… 0130 00 EUR"): the longest prefix
        # that passes the checksum is the IBAN
        words = match.group(0).split(" ")
        for cut in range(len(words), 0, -1):
            candidate = " ".join(words[:cut])
            compact = iban.compact(candidate)
            if len(compact) >= 15 and iban.is_valid(compact):
                found.append(Identifier("account_numbers", iban.format(compact),
                                        f"id:{compact.lower()}", match.start(),
                                        match.start() + len(candidate)))
                break
    return found


def _bics(text: str) -> list[Identifier]:
    from stdnum import bic

    return [Identifier("account_numbers", m.group(1), f"id:{m.group(1).lower()}", m.start(1),
                       m.end(1))
            for m in _BIC.finditer(text) if bic.is_valid(m.group(1))]


def _emails(text: str) -> list[Identifier]:
    from email_validator import EmailNotValidError, validate_email

    found = []
    for match in _EMAIL.finditer(text):
        address = match.group(0).strip(".'")
        try:
            checked = validate_email(address, check_deliverability=False,
                                     test_environment=True)
        except EmailNotValidError:
            continue
        found.append(Identifier("email_addresses", checked.normalized,
                                f"email:{checked.normalized.lower()}", match.start(),
                                match.start() + len(address)))
    return found


# "00" then a country code (never 0): the international prefix most of the world dials
INTERNATIONAL_00 = re.compile(r"(?<![\d+])00[ \-]?(?=[1-9][\d \-.()]{6,22}\d)")
PHONE_REGION_ENV = "EVIDENCE_ENTITIES__PHONE_REGION"


def phone_region() -> str | None:
    """The country national numbers are read in (the operator's setting), or None."""
    import os

    region = os.environ.get(PHONE_REGION_ENV, "").strip().upper()
    return region or None


def _phones(text: str) -> list[Identifier]:
    import phonenumbers

    region = phone_region()
    # "00353…" read as "+353…", padded to the same length so every span still points into
    # ``text``; where each "+" stands for a "00", the span starts at the "00"
    prefixes: dict[int, int] = {}
    pieces, at = [], 0
    for m in INTERNATIONAL_00.finditer(text):
        pieces += [text[at:m.start()], " " * (m.end() - m.start() - 1) + "+"]
        prefixes[m.end() - 1] = m.start()
        at = m.end()
    written = "".join(pieces) + text[at:]
    if "+" not in written and region is None:
        return []
    found = []
    for match in phonenumbers.PhoneNumberMatcher(written, region,
                                                 leniency=phonenumbers.Leniency.VALID):
        raw = match.raw_string.lstrip("(")
        national = not raw.startswith("+")
        if national and (region is None or not (raw.startswith("0")
                                                or re.search(r"[ \-.()]", raw))):
            continue  # national: only with the operator's country, a separator or trunk 0
        start = prefixes.get(match.start, match.start)
        e164 = phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164)
        shown = phonenumbers.format_number(match.number,
                                           phonenumbers.PhoneNumberFormat.INTERNATIONAL)
        found.append(Identifier("phone_numbers", shown, f"phone:{e164}", start, match.end))
    return found


def find_identifiers(text: str) -> list[Identifier]:
    """Every valid identifier in ``text``, in the order written; an e-mail's digits are never
    read as a phone, an IBAN's never as anything else (the first reading of a span wins)."""
    found: list[Identifier] = []
    for finder in (_emails, _ibans, _bics, _phones):
        for ident in finder(text):
            if not any(ident.start < f.end and f.start < ident.end for f in found):
                found.append(ident)
    found.sort(key=lambda i: i.start)
    return found[:MAX_IDENTIFIERS]


def identifier_key(group: str, value: str) -> str | None:
    """The key of one value a filter names under ``group``, in any spelling, or None where
    the value is no identifier of that group (it is then matched as written)."""
    from stdnum import bic

    if group == "account_numbers" and bic.is_valid(value.strip()):  # a bare BIC, as a filter
        return f"id:{bic.compact(value).lower()}"                    # or a table cell names it
    for ident in find_identifiers(value):
        if ident.group == group and ident.start == 0 and ident.end >= len(value.rstrip()):
            return ident.key
    return None
