"""Which tools a run shows the model: every tool, or the best matches for the question plus ``list_tools``.

With many tools a small model reads a shorter prompt and picks better when it
sees only the tools that match the question; ``list_tools(query)`` reveals
more during the run (``react_text.prompting.retrieval``). The trace records
``tools_shown`` and ``tools_revealed``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..prompting.retrieval import LIST_TOOLS, ToolRetrieval, clear_pick, fits_nothing
from .events import Events
from .state import RunState


class ShownTools:
    """The tools visible to the model in the current run, by name, in the order shown."""

    def __init__(self, tools: dict[str, Any], retrieval: bool, max_shown: int) -> None:
        self.tools = tools
        self.visible: tuple[str, ...] = ()
        self._retrieval = self._add_tool_finder(max_shown) if retrieval else None
        self.visible = tuple(self.tools)

    def _add_tool_finder(self, max_shown: int) -> ToolRetrieval | None:
        """With more than ``max_shown`` tools, add ``list_tools`` and return the retrieval that picks what is shown."""
        if len(self.tools) <= max_shown:
            return None
        retrieval = ToolRetrieval(list(self.tools.values()), max_shown=max_shown)

        def reveal(names: tuple[str, ...]) -> None:
            self.visible = self.visible + tuple(n for n in names if n not in self.visible)

        finder = retrieval.list_tool(lambda: self.visible, reveal)
        self.tools[finder.name] = finder
        return retrieval

    def start(self, question: str, events: Events) -> tuple[str, ...]:
        """The tools this run starts with: all of them, or the best matches for the question and ``list_tools``."""
        if self._retrieval is None:
            self.visible = tuple(self.tools)
            return self.visible
        matches = self._retrieval.shown(question)
        self.visible = tuple(m.name for m in matches) + (LIST_TOOLS,)
        events.emit("tools_shown", tools=[{"name": m.name, "score": m.score} for m in matches],
                    hidden=len(self.tools) - len(self.visible))
        return self.visible

    def revealed(self, state: RunState, n: int, events: Events) -> RunState:
        """Tools ``list_tools`` revealed during step ``n`` become callable (their signatures are in its observation)."""
        if self.visible == state.tool_names:
            return state
        events.emit("tools_revealed", n=n, tools=[t for t in self.visible if t not in state.tool_names])
        return replace(state, tool_names=self.visible)

    def pick(self, question: str) -> tuple[str, str] | None:
        """The visible tool the question's words clearly name (``retrieval.clear_pick``), with its description."""
        name = clear_pick([self.tools[n] for n in self.visible if n != LIST_TOOLS], question)
        return None if name is None else (name, self.tools[name].description or "")

    def unfit(self, question: str) -> bool:
        """Whether the question meets none of the tools (``retrieval.fits_nothing``); never while
        ``list_tools`` can reveal more: the tool that fits may be hidden."""
        return LIST_TOOLS not in self.visible and fits_nothing([self.tools[n] for n in self.visible], question)
