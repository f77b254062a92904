"""The shim's reply, typed: the calls or the answer of one turn, made into OpenAI's dict in one place."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

__all__ = ["ToolCall", "ShimResult", "call_id", "result_of"]


@dataclass(frozen=True)
class ToolCall:
    """One call of the reply; ``arguments`` is the JSON text OpenAI clients expect."""

    id: str
    name: str
    arguments: str

    def to_openai(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True)
class ShimResult:
    """One assistant turn, typed; ``to_dict`` makes the dict ``tool_calls`` returns, in one place.

    ``calls`` when the turn is a call (then there is no ``content``), else the
    plain answer or the explanation of why none came.
    """

    content: str | None
    calls: tuple[ToolCall, ...] = ()
    thought: str | None = None
    format_errors: tuple[str, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    template: Mapping[str, str] | None = None
    """The protocol that wrote the turn and why it was chosen (``template="auto"``), when one was chosen."""
    more_calls: int = 0
    """How many of ``calls`` the steps after the turn added (``next_calls``): a trace tells them apart."""
    step_checks: tuple[str, ...] = ()
    """The checks that acted outside the turn's retries, once per act: on its thought (``cut_thought``) and on
    the steps after it (``other_values``, ``kept_values``)."""

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.calls else "stop"

    def to_message(self) -> dict[str, Any]:
        """The OpenAI assistant message."""
        if self.calls:
            return {"role": "assistant", "content": None, "tool_calls": [call.to_openai() for call in self.calls]}
        return {"role": "assistant", "content": self.content}

    def to_dict(self) -> dict[str, Any]:
        """What ``tool_calls`` returns: the message, ``finish_reason``, ``usage``, ``thought``, ``format_errors``."""
        usage = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                 "total_tokens": self.prompt_tokens + self.completion_tokens}
        out = {"usage": usage, "thought": self.thought, "format_errors": list(self.format_errors),
               "message": self.to_message(), "finish_reason": self.finish_reason}
        if self.template is not None:
            out["template"] = dict(self.template)
        if self.more_calls:
            out["more_calls"] = self.more_calls
        if self.step_checks:
            out["step_checks"] = list(self.step_checks)
        return out


def result_of(verdict: Any, thought: str | None, errors: Sequence[str], usage: Sequence[int], messages: Sequence[Any],
              parallel_tool_calls: bool, max_retries: int) -> ShimResult:
    """The reply the last verdict makes: its calls (in order, one per call), its answer, or why there is neither."""
    base = ShimResult(None, (), thought, tuple(errors), usage[0], usage[1])
    if verdict.calls:
        calls = []
        for index, (name, args) in enumerate(verdict.calls if parallel_tool_calls else verdict.calls[:1]):
            arguments = json.dumps(args, ensure_ascii=False)
            calls.append(ToolCall(call_id(messages, index, name, arguments), name, arguments))
        return replace(base, calls=tuple(calls))
    if verdict.answer is not None:
        return replace(base, content=verdict.answer)
    return replace(base, content=f"The model did not produce a usable reply in {max_retries + 1} attempt(s); "
                                 f"last problem ({verdict.code}): {verdict.problem}")


def call_id(messages: Sequence[Any], index: int, name: str, arguments: str) -> str:
    """Deterministic and unique within a conversation: turn position + index + content."""
    seed = f"{len(messages)}|{index}|{name}|{arguments}"
    return "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]
