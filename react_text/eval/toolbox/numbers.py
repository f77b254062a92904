"""Number functions: divisors and primes, sequences, money, statistics, geometry, bases and words."""

from __future__ import annotations

import math

from ...tools.spec import tool
from .display import num_text


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
    return f"{num_text(round((new_value - old_value) / abs(old_value) * 100, 2))}%"


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
    return num_text(round(principal * (1 + annual_rate_percent / 100) ** years, 2))


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
    return num_text(round(payment, 2))


@tool
def body_mass_index(weight_kg: float, height_m: float) -> str:
    """Body mass index (BMI) from weight in kilograms and height in metres.

    Args:
        weight_kg: body weight in kg
        height_m: height in metres
    """
    if height_m <= 0:
        return "height must be positive"
    return num_text(round(weight_kg / height_m ** 2, 1))


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
    return num_text(round(bill * (1 + tip_percent / 100) / people, 2))


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
    return found if isinstance(found, str) else num_text(sum(found) / len(found))


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
    return num_text(ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2)


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
    return num_text(round(math.sqrt(sum((x - mean) ** 2 for x in found) / len(found)), 4))


@tool
def circle_area(radius: float) -> str:
    """Area of a circle from its radius.

    Args:
        radius: the radius
    """
    return num_text(round(math.pi * radius ** 2, 4))


@tool
def hypotenuse(a: float, b: float) -> str:
    """Length of the hypotenuse of a right triangle from its two shorter sides (Pythagoras).

    Args:
        a: first side
        b: second side
    """
    return num_text(round(math.hypot(a, b), 4))


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
