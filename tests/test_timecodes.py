import pytest

from staragent.errors import TimeFormatError
from staragent.timecodes import clock_range, format_range, format_time, parse_range, parse_time


@pytest.mark.parametrize(
    "text, seconds",
    [("90", 90.0), ("1:30", 90.0), ("01:02:03", 3723.0), ("0:00:05.5", 5.5), ("12.25", 12.25), (42, 42.0), ("75s", 75.0)],
)
def test_parse_time_accepts_the_documented_forms(text, seconds):
    assert parse_time(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "abc", "1:75", "-5", "1:2:3:4", "12:xx"])
def test_parse_time_rejects_nonsense_with_a_hint(text):
    with pytest.raises(TimeFormatError, match="time"):
        parse_time(text)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("00:12:00-00:12:30", (720.0, 750.0)),
        ("90-120", (90.0, 120.0)),
        ("1:00 – 1:30", (60.0, 90.0)),
        ("1:00 to 2:00", (60.0, 120.0)),
        ("5:00", (300.0, 301.0)),
    ],
)
def test_parse_range(text, expected):
    assert parse_range(text) == pytest.approx(expected)


def test_parse_range_checks_the_video_length():
    assert parse_range("0:50-2:00", duration=60.0) == (50.0, 60.0)  # clipped to the end
    with pytest.raises(TimeFormatError, match="after the video ends"):
        parse_range("5:00-6:00", duration=60.0)
    with pytest.raises(TimeFormatError, match="ends before it starts"):
        parse_range("2:00-1:00")
    with pytest.raises(TimeFormatError, match="empty"):
        parse_range("  ")


def test_formatting_round_trips():
    assert format_time(75.4) == "1:15"
    assert format_time(3725) == "1:02:05"
    assert format_range(5, 65) == "0:05-1:05"
    assert clock_range(61.2, 90.4) == "00:01:01-00:01:31"
    assert parse_range(clock_range(61.0, 90.0)) == (61.0, 90.0)
