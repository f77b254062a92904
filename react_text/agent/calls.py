"""Carrying out a turn's tool calls: the ones that run run (together, up to the limit), the rest are answered.

A repeat is answered with the result it repeats and a call that cannot run
with why; every call ends as a ``CallRecord`` and its events in the trace.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..tools.cache import ToolCache
from ..tools.calling import ToolCall, call_tools
from ..types import Observation
from .decisions import PlannedCall
from .events import Events
from .results import CallRecord
from .state import Limits


def shown_text(obs: Observation) -> str:
    """A tool result as the model reads it; failures say so and why."""
    if obs.ok:
        return obs.text
    text = obs.text.strip()
    if text.lower().startswith("error"):
        return text
    return f"Error ({obs.code}): {text}"


def run_calls(planned: Sequence[PlannedCall], tools: Mapping[str, Any], limits: Limits, remaining: float, n: int,
              events: Events, *, cache: ToolCache | None = None, redact: Any = None) -> tuple[CallRecord, ...]:
    """Run the calls of turn ``n`` that run, within ``remaining`` seconds of the run; answer the others."""
    to_run = _tool_calls(planned, tools, limits, remaining, redact)

    def on_start(call: ToolCall) -> None:
        events.emit("tool_call", n=n, call_id=call.call_id, tool=call.tool.name, args=call.args,
                    timeout=call.timeout)

    def on_end(call: ToolCall, result: Any) -> None:
        if result.cached:
            events.emit("cache_hit", n=n, call_id=call.call_id, tool=call.tool.name, args=call.args,
                        scope="disk")
        events.emit("observation", n=n, call_id=call.call_id, observation=result.observation,
                    shown=shown_text(result.observation), cached=result.cached)

    results = call_tools(to_run, max_workers=limits.max_parallel_tools, cache=cache,
                         on_start=on_start, on_end=on_end)
    return _records(planned, {r.call_id: r for r in results}, n, events)


def _tool_calls(planned: Sequence[PlannedCall], tools: Mapping[str, Any], limits: Limits, remaining: float,
                redact: Any) -> list[ToolCall]:
    """The calls that run, each bounded by its tool's and the run's time and length limits."""
    to_run: list[ToolCall] = []
    for p in planned:
        if not p.runs:
            continue
        tool = tools[p.action.tool]
        timeout = max(0.05, min(limits.tool_timeout_s, remaining, tool.timeout or float("inf")))
        max_chars = min(limits.max_observation_chars, tool.max_chars)
        to_run.append(ToolCall(p.call_id, tool, p.action.args, timeout, max_chars, redact))
    return to_run


def _records(planned: Sequence[PlannedCall], by_id: Mapping[str, Any], n: int,
             events: Events) -> tuple[CallRecord, ...]:
    """Every planned call as it ended: its result, the result it repeats, or why it could not run."""
    records: list[CallRecord] = []
    for p in planned:
        if p.call_id in by_id:
            r = by_id[p.call_id]
            records.append(CallRecord(p.call_id, p.action, r.observation, shown_text(r.observation), cached=r.cached))
            continue
        if p.error is None and p.same_as in by_id:  # a repeat within this turn
            text = f"(same result as call {p.same_as}) " + shown_text(by_id[p.same_as].observation)
        else:
            text = p.shown or ""
        if p.error is None:
            events.emit("cache_hit", n=n, call_id=p.call_id, tool=p.action.tool, args=p.action.args,
                        scope="run", same_as=p.same_as)
        records.append(CallRecord(p.call_id, p.action, None, text, same_as=p.same_as))
    return tuple(records)
