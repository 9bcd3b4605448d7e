"""Entity values in one form, so an amount, a date or an id written another way is the same
value: ``money:USD:10000.00``, ``date:2024-01-15``, ``id:acct998877``.

Chunks carry the keys of the entities found in them (ingest/entities.py: spaCy's spans and the
rules below) as the payload's ``entity_keys``; a query's recognised entities become the same
keys, and the entity lane (app/search/lanes.py) finds the chunks holding one exactly.

Libraries do the reading: price-parser the amount and its separators (``2.300,00 €`` is
2300.00), Babel the ISO currency codes, dateutil the dates. Finding the spans in a query uses
the patterns below (a query is too short for NER to be reliable); in a document spaCy finds
them too. Rules stated here:

- a number is money only beside a currency (a symbol, an ISO code or its name): ``10000
  crates`` is no amount; ``k``/``thousand``, ``m``/``million``, ``bn``/``billion`` multiply;
- a date is a day: day, month and year all written (``January 2024`` is no day); numeric dates
  are read day first (``05/01/2024`` is 5 January), except where the second number cannot be
  a month (``01/15/2024`` is 15 January); a month named in German, French, Spanish, Italian,
  Portuguese or Dutch (Babel's month names, full and abbreviated) is read as written there,
  day first: ``1. Juni 2024``, ``1er juin 2024``, ``1 de junio de 2024``, ``3 maart 2024``
  (``FOREIGN_DATE_SPAN``, in every text: a month name with a day before it and a year after
  it is a date in any of them);
- a three-letter currency code counts when written in capitals (``TRY 500`` is Turkish lira,
  ``try 500`` is not money);
- an account number or transaction reference is folded: case, spaces and ``- _ . / # :``
  removed (``ACCT 998877`` = ``acct998877`` = ``ACCT-998877``);
- IBANs, BICs, e-mail addresses and phone numbers are found and validated by
  app/domain/identifiers.py, keyed ``id:``, ``email:`` and ``phone:`` in one folded form;
- a table cell is money where its column header names a currency (``currency_in_header``:
  a symbol or an ISO code in capitals, ingest/entities.py ``table_money``).

One entity, many spellings (``entity_identity``): the value's key where its group has one,
else the name folded — case, spaces, punctuation at its edges; a person's titles (``Mr``,
``Dr``…); an organisation's leading "the" and its legal form, by cleanco's list of the
world's legal forms (``Harbor View Properties LLC`` = ``HARBOR VIEW PROPERTIES, L.L.C.`` =
``Harbor View Properties``). Entity pages, facets and timelines count an entity by it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from functools import lru_cache

# Currency words and symbols → ISO 4217; three-letter codes are checked against Babel's list
CURRENCY_NAMES = {
    "$": "USD", "us$": "USD", "dollar": "USD", "dollars": "USD", "€": "EUR", "euro": "EUR",
    "euros": "EUR", "£": "GBP", "pound": "GBP", "pounds": "GBP", "sterling": "GBP",
    "¥": "JPY", "yen": "JPY", "francs": "CHF",
    # the codes people type in lower case too
    **{code.lower(): code for code in ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD")},
}
MULTIPLIERS = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "million": 1_000_000,
               "mn": 1_000_000, "bn": 1_000_000_000, "billion": 1_000_000_000}

_NUMBER = r"\d{1,3}(?:[,.\s]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_SCALE = r"(?:\s?(?:k|thousand|m|mn|million|bn|billion)\b)?"
_CODE = r"\b[A-Z]{3}\b"
_WORD = r"(?:dollars?|euros?|pounds?|sterling|yen|francs)"
MONEY_SPAN = re.compile(
    rf"(?:(?:US\$|[$€£¥])\s?(?:{_NUMBER}){_SCALE}"
    rf"|(?:{_CODE})\s?(?:{_NUMBER}){_SCALE}"
    rf"|\b(?:{_NUMBER}){_SCALE}\s?(?:[$€£¥]|{_CODE}|{_WORD}\b))", re.IGNORECASE)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
DATE_SPAN = re.compile(
    rf"\b(?:\d{{4}}([-/.])\d{{1,2}}\1\d{{1,2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{4}}"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}|{_MONTH}\s+{_DAY},?\s+\d{{4}})\b",
    re.IGNORECASE)


@lru_cache(maxsize=1)
def foreign_months() -> dict[str, int]:
    """{month name, folded, no trailing dot: its number} in the languages besides English
    (Babel's CLDR names, full and abbreviated, format and stand-alone)."""
    from babel.dates import get_month_names

    names: dict[str, int] = {}
    for locale in ("de", "fr", "es", "it", "pt", "nl"):
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                for number, name in get_month_names(width, context, locale=locale).items():
                    key = name.casefold().rstrip(".")
                    if len(key) >= 3:
                        names.setdefault(key, number)
    return names


@lru_cache(maxsize=1)
def foreign_date_span() -> re.Pattern[str]:
    """A day, a month named in another language, a year: ``1. Juni 2024``, ``1er juin
    2024``, ``1 de junio de 2024``, ``15 mrt. 2024``."""
    months = "|".join(sorted((re.escape(m) for m in foreign_months()), key=len, reverse=True))
    return re.compile(rf"\b(\d{{1,2}})(?:\.|er|e|º|°)?\s+(?:de\s+)?({months})\.?"
                      rf"\s+(?:de\s+)?(\d{{4}})\b", re.IGNORECASE)


def foreign_date_key(span: str) -> str | None:
    """``date:YYYY-MM-DD`` of a date written with another language's month name."""
    match = foreign_date_span().fullmatch(span.strip())
    if match is None:
        return None
    day, month, year = match.groups()
    try:
        day_ = dt.date(int(year), foreign_months()[month.casefold().rstrip(".")], int(day))
        return f"date:{day_.isoformat()}"
    except (KeyError, ValueError):
        return None


ID_SPAN = re.compile(r"\b(?:ACCT|ACC|ACCOUNT|TXN|INV|REF|PO)[-#:_ ]?"
                     r"(?:\d{4}(?:[ ]\d{4})+(?:[ ]\d{1,4})?|\d[\d-]{2,})\b", re.IGNORECASE)
_FOLD = re.compile(r"[\s\-_./#:]+")

# contract entity group → how its values are keyed
KEYED_GROUPS = {"monetary_amounts": "money", "dates_times": "date",
                "account_numbers": "account", "transaction_references": "id",
                "email_addresses": "email", "phone_numbers": "phone",
                "organizations": "org"}


@lru_cache(maxsize=1)
def iso_currency_codes() -> frozenset[str]:
    from babel.numbers import list_currencies

    return frozenset(list_currencies())


def _currency(text: str) -> str | None:
    lowered = text.lower()
    for symbol in ("us$", "$", "€", "£", "¥"):
        if symbol in lowered:
            return CURRENCY_NAMES[symbol]
    for word in re.findall(r"[A-Za-z]+", text):
        if word.lower() in CURRENCY_NAMES:
            return CURRENCY_NAMES[word.lower()]
        if len(word) == 3 and word.isupper() and word in iso_currency_codes():
            return word
    return None


def currency_in_header(text: str) -> str | None:
    """The currency a table header or a currency cell names by symbol or ISO code in capitals
    (``Debit (EUR)``, ``Amount USD``, ``€``) — never by a word (``Weight (pounds)``)."""
    for symbol in ("US$", "$", "€", "£", "¥"):
        if symbol in text:
            return CURRENCY_NAMES[symbol.lower()]
    codes = [w for w in re.findall(r"\b[A-Z]{3}\b", text) if w in iso_currency_codes()]
    return codes[0] if len(codes) == 1 else None


def money_key(span: str) -> str | None:
    """``money:<ISO>:<amount to the cent>`` for a span naming a currency, else None."""
    from price_parser import Price

    currency = _currency(span)
    if currency is None:
        return None
    price = Price.fromstring(span)
    if price.amount is None:
        return None
    amount = price.amount
    scale = re.search(r"\d\s?(k|thousand|m|mn|million|bn|billion)\b", span, re.IGNORECASE)
    if scale:
        amount *= MULTIPLIERS[scale.group(1).lower()]
    try:
        return f"money:{currency}:{Decimal(amount).quantize(Decimal('0.01'))}"
    except InvalidOperation:
        return None


# A year written first is always year, month, day (ISO 8601 and its look-alikes): 2024-06-01,
# 2024/06/01, 2024.06.01, 20240601, with or without a time after it
YEAR_FIRST = re.compile(r"\s*(\d{4})(?:([-/.])(\d{1,2})\2(\d{1,2})|(\d{2})(\d{2}))"
                        r"(?:[T ]\d{1,2}:\d{2}.*)?\s*")


def date_key(span: str) -> str | None:
    """``date:YYYY-MM-DD`` when day, month and year are all written, else None.

    The rule: a year written first is year-month-day, always (``2024-06-01`` is 1 June —
    dateutil read it day first, as 6 January); two numbers before the year are day-month
    (``01/06/2024``, ``1.6.2024``: 1 June), unless the first can only be a month
    (``06/25/2024``); month names are read as written (``1 June 2024``, ``June 1st, 2024``)."""
    from dateutil import parser

    foreign = foreign_date_key(span)
    if foreign:
        return foreign
    year_first = YEAR_FIRST.fullmatch(span)
    if year_first:
        year, _, month, day, month8, day8 = year_first.groups()
        try:
            return f"date:{dt.date(int(year), int(month or month8), int(day or day8)).isoformat()}"
        except ValueError:
            return None
    text = re.sub(r"\bof\b", " ", span)
    numeric = re.fullmatch(r"\s*(\d{1,2})[/.](\d{1,2})[/.](\d{4})\s*", text)
    dayfirst = not (numeric and int(numeric.group(1)) <= 12 < int(numeric.group(2)))
    try:
        one = parser.parse(text, dayfirst=dayfirst, default=dt.datetime(1, 1, 1))
        two = parser.parse(text, dayfirst=dayfirst, default=dt.datetime(2, 2, 2))
    except (ValueError, OverflowError):
        return None
    if one != two:  # a part was not written: the defaults showed through
        return None
    return f"date:{one.date().isoformat()}"


def id_key(span: str) -> str | None:
    folded = _FOLD.sub("", span).lower()
    return f"id:{folded}" if re.search(r"\d", folded) and len(folded) >= 4 else None


def account_key(span: str) -> str | None:
    """An account number's key: a valid IBAN or BIC in its folded form, else an id's."""
    from app.domain.identifiers import identifier_key

    return identifier_key("account_numbers", span) or id_key(span)


def _identifier_keyer(group: str):  # type: ignore[no-untyped-def]
    def keyer(span: str) -> str | None:
        from app.domain.identifiers import identifier_key

        return identifier_key(group, span)
    return keyer


def org_key(span: str) -> str | None:
    """``org:<name without its legal form, folded>``; None for a legal form alone."""
    name = organization_name(span)
    return f"org:{name}" if name else None


KEYERS = {"money": money_key, "date": date_key, "id": id_key, "account": account_key,
          "org": org_key,
          "email": _identifier_keyer("email_addresses"),
          "phone": _identifier_keyer("phone_numbers")}


PERSON_TITLES = re.compile(r"^(?:(?:mr|mrs|ms|miss|mx|dr|prof|sir|dame|herr|frau|mme|mlle)"
                           r"\.?\s+)+", re.IGNORECASE)


def organization_name(value: str) -> str:
    """An organisation's name without its legal form, folded (cleanco's basename: it knows
    LLC and L.L.C., Inc., Ltd, GmbH, S.A., Oy, … and the comma before them); "" for a value
    that is nothing but a legal form (``L.L.C.``)."""
    from cleanco import basename

    folded = " ".join(value.split()).casefold().strip(" .,;:")
    folded = re.sub(r"^the\s+", "", folded)
    return " ".join(basename(folded).split()).strip(" .,;:&")


def entity_identity(group: str, value: str) -> str:
    """What makes two spellings one entity of ``group`` (the module's rule)."""
    key = value_key(group, value)
    if key:
        return key
    folded = " ".join(value.split()).casefold().strip(" .,;:")
    if group == "persons":
        folded = PERSON_TITLES.sub("", folded)
    elif group == "organizations":
        folded = organization_name(value) or folded
    return folded


def value_key(group: str, value: str) -> str | None:
    """The key of a value a filter names under an entity group (None: not keyable there)."""
    keyer = KEYERS.get(KEYED_GROUPS.get(group, ""))
    return keyer(value) if keyer else None


def entity_keys(groups: Mapping[str, Sequence[str]]) -> list[str]:
    """The keys of a chunk's entities ({contract group: values}), each once, in order."""
    keys: list[str] = []
    for group, values in groups.items():
        keyer = KEYERS.get(KEYED_GROUPS.get(group, ""))
        if keyer is None:
            continue
        keys += [k for k in (keyer(v) for v in values) if k]
    return list(dict.fromkeys(keys))


def query_entities(query: str, identifiers: bool = True) -> list[tuple[str, str]]:
    """(the span as written, its key) of each amount, day and id the query names;
    ``identifiers=False`` leaves out the validated ones (app/domain/identifiers.py)."""
    from app.domain.identifiers import find_identifiers

    found: list[tuple[str, str]] = [(query[i.start:i.end], i.key)
                                    for i in find_identifiers(query)] if identifiers else []
    for pattern, keyer in ((MONEY_SPAN, money_key), (DATE_SPAN, date_key),
                           (foreign_date_span(), foreign_date_key), (ID_SPAN, id_key)):
        for match in pattern.finditer(query):
            key = keyer(match.group(0))
            if key:
                found.append((match.group(0), key))
    return list(dict.fromkeys(found))


def only_entities(query: str) -> bool:
    """Whether the query is nothing but amounts, days and ids (``£1250``, ``24.000 EUR``,
    ``DE89 3704 0044 0532 0130 00``): no word besides them, punctuation aside."""
    found = query_entities(query)
    rest = query
    for span, _key in found:
        rest = rest.replace(span, " ")
    return bool(found) and not re.search(r"[^\W_]", rest)


def query_entity_keys(query: str) -> list[str]:
    return list(dict.fromkeys(key for _, key in query_entities(query)))


def keys_in(texts: Iterable[str]) -> list[str]:
    """Keys found in free text by the query's own patterns (rules for documents spaCy misses).
    Not the validated identifiers: a chunk's rules (ingest/entities.rule_entities) found them
    already, with these very keys — scanning again cost a second pass per chunk."""
    return list(dict.fromkeys(key for t in texts
                              for _, key in query_entities(t, identifiers=False)))
