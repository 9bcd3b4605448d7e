"""Entity values in one form (app/domain/entity_values.py), by hand: amounts, days and ids written
every way the issue lists, the ambiguous ones and the look-alikes."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.domain.entity_values import date_key, entity_keys, id_key, money_key, query_entity_keys


@pytest.mark.parametrize("written", ["$10,000", "10,000.00 USD", "USD 10000", "10000 dollars",
                                     "$10k", "US$ 10,000.00", "usd 10000"])
def test_ten_thousand_dollars_every_way(written: str) -> None:
    assert query_entity_keys(written) == ["money:USD:10000.00"]


@pytest.mark.parametrize("written, key", [
    ("€2300", "money:EUR:2300.00"), ("EUR 2,300", "money:EUR:2300.00"),
    ("2.300,00 €", "money:EUR:2300.00"), ("£1250", "money:GBP:1250.00"),
    ("1,250.50 GBP", "money:GBP:1250.50"), ("$2.5 million", "money:USD:2500000.00"),
    ("TRY 500", "money:TRY:500.00")])
def test_other_currencies_and_separators(written: str, key: str) -> None:
    assert query_entity_keys(written) == [key]


@pytest.mark.parametrize("written", ["10000 crates", "the 2024 budget", "try 500", "bin 998877",
                                     "about 10,000"])
def test_a_number_without_a_currency_is_no_amount(written: str) -> None:
    assert not [k for k in query_entity_keys(written) if k.startswith("money:")]


@pytest.mark.parametrize("written", ["15 January 2024", "Jan 15, 2024", "2024-01-15",
                                     "15/01/2024", "15.01.2024", "January 15th, 2024",
                                     "01/15/2024"])  # the second number cannot be a month
def test_the_fifteenth_of_january_every_way(written: str) -> None:
    assert query_entity_keys(written) == ["date:2024-01-15"]


def test_numeric_dates_are_read_day_first_and_a_day_needs_all_three_parts() -> None:
    assert date_key("05/01/2024") == "date:2024-01-05"
    assert date_key("January 2024") is None and date_key("January 15") is None
    assert date_key("2024") is None


@pytest.mark.parametrize("written", ["ACCT 998877", "acct998877", "ACCT-998877", "Acct#998877"])
def test_account_numbers_fold_case_spaces_and_separators(written: str) -> None:
    assert query_entity_keys(written) == ["id:acct998877"]


def test_ids_and_chunk_entities() -> None:
    assert id_key("TXN-2024-001") == "id:txn2024001" and id_key("AB") is None
    assert money_key("10000") is None
    assert entity_keys({"monetary_amounts": ["$10,000.00"], "dates_times": ["15 January 2024",
                        "2024", "Q1"], "account_numbers": ["ACCT-998877"],
                        "persons": ["Jane Doe"]}) == [
        "money:USD:10000.00", "date:2024-01-15", "id:acct998877"]


def _forms(day: dt.date) -> list[str]:
    """Every way the issue lists of writing one day."""
    month, short = day.strftime("%B"), day.strftime("%b")
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(day.day, "th")
    return [day.isoformat(), f"{day.day} {month} {day.year}",
            f"{month} {day.day}{suffix}, {day.year}", f"{short} {day.day} {day.year}",
            day.strftime("%d/%m/%Y"),
            f"{day.day}.{day.month}.{day.year}", day.strftime("%Y/%m/%d"), day.strftime("%Y%m%d")]


@given(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2099, 12, 31)))
def test_every_written_form_of_a_day_gives_its_key(day: dt.date) -> None:
    assert {date_key(form) for form in _forms(day)} == {f"date:{day.isoformat()}"}, _forms(day)


@pytest.mark.parametrize("day", [dt.date(2024, 6, 1), dt.date(2024, 6, 12),
                                 dt.date(2024, 6, 13), dt.date(2024, 12, 31)])
def test_iso_dates_are_year_month_day_on_both_sides_of_twelve(day: dt.date) -> None:
    """dateutil with dayfirst read 2024-06-01 as 6 January: every ISO day ≤ 12 was wrong."""
    assert date_key(day.isoformat()) == f"date:{day.isoformat()}"
    assert date_key(f"{day.isoformat()}T09:30:00Z") == f"date:{day.isoformat()}"
    assert date_key("2024-13-01") is None and date_key("2024-02-30") is None
