"""Entities per chunk (ingest/entities.py): the rules, table money, each group's check — both
sides of each — and the real model with the EntityRuler on the issue's examples."""

from __future__ import annotations

import pytest

from ingest.entities import EntityExtractor, checked_group, is_date_span, rule_entities, table_money


def test_rules_find_identifiers_account_types_and_money() -> None:
    found, spans = rule_entities("Paid $10,000 from checking account ACCT-998877 (TXN-2024-001); "
                                 "the savings accounts hold 5 EUR.")
    assert found == {"account_numbers": ["ACCT-998877"],
                     "transaction_references": ["TXN-2024-001"],
                     "monetary_amounts": ["$10,000", "5 EUR"],
                     "account_types": ["checking", "savings"]}
    assert len(spans) == 4  # account, reference, two amounts: what spaCy may not read again


def test_an_account_number_in_groups_of_four_is_read_whole() -> None:
    found, _ = rule_entities("Our account 0019 4006 4475 0000 stays open; ACCT-998877 2024.")
    assert found["account_numbers"] == ["ACCOUNT 0019 4006 4475 0000", "ACCT-998877"]


@pytest.mark.parametrize("row, amounts", [
    ("Date: 2024-03-05 · Debit (EUR): 48500 · Credit (EUR): 0", ["EUR 48500"]),  # 0: empty
    ("Item: fees · Amount USD: 1,250.50", ["USD 1,250.50"]),
    ("Item: rent · €: 900", ["EUR 900"]),
    ("Currency: CHF · Amount: 18450.00 · Units: 12", ["CHF 18450.00"]),  # units: no amount
    ("Amount: 18450.00 · Currency: GBP", ["GBP 18450.00"]),  # the currency column comes last
    ("Weight (pounds): 120 · Amount: 300", []),  # a word is no currency; no row currency
    ("Debit (EUR): n/a · Reference (EUR): TXN-1", []),  # not numbers
    ("Debit (EUR): 48500\nDebit: 12", ["EUR 48500"]),  # one row's currency, not the next's
])
def test_money_in_table_columns(row: str, amounts: list[str]) -> None:
    assert table_money(row) == amounts


@pytest.mark.parametrize("chunk, amounts", [
    ("Columns: Date | Debit (EUR) | Credit (EUR)\n2024-03-05 | 48500 | 0\n\n2024-03-09 |  | 120",
     ["EUR 48500", "EUR 120"]),  # an empty cell keeps its place
    ("Columns: Currency | Amount\nCHF | 18450.00\n\nUSD | 920", ["CHF 18450.00", "USD 920"]),
    ("Columns: Item | Amount\nrent | 900", []),  # no currency anywhere
    ("Columns: Account | Debit (EUR)\nAccount: ACCT-2 · Debit (EUR): 75", ["EUR 75"]),  # sparse
])
def test_money_in_a_chunk_of_rows_under_its_columns(chunk: str, amounts: list[str]) -> None:
    assert table_money(chunk) == amounts


def test_table_money_is_keyed_and_filterable() -> None:
    from app.domain.entity_values import entity_keys
    from app.store.payload import entity_numbers

    found, _ = rule_entities("Date: 2024-04-02 · Debit (EUR): 24000 · Balance (EUR): 96400.5")
    keys = entity_keys(found)
    assert keys == ["date:2024-04-02", "money:EUR:24000.00", "money:EUR:96400.50"]
    assert entity_numbers(keys)["entity_money"]["EUR"] == [24000.0, 96400.5]


@pytest.mark.parametrize("span, is_date", [
    ("12 March 2024", True), ("March 2024", True), ("2024", True), ("the 1990s", True),
    ("Q2 2024", True), ("16:45", True), ("1 April 2024 to 30 June 2024", True),
    ("5 days", False), ("60 days", False), ("the past 48 hours", False),
    ("0019 4006 4475 0000", False), ("1234 5600 0007 85", False), ("24000", False),
    ("901820", False), ("annual", False)])
def test_a_date_names_a_day_month_year_or_time(span: str, is_date: bool) -> None:
    assert is_date_span(span) is is_date


@pytest.mark.parametrize("group, value, headers, kept", [
    ("persons", "Daniel Okafor", set(), "persons"),
    ("persons", "Debit", {"debit (eur)", "debit"}, None),  # a header of the chunk
    ("persons", "Maersk Line", set(), "organizations"),  # a trade form ends the name
    ("persons", "EUR 48,500.00\nVAT", set(), None),  # crosses a line, holds digits
    ("persons", "R2D2", set(), None),
    ("organizations", "EUR", set(), None), ("organizations", "Kestrel Holdings Ltd", set(),
                                            "organizations"),
    ("organizations", "3704 0044 0532", set(), None),
    ("monetary_amounts", "48,500.00", set(), None), ("monetary_amounts", "$48,500", set(),
                                                     "monetary_amounts"),
    ("dates_times", "5 days", set(), None), ("dates_times", "5 June 2024", set(), "dates_times"),
    ("locations", "Seattle", set(), "locations"), ("locations", "USD", set(), None),
])
def test_each_group_has_its_check(group: str, value: str, headers: set[str],
                                  kept: str | None) -> None:
    assert checked_group(group, value, headers) == kept


