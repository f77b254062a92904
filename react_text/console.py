"""Prints a run as it happens, from its trace events.

The same printer serves ``react-text run`` (fed live through ``on_event``) and
``react-text replay`` (fed from a trace file), so a replay reads exactly like
the run did. Colour only on a terminal, and never when ``NO_COLOR`` is set.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

_STYLES = {
    "dim": "2",
    "thought": "36",
    "action": "1;33",
    "observation": "32",
    "error": "31",
    "answer": "1;32",
    "stopped": "1;31",
}


def use_colour(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def format_args(args: Any) -> str:
    if isinstance(args, str):
        return args
    return json.dumps(args, ensure_ascii=False)


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f" …[{len(text) - limit} more chars]"


class Console:
    """An ``on_event`` callback that writes a readable transcript.

    ``raw=True`` also prints each raw model turn (what the model wrote before
    parsing), which is what one wants when a template misbehaves.
    """

    def __init__(self, stream: IO[str] | None = None, *, colour: bool | None = None,
                 raw: bool = False, max_chars: int = 600) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.colour = use_colour(self.stream) if colour is None else colour
        self.raw = raw
        self.max_chars = max_chars
        self._actions = 0

    def _paint(self, style: str, text: str) -> str:
        if not self.colour:
            return text
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"

    def _line(self, style: str, label: str, text: str = "") -> None:
        body = f"{label} {text}".rstrip() if text else label
        self.stream.write(self._paint(style, body) + "\n")
        self.stream.flush()

    def __call__(self, event: dict[str, Any]) -> None:
        handler = getattr(self, "_on_" + str(event.get("event")), None)
        if handler is not None:
            handler(event)

    def _on_run_start(self, e: dict[str, Any]) -> None:
        template = (e.get("template") or {}).get("name") or "?"
        tools = ", ".join(t.get("name", "?") for t in e.get("tools", [])) or "none"
        self._line("dim", f"[{e.get('backend', '?')} · template {template} · tools: {tools}]")
        self._line("dim", "Question:", str(e.get("question", "")))

    def _on_model_turn(self, e: dict[str, Any]) -> None:
        if self.raw:
            self._line("dim", f"--- model turn {e.get('n')} ({e.get('completion_tokens', 0)} tokens, "
                       f"{e.get('finish_reason', '?')}) ---")
            self.stream.write(self._paint("dim", str(e.get("text", ""))) + "\n")

    def _on_step(self, e: dict[str, Any]) -> None:
        step = e.get("step") or {}
        self._actions = len(step.get("actions") or [])
        n = e.get("n")
        if step.get("thought"):
            self._line("thought", f"Thought {n}:", _clip(step["thought"], self.max_chars))
        error = step.get("error")
        if error:
            self._line("error", f"Format error ({error.get('code')}):", _clip(error.get("message", ""), self.max_chars))
            return
        actions = step.get("actions") or []
        if actions:
            for i, a in enumerate(actions, 1):
                label = f"Action {n}:" if len(actions) == 1 else f"Action {n}.{i}:"
                self._line("action", label, f"{a.get('tool')} {_clip(format_args(a.get('args')), self.max_chars)}")
        elif step.get("final_answer") is not None:
            self._line("answer", "Final Answer:", _clip(str(step["final_answer"]), self.max_chars))

    def _on_decision(self, e: dict[str, Any]) -> None:
        d = e.get("decision") or {}
        # Format errors were printed with the step, and a stop is printed by run_end.
        if d.get("kind") == "run_tool" and self._actions > 1:
            self._line("dim", f"({self._actions - 1} more action(s) in this turn not run: only the first runs)")
        if d.get("kind") == "retry" and not str(d.get("reason", "")).startswith("format_error"):
            self._line("error", "Nudge:", _clip(str(d.get("observation", "")), self.max_chars))

    def _on_observation(self, e: dict[str, Any]) -> None:
        obs = e.get("observation") or {}
        style = "observation" if obs.get("ok") else "error"
        call = e.get("call_id")
        label = f"Observation {call}:" if call and self._actions > 1 else f"Observation {e.get('n')}:"
        cached = " (cached)" if e.get("cached") else ""
        self._line(style, label + cached, _clip(str(e.get("shown", obs.get("text", ""))), self.max_chars))

    def _on_cache_hit(self, e: dict[str, Any]) -> None:
        if e.get("scope") == "run":
            where = f" ({e['same_as']})" if e.get("same_as") else ""
            self._line("dim", f"[{e.get('tool')}: same call as before{where}; not run again]")

    def _on_context(self, e: dict[str, Any]) -> None:
        cuts = e.get("cuts") or []
        shortened = sorted({c.get("n") for c in cuts if c.get("kind") == "shortened"})
        dropped = sorted({c.get("n") for c in cuts if c.get("kind") == "dropped"})
        parts = ([f"shortened results of step(s) {', '.join(map(str, shortened))}"] if shortened else []) + (
            [f"dropped step(s) {', '.join(map(str, dropped))}"] if dropped else [])
        self._line("dim", f"[context: {e.get('tokens_before')} → {e.get('tokens_after')} of "
                          f"{e.get('context')} tokens; {'; '.join(parts)}]")

    def _on_run_end(self, e: dict[str, Any]) -> None:
        status = e.get("status")
        totals = e.get("totals") or {}
        if status == "answered":
            self._line("answer", "Answer:", str(e.get("answer", "")))
        elif status == "proposed":  # Agent.propose: one turn, no tools run
            self._line("dim", "[proposed one turn; no tool was run]")
            return
        else:
            self._line("stopped", f"No answer ({status}):", str(e.get("reason", "")))
        wall = totals.get("wall_seconds")
        timing = f", {wall:.1f} s" if isinstance(wall, (int, float)) else ""
        self._line(
            "dim",
            f"[{status}: {totals.get('steps', 0)} steps, "
            f"{totals.get('evaluated_tokens', 0)} prompt tokens evaluated, "
            f"{totals.get('completion_tokens', 0)} generated{timing}]",
        )
