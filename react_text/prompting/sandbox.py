"""Running untrusted Jinja safely: an immutable sandbox that also stops expensive templates.

Jinja's own sandbox stops a template from reaching Python internals, but not from
spending: ``{% for i in range(10**9) %}``, ``"x" * 10**9`` or a macro calling
itself render for ever or fill the memory. Here every loop iteration, call,
operator, filter and emitted chunk is charged against a :class:`RenderLimits`
budget held in a context variable (so concurrent renders do not share one),
and anything whose result size is a product of its inputs is checked *before*
it runs. Loops, output and ``~`` are routed through the budget by rewriting the
template's syntax tree at compile time, so no Jinja internals are patched.

A failure becomes a :class:`SandboxError` holding a reason written for the
template's author and the template line it happened on; callers add the file
name and their own error type. What a template may see (filters, globals) is
the caller's business: this module knows nothing about prompts.
"""

from __future__ import annotations

import contextvars
import functools
import re
import string
import time
import types
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

from jinja2 import StrictUndefined, TemplateSyntaxError, nodes
from jinja2.exceptions import SecurityError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

__all__ = ["GuardedEnvironment", "RenderLimits", "SandboxError", "compile_template", "render_limited"]


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


class SandboxError(Exception):
    """A template could not be compiled or rendered; ``reason`` and ``line`` say why and where.

    It carries no file name: the caller knows which file it handed over and
    wraps this in its own error type.
    """

    def __init__(self, reason: str, line: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line


# --- the budget ----------------------------------------------------------------------

_now = time.monotonic
"""The render clock (a module attribute so a test can make time pass without waiting)."""


class _LimitExceeded(Exception):
    """A render went over one of its :class:`RenderLimits`."""


class _Budget:
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
            raise _LimitExceeded(f"rendering took longer than {self.limits.seconds:g} s")

    def iteration(self) -> None:
        self.iterations += 1
        if self.iterations > self.limits.max_iterations:
            raise _LimitExceeded(f"more than {self.limits.max_iterations} loop iterations")
        self.check_time()

    def call(self) -> None:
        self.calls += 1
        if self.calls > self.limits.max_calls:
            raise _LimitExceeded(f"more than {self.limits.max_calls} calls")
        self.check_time()

    def emit(self, n: int) -> None:
        self.emitted += n
        if self.emitted > self.limits.max_emitted_chars:
            raise _LimitExceeded(f"more than {self.limits.max_emitted_chars} characters of output")

    def size(self, n: int, what: str = "value") -> None:
        if n > self.limits.max_value_chars:
            raise _LimitExceeded(f"a {what} of {n} items; the limit is {self.limits.max_value_chars}")

    def build(self, n: int) -> None:
        self.built += n
        if self.built > self.limits.max_total_chars:
            raise _LimitExceeded(f"more than {self.limits.max_total_chars} characters and items built in all")

    def text_size(self, value: Any, what: str = "string") -> None:
        """Refuse, *before* it is built, a string made from ``value`` (``str``, ``join``, ``tojson``...)."""
        if not isinstance(value, str):
            self.size(_text_size(value, self.limits.max_value_chars), what)

    def check_value(self, value: Any) -> Any:
        self.check_time()
        if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
            self.size(len(value))
            self.build(len(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > self.limits.max_int_bits:
                raise _LimitExceeded(f"an integer of {value.bit_length()} bits")
        return value


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("react_text_render_budget", default=None)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    if budget is None:  # only reachable if a compiled template is rendered outside render_limited
        budget = _Budget(RenderLimits())
    return budget


def _text_size(value: Any, cap: int) -> int:
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
        elif _is_int(item):
            total += item.bit_length() // 3 + 2
        else:
            total += 24  # numbers, None, Undefined, namespaces: small when printed
        if total > cap:
            return total
    return total


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_percent_format(fmt: str, budget: _Budget) -> None:
    for width, precision in _PERCENT_SPEC.findall(fmt):
        for part in (width, precision):
            if part == "*":
                raise _LimitExceeded("'*' widths are not allowed in templates")
            if part and int(part) > budget.limits.max_value_chars:
                budget.size(int(part), "format width")


def _check_brace_format(fmt: str, budget: _Budget) -> None:
    for _, field_name, spec, _ in string.Formatter().parse(fmt):
        if field_name is None or not spec:
            continue
        if "{" in spec:
            raise _LimitExceeded("nested format fields are not allowed in templates")
        for digits in re.findall(r"\d+", spec):
            budget.size(int(digits), "format width")


def _check_repeat(left: Any, right: Any, budget: _Budget) -> None:
    if isinstance(left, (str, bytes, list, tuple)) and _is_int(right):
        budget.size(len(left) * max(right, 0))
    elif isinstance(right, (str, bytes, list, tuple)) and _is_int(left):
        budget.size(len(right) * max(left, 0))
    elif _is_int(left) and _is_int(right):
        if left.bit_length() + right.bit_length() > budget.limits.max_int_bits:
            raise _LimitExceeded("an integer product too large for a template")


def _check_power(base: Any, exponent: Any, budget: _Budget) -> None:
    if _is_int(base) and _is_int(exponent) and exponent > 0 and abs(base) > 1:
        if (base.bit_length() - 1) * exponent > budget.limits.max_int_bits:  # a lower bound on the result's size
            raise _LimitExceeded("a power too large for a template")


def _check_call(obj: Any, args: tuple[Any, ...], budget: _Budget) -> None:
    """Pre-checks for the str methods whose result size is a product of their inputs."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in ("center", "ljust", "rjust", "zfill") and args and _is_int(args[0]):
        budget.size(args[0], "padded string")
    elif name == "expandtabs":
        tab = args[0] if args and _is_int(args[0]) else 8
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


def _check_replace(value: Any, old: Any, new: Any, budget: _Budget) -> None:
    text = str(value)
    old_s, new_s = str(old), str(new)
    if len(new_s) > len(old_s):
        hits = len(text) + 1 if not old_s else text.count(old_s)
        budget.size(len(text) + hits * (len(new_s) - len(old_s)), "string")


_FILTER_WORK_FACTOR = 5
"""A filter may work through at most this many times ``max_value_chars`` of input (counted as text)."""


def _filter_precheck(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], budget: _Budget) -> None:
    value = args[0] if args else None
    params = list(args[1:]) + list(kwargs.values())
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        # Filters that stringify (join, string, tojson, upper...) would build this text, and
        # per-item ones (unique, sort, map) do work in proportion to it.
        limit = budget.limits.max_value_chars * (1 if name in _STRINGIFYING else _FILTER_WORK_FACTOR)
        size = _text_size(value, limit)
        if size > limit:
            raise _LimitExceeded(f"the {name!r} filter over a value of more than {limit} characters")
    if name == "sum":
        start = args[2] if len(args) > 2 else kwargs.get("start", 0)
        if not isinstance(start, (int, float)) or isinstance(start, bool):
            raise _LimitExceeded("sum only adds numbers in templates (start= must be a number)")
    if name == "format" and isinstance(value, str):
        _check_percent_format(value, budget)
    elif name == "replace" and len(args) >= 3:
        _check_replace(value, args[1], args[2], budget)
    elif name == "indent":
        width = args[1] if len(args) > 1 else kwargs.get("width", 4)
        per_line = len(width) if isinstance(width, str) else (width if _is_int(width) else 0)
        text = str(value)
        budget.size(len(text) + (text.count("\n") + 1) * max(per_line, 0), "string")
    elif name == "center":
        width = args[1] if len(args) > 1 else kwargs.get("width", 80)
        if _is_int(width):
            budget.size(width, "padded string")
    for param in params:  # counts (slice, batch, wordwrap widths...) beyond any sane prompt
        if _is_int(param) and abs(param) > budget.limits.max_value_chars:
            budget.size(abs(param), "filter argument")


_STRINGIFYING = frozenset({
    "join", "string", "tojson", "pprint", "format", "upper", "lower", "title", "capitalize", "trim", "striptags",
    "truncate", "wordcount", "wordwrap", "center", "indent", "replace", "escape", "e", "forceescape", "safe",
    "urlencode", "urlize", "xmlattr",
})
"""Filters that turn a container into one string (whose size is that of the container's text)."""


def _metered(items: Iterator[Any], budget: _Budget) -> Iterator[Any]:
    """A lazy filter's output (``map``, ``select``...): the time limit is checked as each item is made."""
    for item in items:
        budget.check_time()
        yield item


def _guard_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    # filters marked pass_context / pass_environment get that object first
    skip = 1 if getattr(fn, "jinja_pass_arg", None) is not None else 0

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        budget = _budget()
        budget.call()
        _filter_precheck(name, args[skip:], kwargs, budget)
        result = budget.check_value(fn(*args, **kwargs))
        return _metered(result, budget) if isinstance(result, types.GeneratorType) else result

    return guarded


def _rt_iter(iterable: Any) -> Any:
    budget = _budget()
    for item in iterable:
        budget.iteration()
        yield item


def _rt_emit(value: Any) -> str:
    budget = _budget()
    budget.text_size(value)
    text = str(value)
    budget.emit(len(text))
    return text


def _rt_concat(*parts: Any) -> str:
    budget = _budget()
    for part in parts:
        budget.text_size(part)
    texts = [str(part) for part in parts]
    size = sum(len(t) for t in texts)
    budget.size(size, "string")
    budget.build(size)
    return "".join(texts)


class _Instrument(NodeTransformer):
    """Route loops, output and ``~`` through the budget hooks (a pure AST rewrite)."""

    @staticmethod
    def _hook(name: str, args: list[nodes.Expr], lineno: int) -> nodes.Call:
        return nodes.Call(nodes.Name(name, "load", lineno=lineno), args, [], None, None, lineno=lineno)

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = self._hook("_rt_iter", [node.iter], node.lineno)
        return node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [self._hook("_rt_emit", [child], child.lineno) for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return self._hook("_rt_concat", list(node.nodes), node.lineno)

    def _refuse(self, node: nodes.Node) -> nodes.Node:
        # Pulling in other files would bypass the template search rules and
        # read arbitrary files; one template is one file.
        raise TemplateSyntaxError("include, import and extends are not supported: a template is one file", node.lineno)

    visit_Include = visit_Import = visit_FromImport = visit_Extends = _refuse


class GuardedEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox plus a budget on time, size, loops and calls.

    ``filters`` and ``template_globals`` are what the caller lets its templates
    use; the filters are budgeted like the built-in ones, and the budget hooks
    are added last so that no caller's global can replace them.
    """

    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(
        self,
        filters: Mapping[str, Callable[..., Any]] | None = None,
        template_globals: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            undefined=StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
        )
        self.globals.pop("lipsum", None)
        self.filters.update(filters or {})
        self.filters = {name: _guard_filter(name, fn) for name, fn in self.filters.items()}
        self.globals.update(template_globals or {})
        self.globals.update(
            _rt_iter=_rt_iter,
            _rt_emit=_rt_emit,
            _rt_concat=_rt_concat,
        )

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        budget = _budget()
        budget.call()
        _check_call(__obj, args, budget)
        limit = budget.limits.max_value_chars * _FILTER_WORK_FACTOR
        for arg in (*args, *kwargs.values()):  # str(), list(), dict() and friends build from their arguments
            if isinstance(arg, (list, tuple, dict, set, frozenset)) and _text_size(arg, limit) > limit:
                raise _LimitExceeded(f"a call with an argument of more than {limit} characters")
        return budget.check_value(super().call(__context, __obj, *args, **kwargs))

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = _budget()
        budget.check_time()
        if operator == "*":
            _check_repeat(left, right, budget)
        elif operator == "**":
            _check_power(left, right, budget)
        elif operator == "%" and isinstance(left, str):
            _check_percent_format(left, budget)
            budget.text_size([left, right])
        elif operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            budget.size(len(left) + len(right))
        return budget.check_value(super().call_binop(context, operator, left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:
            _check_brace_format(value.__self__, _budget())
        return wrapped


# --- reporting failures ------------------------------------------------------------


def _short(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


def _template_line(exc: BaseException, filename: str) -> int | None:
    """The template line where ``exc`` was raised (Jinja rewrites frames to template lines)."""
    if isinstance(exc, TemplateSyntaxError):
        return exc.lineno
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe_failure(exc: BaseException) -> str:
    if isinstance(exc, _LimitExceeded):
        return f"template too expensive: {exc}"
    if isinstance(exc, SecurityError):
        return f"unsafe: {_short(exc)}"
    if isinstance(exc, UndefinedError):
        return f"undefined: {_short(exc)}"
    if isinstance(exc, RecursionError):
        return "template too expensive: recursion too deep"
    if isinstance(exc, MemoryError):
        return "template too expensive: out of memory"
    return f"{type(exc).__name__}: {_short(exc)}"


# --- compiling and rendering -----------------------------------------------------------


def compile_template(env: GuardedEnvironment, source: str, name: str, filename: str) -> Any:
    """Parse, instrument and compile ``source``; raises :class:`SandboxError` for any fault of the text.

    ``filename`` is what tracebacks name, which is how a render failure is
    traced back to its template line.
    """
    # Jinja folds constant filter calls while compiling: give them a budget too.
    token = _BUDGET.set(_Budget(RenderLimits()))
    try:
        tree = env.parse(source, name=name, filename=filename)
        tree = _Instrument().visit(tree)
        code = env.compile(tree, name=name, filename=filename)
        return env.template_class.from_code(env, code, env.make_globals(None))
    except TemplateSyntaxError as exc:
        raise SandboxError(f"syntax error: {exc.message}", exc.lineno) from None
    except Exception as exc:  # noqa: BLE001 - any compile failure is the template's fault
        raise SandboxError(f"cannot compile: {type(exc).__name__}: {_short(exc)}") from None
    finally:
        _BUDGET.reset(token)


def render_limited(compiled: Any, context: dict[str, Any], filename: str, limits: RenderLimits) -> str:
    """Render a template from :func:`compile_template` within ``limits``; raises :class:`SandboxError`.

    The output is gathered chunk by chunk so an oversized prompt is stopped
    as it grows rather than after it has been built.
    """
    token = _BUDGET.set(_Budget(limits))
    try:
        chunks: list[str] = []
        total = 0
        for chunk in compiled.generate(context):
            total += len(chunk)
            if total > limits.max_chars:
                raise _LimitExceeded(f"the prompt is over {limits.max_chars} characters")
            chunks.append(chunk)
        return "".join(chunks)
    except Exception as exc:  # noqa: BLE001 - the template's failure, reported with its line
        raise SandboxError(_describe_failure(exc), _template_line(exc, filename)) from None
    finally:
        _BUDGET.reset(token)
