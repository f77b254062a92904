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


LABELS = {
    "en": {"template": "template", "tools": "tools", "none": "none", "question": "Question:",
           "thought": "Thought", "action": "Action", "observation": "Observation", "format_error": "Format error",
           "more_actions": "({k} more action(s) in this turn not run: only the first runs)",
           "final": "Final Answer:", "nudge": "Nudge:", "answer": "Answer:", "no_answer": "No answer",
           "proposed": "[proposed one turn; no tool was run]",
           "totals": "[{status}: {steps} steps, {evaluated} prompt tokens evaluated, {generated} generated{timing}]",
           "seconds": ", {wall:.1f} s"},
    "zh": {"template": "模板", "tools": "工具", "none": "无", "question": "问题：",
           "thought": "思考", "action": "行动", "observation": "观察", "format_error": "格式错误",
           "more_actions": "（本轮另有 {k} 个行动未执行：只执行第一个）",
           "final": "最终答案：", "nudge": "提示：", "answer": "答案：", "no_answer": "没有答案",
           "proposed": "[只提出了一轮；没有运行工具]",
           "totals": "[{status}：{steps} 步，评估提示词元 {evaluated} 个，生成 {generated} 个{timing}]",
           "seconds": "，{wall:.1f} 秒"},
}
"""Console labels per language; a run's language comes from its template (``zh`` → Chinese)."""


def run_language(event: dict[str, Any]) -> str:
    """The language of a run from its ``run_start`` event: the template's language, else its dialect."""
    template = event.get("template") or {}
    lang = template.get("language") or ("zh" if template.get("dialect") == "zh" else "en")
    return lang if lang in LABELS else "en"


def _numbered(label: str, n: Any, lang: str) -> str:
    return f"{label} {n}：" if lang == "zh" else f"{label} {n}:"


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + f" …[{len(text) - limit} more chars]"


class Console:
    """An ``on_event`` callback that writes a readable transcript.

    ``raw=True`` also prints each raw model turn (what the model wrote before
    parsing), which is what one wants when a template misbehaves.
    """

    def __init__(self, stream: IO[str] | None = None, *, colour: bool | None = None,
                 raw: bool = False, max_chars: int = 600, lang: str | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.colour = use_colour(self.stream) if colour is None else colour
        self.raw = raw
        self.max_chars = max_chars
        self.lang = lang
        """Label language; None takes it from each run's ``run_start`` (its template)."""
        self._labels = LABELS["en"] if lang is None else LABELS.get(lang, LABELS["en"])
        self._final_shown: str | None = None

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
        if self.lang is None:
            self._labels = LABELS[run_language(e)]
        self._final_shown = None
        L = self._labels
        template = (e.get("template") or {}).get("name") or "?"
        tools = ", ".join(t.get("name", "?") for t in e.get("tools", [])) or L["none"]
        self._line("dim", f"[{e.get('backend', '?')} · {L['template']} {template} · {L['tools']}: {tools}]")
        self._line("dim", L["question"], str(e.get("question", "")))

    def _on_model_turn(self, e: dict[str, Any]) -> None:
        if self.raw:
            self._line("dim", f"--- model turn {e.get('n')} ({e.get('completion_tokens', 0)} tokens, "
                       f"{e.get('finish_reason', '?')}) ---")
            self.stream.write(self._paint("dim", str(e.get("text", ""))) + "\n")

    def _on_step(self, e: dict[str, Any]) -> None:
        step = e.get("step") or {}
        n = e.get("n")
        L = self._labels
        lang = "zh" if L is LABELS["zh"] else "en"
        if step.get("thought"):
            self._line("thought", _numbered(L["thought"], n, lang), _clip(step["thought"], self.max_chars))
        error = step.get("error")
        if error:
            label = f"{L['format_error']} ({error.get('code')})" + ("：" if lang == "zh" else ":")
            self._line("error", label, _clip(error.get("message", ""), self.max_chars))
            return
        actions = step.get("actions") or []
        if actions:
            a = actions[0]
            self._line("action", _numbered(L["action"], n, lang),
                       f"{a.get('tool')} {_clip(format_args(a.get('args')), self.max_chars)}")
            if len(actions) > 1:
                self._line("dim", L["more_actions"].format(k=len(actions) - 1))
        elif step.get("final_answer") is not None:
            # Printed here, as the model gives it; run_end then does not repeat it.
            final = str(step["final_answer"])
            shown = _clip(final, self.max_chars)
            self._final_shown = final if shown == final.strip() else None
            self._line("answer", L["final"], shown)

    def _on_decision(self, e: dict[str, Any]) -> None:
        d = e.get("decision") or {}
        # Format errors were printed with the step, and a stop is printed by run_end.
        if d.get("kind") == "retry" and not str(d.get("reason", "")).startswith("format_error"):
            self._line("error", self._labels["nudge"], _clip(str(d.get("observation", "")), self.max_chars))

    def _on_observation(self, e: dict[str, Any]) -> None:
        obs = e.get("observation") or {}
        style = "observation" if obs.get("ok") else "error"
        lang = "zh" if self._labels is LABELS["zh"] else "en"
        self._line(style, _numbered(self._labels["observation"], e.get("n"), lang), _clip(str(e.get("shown", obs.get("text", ""))), self.max_chars))

    def _on_run_end(self, e: dict[str, Any]) -> None:
        status = e.get("status")
        totals = e.get("totals") or {}
        L = self._labels
        lang = "zh" if L is LABELS["zh"] else "en"
        if status == "answered":
            answer = str(e.get("answer", ""))
            if answer.strip() != (self._final_shown or "").strip():
                self._line("answer", L["answer"], answer)
        elif status == "proposed":  # Agent.propose: one turn, no tools run
            self._line("dim", L["proposed"])
            return
        else:
            self._line("stopped", f"{L['no_answer']} ({status})" + ("：" if lang == "zh" else ":"),
                       str(e.get("reason", "")))
        wall = totals.get("wall_seconds")
        timing = L["seconds"].format(wall=wall) if isinstance(wall, (int, float)) else ""
        self._line("dim", L["totals"].format(status=status, steps=totals.get("steps", 0),
                                             evaluated=totals.get("evaluated_tokens", 0),
                                             generated=totals.get("completion_tokens", 0), timing=timing))