def test_spacy_groups_with_rules_winning_overlaps(real_models) -> None:  # type: ignore[no-untyped-def]
    extractor = EntityExtractor(real_models.spacy_path)
    [found] = extractor.extract(["Geoffrey Hinton met Microsoft in Seattle on January 15, 2024 "
                                 "about transaction TXN-2024-001 worth $10,000."])
    assert found["persons"] == ["Geoffrey Hinton"]
    assert found["organizations"] == ["Microsoft"]
    assert found["locations"] == ["Seattle"]
    assert "January 15, 2024" in found["dates_times"]
    assert "TXN-2024-001" not in found["dates_times"]
    assert found["monetary_amounts"] == ["$10,000"]


def test_the_issues_noise_is_gone_and_its_identifiers_found(real_models) -> None:  # type: ignore[no-untyped-def]
    extractor = EntityExtractor(real_models.spacy_path)
    ledger, vendor, mail = extractor.extract([
        "Date: 2024-03-05 · Description: Freight · Debit (EUR): 48500 · Credit (EUR): 0",
        "Vendor: Kestrel Holdings Ltd · IBAN: DE89 3704 0044 0532 0130 00 · Contact: Daniel "
        "Okafor · Email: d.okafor@northwind.example · Phone: +44 20 7946 0958",
        "Please wire EUR 48,500.00\nVAT included within 5 days. The CFO approved it. "
        "Account 0019 4006 4475 0000."])
    assert ledger == {"dates_times": ["2024-03-05"], "monetary_amounts": ["EUR 48500"]}
    assert vendor == {"email_addresses": ["d.okafor@northwind.example"],
                      "account_numbers": ["DE89 3704 0044 0532 0130 00"],
                      "phone_numbers": ["+44 20 7946 0958"],
                      "organizations": ["Kestrel Holdings Ltd"], "persons": ["Daniel Okafor"]}
    assert mail == {"account_numbers": ["ACCOUNT 0019 4006 4475 0000"],
                    "monetary_amounts": ["EUR 48,500.00"]}


@pytest.mark.parametrize("text, orgs", [
    ("paid to HARBOR VIEW PROPERTIES, L.L.C. today", ["HARBOR VIEW PROPERTIES, L.L.C."]),
    ("between Harbor View Properties LLC and Kestrel Holdings Ltd.",
     ["Harbor View Properties LLC", "Kestrel Holdings Ltd."]),
    ("Harbor View Properties, Inc.\n12 Quay Street", ["Harbor View Properties, Inc."]),
    ("Baltic Freight Oy and Bosch GmbH & Co. KG", ["Baltic Freight Oy", "Bosch GmbH & Co. KG"]),
    ("The Supplier, L.L.C. alone", []),  # a role word and a form: no name left
    ("an LLC was formed", []),  # the form alone
    ("Harbor View Properties signed", []),  # no legal form: the NER's to find
])
def test_an_organisation_with_its_legal_form_is_read_whole(text: str, orgs: list[str]) -> None:
    from ingest.entities import legal_form_orgs

    assert [name for name, _s, _e in legal_form_orgs(text)] == orgs


@pytest.mark.parametrize("name, person", [
    ("Marta Lindqvist", True), ("Jean-Luc Picard", True), ("Accounts Payable", False),
    ("Kestrel Support Team", False), ("Harbor View LLC", False), ("Marta", False),
    ("noreply", False), ("Room 101", False), ("ACME Billing", False)])
def test_a_header_display_name_is_a_person_unless_it_looks_like_an_office(
        name: str, person: bool) -> None:
    from ingest.entities import is_person_name

    assert is_person_name(name) is person


def test_header_names_are_persons_in_every_chunk_of_the_message() -> None:
    from ingest.entities import header_persons, message_persons

    header = ("From: Marta Lindqvist <m@x.example>\nTo: Daniel Okafor <d@y.example>, "
              "Accounts Payable <ap@y.example>\nSubject: Deposit")
    assert header_persons(header) == ["Marta Lindqvist", "Daniel Okafor"]
    assert message_persons({"from": "Marta Lindqvist <m@x.example>",
                            "to": ["Accounts Payable <ap@y.example>"],
                            "cc": ["Daniel Okafor <d@y.example>"]}) == [
        "Marta Lindqvist", "Daniel Okafor"]
    found, _ = rule_entities("Marta Lindqvist will call.", known_persons=["Marta Lindqvist"])
    assert found["persons"] == ["Marta Lindqvist"]


def test_a_lone_first_word_is_kept_only_beside_its_full_name() -> None:
    from ingest.entities import lone_names_dropped

    assert lone_names_dropped(["Bill", "Kestrel", "Okafor", "Daniel Okafor"], set()) == [
        "Okafor", "Daniel Okafor"]
    assert lone_names_dropped(["Daniel"], {"daniel okafor"}) == ["Daniel"]


def test_the_issues_persons_and_organisations_with_the_real_model(real_models) -> None:  # type: ignore[no-untyped-def]
    extractor = EntityExtractor(real_models.spacy_path)
    [agreement, body] = extractor.extract([
        'SUPPLY AGREEMENT between Harbor View Properties LLC (the "Supplier") and Kestrel '
        'Holdings Ltd (the "Buyer"). The Supplier shall deliver the goods listed in Annex A. '
        "Bill the deposit to the Buyer.",
        "Marta Lindqvist will send the deposit to HARBOR VIEW PROPERTIES, L.L.C."],
        known_persons=["Marta Lindqvist"])
    assert agreement.get("persons", []) == []  # Supplier, Buyer, Annex A., Bill: none
    assert set(agreement["organizations"]) == {"Harbor View Properties LLC",
                                               "Kestrel Holdings Ltd"}
    assert body["persons"] == ["Marta Lindqvist"]
    assert body["organizations"] == ["HARBOR VIEW PROPERTIES, L.L.C."]
