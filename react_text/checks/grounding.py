"""Whether a call's arguments come from the conversation, or from nowhere.

Why: a small model shown a call demo copies it — ``item_price(item="sample
item")`` for a currency question, ``split_bill(total=2.5, people=12)`` for
"Who wrote Pride and Prejudice?". The values give it away: they are in
neither the question nor any result. Such a call gets one correction that
asks for values from the question, or for a plain answer when no tool fits;
a repeat of the call then runs (the loop and the shim give each check once).

The test is lenient where models legitimately write what the text does not
spell the same way: enum members, defaults, booleans and 0 are not checked; a
number may be written in words ("four of us", "三个人") or as a percentage;
a string is reported only when none of its words, digit runs or Chinese
character pairs is in the conversation and it echoes the shown episodes'
arguments (a search query in the model's own words is no copy); long free
text (a message to send) is not checked.
One thing is never lenient: an operand that changes nothing (``12 apples * 1 euro``, ``x / 1``,
``x + 0``) and that the conversation does not hold. A model writes one where a value it was not given
belongs (a price, a rate); the rest of the string being grounded (the 12) does not make it so. An
operand that does change the result (``days + 1``, ``x / 2``, ``* 100``) is the model's own reasoning
and stands.
Credentials (a ``password``, an ``api_key``: the secret field names of
``redaction``) are not checked either: they are not spelled out in a question,
and quoting one back in the correction would write it into the trace and the
console, past the redaction of named fields. A call to a tool that stands for
the final answer (a client's ``final_answer`` tool) carries the model's own
answer and is not checked.

The same goes for the tool itself (``choice_nudge``): a first move that passes over the one tool the
question's words clearly name gets one correction naming that tool and what it does, never a value.

Pure functions over plain data.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any, Iterable, Mapping

import regex

from ..grammar.schema import kind_of
from ..redaction import SECRET_FIELDS, is_secret_field
from ..protocol.names import is_final_name
from ..tools.arguments import empty_value
from ..lexicon.messages import joined, message
from .reading import Nudge
from ..lexicon.cjk import HAN
from ..lexicon.numbers import (EN_NUMBER_WORDS, NUMBER, ZH_NUMERAL, digits_value, en_number_words, scaled_numbers,
                               zh_value)

__all__ = ["check_call", "check_choice", "choice_lead", "choice_nudge", "grounded_numbers", "grounding_nudge",
           "idle_operands", "ungrounded_values"]

_FREE_TEXT_CHARS = 80
_MAX_HELD_NUMBERS = 16
_NUMBER = regex.compile(rf"{NUMBER.pattern}|\.\d+")
_WORD = regex.compile(r"[^\W\d_]{3,}")
_CJK = regex.compile(f"[{HAN}]+")
_DIGITS = regex.compile(r"\d+")
_STOP = frozenset("the and for with from that this what which into per are was".split())
_OPERAND = regex.compile(r"(?<![\d.,])(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?![\d.]|[eE][+-]?\d)")
_UNIT = regex.compile(r"[\s\p{L}]*")
_TIMES, _DIVIDED, _POWER, _PLUS, _MINUS = "*×·", "/÷", "^", "+", "-"
_MULTIPLES = {"half": 0.5, "twice": 2.0, "double": 2.0, "pair": 2.0, "triple": 3.0, "once": 1.0}
"""Words that stand for a value in a call without being number words ("split it in half")."""


def _digit_run(run: str) -> str:
    """A run of digits as ASCII without leading zeros (``007`` and ``٧`` are ``7``), at any length:
    ``int`` refuses strings of more than 4300 digits, and a tool result may hold one."""
    plain = "".join(str(d) if (d := unicodedata.digit(c, None)) is not None else c for c in run)
    return plain.lstrip("0") or "0"


def _as_number(value: int | float) -> float:
    """``value`` as a float; an integer too large for one is infinity of its sign."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _written(value: Any) -> str:
    """A value as the correction quotes it: strings as they are, small integers exactly."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and value.bit_length() <= 64:
        return str(value)
    return format(_as_number(value), "g")


def _numbers(text: str) -> set[float]:
    found = {v for m in _NUMBER.findall(text) if (v := digits_value(m)) is not None}
    found.update(EN_NUMBER_WORDS[w] for w in en_number_words(text))
    found.update(scaled_numbers(text))
    found.update(v for w, v in _MULTIPLES.items() if regex.search(rf"\b{w}\b", text.lower()))
    found.update(zh_value(m) for m in ZH_NUMERAL.findall(text))
    return found


class _Grounds:
    """What the conversation says, read once: its numbers, words, digit runs and text."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.text = "\n".join(t for t in texts if t).casefold()
        self.numbers = _numbers(self.text)
        self.digit_runs = {_digit_run(d) for d in _DIGITS.findall(self.text)}

    def has_number(self, value: float) -> bool:
        candidates = (value, value * 100, value / 100, -value)
        return any(math.isclose(c, n, rel_tol=1e-9, abs_tol=1e-9) for c in candidates for n in self.numbers)

    def has_string(self, value: str) -> bool:
        if any(self.has_number(n) for n in _numbers(value)):
            return True  # "56789 × 4321" for "56,789 × 4,321"
        text = value.casefold()
        words = [w for w in _WORD.findall(text) if w not in _STOP]
        digits = [_digit_run(d) for d in _DIGITS.findall(text)]
        pairs = [run[i:i + 2] if len(run) > 1 else run for run in _CJK.findall(text) for i in range(max(1, len(run) - 1))]
        if not (words or digits or pairs):
            return True  # nothing to look for: punctuation, a symbol
        return (any(w in self.text or (len(w) > 5 and w[:5] in self.text) for w in words)
                or any(d in self.digit_runs for d in digits)
                or any(p in self.text for p in pairs))


