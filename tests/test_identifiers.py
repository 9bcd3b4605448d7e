"""Identifiers (app/domain/identifiers.py): found, validated by their libraries, keyed in one folded
form — both sides of each check (a checksum one digit off, a BIC with and without its label,
a phone number with and without its country)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.domain.entity_values import query_entity_keys, value_key
from app.domain.identifiers import find_identifiers, identifier_key

IBAN_KEY = "id:de89370400440532013000"


@pytest.mark.parametrize("written", ["DE89 3704 0044 0532 0130 00", "DE89370400440532013000",
                                     "de89 3704 0044 0532 0130 00", "DE8937040044 0532013000"])
def test_an_iban_in_any_spelling_has_one_key(written: str) -> None:
    [found] = find_identifiers(f"Pay to {written} by Friday.")
    assert (found.group, found.value, found.key) == (
        "account_numbers", "DE89 3704 0044 0532 0130 00", IBAN_KEY)
    assert query_entity_keys(written) == [IBAN_KEY]
    assert value_key("account_numbers", written) == IBAN_KEY


def test_an_iban_one_digit_off_is_no_iban() -> None:
    assert find_identifiers("Pay to DE89 3704 0044 0532 0130 01 by Friday.") == []
    # as a filter it is still an account id, folded, never the valid IBAN's key
    assert value_key("account_numbers", "DE89 3704 0044 0532 0130 01") == (
        "id:de89370400440532013001")


def test_a_word_after_an_iban_is_not_part_of_it() -> None:
    [found] = find_identifiers("IBAN DE89 3704 0044 0532 0130 00 EUR account")
    assert found.key == IBAN_KEY and found.end == len("IBAN DE89 3704 0044 0532 0130 00")


def test_a_bic_counts_only_after_its_label() -> None:
    assert [(i.group, i.key) for i in find_identifiers("BIC: COBADEFFXXX")] == [
        ("account_numbers", "id:cobadeffxxx")]
    assert [(i.key) for i in find_identifiers("SWIFT code NDEAFIHH")] == ["id:ndeafihh"]
    assert find_identifiers("BUSINESS COBADEFFXXX") == []  # well formed, but no label
    assert identifier_key("account_numbers", "cobadeffxxx") == "id:cobadeffxxx"  # a filter


@pytest.mark.parametrize("written", ["d.okafor@northwind.example", "D.Okafor@Northwind.Example"])
def test_an_email_address_in_any_case_has_one_key(written: str) -> None:
    [found] = find_identifiers(f"Write to {written}.")
    assert found.group == "email_addresses"
    assert found.key == "email:d.okafor@northwind.example"


@pytest.mark.parametrize("written", ["a@@b.example", "no-at-sign.example", "x@localhost"])
def test_what_is_no_email_address(written: str) -> None:
    assert [i for i in find_identifiers(written) if i.group == "email_addresses"] == []


@pytest.mark.parametrize("written", ["+44 20 7946 0958", "+442079460958", "+44 (0)20 7946 0958"])
def test_an_international_phone_number_in_any_spelling(written: str) -> None:
    [found] = find_identifiers(f"Call {written} today")
    assert (found.group, found.key) == ("phone_numbers", "phone:+442079460958")


@pytest.mark.parametrize("written", ["020 7946 0958", "Account 0019 4006 4475 0000",
                                     "+44 20 79"])  # national: no country; too short
def test_no_phone_number_without_its_country(written: str) -> None:
    assert [i for i in find_identifiers(written) if i.group == "phone_numbers"] == []


def test_an_emails_digits_are_not_a_phone_and_order_is_kept() -> None:
    found = find_identifiers("+49 30 901820 or p.natarajan+4930901820@kestrel.example")
    assert [i.group for i in found] == ["phone_numbers", "email_addresses"]


@settings(max_examples=200, deadline=None)
@given(bban=st.text(alphabet="0123456789", min_size=18, max_size=18),
       position=st.integers(min_value=4, max_value=21), change=st.integers(1, 9))
def test_every_spelling_of_a_random_iban_is_one_key_and_one_digit_off_is_none(
        bban: str, position: int, change: int) -> None:
    """Any German IBAN (its check digits computed): compact, grouped, lower case — one key;
    any single digit changed — no IBAN (mod 97 catches every single-digit error)."""
    from stdnum import iban

    compact = f"DE{iban.calc_check_digits(f'DE00{bban}')}{bban}"
    grouped = " ".join(compact[i:i + 4] for i in range(0, len(compact), 4))
    keys = {i.key for spelling in (compact, grouped, grouped.lower())
            for i in find_identifiers(f"to {spelling} now")}
    assert keys == {f"id:{compact.lower()}"}
    digits = list(compact)
    digits[position] = str((int(digits[position]) + change) % 10)
    assert find_identifiers(f"to {''.join(digits)} now") == []


@pytest.mark.parametrize("written", ["0035315550142", "00 353 1 555 0142", "0044-20-7946-0958",
                                     "call 0035315550142 now"])
def test_the_00_international_prefix_is_read_as_plus(written: str) -> None:
    [found] = find_identifiers(written)
    assert found.group == "phone_numbers" and found.key.startswith("phone:+")
    assert written[found.start:found.end].startswith("00")  # the span is the text's own


@pytest.mark.parametrize("written", ["00150000", "ref 00353", "total 0012345678",
                                     "00 1 2 3"])
def test_a_run_of_zeros_and_digits_is_no_phone(written: str) -> None:
    assert [i for i in find_identifiers(written) if i.group == "phone_numbers"] == []


def test_national_numbers_only_with_the_operators_country(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_identifiers("01 555 0142") == []
    monkeypatch.setenv("EVIDENCE_ENTITIES__PHONE_REGION", "IE")
    assert [i.key for i in find_identifiers("call 01 555 0142")] == ["phone:+35315550142"]
    assert [i.key for i in find_identifiers("(01) 555 0142")] == ["phone:+35315550142"]
    assert find_identifiers("ledger 4155550142 line") == []  # no separator, no trunk 0
