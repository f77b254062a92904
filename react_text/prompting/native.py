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
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .render_budget import RenderLimits
from .sandbox import GuardedEnvironment, SandboxError, compile_template, render_limited
from .templates import TemplateError

__all__ = ["NativeTemplate", "NativeTemplateError", "chat_template_of", "has_tools", "native_messages",
           "render_chat", "render_native"]

_TOOLS_VAR = re.compile(r"\btools\b")


class NativeTemplateError(TemplateError, ValueError):
    """The model's chat template cannot carry tools, or failed to render (a ``TemplateError``: callers that
    report a template that cannot be used report this one too)."""


def has_tools(chat_template: str | None) -> bool:
    """Whether the template reads a ``tools`` variable: only such a template has a tool format of its own."""
    return bool(chat_template) and _TOOLS_VAR.search(chat_template or "") is not None


def chat_template_of(backend: Any) -> str | None:
    """The backend's chat template (GGUF metadata in process, the server's ``/props`` over HTTP), if it has one."""
    found = getattr(backend, "native_chat_template", None)
    template = found() if callable(found) else getattr(backend, "chat_template", None)
    return template if isinstance(template, str) and template else None


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
                  tools: Sequence[Mapping[str, Any]] | None, *, bos_token: str = "", eos_token: str = "",
                  generation: bool = True) -> str:
    """The prompt for the model's next assistant turn, in its own template with ``tools`` (OpenAI-typed).

    Raises ``NativeTemplateError`` when the template has no tools block (the model has no tool
    format to use) or fails to render."""
    if not has_tools(chat_template):
        raise NativeTemplateError("the model's chat template has no tools block, so it has no tool format of its own; "
                                  "use a text protocol (e.g. template='classic')")
    assert chat_template is not None
    return render_chat(chat_template, messages, tools, bos_token=bos_token, eos_token=eos_token, generation=generation)


def render_chat(chat_template: str, messages: Sequence[Mapping[str, Any]],
                tools: Sequence[Mapping[str, Any]] | None = None, *, bos_token: str = "", eos_token: str = "",
                generation: bool = True) -> str:
    """The conversation in the model's chat template, in the sandbox, tools or not (a baseline that writes the
    functions into its own system prompt renders without them). Raises ``NativeTemplateError`` when it fails."""
    context = {"messages": native_messages(messages), "tools": list(tools) if tools else None,
               "add_generation_prompt": generation, "bos_token": bos_token, "eos_token": eos_token}
    try:
        return render_limited(_compiled(chat_template), context, "<chat_template>", RenderLimits())
    except SandboxError as exc:
        raise NativeTemplateError(f"the model's chat template failed to render: {exc}") from None


_MARK = "\ue000"
"""A private-use character: no template writes it, so it shows where a message's text landed."""


@dataclass(frozen=True)
class NativeTemplate:
    """The model's own chat template as the agent loop's template: the prompt is the chat with ``tools=``,
    and a tool result goes back as the template's ``role: tool`` message.

    The loop only appends to its prompt (llama.cpp's prefix cache), so ``observation`` is the text the
    chat template puts between the end of the model's turn and the next assistant turn, found by
    rendering the chat with and without a tool message; ``source`` gives the template when first needed
    (an in-process model is loaded at its first run)."""

    source: Callable[[], str | None]
    name: str = "native"
    dialect: str = "native"
    language: str = "en"
    stop: tuple[str, ...] = ()
    path: Path = Path("<chat_template>")
    description: str = "the model's own chat template with tools"
    examples: str = "none"
    episodes: tuple[Any, ...] = ()
    whole_chat: bool = True
    """``render`` gives the model's whole prompt: it is not wrapped in the chat template again."""

    def turn_prefix(self, n: int = 1) -> str:
        return ""

    def shown_episodes(self, tools: Any, question: str = "", examples: Any = None) -> tuple[Any, ...]:
        return ()

    def chat_template(self) -> str:
        template = self.source()
        if not has_tools(template):
            raise NativeTemplateError("the model's chat template has no tools block, so it has no tool format of "
                                      "its own; use a text template (e.g. 'classic')")
        return template or ""

    def render(self, question: str, tools: Sequence[Any] = (), examples: Any = None, *,
               instructions: str = "", **_: Any) -> str:
        """The prompt up to the opening of the model's first turn."""
        messages = [{"role": "system", "content": instructions}] if instructions else []
        messages.append({"role": "user", "content": question.strip()})
        return render_native(self.chat_template(), messages, [openai_tool(t) for t in tools])

    def observation(self, text: str, n: int) -> str:
        """What follows the model's turn ``n``: its end, the tool result as a tool message, the next turn's opening."""
        end, before, after = _tool_reply(self.chat_template())
        return end + before + text.rstrip() + after


def openai_tool(tool: Any) -> dict[str, Any]:
    """A tool (``Tool``, or an OpenAI dict) in the OpenAI form chat templates take."""
    if isinstance(tool, Mapping):
        return dict(tool)
    return {"type": "function", "function": {"name": tool.name, "description": getattr(tool, "description", ""),
                                             "parameters": getattr(tool, "parameters", {})}}


@functools.lru_cache(maxsize=8)
def _tool_reply(chat_template: str) -> tuple[str, str, str]:
    """(end of an assistant turn, text before a tool result, text after it up to the next assistant turn)."""
    user = {"role": "user", "content": "q"}
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_0", "type": "function", "function": {"name": "f", "arguments": {}}}]}
    said = render_native(chat_template, [user, {"role": "assistant", "content": _MARK}], [], generation=False)
    end = said[said.rfind(_MARK) + 1:] if _MARK in said else ""
    called = render_native(chat_template, [user, call], [], generation=False)
    answered = render_native(chat_template, [user, call, {"role": "tool", "tool_call_id": "call_0", "content": _MARK}],
                             [])
    if not answered.startswith(called) or _MARK not in answered:
        raise NativeTemplateError("the model's chat template does not lay out a tool result after a call")
    reply = answered[len(called):]
    at = reply.index(_MARK)
    return end, reply[:at], reply[at + 1:]
