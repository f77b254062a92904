"""One trace per ``serve`` request, in the user trace folder, so ``react-text traces`` lists them beside runs.

The shim runs one assistant turn and the client runs the tools, so a request's trace is short: what was
asked, which tools were offered, and the reply (or the error) — enough to find a request again and see
what the model answered.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..trace import TraceWriter, fresh_trace_path


def last_user_text(messages: Sequence[Any]) -> str:
    """The question a request asks: its last user message's text."""
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "?"


def write_request_trace(messages: Sequence[Any], tools: Sequence[Any] | None, *, model: str, template: str,
                        result: Mapping[str, Any] | None, error: str | None) -> str:
    """Write the request's trace; its path. ``result`` is the shim's reply, ``error`` why there is none."""
    writer = TraceWriter(fresh_trace_path("serve"))
    try:
        names = [t.get("function", t).get("name") for t in tools or [] if isinstance(t, Mapping)]
        writer.write("run_start", question=last_user_text(messages), mode="serve", model=model,
                     template={"name": template}, tools=[{"name": n} for n in names], messages=len(messages))
        if result is None:
            writer.write("run_end", status="error", answer="", reason=error or "", totals={"steps": 0})
        else:
            message = result.get("message") or {}
            calls = message.get("tool_calls") or []
            answer = message.get("content") or "; ".join(
                f"{c['function']['name']}({c['function']['arguments']})" for c in calls)
            status = "tool_calls" if calls else "answered"
            writer.write("run_end", status=status, answer=answer, reason="", usage=result.get("usage"),
                         totals={"steps": 1})
    finally:
        writer.close()
    return str(writer.path)
