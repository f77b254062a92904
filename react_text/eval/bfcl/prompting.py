"""BFCL's own system prompt for a prompted model (the leaderboard's "Prompt" mode), taken from bfcl-eval.

Why: the ``plain`` cell is the one-prompt baseline the shim has to beat, and the published Prompt figures
beside the report were measured with this prompt; a prompt of our own would be a weaker, different
baseline. The prompt is assembled from the installed package's constants (its default format: calls
written as a Python list, the functions as JSON, plain text, the classic wording), never copied here.
Only ``bfcl_eval.constants`` is read: it imports nothing, while the rest of the package needs
dependencies that ``pip install --no-deps bfcl-eval`` leaves out (so the per-language hint BFCL adds
to each description, which lives there, is not added).
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Mapping, Sequence
from urllib.parse import parse_qsl

__all__ = ["bfcl_messages", "bfcl_system_prompt"]


def bfcl_system_prompt(functions: Sequence[Mapping[str, Any]]) -> str | None:
    """BFCL's default system prompt listing ``functions``; None when bfcl-eval is not installed."""
    try:
        bfcl = importlib.import_module("bfcl_eval.constants.default_prompts")
    except ImportError:
        return None
    form = dict(parse_qsl(bfcl.DEFAULT_SYSTEM_PROMPT_FORMAT))
    style = bfcl.PROMPT_STYLE_TEMPLATES[form["style"]]
    returned = form["ret_fmt"]
    call_format = style["tool_call_with_tag" if form["tool_call_tag"] == "True" else "tool_call_no_tag"]
    if form["func_doc_fmt"] != "json":
        raise ValueError(f"bfcl-eval's default function format is {form['func_doc_fmt']!r}; only json is written here")
    return bfcl.PROMPT_TEMPLATE_MAPPING[form["prompt_fmt"]].format(
        persona=style["persona"], task=style["task"],
        tool_call_format=call_format.format(output_format=bfcl.OUTPUT_FORMAT_MAPPING[returned],
                                            param_types=bfcl.PARAM_TYPE_MAPPING[returned]),
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=style["available_tools"].format(format="json", functions=json.dumps(list(functions), indent=4)))


def bfcl_messages(messages: Sequence[Mapping[str, Any]], functions: Sequence[Mapping[str, Any]]) -> list[dict] | None:
    """The item's chat with BFCL's system prompt first (joined to a system message the item brings, as BFCL
    does); None when bfcl-eval is not installed."""
    system = bfcl_system_prompt(functions)
    if system is None:
        return None
    chat = [dict(m) for m in messages]
    if chat and chat[0].get("role") == "system":
        chat[0]["content"] = f"{system}\n\n{chat[0].get('content', '')}"
        return chat
    return [{"role": "system", "content": system}, *chat]
