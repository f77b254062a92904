"""The short Python API: ``react_text.run("question", tools=[f])`` answers in one call.

Every option has a default: the model, template and limits, and names work
wherever objects do (see ``names``), so nothing else needs importing.
"""

from __future__ import annotations

from typing import Any, Iterable

from .loop import Agent
from .results import RunResult

__all__ = ["run"]


def run(question: str, tools: Iterable[Any] = (), **options: Any) -> RunResult:
    """Answer ``question`` in one call: ``Agent(tools=tools, **options).run(question)``.

    ``options`` are ``Agent``'s (``model``, ``template``, ``instructions``,
    ``limits``, ``on_token``, ``trace``...); every one has a default.
    """
    return Agent(tools=tools, **options).run(question)
