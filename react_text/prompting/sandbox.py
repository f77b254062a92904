"""Running untrusted Jinja safely: an immutable sandbox that also stops expensive templates.

Jinja's own sandbox stops a template from reaching Python internals, but not from
spending: ``{% for i in range(10**9) %}``, ``"x" * 10**9`` or a macro calling
itself render for ever or fill the memory. Here every loop iteration, call,
operator, filter and emitted chunk is charged against a :class:`RenderLimits`
budget held in a context variable (so concurrent renders do not share one),
and anything whose result size is a product of its inputs is checked *before*
it runs (the bookkeeping and those checks are :mod:`react_text.prompting.render_budget`). Loops, output and ``~`` are routed through the budget by rewriting the
template's syntax tree at compile time, so no Jinja internals are patched.

A failure becomes a :class:`SandboxError` holding a reason written for the
template's author and the template line it happened on; callers add the file
name and their own error type. What a template may see (filters, globals) is
the caller's business: this module knows nothing about prompts.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, Iterator, Mapping

from jinja2 import StrictUndefined, TemplateSyntaxError, nodes
from jinja2.exceptions import SecurityError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter
from jinja2.visitor import NodeTransformer

from .render_budget import (
    BUDGET,
    FILTER_WORK_FACTOR,
    Budget,
    LimitExceeded,
    RenderLimits,
    check_brace_format,
    check_call,
    check_percent_format,
    check_power,
    check_repeat,
    current_budget,
    filter_precheck,
    text_size,
)

__all__ = ["GuardedEnvironment", "SandboxError", "compile_template", "render_limited"]


class SandboxError(Exception):
    """A template could not be compiled or rendered; ``reason`` and ``line`` say why and where.

    It carries no file name: the caller knows which file it handed over and
    wraps this in its own error type.
    """

    def __init__(self, reason: str, line: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line


# --- the budget's hooks, called by the instrumented template --------------------------


def _metered(items: Iterator[Any], budget: Budget) -> Iterator[Any]:
    """A lazy filter's output (``map``, ``select``...): the time limit is checked as each item is made."""
    for item in items:
        budget.check_time()
        yield item


def _guard_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    # filters marked pass_context / pass_environment get that object first
    skip = 1 if getattr(fn, "jinja_pass_arg", None) is not None else 0

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        budget = current_budget()
        budget.call()
        filter_precheck(name, args[skip:], kwargs, budget)
        result = budget.check_value(fn(*args, **kwargs))
        return _metered(result, budget) if isinstance(result, types.GeneratorType) else result

    return guarded


def _rt_iter(iterable: Any) -> Any:
    budget = current_budget()
    for item in iterable:
        budget.iteration()
        yield item


def _rt_emit(value: Any) -> str:
    budget = current_budget()
    budget.text_size(value)
    text = str(value)
    budget.emit(len(text))
    return text


def _rt_concat(*parts: Any) -> str:
    budget = current_budget()
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
        budget = current_budget()
        budget.call()
        check_call(__obj, args, budget)
        limit = budget.limits.max_value_chars * FILTER_WORK_FACTOR
        for arg in (*args, *kwargs.values()):  # str(), list(), dict() and friends build from their arguments
            if isinstance(arg, (list, tuple, dict, set, frozenset)) and text_size(arg, limit) > limit:
                raise LimitExceeded(f"a call with an argument of more than {limit} characters")
        return budget.check_value(super().call(__context, __obj, *args, **kwargs))

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = current_budget()
        budget.check_time()
        if operator == "*":
            check_repeat(left, right, budget)
        elif operator == "**":
            check_power(left, right, budget)
        elif operator == "%" and isinstance(left, str):
            check_percent_format(left, right, budget)
            budget.text_size([left, right])
        elif operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            budget.size(len(left) + len(right))
        return budget.check_value(super().call_binop(context, operator, left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt, is_map = value.__self__, value.__name__ == "format_map"
        formatter = SandboxedFormatter(self)

        @functools.wraps(wrapped)
        def checked(*args: Any, **kwargs: Any) -> str:
            positional, named = ((), args[0]) if is_map and args else (args, kwargs)

            def resolve(field_name: str) -> Any:
                try:
                    return formatter.get_field(field_name, positional, named)[0]
                except Exception:  # noqa: BLE001 - the format itself will report a bad field
                    return None

            check_brace_format(fmt, resolve, current_budget())
            return wrapped(*args, **kwargs)

        return checked


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
    if isinstance(exc, LimitExceeded):
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
    token = BUDGET.set(Budget(RenderLimits()))
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
        BUDGET.reset(token)


def render_limited(compiled: Any, context: dict[str, Any], filename: str, limits: RenderLimits) -> str:
    """Render a template from :func:`compile_template` within ``limits``; raises :class:`SandboxError`.

    The output is gathered chunk by chunk so an oversized prompt is stopped
    as it grows rather than after it has been built.
    """
    token = BUDGET.set(Budget(limits))
    try:
        chunks: list[str] = []
        total = 0
        for chunk in compiled.generate(context):
            total += len(chunk)
            if total > limits.max_chars:
                raise LimitExceeded(f"the prompt is over {limits.max_chars} characters")
            chunks.append(chunk)
        return "".join(chunks)
    except Exception as exc:  # noqa: BLE001 - the template's failure, reported with its line
        raise SandboxError(_describe_failure(exc), _template_line(exc, filename)) from None
    finally:
        BUDGET.reset(token)
