"""react-text: a ReAct engine that speaks a text protocol.

``import react_text`` needs only ``regex``: the parser and the data types load
eagerly; everything that touches jinja2, requests or llama.cpp loads on first
use, so tools that only embed the parser pay nothing for the engine.
"""

from __future__ import annotations

import importlib
from typing import Any

from .protocol.parser import parse
from .types import Action, Completion, ErrorCode, FormatError, Observation, RepairCode, Step

__version__ = "0.1.0"

_LAZY = {
    "Agent": "react_text.agent.loop",
    "Limits": "react_text.agent.state",
    "RunResult": "react_text.agent.results",
    "Tool": "react_text.tools.spec",
    "tool": "react_text.tools.spec",
    "Template": "react_text.prompting.templates",
    "load_template": "react_text.prompting.templates",
    "tool_calls": "react_text.fc.shim",
    "run": "react_text.agent.api",
}

__all__ = ["parse", "Action", "Completion", "ErrorCode", "FormatError", "Observation", "RepairCode", "Step", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'react_text' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
