"""Look-ups in fixed tables; some tables are invented, so no model can answer from memory."""

from __future__ import annotations

from ...tools.spec import tool
from .display import num_text


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
    return f"{ticker.strip().upper()}: {num_text(found[0])} crowns today; {num_text(found[1])} crowns one year ago"


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
    return f"{sku.strip().casefold()} ({found[0]}): {num_text(found[1])} crowns each"


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
