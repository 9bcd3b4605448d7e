"""Outlook .msg files made by Outlook and Exchange, not by our code (tests/fixtures/email,
README.md there: apache/poi and MSGReader's test files): each carries its date where real
files keep it, and document.date_source says which property that was. The files we build with
extract-msg's writer (tests/msg_files.py) all had a submit time; 21 of 30 real ones had no
document.date before the properties were read themselves (issue 53 item 2)."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from app.domain.errors import ExtractionError
from ingest.extract import extract

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "email"


@pytest.mark.parametrize("name, date, source", [
    # PidTagClientSubmitTime: when the sender sent it (UTC, as MAPI keeps it)
    ("quick.msg", "2007-06-14T09:42:53+00:00", "submitted"),
    ("TxtSampleEmail.msg", "2017-10-23T07:31:27+00:00", "submitted"),
    ("chinese-traditional.msg", "2011-03-29T08:52:48+00:00", "submitted"),
    ("msgClassAppointment.msg", "2017-02-28T18:42:23+00:00", "submitted"),
    # no submit time and no headers: when it arrived (PidTagMessageDeliveryTime)
    ("blank.msg", "2007-07-03T16:34:38+00:00", "delivered"),
    ("keywords.msg", "2020-02-20T13:08:55+00:00", "delivered"),
    ("RtfWithShortRussianString.msg", "2023-10-04T13:28:39+00:00", "delivered"),
    # nothing but the item's creation (PidTagCreationTime): the last resort, with a warning
    ("51873.msg", "2011-10-21T13:39:44+00:00", "created"),
])
def test_a_real_msg_file_carries_its_date_and_where_it_came_from(name: str, date: str,
                                                                  source: str) -> None:
    result = extract("msg", (FIXTURES / name).read_bytes(), name)
    assert (result.extra.get("date"), result.extra.get("date_source")) == (date, source)
    said = [w for w in result.warnings if "document.date is when the item was created" in w]
    assert bool(said) == (source == "created")
    assert f"Date: {date}" in result.blocks[0].text  # the header block a reader sees


def test_a_msg_without_any_time_has_no_date_rather_than_a_made_up_one() -> None:
    name = "ASCII_CP1251_LCID1049.msg"
    result = extract("msg", (FIXTURES / name).read_bytes(), name)
    assert "date" not in result.extra and "date_source" not in result.extra
    assert result.blocks  # its text is still read


def test_a_fuzzers_broken_msg_fails_its_own_job_with_a_code() -> None:
    name = "clusterfuzz-testcase-minimized-POIHSMFFuzzer-4735011465854976.msg"
    with pytest.raises(ExtractionError) as failed:
        extract("msg", (FIXTURES / name).read_bytes(), name)
    assert failed.value.code == "MSG_CORRUPT"


@pytest.mark.parametrize("value, plausible", [
    (datetime.datetime(1970, 12, 31, 23, 59, 59, tzinfo=datetime.UTC), False),
    (datetime.datetime(1971, 1, 1, tzinfo=datetime.UTC), True),
    (datetime.datetime(2200, 12, 31, 23, 59, 59, tzinfo=datetime.UTC), True),
    (datetime.datetime(2201, 1, 1, tzinfo=datetime.UTC), False),
    (datetime.datetime(1601, 1, 1, tzinfo=datetime.UTC), False),  # MAPI's "no date"
    (datetime.datetime(4501, 1, 1, tzinfo=datetime.UTC), False),  # MAPI's "never"
    ("Thu, 14 Jun 2007 09:42:53 +0000", True),  # a header's Date as written
    ("Thu, 31 Dec 1970 09:42:53 +0000", False),
    ("not a date", False),
    (None, False),
])
def test_a_msg_time_is_a_date_only_between_1971_and_2200(value: object,
                                                         plausible: bool) -> None:
    """Both sides of both bounds: MAPI writes "no time" as 1601 or 4501, which must never
    become document.date."""
    from ingest.extract.email import _plausible

    assert _plausible(value) is plausible
