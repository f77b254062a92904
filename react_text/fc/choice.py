"""``template="auto"``: the protocol the committed measurement found best for this model, else a rule.

Why measured and not fixed: whether a model calls functions better in its own tool format
or in a text protocol depends on the model (the coder 0.5B ignores its own ``<tool_call>`` tag
and answers in fenced JSON). ``models/function_calling.json`` holds, per model file, the
protocol that won on function calling with the figures it won by; a model never measured
gets its own format when its chat template has one, else the text protocol.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import PurePath
from typing import Any, Mapping

from ..backends.base import Backend
from ..prompting.native import chat_template_of, has_tools
from .native import NATIVE

__all__ = ["AUTO", "TEXT_DEFAULT", "TemplateChoice", "choose_template", "model_key"]

AUTO = "auto"
TEXT_DEFAULT = "classic"
"""The text protocol a model without a tool format of its own gets."""


@dataclass(frozen=True)
class TemplateChoice:
    """The protocol ``auto`` picked and why (shown in the reply's metadata)."""

    name: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "why": self.why}


@functools.cache
def _measured() -> Mapping[str, Any]:
    text = resources.files("react_text.models").joinpath("function_calling.json").read_text(encoding="utf-8")
    return json.loads(text)["models"]


def model_key(backend: Backend) -> str | None:
    """The model file's name, which the measurements are keyed by (a server's model name over HTTP)."""
    path = getattr(backend, "model_path", None)
    if path is not None:
        return PurePath(str(path)).name
    model = getattr(backend, "model", None)
    return PurePath(model).name if isinstance(model, str) and model else None


def choose_template(backend: Backend, measured: Mapping[str, Any] | None = None) -> TemplateChoice:
    """The protocol for function calling with this backend's model: measured, else the rule."""
    table = _measured() if measured is None else measured
    key = model_key(backend)
    entry = table.get(key) if key is not None else None
    if isinstance(entry, Mapping) and isinstance(entry.get("template"), str):
        return TemplateChoice(entry["template"], f"measured best for {key}: {entry.get('why', '')}".rstrip(": "))
    if has_tools(chat_template_of(backend)):
        return TemplateChoice(NATIVE, "not measured; the model's chat template has a tools block")
    return TemplateChoice(TEXT_DEFAULT, "not measured; the model's chat template has no tools block")