def idle_operands(text: str) -> tuple[str, ...]:
    """The operands of ``text`` (an expression) that leave the result unchanged, as written: a 1 that
    multiplies, divides or raises (``x * 1``, ``1 × x``, ``x / 1``, ``x ^ 1``), a 0 that is added or
    subtracted (``x + 0``, ``0 + x``, ``x - 0``). A unit word may follow an operand (``1 euro * 12``)."""
    found = []
    for m in _OPERAND.finditer(text):
        value = digits_value(m.group())
        before = text[:m.start()].rstrip()[-1:] or " "
        after = text[_UNIT.match(text, m.end()).end():][:1] or " "
        if value == 1.0:
            idle = before in _TIMES + _DIVIDED + _POWER or (after in _TIMES and before not in _MINUS + _DIVIDED)
        elif value == 0.0:
            idle = before in _PLUS + _MINUS or (after in _PLUS and before not in _MINUS + _TIMES + _DIVIDED)
        else:
            idle = False
        if idle:
            found.append(m.group())
    return tuple(found)


def _leaves(value: Any, schema: Any, key: str) -> Iterable[tuple[str, Any, Mapping[str, Any]]]:
    """Every scalar argument with the name it goes by (its nearest key) and its property schema
    (empty when the schema does not say); not an empty value under an argument the schema does
    not declare (``empty_value``)."""
    prop = schema if isinstance(schema, Mapping) else {}
    if isinstance(value, Mapping):
        props = prop.get("properties") if isinstance(prop.get("properties"), Mapping) else {}
        for name, item in value.items():
            if props and name not in props and empty_value(item):
                continue
            yield from _leaves(item, props.get(name, {}), str(name))
    elif isinstance(value, (list, tuple)):
        items = prop.get("items", {})
        for item in value:
            yield from _leaves(item, items, key)
    else:
        yield key, value, prop


def _checked(value: Any, prop: Mapping[str, Any]) -> bool:
    """Whether a value is one the conversation should hold (not an enum member, default or flag)."""
    if value is None or isinstance(value, bool) or "enum" in prop or "const" in prop:
        return False
    if isinstance(value, (int, float)) and value == 0:
        return False  # "from rest", "no deposit", "at sea level": a request implies its zeros; no demo value is one
    if "default" in prop and prop["default"] == value:
        return False
    return not (isinstance(value, str) and len(value) > _FREE_TEXT_CHARS)


