"""What one template render may spend, and the checks that refuse an expensive value before it is built.

Why apart from the sandbox: the budget is plain bookkeeping (counters against
:class:`RenderLimits`, held in a context variable so concurrent renders do not share
one) and size arithmetic over Python values; :mod:`react_text.prompting.sandbox` wires
it into Jinja. Going over a limit raises :class:`LimitExceeded`, which the sandbox
reports as the template's fault.
"""

from __future__ import annotations

import contextvars
import re
import string
import time
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class RenderLimits:
    """What one render may spend. Generous for any real prompt, tiny for a bomb."""

    seconds: float = 2.0
    max_chars: int = 200_000
    """Size of the rendered prompt."""
    max_value_chars: int = 200_000
    """Size of any one string, list or dict the template builds."""
    max_emitted_chars: int = 1_000_000
    """All text emitted anywhere (macros and ``{% set %}`` blocks included)."""
    max_total_chars: int = 20_000_000
    """Everything built during one render, added up (strings by length, containers by items): bounds memory."""
    max_iterations: int = 100_000
    max_calls: int = 20_000
    max_int_bits: int = 4_096


_now = time.monotonic
"""The render clock (a module attribute so a test can make time pass without waiting)."""


class LimitExceeded(Exception):
    """A render went over one of its :class:`RenderLimits`."""


class Budget:
    """What the current render has spent; checked by every hook."""

    __slots__ = ("limits", "deadline", "iterations", "calls", "emitted", "built")

    def __init__(self, limits: RenderLimits):
        self.limits = limits
        self.deadline = _now() + limits.seconds
        self.iterations = 0
        self.calls = 0
        self.emitted = 0
        self.built = 0

    def check_time(self) -> None:
        if _now() > self.deadline:
            raise LimitExceeded(f"rendering took longer than {self.limits.seconds:g} s")

    def iteration(self) -> None:
        self.iterations += 1
        if self.iterations > self.limits.max_iterations:
            raise LimitExceeded(f"more than {self.limits.max_iterations} loop iterations")
        self.check_time()

    def call(self) -> None:
        self.calls += 1
        if self.calls > self.limits.max_calls:
            raise LimitExceeded(f"more than {self.limits.max_calls} calls")
        self.check_time()

    def emit(self, n: int) -> None:
        self.emitted += n
        if self.emitted > self.limits.max_emitted_chars:
            raise LimitExceeded(f"more than {self.limits.max_emitted_chars} characters of output")

    def size(self, n: int, what: str = "value") -> None:
        if n > self.limits.max_value_chars:
            raise LimitExceeded(f"a {what} of {n} items; the limit is {self.limits.max_value_chars}")

    def build(self, n: int) -> None:
        self.built += n
        if self.built > self.limits.max_total_chars:
            raise LimitExceeded(f"more than {self.limits.max_total_chars} characters and items built in all")

    def text_size(self, value: Any, what: str = "string") -> None:
        """Refuse, *before* it is built, a string made from ``value`` (``str``, ``join``, ``tojson``...)."""
        if not isinstance(value, str):
            self.size(text_size(value, self.limits.max_value_chars), what)

    def check_value(self, value: Any) -> Any:
        self.check_time()
        if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
            self.size(len(value))
            self.build(len(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > self.limits.max_int_bits:
                raise LimitExceeded(f"an integer of {value.bit_length()} bits")
        return value


BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("react_text_render_budget", default=None)


def current_budget() -> Budget:
    budget = BUDGET.get()
    if budget is None:  # only reachable if a compiled template is rendered outside render_limited
        budget = Budget(RenderLimits())
    return budget


def text_size(value: Any, cap: int) -> int:
    """About how many characters ``str(value)`` (or a join of it) has, counting no further than past ``cap``.

    ``[a] * n`` holds ``n`` references to one string: cheap to hold, but
    ``join`` or ``str`` would copy ``a`` ``n`` times. Walking the value and
    stopping once the count passes ``cap`` costs at most ``cap`` steps, since
    every item counts at least one character.
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2 + len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + len(item)
            stack.extend(item)
        elif is_int(item):
            total += item.bit_length() // 3 + 2
        else:
            total += 24  # numbers, None, Undefined, namespaces: small when printed
        if total > cap:
            return total
    return total


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_PERCENT_SPEC = re.compile(r"%(\([^)]*\))?[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.?)", re.DOTALL)
REPR_FACTOR = 10
"""``repr``/``ascii`` may write a character as up to ten (``\\U0001f600``)."""


class _FormatSize:
    """The size of a formatted string, added up field by field and refused as soon as it is over the limit.

    A format repeats its fields: ``'%(a)200000s' * 18000`` is a short string
    whose widths are checked one at a time but whose result is 3.6 GB. So each
    field counts its width, its precision and the text of the value it prints,
    and the sum is what is checked, before anything is built. Each value is
    measured no further than the limit, so the check costs at most the limit.
    """

    def __init__(self, fmt: str, budget: Budget):
        self.budget = budget
        self.limit = budget.limits.max_value_chars
        self.total = 0
        self.add(len(fmt))

    def add(self, n: int) -> None:
        self.total += n
        if self.total > self.limit:
            raise LimitExceeded(
                f"format widths, precisions and fields add up to {self.total} characters; the limit is {self.limit}")

    def field(self, value: Any, widths: list[str], conversion: str) -> None:
        for digits in widths:
            if digits == "*":
                raise LimitExceeded("'*' widths are not allowed in templates")
            if digits:
                self.add(int(digits))
        size = text_size(value, self.limit)
        self.add(size * REPR_FACTOR if conversion in ("r", "a") else size)


def check_percent_format(fmt: str, values: Any, budget: Budget) -> None:
    """Refuse ``fmt % values`` whose widths, precisions and printed values add up to more than the limit."""
    size = _FormatSize(fmt, budget)
    positional = values if isinstance(values, tuple) else (values,)
    index = 0
    for key, width, precision, conversion in _PERCENT_SPEC.findall(fmt):
        if conversion == "%":
            continue
        if key:
            value = values.get(key[1:-1], values) if isinstance(values, dict) else values
        else:
            value = positional[index] if index < len(positional) else None
            index += 1
        size.field(value, [width, precision], conversion)


def check_brace_format(fmt: str, resolve: Callable[[str], Any], budget: Budget) -> None:
    """Refuse ``fmt.format(...)`` whose widths and printed values add up to more than the limit.

    ``resolve`` gives the value a field name (``0``, ``name``, ``0.attr[1]``)
    prints, or None when it has none; the caller looks it up as safely as
    the format itself would.
    """
    size = _FormatSize(fmt, budget)
    auto = 0
    for _, field_name, spec, conversion in string.Formatter().parse(fmt):
        if field_name is None:
            continue
        if spec and "{" in spec:
            raise LimitExceeded("nested format fields are not allowed in templates")
        if not field_name or field_name[0] in ".[":
            field_name, auto = f"{auto}{field_name}", auto + 1
        size.field(resolve(field_name), re.findall(r"\d+", spec or ""), conversion or "")


def check_repeat(left: Any, right: Any, budget: Budget) -> None:
    if isinstance(left, (str, bytes, list, tuple)) and is_int(right):
        budget.size(len(left) * max(right, 0))
    elif isinstance(right, (str, bytes, list, tuple)) and is_int(left):
        budget.size(len(right) * max(left, 0))
    elif is_int(left) and is_int(right):
        if left.bit_length() + right.bit_length() > budget.limits.max_int_bits:
            raise LimitExceeded("an integer product too large for a template")


def check_power(base: Any, exponent: Any, budget: Budget) -> None:
    if is_int(base) and is_int(exponent) and exponent > 0 and abs(base) > 1:
        if (base.bit_length() - 1) * exponent > budget.limits.max_int_bits:  # a lower bound on the result's size
            raise LimitExceeded("a power too large for a template")


def check_call(obj: Any, args: tuple[Any, ...], budget: Budget) -> None:
    """Pre-checks for the str methods whose result size is a product of their inputs."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in ("center", "ljust", "rjust", "zfill") and args and is_int(args[0]):
        budget.size(args[0], "padded string")
    elif name == "expandtabs":
        tab = args[0] if args and is_int(args[0]) else 8
        budget.size(len(owner) + owner.count("\t") * max(tab, 0), "string")
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1], budget)
    elif name == "join" and args:
        budget.text_size(args[0] if not isinstance(args[0], str) else [args[0]])
        budget.size(len(owner) * (len(args[0]) if hasattr(args[0], "__len__") else 1), "string")
    elif name in ("format", "format_map"):
        budget.text_size([owner, list(args)])
    elif name == "translate" and args and isinstance(args[0], dict):
        longest = max((len(v) for v in args[0].values() if isinstance(v, str)), default=1)
        budget.size(len(owner) * max(longest, 1), "string")


