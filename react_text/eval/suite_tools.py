"""The tools of the ``tools`` suite: fourteen tools react-text's own episodes never use.

Why: a prompt tuned on the built-in calculator and search can look good while
the model fails on anybody else's tools. These are declared as JSON schemas
(as an OpenAI client would send them), with enums, optional arguments, arrays
and nested objects, and implemented over fixed tables so every answer is
deterministic and offline. ``SUITE_TOOLS`` maps name → ``Tool``.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, Callable

from ..tools.spec import Tool, tool_from_schema

__all__ = ["SUITE_TOOLS", "suite_tools"]

_UNITS = {  # unit -> (dimension, factor to the base unit)
    "km": ("length", 1000.0), "m": ("length", 1.0), "mi": ("length", 1609.344), "ft": ("length", 0.3048),
    "kg": ("mass", 1.0), "g": ("mass", 0.001), "lb": ("mass", 0.45359237),
    "l": ("volume", 1.0), "gal": ("volume", 3.785411784),
}
_RATES = {"EUR": 1.0, "USD": 1.09, "GBP": 0.86, "JPY": 162.0, "CNY": 7.8, "CHF": 0.95}
"""Units of each currency per euro (a fixed table, not market rates)."""
_STOCK = {
    ("blue mug", "north"): 140, ("blue mug", "south"): 62,
    ("desk lamp", "north"): 18, ("desk lamp", "south"): 45,
    ("notebook", "north"): 920, ("notebook", "south"): 385,
    ("stapler", "north"): 0, ("stapler", "south"): 27,
}
_PRICES = {"blue mug": 8.5, "desk lamp": 34.0, "notebook": 2.75, "stapler": 11.2}
_ROOMS = {"aster": 6, "birch": 12, "cedar": 30}
_BOOKED = {("cedar", "2031-03-14"), ("birch", "2031-03-14"), ("aster", "2031-03-15")}
_TRAINS = {  # (from, to) -> departures and minutes per trip
    ("Halden", "Morrow"): (("06:40", "08:15", "09:50", "12:05", "17:30"), 74),
    ("Morrow", "Halden"): (("07:10", "10:20", "13:45", "18:00"), 74),
    ("Halden", "Pike"): (("07:55", "11:35", "16:10"), 118),
}
_ZONES = {"UTC": 0, "Lisbon": 0, "Berlin": 1, "Dubai": 4, "Shanghai": 8, "Tokyo": 9, "New York": -5}
_SHIP_ZONE = {"domestic": 4.0, "europe": 9.0, "world": 21.0}


class SuiteToolError(ValueError):
    """A call the tool cannot serve; the loop shows the model its message as a tool error."""


def _number(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def _convert_units(value: float, from_unit: str, to_unit: str) -> str:
    a, b = _UNITS.get(from_unit), _UNITS.get(to_unit)
    if a is None or b is None:
        raise SuiteToolError(f"unknown unit; known: {', '.join(_UNITS)}")
    if a[0] != b[0]:
        raise SuiteToolError(f"cannot convert {a[0]} ({from_unit}) to {b[0]} ({to_unit})")
    return f"{_number(value)} {from_unit} = {_number(value * a[1] / b[1])} {to_unit}"


def _convert_currency(amount: float, source: str, target: str) -> str:
    if source not in _RATES or target not in _RATES:
        raise SuiteToolError(f"unknown currency; known: {', '.join(_RATES)}")
    return f"{_number(amount)} {source} = {_number(amount / _RATES[source] * _RATES[target])} {target}"


def _day(text: str) -> date:
    try:
        return date.fromisoformat(str(text).strip())
    except ValueError:
        raise SuiteToolError(f"dates are written YYYY-MM-DD, got {text!r}") from None


def _days_between(start: str, end: str) -> str:
    return f"{(_day(end) - _day(start)).days} days from {start} to {end}"


def _add_days(day: str, days: int) -> str:
    result = _day(day) + timedelta(days=int(days))
    return f"{result.isoformat()} ({result.strftime('%A')})"


def _weekday(day: str) -> str:
    return _day(day).strftime("%A")


def _stock_level(item: str, warehouse: str = "north") -> str:
    key = (item.strip().lower(), warehouse)
    if key not in _STOCK:
        raise SuiteToolError(f"no item {item!r}; items: {', '.join(sorted(_PRICES))}")
    return f"{_STOCK[key]} units of {key[0]} in the {warehouse} warehouse"


def _item_price(item: str, quantity: int = 1) -> str:
    name = item.strip().lower()
    if name not in _PRICES:
        raise SuiteToolError(f"no item {item!r}; items: {', '.join(sorted(_PRICES))}")
    return f"{quantity} x {name} = {_number(_PRICES[name] * quantity)} EUR"


def _room_availability(room: str, day: str) -> str:
    _day(day)
    if room not in _ROOMS:
        raise SuiteToolError(f"no room {room!r}; rooms: {', '.join(_ROOMS)}")
    state = "booked" if (room, day) in _BOOKED else "free"
    return f"{room} ({_ROOMS[room]} seats) is {state} on {day}"


def _book_room(room: str, day: str, attendees: int, equipment: list | None = None) -> str:
    if room not in _ROOMS:
        raise SuiteToolError(f"no room {room!r}; rooms: {', '.join(_ROOMS)}")
    _day(day)
    if attendees > _ROOMS[room]:
        raise SuiteToolError(f"{room} has {_ROOMS[room]} seats, not enough for {attendees}")
    if (room, day) in _BOOKED:
        return f"{room} is already booked on {day}"
    extra = f" with {', '.join(equipment)}" if equipment else ""
    code = f"BK-{room[:2].upper()}{day.replace('-', '')[4:]}-{attendees:02d}"
    return f"booked {room} on {day} for {attendees} people{extra}; confirmation {code}"


def _next_train(origin: str, destination: str, after: str = "00:00") -> str:
    entry = _TRAINS.get((origin.strip().title(), destination.strip().title()))
    if entry is None:
        raise SuiteToolError(f"no line from {origin} to {destination}")
    times, minutes = entry
    later = [t for t in times if t >= after.strip()]
    if not later:
        return f"no more trains from {origin} to {destination} after {after} today"
    return f"next train {origin} to {destination} after {after}: {later[0]}, {minutes} minutes"


def _convert_time(time: str, from_zone: str, to_zone: str) -> str:
    try:
        hours, minutes = (int(x) for x in time.strip().split(":"))
    except ValueError:
        raise SuiteToolError(f"times are written HH:MM, got {time!r}") from None
    total = (hours * 60 + minutes + (_ZONES[to_zone] - _ZONES[from_zone]) * 60) % (24 * 60)
    return f"{time} in {from_zone} is {total // 60:02d}:{total % 60:02d} in {to_zone}"


def _shipping_cost(parcel: dict, zone: str, express: bool = False) -> str:
    weight = float(parcel["weight_kg"])
    size = parcel.get("size_cm") or {}
    volume = float(size.get("length", 0)) * float(size.get("width", 0)) * float(size.get("height", 0))
    billed = max(weight, volume / 5000)
    cost = _SHIP_ZONE[zone] + 1.5 * billed
    if express:
        cost *= 1.6
    return f"shipping {_number(billed)} kg (billed) to {zone}: {_number(cost)} EUR"


def _split_bill(total: float, people: int, tip_percent: float = 0) -> str:
    if people < 1:
        raise SuiteToolError("people must be at least 1")
    each = total * (1 + tip_percent / 100) / people
    return f"{_number(each)} each"


def _bmi(weight_kg: float, height_cm: float) -> str:
    return f"BMI {_number(weight_kg / (height_cm / 100) ** 2)}"


_DATE = {"type": "string", "description": "a date, YYYY-MM-DD"}

_SCHEMAS: list[tuple[dict[str, Any], Callable[..., str]]] = [
    ({"name": "convert_units", "description": "Convert a quantity between units of length, mass or volume.",
      "parameters": {"type": "object", "properties": {
          "value": {"type": "number"},
          "from_unit": {"type": "string", "enum": list(_UNITS)},
          "to_unit": {"type": "string", "enum": list(_UNITS)}},
          "required": ["value", "from_unit", "to_unit"]}},
     _convert_units),
    ({"name": "convert_currency", "description": "Convert an amount of money from one currency to another at the shop's fixed rates.",
      "parameters": {"type": "object", "properties": {
          "amount": {"type": "number"},
          "source": {"type": "string", "enum": list(_RATES), "description": "currency of the amount"},
          "target": {"type": "string", "enum": list(_RATES), "description": "currency wanted"}},
          "required": ["amount", "source", "target"]}},
     _convert_currency),
    ({"name": "days_between", "description": "Count the days from one date to another.",
      "parameters": {"type": "object", "properties": {"start": _DATE, "end": _DATE}, "required": ["start", "end"]}},
     _days_between),
    ({"name": "add_days", "description": "The date a number of days after (or before, if negative) a given date, with its weekday.",
      "parameters": {"type": "object", "properties": {"day": _DATE, "days": {"type": "integer"}}, "required": ["day", "days"]}},
     _add_days),
    ({"name": "weekday", "description": "The day of the week of a date.",
      "parameters": {"type": "object", "properties": {"day": _DATE}, "required": ["day"]}},
     _weekday),
    ({"name": "stock_level", "description": "How many units of an item a warehouse holds.",
      "parameters": {"type": "object", "properties": {
          "item": {"type": "string", "description": "item name, e.g. notebook"},
          "warehouse": {"type": "string", "enum": ["north", "south"], "default": "north"}},
          "required": ["item"]}},
     _stock_level),
    ({"name": "item_price", "description": "The shop price in euros of a quantity of an item.",
      "parameters": {"type": "object", "properties": {
          "item": {"type": "string"}, "quantity": {"type": "integer", "default": 1}},
          "required": ["item"]}},
     _item_price),
    ({"name": "room_availability", "description": "Whether a meeting room is free on a date.",
      "parameters": {"type": "object", "properties": {
          "room": {"type": "string", "enum": list(_ROOMS)}, "day": _DATE}, "required": ["room", "day"]}},
     _room_availability),
    ({"name": "book_room", "description": "Book a meeting room for a day.",
      "parameters": {"type": "object", "properties": {
          "room": {"type": "string", "enum": list(_ROOMS)}, "day": _DATE,
          "attendees": {"type": "integer"},
          "equipment": {"type": "array", "items": {"type": "string", "enum": ["projector", "whiteboard", "phone"]}}},
          "required": ["room", "day", "attendees"]}},
     _book_room),
    ({"name": "next_train", "description": "The next train between two stations after a time of day, and how long it takes.",
      "parameters": {"type": "object", "properties": {
          "origin": {"type": "string"}, "destination": {"type": "string"},
          "after": {"type": "string", "description": "HH:MM, 24-hour clock", "default": "00:00"}},
          "required": ["origin", "destination"]}},
     _next_train),
    ({"name": "convert_time", "description": "Convert a clock time from one time zone to another.",
      "parameters": {"type": "object", "properties": {
          "time": {"type": "string", "description": "HH:MM"},
          "from_zone": {"type": "string", "enum": list(_ZONES)},
          "to_zone": {"type": "string", "enum": list(_ZONES)}},
          "required": ["time", "from_zone", "to_zone"]}},
     _convert_time),
    ({"name": "shipping_cost", "description": "The cost in euros of shipping a parcel.",
      "parameters": {"type": "object", "properties": {
          "parcel": {"type": "object", "properties": {
              "weight_kg": {"type": "number"},
              "size_cm": {"type": "object", "properties": {
                  "length": {"type": "number"}, "width": {"type": "number"}, "height": {"type": "number"}}}},
              "required": ["weight_kg"]},
          "zone": {"type": "string", "enum": list(_SHIP_ZONE)},
          "express": {"type": "boolean", "default": False}},
          "required": ["parcel", "zone"]}},
     _shipping_cost),
    ({"name": "split_bill", "description": "Split a bill evenly, optionally adding a tip.",
      "parameters": {"type": "object", "properties": {
          "total": {"type": "number"}, "people": {"type": "integer"},
          "tip_percent": {"type": "number", "default": 0}},
          "required": ["total", "people"]}},
     _split_bill),
    ({"name": "bmi", "description": "Body mass index from weight and height.",
      "parameters": {"type": "object", "properties": {
          "weight_kg": {"type": "number"}, "height_cm": {"type": "number"}}, "required": ["weight_kg", "height_cm"]}},
     _bmi),
]


SUITE_TOOLS: dict[str, Tool] = {
    schema["name"]: tool_from_schema(schema, fn, timeout=5.0) for schema, fn in _SCHEMAS
}


def suite_tools(names: list[str] | tuple[str, ...]) -> list[Tool]:
    """The suite tools with these names, in that order (unknown names are skipped)."""
    return [SUITE_TOOLS[n] for n in names if n in SUITE_TOOLS]
