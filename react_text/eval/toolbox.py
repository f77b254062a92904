"""A box of sixty small deterministic tools, for the ``many_tools`` suite.

Real agents are handed dozens of tools; this box is how the project measures
what that does to a small model and what tool retrieval buys back
(``suites/many_tools/``). Every tool is local and deterministic: unit
conversions, look-ups in fixed tables (some invented, so no model can answer
from memory), string utilities, date arithmetic and number functions. Each
reports bad input as a short message for the model rather than raising.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import unicodedata
from datetime import date, timedelta
from typing import Literal

from ..tools.calculator import calculator, format_number
from ..tools.spec import Tool, tool

__all__ = ["TOOLBOX", "toolbox_tools"]

TOOLBOX = "toolbox"
"""The name a suite task lists (``"tools": ["toolbox"]``) to be offered every tool of the box."""


def _num(value: float) -> str:
    return format_number(round(value, 6))


def _convert(value: float, from_unit: str, to_unit: str, table: dict[str, float], what: str) -> str:
    if from_unit not in table or to_unit not in table:
        return f"Unknown {what} unit; use one of: {', '.join(table)}."
    return f"{_num(value)} {from_unit} = {_num(value * table[from_unit] / table[to_unit])} {to_unit}"


# --- unit conversions ---------------------------------------------------------------------

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
    return f"{_num(value)} {from_unit} = {_num(round(out, 2))} {to_unit}"


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
    return f"{_num(amount)} {from_currency} = {_num(out)} {to_currency}"


# --- look-ups in fixed tables -----------------------------------------------------------

def _lookup(table: dict[str, str], key: str, what: str) -> str:
    found = table.get(" ".join(key.split()).casefold())
    if found is None:
        return f"No {what} found for {key.strip()[:60]!r}. Known: {', '.join(sorted(table))}."
    return found


_ELEMENTS = {"hydrogen": ("H", 1), "helium": ("He", 2), "carbon": ("C", 6), "nitrogen": ("N", 7),
             "oxygen": ("O", 8), "sodium": ("Na", 11), "aluminium": ("Al", 13), "silicon": ("Si", 14),
             "iron": ("Fe", 26), "copper": ("Cu", 29), "zinc": ("Zn", 30), "silver": ("Ag", 47),
             "tin": ("Sn", 50), "gold": ("Au", 79), "mercury": ("Hg", 80), "lead": ("Pb", 82),
             "uranium": ("U", 92)}


@tool
def element_info(element: str) -> str:
    """Chemical element by name or symbol: its symbol and atomic number (periodic table).

    Args:
        element: element name (iron) or symbol (Fe)
    """
    key = element.strip().casefold()
    for name, (symbol, number) in _ELEMENTS.items():
        if key in (name, symbol.casefold()):
            return f"{name.capitalize()}: symbol {symbol}, atomic number {number}"
    return f"No element {element.strip()[:40]!r} in the table. Known: {', '.join(_ELEMENTS)}."


_CAPITALS = {"france": "Paris", "japan": "Tokyo", "kenya": "Nairobi", "peru": "Lima", "norway": "Oslo",
             "canada": "Ottawa", "australia": "Canberra", "egypt": "Cairo", "brazil": "Brasília",
             "india": "New Delhi", "china": "Beijing", "germany": "Berlin"}


@tool
def country_capital(country: str) -> str:
    """The capital city of a country.

    Args:
        country: country name in English
    """
    return _lookup(_CAPITALS, country, "capital")


_CALLING = {"france": "+33", "japan": "+81", "kenya": "+254", "peru": "+51", "norway": "+47", "canada": "+1",
            "australia": "+61", "egypt": "+20", "brazil": "+55", "india": "+91", "china": "+86", "germany": "+49"}


@tool
def country_calling_code(country: str) -> str:
    """The international telephone dialling prefix (calling code) of a country.

    Args:
        country: country name in English
    """
    return _lookup(_CALLING, country, "calling code")


_AIRPORTS = {"vrh": "Varnholt", "kss": "Kessing", "lme": "Lake Emmerlin", "qsz": "Qingshi", "osl": "Oslo",
             "nrt": "Tokyo Narita", "lim": "Lima", "nbo": "Nairobi"}


@tool
def airport_city(code: str) -> str:
    """The city an airport serves, from its three-letter IATA airport code.

    Args:
        code: three-letter airport code such as OSL
    """
    return _lookup(_AIRPORTS, code, "airport")


_TIMEZONES = {"varnholt": "UTC+02:00", "kessing": "UTC+02:00", "lake emmerlin": "UTC+03:00",
              "qingshi": "UTC+08:00", "oslo": "UTC+01:00", "tokyo narita": "UTC+09:00", "tokyo": "UTC+09:00",
              "lima": "UTC-05:00", "nairobi": "UTC+03:00"}


@tool
def city_timezone(city: str) -> str:
    """The standard time zone (UTC offset) of a city.

    Args:
        city: city name
    """
    return _lookup(_TIMEZONES, city, "time zone")


_STOCKS = {"QFR": (412.30, 398.10), "KSR": (18.75, 21.40), "EML": (96.00, 88.25), "YLT": (54.60, 54.60)}
"""Invented tickers: (today's close, close a year ago), in crowns."""


@tool
def stock_price(ticker: str) -> str:
    """Latest closing share price of a company on the Varnholt exchange, and its price one year ago.

    Args:
        ticker: stock ticker symbol such as QFR
    """
    found = _STOCKS.get(ticker.strip().upper())
    if found is None:
        return f"No ticker {ticker.strip()[:20]!r}. Known: {', '.join(_STOCKS)}."
    return f"{ticker.strip().upper()}: {_num(found[0])} crowns today; {_num(found[1])} crowns one year ago"


_PRODUCTS = {"lamp-204": ("desk lamp", 38.5), "kettle-11": ("electric kettle", 24.0),
             "chair-7": ("folding chair", 17.25), "tent-3": ("three-person tent", 129.0),
             "mug-42": ("enamel mug", 6.8)}


@tool
def product_price(sku: str) -> str:
    """Unit price in crowns of a product in the Varnholt hardware shop catalogue, by its SKU code.

    Args:
        sku: product code such as lamp-204
    """
    found = _PRODUCTS.get(sku.strip().casefold())
    if found is None:
        return f"No product {sku.strip()[:30]!r}. Known SKUs: {', '.join(_PRODUCTS)}."
    return f"{sku.strip().casefold()} ({found[0]}): {_num(found[1])} crowns each"


_EXTENSIONS = {"ilse marrow": "4410", "tomas brenn": "4127", "hanna lisovska": "4305", "orla vance": "4532"}


@tool
def staff_phone_extension(name: str) -> str:
    """Internal telephone extension of a person in the Varnholt town hall staff directory.

    Args:
        name: the person's full name
    """
    return _lookup(_EXTENSIONS, name, "extension")


_BOOKS = {"the salt road": "Mira Ostrander", "lanterns over selk": "Jonas Pell",
          "a ledger of tides": "Ana Quist", "the glass orchard": "Pieter Vorn"}


@tool
def book_author(title: str) -> str:
    """Who wrote a book: its author, from the Varnholt library catalogue, by title.

    Args:
        title: the book's title
    """
    return _lookup(_BOOKS, title, "book")


_TRAINS = {"varnholt": "07:42, 09:15, 12:30, 17:05", "kessing": "06:55, 10:20, 14:40, 19:10",
           "selk crossing": "08:03, 13:48"}


@tool
def train_departures(station: str) -> str:
    """Weekday departure times of the Varnholt-Kessing railway from a station.

    Args:
        station: station name
    """
    return _lookup(_TRAINS, station, "timetable")


_POSTCODES = {"vh-1021": "Varnholt Old Town", "vh-1044": "Varnholt Harbour", "ks-2310": "Kessing Centre",
              "qs-8801": "Qingshi"}


@tool
def postal_code_area(postal_code: str) -> str:
    """The district a postal code (zip code) of the region belongs to.

    Args:
        postal_code: code such as VH-1021
    """
    return _lookup(_POSTCODES, postal_code, "postal code")


_COLORS = {"red": "#FF0000", "green": "#008000", "blue": "#0000FF", "teal": "#008080", "orange": "#FFA500",
           "purple": "#800080", "gold": "#FFD700", "navy": "#000080", "salmon": "#FA8072", "olive": "#808000"}


@tool
def color_hex_code(color: str) -> str:
    """The hexadecimal RGB code of a named CSS colour.

    Args:
        color: colour name such as teal
    """
    return _lookup(_COLORS, color, "colour")


_HTTP = {"200": "OK", "201": "Created", "204": "No Content", "301": "Moved Permanently", "302": "Found",
         "304": "Not Modified", "400": "Bad Request", "401": "Unauthorized", "403": "Forbidden",
         "404": "Not Found", "418": "I'm a teapot", "429": "Too Many Requests", "500": "Internal Server Error",
         "502": "Bad Gateway", "503": "Service Unavailable"}


@tool
def http_status_meaning(code: int) -> str:
    """The standard reason phrase of an HTTP response status code.

    Args:
        code: status code such as 404
    """
    return _lookup(_HTTP, str(code), "HTTP status")


_PLANETS = {"mercury": (0, 4879), "venus": (0, 12104), "earth": (1, 12742), "mars": (2, 6779),
            "jupiter": (95, 139820), "saturn": (146, 116460), "uranus": (28, 50724), "neptune": (16, 49244)}


@tool
def planet_facts(planet: str) -> str:
    """Number of known moons and diameter in km of a planet of our solar system.

    Args:
        planet: planet name
    """
    found = _PLANETS.get(planet.strip().casefold())
    if found is None:
        return f"No planet {planet.strip()[:30]!r}. Known: {', '.join(_PLANETS)}."
    return f"{planet.strip().capitalize()}: {found[0]} known moons, diameter {found[1]} km"


_MORSE = {"A": ".-", "B": "-...", "C": "-.-.", "D": "-..", "E": ".", "F": "..-.", "G": "--.", "H": "....",
          "I": "..", "J": ".---", "K": "-.-", "L": ".-..", "M": "--", "N": "-.", "O": "---", "P": ".--.",
          "Q": "--.-", "R": ".-.", "S": "...", "T": "-", "U": "..-", "V": "...-", "W": ".--", "X": "-..-",
          "Y": "-.--", "Z": "--..", "0": "-----", "1": ".----", "2": "..---", "3": "...--", "4": "....-",
          "5": ".....", "6": "-....", "7": "--...", "8": "---..", "9": "----."}


@tool
def morse_encode(text: str) -> str:
    """Encode text as Morse code (letters separated by spaces, words by ' / ').

    Args:
        text: letters and digits to encode
    """
    words = [" ".join(_MORSE[c] for c in word.upper() if c in _MORSE) for word in text.split()]
    return " / ".join(w for w in words if w) or "Nothing to encode: use letters or digits."


@tool
def morse_decode(code: str) -> str:
    """Decode Morse code (dots and dashes, letters separated by spaces, words by '/') into text.

    Args:
        code: Morse code such as '... --- ...'
    """
    back = {v: k for k, v in _MORSE.items()}
    words = []
    for word in code.split("/"):
        letters = [back.get(sym, "?") for sym in word.split()]
        words.append("".join(letters))
    return " ".join(w for w in words if w) or "Nothing to decode."


_ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
          (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


@tool
def int_to_roman(number: int) -> str:
    """Write a whole number from 1 to 3999 as a Roman numeral.

    Args:
        number: the number
    """
    if not 1 <= number <= 3999:
        return "Roman numerals here cover 1 to 3999."
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


@tool
def roman_to_int(numeral: str) -> str:
    """Read a Roman numeral (such as MCMXCIV) as a whole number.

    Args:
        numeral: the Roman numeral
    """
    text = numeral.strip().upper()
    values = dict((letters, value) for value, letters in _ROMAN if len(letters) == 1)
    if not text or any(c not in values for c in text):
        return f"{numeral.strip()[:30]!r} is not a Roman numeral (letters I V X L C D M)."
    total = 0
    for i, c in enumerate(text):
        v = values[c]
        total += -v if i + 1 < len(text) and values[text[i + 1]] > v else v
    return str(total)


# --- text utilities ---------------------------------------------------------------------------

@tool
def reverse_text(text: str) -> str:
    """Reverse a string character by character.

    Args:
        text: the text to reverse
    """
    return text[::-1]


@tool
def count_letter(text: str, letter: str) -> str:
    """Count how many times a letter or character occurs in a text (case-insensitive).

    Args:
        text: the text to look in
        letter: the character to count
    """
    if len(letter) != 1:
        return "Give exactly one character to count."
    return str(text.casefold().count(letter.casefold()))


@tool
def word_count(text: str) -> str:
    """Count the words in a text (字数统计).

    Args:
        text: the text
    """
    return str(len(text.split()))


@tool
def count_vowels(text: str) -> str:
    """Count the vowels (a, e, i, o, u) in a text.

    Args:
        text: the text
    """
    return str(sum(1 for c in text.casefold() if c in "aeiou"))


@tool
def to_uppercase(text: str) -> str:
    """Convert text to capital (upper-case) letters.

    Args:
        text: the text
    """
    return text.upper()


@tool
def title_case(text: str) -> str:
    """Capitalise the first letter of every word of a text.

    Args:
        text: the text
    """
    return " ".join(w[:1].upper() + w[1:].lower() for w in text.split())


@tool
def slugify(text: str) -> str:
    """Turn a title into a URL slug: lower case, ASCII, words joined by hyphens.

    Args:
        text: the title
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@tool
def caesar_cipher(text: str, shift: int) -> str:
    """Shift every letter of a text by a number of places in the alphabet (Caesar cipher, ROT13 with 13).

    Args:
        text: the text to encrypt or decrypt
        shift: places to shift (negative to decrypt)
    """
    def turn(c: str) -> str:
        if "a" <= c <= "z":
            return chr((ord(c) - 97 + shift) % 26 + 97)
        if "A" <= c <= "Z":
            return chr((ord(c) - 65 + shift) % 26 + 65)
        return c

    return "".join(turn(c) for c in text)


@tool
def is_palindrome(text: str) -> str:
    """Check whether a word or phrase reads the same backwards, ignoring case, spaces and punctuation.

    Args:
        text: the word or phrase
    """
    letters = [c for c in text.casefold() if c.isalnum()]
    return "yes" if letters and letters == letters[::-1] else "no"


@tool
def acronym(phrase: str) -> str:
    """The acronym of a phrase: the first letter of each word, in capitals.

    Args:
        phrase: the phrase
    """
    return "".join(w[0].upper() for w in re.findall(r"[^\W\d_]+", phrase))


@tool
def sha256_hash(text: str) -> str:
    """The SHA-256 hash (checksum) of a text, as hexadecimal.

    Args:
        text: the text to hash (UTF-8)
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@tool
def base64_encode(text: str) -> str:
    """Encode text (UTF-8) as Base64.

    Args:
        text: the text to encode
    """
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


@tool
def base64_decode(data: str) -> str:
    """Decode Base64 back into text.

    Args:
        data: the Base64 string
    """
    try:
        return base64.b64decode(data.strip(), validate=True).decode("utf-8")
    except ValueError:
        return "Not valid Base64 text."


# --- dates ---------------------------------------------------------------------------------

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


# --- numbers ---------------------------------------------------------------------------------

@tool
def greatest_common_divisor(a: int, b: int) -> str:
    """The greatest common divisor (GCD, highest common factor) of two whole numbers.

    Args:
        a: first number
        b: second number
    """
    return str(math.gcd(a, b))


@tool
def least_common_multiple(a: int, b: int) -> str:
    """The least common multiple (LCM) of two whole numbers.

    Args:
        a: first number
        b: second number
    """
    return str(math.lcm(a, b))


@tool
def is_prime(n: int) -> str:
    """Whether a whole number is a prime number.

    Args:
        n: the number (up to 10^12)
    """
    if n > 10 ** 12:
        return "too large (limit 10^12)"
    if n < 2:
        return "no"
    return "yes" if all(n % d for d in range(2, math.isqrt(n) + 1)) else "no"


@tool
def prime_factors(n: int) -> str:
    """The prime factorisation of a whole number, smallest factor first.

    Args:
        n: the number (2 to 10^12)
    """
    if not 2 <= n <= 10 ** 12:
        return "give a number from 2 to 10^12"
    factors, d = [], 2
    while d * d <= n:
        while n % d == 0:
            factors.append(d)
            n //= d
        d += 1
    if n > 1:
        factors.append(n)
    return " x ".join(map(str, factors))


@tool
def fibonacci_number(n: int) -> str:
    """The n-th Fibonacci number (F(0) = 0, F(1) = 1).

    Args:
        n: position in the sequence, 0 to 1000
    """
    if not 0 <= n <= 1000:
        return "n must be 0 to 1000"
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return str(a)


@tool
def factorial(n: int) -> str:
    """The factorial n! of a whole number.

    Args:
        n: the number, 0 to 500
    """
    return str(math.factorial(n)) if 0 <= n <= 500 else "n must be 0 to 500"


@tool
def percentage_change(old_value: float, new_value: float) -> str:
    """The percentage increase or decrease from an old value to a new one (增长率).

    Args:
        old_value: the earlier value
        new_value: the later value
    """
    if old_value == 0:
        return "The old value is 0: no percentage change."
    return f"{_num(round((new_value - old_value) / abs(old_value) * 100, 2))}%"


@tool
def compound_interest(principal: float, annual_rate_percent: float, years: int) -> str:
    """Balance of a savings deposit after compound interest, compounded yearly (复利).

    Args:
        principal: the starting amount
        annual_rate_percent: yearly interest rate in percent
        years: number of whole years
    """
    if not 0 <= years <= 1000:
        return "years must be 0 to 1000"
    return _num(round(principal * (1 + annual_rate_percent / 100) ** years, 2))


@tool
def loan_monthly_payment(principal: float, annual_rate_percent: float, months: int) -> str:
    """Monthly repayment of an amortised loan or mortgage.

    Args:
        principal: amount borrowed
        annual_rate_percent: yearly interest rate in percent
        months: number of monthly payments
    """
    if months < 1:
        return "months must be at least 1"
    r = annual_rate_percent / 1200
    payment = principal / months if r == 0 else principal * r / (1 - (1 + r) ** -months)
    return _num(round(payment, 2))


@tool
def body_mass_index(weight_kg: float, height_m: float) -> str:
    """Body mass index (BMI) from weight in kilograms and height in metres.

    Args:
        weight_kg: body weight in kg
        height_m: height in metres
    """
    if height_m <= 0:
        return "height must be positive"
    return _num(round(weight_kg / height_m ** 2, 1))


@tool
def tip_split(bill: float, tip_percent: float, people: int) -> str:
    """Each person's share of a restaurant bill after adding a tip.

    Args:
        bill: the bill before the tip
        tip_percent: tip in percent
        people: how many people share it
    """
    if people < 1:
        return "people must be at least 1"
    return _num(round(bill * (1 + tip_percent / 100) / people, 2))


@tool
def change_number_base(number: str, from_base: int, to_base: int) -> str:
    """Rewrite a whole number from one base to another (binary, octal, decimal, hexadecimal...).

    Args:
        number: the digits, such as ff or 1011
        from_base: base of the number, 2 to 36
        to_base: base wanted, 2 to 36
    """
    if not (2 <= from_base <= 36 and 2 <= to_base <= 36):
        return "bases must be 2 to 36"
    try:
        value = int(number.strip(), from_base)
    except ValueError:
        return f"{number.strip()[:40]!r} is not a number in base {from_base}"
    digits, sign, value = "", "-" if value < 0 else "", abs(value)
    while True:
        value, d = divmod(value, to_base)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[d] + digits
        if not value:
            return sign + digits


def _numbers(values: list[float]) -> list[float] | str:
    return values if values else "Give a non-empty list of numbers."


@tool
def average_of(numbers: list[float]) -> str:
    """The arithmetic mean (average) of a list of numbers.

    Args:
        numbers: the numbers
    """
    found = _numbers(numbers)
    return found if isinstance(found, str) else _num(sum(found) / len(found))


@tool
def median_of(numbers: list[float]) -> str:
    """The median (middle value) of a list of numbers.

    Args:
        numbers: the numbers
    """
    found = _numbers(numbers)
    if isinstance(found, str):
        return found
    ordered, mid = sorted(found), len(found) // 2
    return _num(ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2)


@tool
def standard_deviation(numbers: list[float]) -> str:
    """The population standard deviation of a list of numbers.

    Args:
        numbers: the numbers
    """
    found = _numbers(numbers)
    if isinstance(found, str):
        return found
    mean = sum(found) / len(found)
    return _num(round(math.sqrt(sum((x - mean) ** 2 for x in found) / len(found)), 4))


@tool
def circle_area(radius: float) -> str:
    """Area of a circle from its radius.

    Args:
        radius: the radius
    """
    return _num(round(math.pi * radius ** 2, 4))


@tool
def hypotenuse(a: float, b: float) -> str:
    """Length of the hypotenuse of a right triangle from its two shorter sides (Pythagoras).

    Args:
        a: first side
        b: second side
    """
    return _num(round(math.hypot(a, b), 4))


@tool
def number_to_words(number: int) -> str:
    """Spell a whole number from 0 to 999,999 in English words.

    Args:
        number: the number
    """
    if not 0 <= number <= 999_999:
        return "number must be 0 to 999999"
    ones = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
            "sixteen seventeen eighteen nineteen").split()
    tens = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

    def below_thousand(n: int) -> str:
        words = []
        if n >= 100:
            words += [ones[n // 100], "hundred"]
            n %= 100
        if n >= 20:
            words.append(tens[n // 10] + (f"-{ones[n % 10]}" if n % 10 else ""))
        elif n or not words:
            words.append(ones[n])
        return " ".join(words)

    if number < 1000:
        return below_thousand(number)
    high, low = divmod(number, 1000)
    return below_thousand(high) + " thousand" + (f" {below_thousand(low)}" if low else "")


def toolbox_tools() -> list[Tool]:
    """Every tool of the box, the calculator included, in a fixed order."""
    return [calculator] + [value for value in globals().values()
                           if isinstance(value, Tool) and value is not calculator]

