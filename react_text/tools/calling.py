"""Calling a tool with the model's arguments and turning whatever happens into an ``Observation``.

Whatever the tool does -- raise, hang, return megabytes or bytes, or leak a
secret field -- ``call_tool`` answers with an :class:`~react_text.types.Observation`
the loop can show the model, and never raises, except for ``KeyboardInterrupt``,
which always reaches the caller.

``call_tools`` runs the several calls of one model turn: independent calls
at the same time on a bounded pool of threads, each result matched to its
call by id, and calls to tools with side effects one at a time, in the order
the model wrote them.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Union

from ..types import Args, Observation
from .arguments import ArgumentError, bind_args
from .cache import ToolCache
from .results import render_result, safe_str, truncate
from .spec import Tool

__all__ = ["CallResult", "Redact", "ToolCall", "call_tool", "call_tools"]

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
    return _call(tool, args, timeout, max_chars, redact, None)[0]


def _call(tool: Tool, args: Args | None, timeout: float | None, max_chars: int | None, redact: Redact | None,
          cache: ToolCache | None) -> tuple[Observation, bool]:
    """``call_tool``, answered from ``cache`` when it holds the call; also whether it did.

    A cached value goes through the same redaction and length limit as a fresh one.
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
        return observe(False, str(exc), "bad_arguments", retryable=True), False
    hit = cache.get(tool, args) if cache is not None else None
    if hit is not None:
        value = hit.value
    else:
        finished, outcome = _run(tool.fn, bound.values, seconds)
        if not finished:
            return observe(False, f"Tool {tool.name} did not finish within {seconds:g} seconds and was abandoned.",
                           "timeout"), False
        if isinstance(outcome.error, KeyboardInterrupt):
            raise outcome.error
        if outcome.error is not None:
            exc = outcome.error
            message = safe_str(exc)
            text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
            return observe(False, f"Tool {tool.name} failed: {text}", "tool_error", retryable=_retryable(exc)), False
        value = outcome.value
        outcome.value = None  # keep a single reference to a possibly huge result
        if cache is not None:
            cache.put(tool, args, value)
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
                                  f"({type(exc).__name__}).", "redaction_error"), hit is not None
    text, truncated = render_result(value, limit)
    return observe(True, text, "ok", truncated=truncated), hit is not None


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


# --- several calls of one turn ------------------------------------------------

@dataclass(frozen=True)
class ToolCall:
    """One call to make: its id (for the trace and for matching), the tool, the model's arguments, bounds."""

    call_id: str
    tool: Tool
    args: Args | None
    timeout: float | None = None
    max_chars: int | None = None
    redact: Any = None
    """Passed to ``call_tool``: fields hidden from the model."""


@dataclass(frozen=True)
class CallResult:
    """What one call gave back; ``cached`` when the persistent cache answered instead of the tool."""

    call_id: str
    observation: Observation
    cached: bool = False


def call_groups(calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
    """The calls split, in order, into groups that may run together.

    A run of calls to tools without side effects is one group; a call to a
    tool with side effects is a group of its own, so it never overlaps
    another call and everything written before it has finished when it starts.
    """
    groups: list[list[ToolCall]] = []
    for call in calls:
        if call.tool.side_effects or not groups or groups[-1][0].tool.side_effects:
            groups.append([call])
        else:
            groups[-1].append(call)
    return groups


def call_tools(calls: Sequence[ToolCall], *, max_workers: int = 1, cache: ToolCache | None = None,
               on_start: Callable[[ToolCall], None] | None = None,
               on_end: Callable[[ToolCall, CallResult], None] | None = None) -> list[CallResult]:
    """Run ``calls``, up to ``max_workers`` at once; results in the order of ``calls``; never raises for a tool.

    ``on_start`` and ``on_end`` are called in the thread that runs the call
    (so they must be thread-safe); ``cache`` answers cacheable calls it holds
    and keeps the successful results of the others. ``KeyboardInterrupt``
    propagates after the calls that already started have returned or timed out.
    """
    if max_workers < 1:
        raise ValueError(f"max_workers must be at least 1, got {max_workers!r}")
    results: list[CallResult] = []
    for group in call_groups(calls):  # groups are contiguous and in order
        if len(group) == 1 or max_workers == 1:
            results.extend(_call_one(call, cache, on_start, on_end) for call in group)
            continue
        pool = ThreadPoolExecutor(max_workers=min(max_workers, len(group)), thread_name_prefix="react-text-call")
        try:
            futures = [pool.submit(contextvars.copy_context().run, _call_one, call, cache, on_start, on_end)
                       for call in group]
            results.extend(future.result() for future in futures)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return results


def _call_one(call: ToolCall, cache: ToolCache | None, on_start: Callable[[ToolCall], None] | None,
              on_end: Callable[[ToolCall, CallResult], None] | None) -> CallResult:
    if on_start is not None:
        on_start(call)
    observation, cached = _call(call.tool, call.args, call.timeout, call.max_chars, call.redact, cache)
    result = CallResult(call.call_id, observation, cached=cached)
    if on_end is not None:
        on_end(call, result)
    return result
