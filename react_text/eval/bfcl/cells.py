"""One BFCL item in one compare cell: a request to the function-calling shim, or the ``plain`` baseline.

A template cell sends the item's messages and its functions as OpenAI ``tools`` to
``react_text.tool_calls`` (tool_choice auto) with that template, with or without the grammar; the
calls in the reply are judged by ``checker``. The ``plain`` cell is one prompt, with
BFCL's own system prompt (``prompting``; react-text's one-paragraph ``plain`` prompt of
``react_text.eval.baselines`` when bfcl-eval is not installed), its raw reply read as Python calls the
way BFCL reads a prompted model's (``decode.python_calls``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...backends.base import BackendError
from ...fc.shim import tool_calls
from ...prompting.native import NativeTemplateError, chat_template_of, render_chat
from ...prompting.tool_views import signatures
from ..baselines import load_prompts
from .checker import Call, check
from .data import BfclItem
from .decode import openai_tools, python_calls, shim_calls
from .prompting import bfcl_messages

PLAIN = "plain"
_STOP = ("\nQuestion:",)


@dataclass(frozen=True)
class ItemRun:
    """What one cell did with one item: its calls, the reply's text, and what it cost."""

    status: str  # "called", "answered" (no call) or "backend_error"
    calls: tuple[Call, ...]
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    format_errors: int = 0
    trace: tuple[dict, ...] = ()


def run_item(item: BfclItem, template: Any, backend: Any, *, constrain: bool = False, checks: str = "all",
             max_tokens: int = 256, seed: int = 0) -> ItemRun:
    """Run ``item`` once: ``template`` is ``PLAIN``, ``"native"`` or a text-protocol template."""
    try:
        if template == PLAIN:
            return _plain(item, backend, max_tokens, seed)
        out = tool_calls(list(item.messages), openai_tools(item.functions), backend=backend, template=template,
                         tool_choice="auto", constrain=constrain, max_tokens=max_tokens, seed=seed, checks=checks)
    except BackendError as exc:
        return ItemRun("backend_error", (), str(exc))
    message = out["message"]
    calls = shim_calls(message)
    usage = out.get("usage", {})
    return ItemRun("called" if calls else "answered", calls, message.get("content") or "",
                   int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)),
                   len(out.get("format_errors", ())), (out,))


def _plain(item: BfclItem, backend: Any, max_tokens: int, seed: int) -> ItemRun:
    prompt = plain_prompt(item, backend)
    done = backend.complete(prompt, stop=_STOP, max_tokens=max_tokens, temperature=0.0, seed=seed)
    calls = python_calls(done.text) or ()
    return ItemRun("called" if calls else "answered", calls, done.text, done.prompt_tokens, done.completion_tokens,
                   0, ({"prompt": prompt, "reply": done.text},))


def plain_prompt(item: BfclItem, backend: Any) -> str:
    """The ``plain`` cell's prompt: with bfcl-eval installed, BFCL's own system prompt and the item's chat in
    the model's chat template (the published Prompt mode; without a chat template, the messages' texts in
    the backend's wrapping); else react-text's one-paragraph prompt with the functions as signatures."""
    chat = bfcl_messages(item.messages, item.functions)
    if chat is None:
        return backend.wrap_prompt(load_prompts()["en"]["plain"].format(
            functions=signatures(openai_tools(item.functions)), question=conversation_text(item)))
    template = chat_template_of(backend)
    if template is not None:
        try:
            return render_chat(template, chat)
        except NativeTemplateError:
            pass  # a template that cannot render: the texts as one prompt, as for a model without one
    return backend.wrap_prompt("\n\n".join(str(m.get("content", "")) for m in chat))


def conversation_text(item: BfclItem) -> str:
    """The item's messages as one question: the user's words alone, or each message after its role."""
    if len(item.messages) == 1:
        return str(item.messages[0].get("content", ""))
    return "\n".join(f"{m.get('role', 'user')}: {m.get('content', '')}" for m in item.messages)


def item_record(item: BfclItem, run: ItemRun, *, model: str, template: str, constrain: bool, trace: Path,
                wall_seconds: float) -> dict:
    """The compare record of one item in one cell (the fields ``metrics`` reads), judged by ``checker``."""
    verdict = check(item.category, item.functions, run.calls, item.answers)
    _write_trace(trace, item, run)
    return {
        "model": model, "template": template, "constrain": constrain, "task_id": item.id, "bfcl": True,
        "category": item.category, "lang": "en", "question": item.question, "expected": list(item.answers),
        "answer": json.dumps([{c.name: dict(c.args)} for c in run.calls], ensure_ascii=False) if run.calls
        else run.text,
        "status": run.status, "correct": run.status != "backend_error" and verdict.valid,
        "error": verdict.error, "steps": 1 + run.format_errors, "turns": 1 + run.format_errors,
        "format_errors": run.format_errors, "actions": len(run.calls), "invalid_tool_calls": 0,
        "prompt_tokens": run.prompt_tokens, "evaluated_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens, "wall_seconds": round(wall_seconds, 3), "trace": str(trace),
        "example_value": None,
    }


def _write_trace(path: Path, item: BfclItem, run: ItemRun) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"bfcl": item.id, "messages": list(item.messages)}, ensure_ascii=False) + "\n")
        for entry in run.trace:
            fh.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
        fh.write(json.dumps({"status": run.status, "calls": [{c.name: dict(c.args)} for c in run.calls],
                             "text": run.text}, ensure_ascii=False, default=str) + "\n")
