"""Date arithmetic on ISO dates (YYYY-MM-DD)."""

from __future__ import annotations

from datetime import date, timedelta

from ...tools.spec import tool


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _date(text: str) -> date | str:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        return f"{text.strip()[:30]!r} is not a date; write it as YYYY-MM-DD."


@tool
def add_days(start_date: str, days: int) -> str:
    """The calendar date a number of days after (or before, if negative) a date (日期加减).

    Args:
        start_date: date as YYYY-MM-DD
        days: days to add
    """
    start = _date(start_date)
    if isinstance(start, str):
        return start
    try:
        return (start + timedelta(days=days)).isoformat()
    except OverflowError:
        return "That date is out of range."


@tool
def days_between(start_date: str, end_date: str) -> str:
    """How many days lie between two dates (the end date minus the start date) (两个日期相差的天数).

    Args:
        start_date: first date as YYYY-MM-DD
        end_date: second date as YYYY-MM-DD
    """
    start, end = _date(start_date), _date(end_date)
    if isinstance(start, str) or isinstance(end, str):
        return start if isinstance(start, str) else str(end)
    return str((end - start).days)


@tool
def day_of_week(day: str) -> str:
    """The day of the week (Monday to Sunday) a calendar date falls on (星期几).

    Args:
        day: date as YYYY-MM-DD
    """
    found = _date(day)
    return found if isinstance(found, str) else _WEEKDAYS[found.weekday()]


@tool
def is_leap_year(year: int) -> str:
    """Whether a year is a leap year in the Gregorian calendar.

    Args:
        year: the year
    """
    return "yes" if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else "no"


@tool
def days_in_month(year: int, month: int) -> str:
    """How many days a month of a given year has.

    Args:
        year: the year
        month: month number, 1 to 12
    """
    if not 1 <= month <= 12:
        return "month must be 1 to 12"
    following = date(year + (month == 12), month % 12 + 1, 1)
    return str((following - timedelta(days=1)).day)


@tool
def iso_week_number(day: str) -> str:
    """The ISO 8601 week number of a date.

    Args:
        day: date as YYYY-MM-DD
    """
    found = _date(day)
    return found if isinstance(found, str) else str(found.isocalendar()[1])


@tool
def day_of_year(day: str) -> str:
    """The ordinal day of the year of a date (1 for 1 January).

    Args:
        day: date as YYYY-MM-DD
    """
    found = _date(day)
    return found if isinstance(found, str) else str(found.timetuple().tm_yday)