def ungrounded_values(args: Any, schema: Mapping[str, Any] | None, texts: Iterable[str],
                      examples: Iterable[str] = (), *, secret_fields: frozenset[str] = SECRET_FIELDS) -> tuple[str, ...]:
    """The argument values (as written) that appear nowhere in ``texts`` (the question, the
    results so far); empty when every checked value is grounded.

    A number must be in ``texts``. A string is reported only when it also echoes ``examples``
    (the arguments of the shown episodes): a search query is the model's own wording, and a
    paraphrase ("current balance" for "money in my bank account") is no copy. Values of
    ``secret_fields`` (normalised names, as ``redaction.Redactor.fields``) are never checked nor quoted."""
    grounds = _Grounds(texts)
    shown = _Grounds(examples)
    missing: list[str] = []
    for key, value, prop in _leaves(args, schema or {}, ""):
        if not _checked(value, prop) or is_secret_field(key, secret_fields):
            continue
        if isinstance(value, (int, float)):
            ok = grounds.has_number(_as_number(value))
        else:
            text = str(value)
            number = text.replace(",", "").strip()
            value_of = digits_value(number) if _NUMBER.fullmatch(number) else None
            if value_of is not None:
                ok = grounds.has_number(value_of)
            else:
                ok = grounds.has_string(text) or not shown.has_string(text)
                idle = [n for n in idle_operands(text)
                        if (v := digits_value(n)) is not None and not grounds.has_number(v)]
                if ok and idle:
                    missing.extend(idle)
                    continue
        if not ok:
            missing.append(_written(value))
    return tuple(dict.fromkeys(missing))


def grounded_numbers(schema: Mapping[str, Any] | None, texts: Iterable[str]) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """(argument, the numbers ``texts`` write that it could take) for each required number argument of
    ``schema``, integers only for an ``integer``; an argument is left out when the texts write none of its
    type, or so many that holding it would hold nothing (a result full of figures).

    Why: asked again for a call it wrote with a number from nowhere (``ungrounded_hold``), a small model writes
    the same slip again (``510`` for "5,10 and 15") or the demo call's number; the values a request means are
    among the numbers it writes."""
    props = (schema or {}).get("properties")
    if not isinstance(props, Mapping):
        return ()
    numbers = sorted(n for n in _Grounds(texts).numbers if math.isfinite(n))
    held = []
    for name in (schema or {}).get("required") or ():
        prop = props.get(name)
        kind = kind_of(prop)
        if kind not in ("number", "integer") or "enum" in prop or "const" in prop:
            continue
        fits = tuple(dict.fromkeys(int(n) if n == int(n) else n for n in numbers
                                   if kind == "number" or n == int(n)))
        if fits and len(fits) <= _MAX_HELD_NUMBERS:
            held.append((str(name), fits))
    return tuple(held)


def grounding_nudge(tool: str, missing: tuple[str, ...], lang: str) -> Nudge:
    """The correction for a call whose values come from nowhere, in the prompt's language."""
    values = joined(lang, (message(lang, "value.quoted", value=v) for v in missing[:3]), "values.separator")
    return Nudge("ungrounded", message(lang, "ungrounded", tool=tool, values=values))


def check_call(tool: str, args: Any, schema: Mapping[str, Any] | None, texts: Iterable[str],
               examples: Iterable[str] = (), *, lang: str = "en",
               secret_fields: frozenset[str] = SECRET_FIELDS) -> Nudge | None:
    """The correction a call deserves (``ungrounded_values`` and ``grounding_nudge``), or None.
    A tool that stands for the final answer (``final_answer``) carries the answer itself: never questioned."""
    if is_final_name(tool):
        return None
    missing = ungrounded_values(args, schema, texts, examples, secret_fields=secret_fields)
    return grounding_nudge(tool, missing, lang) if missing else None


def choice_nudge(pick: str, description: str, called: tuple[str, ...], lang: str) -> Nudge:
    """The correction for a first move that passes over the tool the question clearly asks for (``pick``):
    a call to another tool, or an answer with no call. It names the tool and what it does, never a value."""
    what = description.strip().split(". ", 1)[0].rstrip(".")[:120]
    if called:
        return Nudge("tool_choice", message(lang, "tool_choice.other", pick=pick, what=what, other=called[0]))
    return Nudge("tool_choice", message(lang, "tool_choice.answer", pick=pick, what=what))


def check_choice(pick: tuple[str, str] | None, called: tuple[str, ...], lang: str = "en") -> Nudge | None:
    """The correction a first move deserves for the tool it calls (``choice_nudge``), or None: none when
    the question names no tool clearly (``pick`` is None) or the move calls it. ``pick`` is the tool's
    name and description; ``called``, the tools the move calls (none for an answer)."""
    if pick is None or pick[0] in called:
        return None
    return choice_nudge(*pick, called, lang)


def choice_lead(pick: str, lang: str) -> str:
    """The words the model's next thought starts with after ``choice_nudge``: given the correction alone,
    a small model repeats itself; named in its own thought, the tool gets called."""
    return message(lang, "tool_choice.lead", pick=pick)
