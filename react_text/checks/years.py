"""A date passed with the request's month and day but another year gets the request's year (the ``years`` check).

Why: a small model copying "June 17, 1915" into a date argument writes "2015-06-17": the month and the day come
across, the year drifts toward the years it has seen most. The request wrote one date, and the value is that date
in every part but the year, so the year is a slip, not a reading.

So when the request writes a single full date (a month by name, "June 17, 1915", "17th June 1915", "Jun.
17 1915"; or "1915-06-17"; or "1915年6月17日"), a string argument whose only numbers are a year of 4 digits and that
date's month and day, in either order, and whose year is another, gets the request's year in its
place; the rest of the value is left as the model wrote it. Not when the request speaks of years apart from its
date ("a year before June 17, 2025", 明年), where another year may be the reading, nor when an argument of the call
already passes the request's date. Pure functions over plain data.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import regex

from ..lexicon.en import MONTHS
from .reading import Calls

__all__ = ["with_request_years"]

_MONTH = "|".join(sorted({*MONTHS, *(m[:3] for m in MONTHS), "sept"}, key=len, reverse=True))
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATES = (
    regex.compile(rf"\b(?P<month>{_MONTH})\.?\s*{_DAY},?\s+{_YEAR}\b", regex.IGNORECASE),
    regex.compile(rf"\b{_DAY}(?:\s+of)?\s+(?P<month>{_MONTH})\.?,?\s+{_YEAR}\b", regex.IGNORECASE),
    regex.compile(rf"\b{_YEAR}-(?P<month>\d{{1,2}})-(?P<day>\d{{1,2}})\b"),
    regex.compile(r"(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号]"),
)
_PARTS = regex.compile(r"(?<!\d)\d{1,4}(?!\d)")
_YEARS_APART = regex.compile(r"\byears?\b|明年|去年|前年|后年|年前|年后|年以前|年以后", regex.IGNORECASE)


def with_request_years(calls: Sequence[tuple[str, Mapping[str, Any]]], schemas: Mapping[str, Any],
                       request: str) -> Calls:
    """``calls`` with each date argument that is the request's one date but for its year given that year (the
    module's docstring says when). ``schemas`` is unused: the values say which arguments are dates."""
    dates = _request_dates(request)
    out = tuple((name, dict(args)) for name, args in calls)
    if len(dates) != 1 or _YEARS_APART.search(request):
        return out
    year, month, day = next(iter(dates))
    for _, args in out:
        found = {key: at for key, value in args.items() if (at := _year_of(value, month, day)) is not None}
        if any(int(at[0]) == year for at in found.values()):
            continue  # the call passes the request's date already: another year in it is meant
        for key, at in found.items():
            args[key] = args[key][:at.start()] + str(year) + args[key][at.end():]
    return out


def _request_dates(request: str) -> set[tuple[int, int, int]]:
    found = set()
    for pattern in _DATES:
        for m in pattern.finditer(request):
            month = m["month"] if m["month"].isdigit() else str(_month_number(m["month"]))
            if 1 <= int(month) <= 12 and 1 <= int(m["day"]) <= 31:
                found.add((int(m["year"]), int(month), int(m["day"])))
    return found


def _month_number(name: str) -> int:
    return next(i for i, month in enumerate(MONTHS, 1) if month.startswith(name.lower()[:3]))


def _year_of(value: Any, month: int, day: int) -> regex.Match | None:
    """Where ``value`` writes its year, when it is a string whose only numbers are a year of 4 digits, ``month`` and
    ``day``."""
    if not isinstance(value, str):
        return None
    parts = list(_PARTS.finditer(value))
    years = [p for p in parts if len(p[0]) == 4]
    others = sorted(int(p[0]) for p in parts if len(p[0]) < 4)
    return years[0] if len(parts) == 3 and len(years) == 1 and others == sorted((month, day)) else None
