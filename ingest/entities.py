"""Entities per chunk: spaCy NER mapped to the contract's groups, plus rules for identifiers.

Account numbers, transaction references and account types are found by regular expressions
over the raw text rather than spaCy's EntityRuler: spaCy's tokenizer splits ``ACCT-998877`` at
the hyphen, so a token pattern would need three tokens and still miss variants a regex states
in one line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

LABEL_GROUPS = {
    "PERSON": "persons", "ORG": "organizations", "DATE": "dates_times", "TIME": "dates_times",
    "GPE": "locations", "LOC": "locations", "FAC": "locations", "MONEY": "monetary_amounts",
}

ACCOUNT_NUMBER = re.compile(r"\b(?:ACCT|ACC|ACCOUNT)[-#:]?\s?\d{4,}\b", re.IGNORECASE)
TRANSACTION_REF = re.compile(r"\bTXN-\d{2,}(?:-\d+)*\b", re.IGNORECASE)
ACCOUNT_TYPE = re.compile(
    r"\b(checking|savings|money market|brokerage|current|credit card|certificate of deposit|"
    r"retirement|IRA|401\(k\))\s+accounts?\b", re.IGNORECASE)

AMOUNT = r"\d+(?:[,.]\d+)*"  # 10,000 / 1.250,50 — never ends on the sentence's comma
MONEY = re.compile(rf"(?:[$€£¥]\s?{AMOUNT}(?:\s?(?:million|billion|[kKmM])\b)?"
                   rf"|\b{AMOUNT}\s?(?:USD|EUR|GBP|dollars|euros)\b)")

Entities = dict[str, list[str]]


def rule_entities(text: str) -> Entities:
    found: Entities = {}
    for group, pattern, upper in (("account_numbers", ACCOUNT_NUMBER, True),
                                  ("transaction_references", TRANSACTION_REF, True),
                                  ("monetary_amounts", MONEY, False)):
        values = [m.group(0).upper() if upper else m.group(0) for m in pattern.finditer(text)]
        if values:
            found[group] = list(dict.fromkeys(values))
    types = [m.group(1).lower() for m in ACCOUNT_TYPE.finditer(text)]
    if types:
        found["account_types"] = list(dict.fromkeys(types))
    return found


class EntityExtractor:
    """spaCy with only the components NER needs, batched with ``nlp.pipe``."""

    def __init__(self, spacy_path: Path, batch_size: int = 32) -> None:
        import spacy

        self._nlp = spacy.load(spacy_path, exclude=["tagger", "parser", "attribute_ruler",
                                                    "lemmatizer", "senter"])
        self._nlp.max_length = 2_000_000
        self._batch = batch_size

    def extract(self, texts: Sequence[str]) -> list[Entities]:
        results = []
        for text, doc in zip(texts, self._nlp.pipe(texts, batch_size=self._batch), strict=True):
            found = rule_entities(text)
            ruled = [v for values in found.values() for v in values]
            for ent in doc.ents:
                group = LABEL_GROUPS.get(ent.label_)
                value = ent.text.strip()
                # A rule already read this span better (an id read as a date, "$" dropped).
                if any(value.upper() in r.upper() for r in ruled):
                    continue
                if group and value:
                    bucket = found.setdefault(group, [])
                    if value not in bucket:
                        bucket.append(value)
            results.append(found)
        return results
