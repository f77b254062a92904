"""Unit conversions (length, mass, temperature, …) and the invented currencies' exchange."""

from __future__ import annotations

from typing import Literal

from ...tools.spec import tool
from .display import num_text


def _convert(value: float, from_unit: str, to_unit: str, table: dict[str, float], what: str) -> str:
    if from_unit not in table or to_unit not in table:
        return f"Unknown {what} unit; use one of: {', '.join(table)}."
    return f"{num_text(value)} {from_unit} = {num_text(value * table[from_unit] / table[to_unit])} {to_unit}"


_LENGTH = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "yd": 0.9144,
           "mi": 1609.344, "nmi": 1852.0}
_MASS = {"mg": 1e-6, "g": 0.001, "kg": 1.0, "t": 1000.0, "oz": 0.028349523125, "lb": 0.45359237, "st": 6.35029318}
_VOLUME = {"ml": 0.001, "l": 1.0, "m3": 1000.0, "tsp": 0.00492892159375, "tbsp": 0.01478676478125,
           "cup": 0.2365882365, "floz": 0.0295735295625, "pt": 0.473176473, "qt": 0.946352946, "gal": 3.785411784}
_SPEED = {"m/s": 1.0, "km/h": 1 / 3.6, "mph": 0.44704, "knot": 1852 / 3600}
_AREA = {"m2": 1.0, "km2": 1e6, "ha": 1e4, "acre": 4046.8564224, "ft2": 0.09290304, "mi2": 2589988.110336}
_DATA = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 1024, "MiB": 1024 ** 2,
         "GiB": 1024 ** 3, "TiB": 1024 ** 4}
_DURATION = {"s": 1, "min": 60, "h": 3600, "day": 86400, "week": 604800}
_ENERGY = {"J": 1.0, "kJ": 1000.0, "cal": 4.184, "kcal": 4184.0, "Wh": 3600.0, "kWh": 3.6e6}
_PRESSURE = {"Pa": 1.0, "kPa": 1000.0, "bar": 1e5, "psi": 6894.757293168, "atm": 101325.0, "mmHg": 133.322387415}

Length = Literal["mm", "cm", "m", "km", "in", "ft", "yd", "mi", "nmi"]
Mass = Literal["mg", "g", "kg", "t", "oz", "lb", "st"]
Volume = Literal["ml", "l", "m3", "tsp", "tbsp", "cup", "floz", "pt", "qt", "gal"]
Speed = Literal["m/s", "km/h", "mph", "knot"]
Area = Literal["m2", "km2", "ha", "acre", "ft2", "mi2"]
DataUnit = Literal["B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"]
Duration = Literal["s", "min", "h", "day", "week"]
Energy = Literal["J", "kJ", "cal", "kcal", "Wh", "kWh"]
Pressure = Literal["Pa", "kPa", "bar", "psi", "atm", "mmHg"]


@tool
def convert_length(value: float, from_unit: Length, to_unit: Length) -> str:
    """Convert a length or distance between millimetres, centimetres, metres, kilometres, inches, feet, yards,
    miles and nautical miles (长度换算: 公里, 英里).

    Args:
        value: the length to convert
        from_unit: unit of the value (mi is miles, nmi nautical miles)
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _LENGTH, "length")


@tool
def convert_mass(value: float, from_unit: Mass, to_unit: Mass) -> str:
    """Convert a mass or weight between milligrams, grams, kilograms, tonnes, ounces, pounds and stone
    (重量换算: 公斤, 磅).

    Args:
        value: the weight to convert
        from_unit: unit of the value (st is stone, t metric tonne)
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _MASS, "mass")


@tool
def convert_temperature(value: float, from_unit: Literal["C", "F", "K"], to_unit: Literal["C", "F", "K"]) -> str:
    """Convert a temperature between Celsius, Fahrenheit and Kelvin degrees (温度换算: 摄氏度, 华氏度).

    Args:
        value: the temperature
        from_unit: C, F or K
        to_unit: C, F or K
    """
    kelvin = {"C": value + 273.15, "F": (value - 32) * 5 / 9 + 273.15, "K": value}.get(from_unit)
    if kelvin is None or to_unit not in ("C", "F", "K"):
        return "Unknown temperature unit; use C, F or K."
    out = {"C": kelvin - 273.15, "F": (kelvin - 273.15) * 9 / 5 + 32, "K": kelvin}[to_unit]
    return f"{num_text(value)} {from_unit} = {num_text(round(out, 2))} {to_unit}"


@tool
def convert_volume(value: float, from_unit: Volume, to_unit: Volume) -> str:
    """Convert a volume between millilitres, litres, cubic metres, teaspoons, tablespoons, cups, fluid ounces,
    pints, quarts and US gallons.

    Args:
        value: the volume to convert
        from_unit: unit of the value (US customary units)
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _VOLUME, "volume")


@tool
def convert_speed(value: float, from_unit: Speed, to_unit: Speed) -> str:
    """Convert a speed between kilometres per hour, miles per hour, metres per second and knots.

    Args:
        value: the speed to convert
        from_unit: unit of the value
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _SPEED, "speed")


@tool
def convert_area(value: float, from_unit: Area, to_unit: Area) -> str:
    """Convert an area between square metres, square kilometres, hectares, acres, square feet and square miles.

    Args:
        value: the area to convert
        from_unit: unit of the value
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _AREA, "area")


@tool
def convert_data_size(value: float, from_unit: DataUnit, to_unit: DataUnit) -> str:
    """Convert a digital storage size between bytes, kilobytes, megabytes, gigabytes, terabytes and binary
    KiB, MiB, GiB, TiB.

    Args:
        value: the size to convert
        from_unit: unit of the value
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _DATA, "data size")


@tool
def convert_duration(value: float, from_unit: Duration, to_unit: Duration) -> str:
    """Convert a duration between seconds, minutes, hours, days and weeks.

    Args:
        value: the duration to convert
        from_unit: unit of the value
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _DURATION, "time")


@tool
def convert_energy(value: float, from_unit: Energy, to_unit: Energy) -> str:
    """Convert energy between joules, kilojoules, calories, kilocalories, watt-hours and kilowatt-hours.

    Args:
        value: the energy to convert
        from_unit: unit of the value
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _ENERGY, "energy")


@tool
def convert_pressure(value: float, from_unit: Pressure, to_unit: Pressure) -> str:
    """Convert pressure between pascals, kilopascals, bar, psi, atmospheres and millimetres of mercury.

    Args:
        value: the pressure to convert
        from_unit: unit of the value
        to_unit: unit wanted
    """
    return _convert(value, from_unit, to_unit, _PRESSURE, "pressure")


_RATES = {"crown": 1.0, "ducat": 3.75, "florin": 0.62, "mark": 1.9, "talent": 12.4}
"""Invented currencies of the suites' invented world, valued in crowns."""


@tool
def convert_currency(amount: float, from_currency: Literal["crown", "ducat", "florin", "mark", "talent"],
                     to_currency: Literal["crown", "ducat", "florin", "mark", "talent"]) -> str:
    """Convert money between the currencies of Varnholt's region at today's fixed exchange rates (货币兑换).

    Args:
        amount: the sum of money
        from_currency: currency of the amount
        to_currency: currency wanted
    """
    if from_currency not in _RATES or to_currency not in _RATES:
        return f"Unknown currency; use one of: {', '.join(_RATES)}."
    out = round(amount * _RATES[from_currency] / _RATES[to_currency], 2)
    return f"{num_text(amount)} {from_currency} = {num_text(out)} {to_currency}"