def _check_replace(value: Any, old: Any, new: Any, budget: Budget) -> None:
    text = str(value)
    old_s, new_s = str(old), str(new)
    if len(new_s) > len(old_s):
        hits = len(text) + 1 if not old_s else text.count(old_s)
        budget.size(len(text) + hits * (len(new_s) - len(old_s)), "string")


FILTER_WORK_FACTOR = 5
"""A filter may work through at most this many times ``max_value_chars`` of input (counted as text)."""


def filter_precheck(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], budget: Budget) -> None:
    value = args[0] if args else None
    params = list(args[1:]) + list(kwargs.values())
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        # Filters that stringify (join, string, tojson, upper...) would build this text, and
        # per-item ones (unique, sort, map) do work in proportion to it.
        limit = budget.limits.max_value_chars * (1 if name in _STRINGIFYING else FILTER_WORK_FACTOR)
        size = text_size(value, limit)
        if size > limit:
            raise LimitExceeded(f"the {name!r} filter over a value of more than {limit} characters")
    if name == "sum":
        start = args[2] if len(args) > 2 else kwargs.get("start", 0)
        if not isinstance(start, (int, float)) or isinstance(start, bool):
            raise LimitExceeded("sum only adds numbers in templates (start= must be a number)")
    if name == "format" and isinstance(value, str):
        check_percent_format(value, dict(kwargs) if kwargs else tuple(args[1:]), budget)
    elif name == "replace" and len(args) >= 3:
        _check_replace(value, args[1], args[2], budget)
    elif name == "indent":
        width = args[1] if len(args) > 1 else kwargs.get("width", 4)
        per_line = len(width) if isinstance(width, str) else (width if is_int(width) else 0)
        text = str(value)
        budget.size(len(text) + (text.count("\n") + 1) * max(per_line, 0), "string")
    elif name == "center":
        width = args[1] if len(args) > 1 else kwargs.get("width", 80)
        if is_int(width):
            budget.size(width, "padded string")
    for param in params:  # counts (slice, batch, wordwrap widths...) beyond any sane prompt
        if is_int(param) and abs(param) > budget.limits.max_value_chars:
            budget.size(abs(param), "filter argument")


_STRINGIFYING = frozenset({
    "join", "string", "tojson", "pprint", "format", "upper", "lower", "title", "capitalize", "trim", "striptags",
    "truncate", "wordcount", "wordwrap", "center", "indent", "replace", "escape", "e", "forceescape", "safe",
    "urlencode", "urlize", "xmlattr",
})
"""Filters that turn a container into one string (whose size is that of the container's text)."""
