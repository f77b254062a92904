"""A model's own chat template, rendered with the tools and the whole conversation: the ``native`` protocol's prompt.

Why here: the template is the model's (GGUF metadata, or the server's ``/props``), so it is
untrusted text and runs in the project's budgeted sandbox like any prompt template. Tool
calls and tool results go in as the template lays them out (``tool_calls`` on assistant
messages, ``role: tool`` messages), so the model sees the format it was trained on.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import datetime
from typing import Any, Mapping, Sequence

from .sandbox import GuardedEnvironment, SandboxError, compile_template, render_limited
from .render_budget import RenderLimits

__all__ = ["NativeTemplateError", "has_tools", "native_messages", "render_native"]

_TOOLS_VAR = re.compile(r"\btools\b")


class NativeTemplateError(ValueError):
    """The model's chat template cannot carry tools, or failed to render."""


def has_tools(chat_template: str | None) -> bool:
    """Whether the template reads a ``tools`` variable: only such a template has a tool format of its own."""
    return bool(chat_template) and _TOOLS_VAR.search(chat_template or "") is not None


def _raise(message: str) -> None:
    raise ValueError(message)


def _to_json(value: Any, indent: int | None = None, **_: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


@functools.cache
def _environment() -> GuardedEnvironment:
    """The sandbox with what chat templates call (HF's conventions); undefined names are falsy, as templates expect."""
    import jinja2
    import jinja2.ext

    env = GuardedEnvironment(filters={"tojson": _to_json},
                             template_globals={"raise_exception": _raise,
                                               "strftime_now": lambda fmt: datetime.now().strftime(fmt)})
    env.undefined = jinja2.Undefined  # chat templates test `message.tool_calls` on every message
    env.add_extension(jinja2.ext.loopcontrols)
    return env


@functools.lru_cache(maxsize=8)
def _compiled(chat_template: str) -> Any:
    return compile_template(_environment(), chat_template, "chat_template", "<chat_template>")


def _arguments(value: Any) -> Any:
    """A call's arguments as a mapping: templates write ``arguments | tojson``, so a JSON string would be quoted twice."""
    if isinstance(value, str):
        try:
            decoded = json.loads(value or "{}")
        except ValueError:
            return value
        return decoded if isinstance(decoded, dict) else value
    return value


def native_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as chat templates read them: content always text, call arguments as objects."""
    out: list[dict[str, Any]] = []
    for message in messages:
        item = dict(message)
        content = item.get("content")
        if isinstance(content, list):  # content parts: their text
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        item["content"] = "" if content is None else str(content)
        calls = item.get("tool_calls")
        if calls:
            item["tool_calls"] = [
                {**call, "function": {**call["function"], "arguments": _arguments(call["function"].get("arguments"))},
                 "name": call["function"].get("name"), "arguments": _arguments(call["function"].get("arguments"))}
                if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping) else call
                for call in calls
            ]
        out.append(item)
    return out


def render_native(chat_template: str | None, messages: Sequence[Mapping[str, Any]],
                  tools: Sequence[Mapping[str, Any]] | None, *, bos_token: str = "", eos_token: str = "") -> str:
    """The prompt for the model's next assistant turn, in its own template with ``tools`` (OpenAI-typed).

    Raises ``NativeTemplateError`` when the template has no tools block (the model has no tool
    format to use) or fails to render."""
    if not has_tools(chat_template):
        raise NativeTemplateError("the model's chat template has no tools block, so it has no tool format of its own; "
                                  "use a text protocol (e.g. template='classic')")
    assert chat_template is not None
    context = {"messages": native_messages(messages), "tools": list(tools) if tools else None,
               "add_generation_prompt": True, "bos_token": bos_token, "eos_token": eos_token}
    try:
        return render_limited(_compiled(chat_template), context, "<chat_template>", RenderLimits())
    except SandboxError as exc:
        raise NativeTemplateError(f"the model's chat template failed to render: {exc}") from None
