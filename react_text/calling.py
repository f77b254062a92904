"""Calling a tool with the model's arguments and turning whatever happens into an ``Observation``.

Whatever the tool does -- raise, hang, return megabytes or bytes, or leak a
secret field -- ``call_tool`` answers with an :class:`~react_text.types.Observation`
the loop can show the model, and never raises, except for ``KeyboardInterrupt``,
which always reaches the caller.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, Union

from .arguments import ArgumentError, bind_args
from .results import render_result, safe_str, truncate
from .types import Args, Observation

if TYPE_CHECKING:
    from .tools import Tool

__all__ = ["Redact", "call_tool"]

Redact = Union[Callable[[str, Any], Any], Collection[str]]

_RETRYABLE_NAMES = ("Timeout", "ConnectionError", "TemporaryFailure", "ServiceUnavailable")


def _retryable(exc: BaseException) -> bool:
    flag = getattr(exc, "retryable", None)
    if isinstance(flag, bool):
        return flag
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    return any(any(n in cls.__name__ for n in _RETRYABLE_NAMES) for cls in type(exc).__mro__)


class _Outcome:
    """Where the worker thread leaves its result; read only after the thread finished."""

    __slots__ = ("value", "error")

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None


def _run(fn: Callable[..., Any], kwargs: dict[str, Any], timeout: float | None) -> tuple[bool, _Outcome]:
    """Run ``fn(**kwargs)``; returns (finished, outcome).

    With a timeout the call runs in a daemon thread. Python cannot kill a
    thread, so a call that overruns is *abandoned*: it keeps running in the
    background until it returns (or the process exits) and its result is
    dropped. Tools that can hang on I/O should set their own socket timeouts.
    """
    outcome = _Outcome()

    def work() -> None:
        try:
            outcome.value = fn(**kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            outcome.error = exc

    if timeout is None or math.isinf(timeout):
        work()
        return True, outcome
    context = contextvars.copy_context()
    worker = threading.Thread(target=context.run, args=(work,), daemon=True,
                              name=f"react-text-tool-{getattr(fn, '__name__', 'fn')}")
    worker.start()
    worker.join(timeout)  # Ctrl-C interrupts this wait and propagates
    return not worker.is_alive(), outcome


def call_tool(tool: Tool, args: Args | None, *, timeout: float | None = None, max_chars: int | None = None,
              redact: Redact | None = None) -> Observation:
    """Call ``tool`` with the model's ``args`` and describe what happened; never raises.

    Codes: ``ok``; ``bad_arguments`` (retryable: the model can fix its call);
    ``tool_error`` (the exception's type and message, no traceback; retryable
    only for timeout/connection-like errors); ``timeout`` (not retryable: the
    abandoned call is still running); ``redaction_error`` (the hook failed, so
    nothing is shown). ``KeyboardInterrupt`` always propagates.
    ``redact`` is either ``hook(tool_name, result) -> result`` or a set of
    field names dropped from dict results at any depth (e.g. api keys).
    """
    started = time.perf_counter()
    limit = max_chars if max_chars is not None else tool.max_chars
    limit = max(1, limit)
    seconds = tool.timeout if timeout is None else timeout

    def observe(ok: bool, text: str, code: str, retryable: bool = False, truncated: bool = False) -> Observation:
        if not truncated and len(text) > limit:
            text, truncated = truncate(text, limit, len(text) - limit), True
        return Observation(ok=ok, text=text, code=code, retryable=retryable, truncated=truncated,
                           seconds=time.perf_counter() - started)

    try:
        bound = bind_args(tool, args)
    except ArgumentError as exc:
        return observe(False, str(exc), "bad_arguments", retryable=True)
    finished, outcome = _run(tool.fn, bound.values, seconds)
    if not finished:
        return observe(False, f"Tool {tool.name} did not finish within {seconds:g} seconds and was abandoned.",
                       "timeout")
    if isinstance(outcome.error, KeyboardInterrupt):
        raise outcome.error
    if outcome.error is not None:
        exc = outcome.error
        message = safe_str(exc)
        text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
        return observe(False, f"Tool {tool.name} failed: {text}", "tool_error", retryable=_retryable(exc))
    value = outcome.value
    outcome.value = None  # keep a single reference to a possibly huge result
    if redact is not None:
        try:
            if callable(redact):
                value = redact(tool.name, value)
            else:
                value = _strip_fields(value, {redact} if isinstance(redact, str) else redact)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - fail closed: show nothing unredacted
            return observe(False, f"The result of {tool.name} was withheld: redaction failed "
                                  f"({type(exc).__name__}).", "redaction_error")
    text, truncated = render_result(value, limit)
    return observe(True, text, "ok", truncated=truncated)


def _strip_fields(value: Any, names: Any, _depth: int = 0, _seen: set[int] | None = None) -> Any:
    """A copy of ``value``'s containers without dict keys in ``names`` (case-insensitive), at any depth.

    Leaves are shared, not copied, so the cost is one pass over the containers.
    """
    folded = names if _depth else {str(n).casefold() for n in names}
    seen = _seen if _seen is not None else set()
    if not isinstance(value, (dict, list, tuple)):
        return value
    if _depth > 64:
        return "[too deep to check]"  # fail closed: a secret may hide below
    if id(value) in seen:
        return "[circular]"
    seen.add(id(value))
    try:
        if isinstance(value, dict):
            return {k: _strip_fields(v, folded, _depth + 1, seen) for k, v in value.items()
                    if str(k).casefold() not in folded}
        return [_strip_fields(v, folded, _depth + 1, seen) for v in value]
    finally:
        seen.discard(id(value))
