"""Facets, pure (app/search/facets.py): counts by hand, and the timeline — months and years of
the days versions name, each version once per bucket, in time order, both sides of a month's
edge and of the day-first rule."""

from __future__ import annotations

import pytest

from app.domain.errors import BadRequest
from app.domain.leaves import Leaf
from app.search.facets import TIME_BUCKETS, VersionFacts, check_facets, count_facets


def _version(*days: str, signed: str | None = None) -> VersionFacts:
    leaves = [Leaf("entities.dates_times", "string", d) for d in days]
    if signed:
        leaves.append(Leaf("custom.signed", "date", signed))
    return VersionFacts("txt", None, leaves)


VERSIONS = [
    _version("2024-03-05", "12 March 2024", "31 March 2024", signed="2024-03-31T23:00:00Z"),
    _version("01/04/2024", "March 2024", "5 days"),  # 1 April (day first); no day; no date
    _version("2024-04-01", "2023-12-31", signed="2024-01-01"),
]


def test_the_timeline_counts_versions_per_month_in_time_order() -> None:
    facets = count_facets(["entities.dates_times:month", "entities.dates_times:year"], VERSIONS)
    assert facets["entities.dates_times:month"] == [
        {"value": "2023-12", "count": 1}, {"value": "2024-03", "count": 1},
        {"value": "2024-04", "count": 2}]  # one version naming three March days counts once
    assert facets["entities.dates_times:year"] == [
        {"value": "2023", "count": 1}, {"value": "2024", "count": 3}]


def test_a_metadata_date_makes_a_timeline_too() -> None:
    assert count_facets(["custom.signed:month"], VERSIONS) == {
        "custom.signed:month": [{"value": "2024-01", "count": 1},
                                {"value": "2024-03", "count": 1}]}


def test_a_timeline_keeps_the_latest_buckets() -> None:
    many = [_version(f"{1990 + i // 12}-{i % 12 + 1:02d}-15") for i in range(TIME_BUCKETS + 5)]
    months = count_facets(["entities.dates_times:month"], many)["entities.dates_times:month"]
    assert len(months) == TIME_BUCKETS and months[0]["value"] == "1990-06"


def test_plain_facets_still_count_most_versions_first() -> None:
    facets = count_facets(["entities.dates_times"], VERSIONS)["entities.dates_times"]
    # 01/04/2024 and 2024-04-01 are one day, in two versions; the rest once each, by value
    assert facets[0] == {"value": "01/04/2024", "count": 2}
    assert len(facets) == 7


def _entities(group: str, *values: str) -> VersionFacts:
    return VersionFacts("txt", None, [Leaf(f"entities.{group}", "string", v) for v in values])


def test_an_entity_counts_once_under_its_most_frequent_spelling() -> None:
    """Issue 51: "EUR 24,000.00" 10, "EUR 24,000" 7, "24.000 EUR" 2 was one amount."""
    versions = ([_entities("monetary_amounts", "EUR 24,000.00")] * 10
                + [_entities("monetary_amounts", "EUR 24,000")] * 7
                + [_entities("monetary_amounts", "24.000 EUR", "EUR 24,000.00")] * 2
                + [_entities("monetary_amounts", "EUR 2,400")])
    assert count_facets(["entities.monetary_amounts"], versions) == {
        "entities.monetary_amounts": [{"value": "EUR 24,000.00", "count": 19},
                                      {"value": "EUR 2,400", "count": 1}]}
    companies = [_entities("organizations", "Harbor View Properties LLC"),
                 _entities("organizations", "HARBOR VIEW PROPERTIES, L.L.C."),
                 _entities("organizations", "Harbor View Properties", "Kestrel Holdings Ltd"),
                 _entities("organizations", "Harbor View Properties LLC")]
    assert count_facets(["entities.organizations"], companies)["entities.organizations"] == [
        {"value": "Harbor View Properties LLC", "count": 4},
        {"value": "Kestrel Holdings Ltd", "count": 1}]


@pytest.mark.parametrize("key", ["entities.dates_times:week", "kind:month", "dates:month",
                                 "entities.dates_times:"])
def test_a_bad_timeline_key_is_a_422(key: str) -> None:
    with pytest.raises(BadRequest) as err:
        check_facets([key])
    assert err.value.code == "INVALID_FACET"


def test_timeline_keys_are_accepted() -> None:
    assert check_facets(["entities.dates_times:month", "custom.signed:year"]) == (
        "entities.dates_times:month", "custom.signed:year")
