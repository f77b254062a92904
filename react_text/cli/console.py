"""Prints a run as it happens, from its trace events.

The same printer serves ``react-text run`` (fed live through ``on_event``) and
``react-text replay`` (fed from a trace file), so a replay reads exactly like
the run did. Colour only on a terminal, and never when ``NO_COLOR`` is set.

On a terminal, ``run`` also passes ``Console.token`` as the agent's
``on_token``, and each model turn opens with a separator line
(``── turn 2 ──``) when its prompt goes to the model, so what streams next
reads as that turn's; then the thought of the turn being generated grows on its own line as
the model writes it. When the turn is parsed, the printed step is the parsed
one: the live line is finished if it was the step's thought, and erased and
reprinted if the parser read the turn differently (no thought, a relabelled
answer), so nothing is printed twice.
Everything printed comes from a model, a tool or a trace file, so it is
cleaned first: a model or a web page can write terminal escape sequences that
retitle the window, hide text or rewrite earlier lines.
"""

from __future__ import annotations

import json
import os
import shutil
import re
import sys
import unicodedata
from typing import IO, Any

_TERMINAL_CONTROLS = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"                        # CSI: colours, cursor moves, erasing
    r"|\x1b[\]PX^_].*?(?:\x07|\x1b\\|\x9c|$)"          # OSC / DCS / SOS / PM / APC strings
    r"|\x9b[0-?]*[ -/]*[@-~]?"                         # 8-bit CSI
    r"|[\x9d\x90\x98\x9e\x9f][^\x07\x9c]*(?:\x07|\x9c|$)"  # 8-bit string controls
    r"|\x1b[ -/]*[0-~]?"                               # other escapes (charset, keypad, reset)
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"                    # other C0/C1 controls (keeps \t and \n)
    r"|[\ud800-\udfff]"                                # lone surrogates: unprintable, crash strict streams
    r"|[\u202a-\u202e\u2066-\u2069]",                  # bidi embeddings, overrides, isolates: reorder the line
    re.DOTALL,
)
_UNSAFE_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` on one line, every control, bidi and lone surrogate character written as ``\\uXXXX``.

    For names and one-line fields (file names, ids, a question in a list),
    where a reader must see that something odd is there rather than lose it.
    Applied to JSON text it keeps it valid JSON: those characters can only
    stand inside its strings, where ``\\uXXXX`` means the same character.
    """
    return _UNSAFE_CHARS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def clean_text(text: str) -> str:
    """``text`` without terminal control sequences or other control characters (``\\n`` and ``\\t`` stay)."""
    return _TERMINAL_CONTROLS.sub(lambda m: "\ufffd" if "\ud800" <= m.group(0) <= "\udfff" else "", text)

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


def _printable(text: str) -> str:
    """One line of model text as it may go to a terminal: no control characters or escapes."""
    return "".join(ch for ch in text.replace("\t", " ") if ch.isprintable())


def _columns(text: str) -> int:
    """Terminal cells ``text`` takes (wide CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


LABELS = {
    "en": {"template": "template", "tools": "tools", "none": "none", "question": "Question:",
           "thought": "Thought", "action": "Action", "observation": "Observation", "format_error": "Format error",
           "more_actions": "({k} more action(s) in this turn not run: only the first runs)",
           "final": "Final Answer:", "nudge": "Nudge:", "answer": "Answer:", "no_answer": "No answer",
           "proposed": "[proposed one turn; no tool was run]",
           "totals": "[{status}: {steps} steps, {evaluated} prompt tokens evaluated, {generated} generated{timing}]",
           "seconds": ", {wall:.1f} s", "turn": "── turn {n} ──"},
    "zh": {"template": "模板", "tools": "工具", "none": "无", "question": "问题：",
           "thought": "思考", "action": "行动", "observation": "观察", "format_error": "格式错误",
           "more_actions": "（本轮另有 {k} 个行动未执行：只执行第一个）",
           "final": "最终答案：", "nudge": "提示：", "answer": "答案：", "no_answer": "没有答案",
           "proposed": "[只提出了一轮；没有运行工具]",
           "totals": "[{status}：{steps} 步，评估提示词元 {evaluated} 个，生成 {generated} 个{timing}]",
           "seconds": "，{wall:.1f} 秒", "turn": "── 第 {n} 轮 ──"},
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
                 raw: bool = False, max_chars: int = 600, live: bool | None = None,
                 lang: str | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.colour = use_colour(self.stream) if colour is None else colour
        self.raw = raw
        self.max_chars = max_chars
        self.lang = lang
        """Label language; None takes it from each run's ``run_start`` (its template)."""
        self._labels = LABELS["en"] if lang is None else LABELS.get(lang, LABELS["en"])
        self._final_shown: str | None = None
        self._actions = 0
        isatty = getattr(self.stream, "isatty", None)
        self.live = (bool(isatty and isatty()) if live is None else live) and not raw
        """Show the thought growing as tokens arrive (``token``); on a terminal by default."""
        self._turn: Any = None
        self._opened: Any = None  # the turn whose separator is printed: a continuation of it gets none
        self._started = False  # the turn's text so far is more than white space
        self._live_text = ""  # the printable first line of the turn so far
        self._line_done = False  # it ended (a newline) or fills the live line: later tokens change nothing
        self._shown = ""  # the thought text on the live line, after its label

    def token(self, text: str) -> None:
        """``Agent(on_token=...)``: grow the live line with the first line of the turn (its thought).

        Only the text that just arrived is looked at, and nothing once the line
        is complete: a long turn costs its length once, not once per token.
        """
        if not self.live or self._line_done:
            return
        if not self._started:
            text = text.lstrip()
            if not text:
                return
            self._started = True
        end = text.find("\n")
        if end != -1:
            text, self._line_done = text[:end], True
        self._live_text += _printable(text)
        line = self._live_text.rstrip()[: self.max_chars]
        if len(line) == self.max_chars:
            self._line_done = True  # the live line shows no more than this
        if len(line) <= len(self._shown) or not line.startswith(self._shown):
            return
        if not self._shown:
            self.stream.write(self._paint("thought", f"Thought {self._turn}: "))
        self.stream.write(self._paint("thought", line[len(self._shown):]))
        self.stream.flush()
        self._shown = line

    def _live_label(self) -> str:
        return f"Thought {self._turn}: "

    def _end_live(self) -> None:
        """Leave the live line as it is (the turn was cut short) and start a fresh line."""
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
        self._shown = ""

    def _erase_live(self) -> None:
        """Remove the live line: back to its first row, clear to the end of the screen."""
        width = _columns(self._live_label() + self._shown)
        rows = max(1, -(-width // max(1, shutil.get_terminal_size().columns)))
        self.stream.write("\r" + (f"\x1b[{rows - 1}A" if rows > 1 else "") + "\x1b[J")
        self._shown = ""

    def _settle_thought(self, thought: str | None) -> bool:
        """Finish or erase the live line for the parsed ``thought``; True when it is already printed."""
        shown, self._shown = self._shown, ""
        if not shown:
            return False
        printed = _clip(thought, self.max_chars) if thought else ""
        if printed.startswith(shown):
            self.stream.write(self._paint("thought", printed[len(shown):]) + "\n")
            self.stream.flush()
            return True
        self._shown = shown
        self._erase_live()
        return False

    def _paint(self, style: str, text: str) -> str:
        if not self.colour:
            return text
        return f"\x1b[{_STYLES[style]}m{text}\x1b[0m"

    def _line(self, style: str, label: str, text: str = "") -> None:
        body = clean_text(f"{label} {text}".rstrip() if text else label)
        self.stream.write(self._paint(style, body) + "\n")
        self.stream.flush()

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if self._shown and kind not in ("step", "model_turn"):
            self._end_live()  # the turn ended without a step (backend error, Ctrl-C)
        handler = getattr(self, "_on_" + str(kind), None)
        if handler is not None:
            handler(event)

    def _on_prompt(self, e: dict[str, Any]) -> None:
        """A model turn begins: live, its separator goes out first, so the text that streams next is seen as its
        own (a transcript printed after the fact numbers every line and needs none)."""
        self._turn = e.get("n")
        if self.live and self._turn != self._opened:
            self._opened = self._turn
            self._line("dim", self._labels["turn"].format(n=self._turn))
        self._started, self._live_text, self._line_done, self._shown = False, "", False, ""

    def _on_run_start(self, e: dict[str, Any]) -> None:
        if self.lang is None:
            self._labels = LABELS[run_language(e)]
        self._final_shown = None
        self._opened = None
        L = self._labels
        template = (e.get("template") or {}).get("name") or "?"
        tools = ", ".join(t.get("name", "?") for t in e.get("tools", [])) or L["none"]
        self._line("dim", f"[{e.get('backend', '?')} · {L['template']} {template} · {L['tools']}: {tools}]")
        self._line("dim", L["question"], str(e.get("question", "")))

    def _on_model_turn(self, e: dict[str, Any]) -> None:
        if self.raw:
            self._line("dim", f"--- model turn {e.get('n')} ({e.get('completion_tokens', 0)} tokens, "
                       f"{e.get('finish_reason', '?')}) ---")
            self.stream.write(self._paint("dim", clean_text(str(e.get("text", "")))) + "\n")

    def _on_step(self, e: dict[str, Any]) -> None:
        step = e.get("step") or {}
        self._actions = len(step.get("actions") or [])
        n = e.get("n")
        L = self._labels
        lang = "zh" if L is LABELS["zh"] else "en"
        if self._settle_thought(step.get("thought")):
            pass
        elif step.get("thought"):
            self._line("thought", _numbered(L["thought"], n, lang), _clip(step["thought"], self.max_chars))
        error = step.get("error")
        if error:
            label = f"{L['format_error']} ({error.get('code')})" + ("：" if lang == "zh" else ":")
            self._line("error", label, _clip(error.get("message", ""), self.max_chars))
            return
        actions = step.get("actions") or []
        if actions:
            for i, a in enumerate(actions, 1):
                label = _numbered(L["action"], n if len(actions) == 1 else f"{n}.{i}", lang)
                self._line("action", label, f"{a.get('tool')} {_clip(format_args(a.get('args')), self.max_chars)}")
        elif step.get("final_answer") is not None:
            # Printed here, as the model gives it; run_end then does not repeat it.
            final = str(step["final_answer"])
            shown = _clip(final, self.max_chars)
            self._final_shown = final if shown == final.strip() else None
            self._line("answer", L["final"], shown)

    def _on_decision(self, e: dict[str, Any]) -> None:
        d = e.get("decision") or {}
        # Format errors were printed with the step, and a stop is printed by run_end.
        if d.get("kind") == "run_tool" and self._actions > 1:
            self._line("dim", f"({self._actions - 1} more action(s) in this turn not run: only the first runs)")
        if d.get("kind") == "retry" and not str(d.get("reason", "")).startswith("format_error"):
            self._line("error", self._labels["nudge"], _clip(str(d.get("observation", "")), self.max_chars))

    def _on_observation(self, e: dict[str, Any]) -> None:
        obs = e.get("observation") or {}
        style = "observation" if obs.get("ok") else "error"
        call = e.get("call_id")
        lang = "zh" if self._labels is LABELS["zh"] else "en"
        label = _numbered(self._labels["observation"], call if call and self._actions > 1 else e.get("n"), lang)
        cached = " (cached)" if e.get("cached") else ""
        self._line(style, label + cached, _clip(str(e.get("shown", obs.get("text", ""))), self.max_chars))

    def _on_second_look(self, e: dict[str, Any]) -> None:
        self._line("dim", f"[before the refusal stands: {e.get('tool')} {_clip(format_args(e.get('args')), self.max_chars)}]")

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
        L = self._labels
        lang = "zh" if L is LABELS["zh"] else "en"
        if status == "answered":
            answer = str(e.get("answer", ""))
            if answer.strip() != (self._final_shown or "").strip():
                self._line("answer", L["answer"], answer)
        elif status == "proposed":  # Agent.propose: one turn, no tools run
            self._line("dim", L["proposed"])
            return
        elif status == "template_error":  # no turn was run: the command says why, once, as its error
            return
        else:
            self._line("stopped", f"{L['no_answer']} ({status})" + ("：" if lang == "zh" else ":"),
                       str(e.get("reason", "")))
        wall = totals.get("wall_seconds")
        timing = L["seconds"].format(wall=wall) if isinstance(wall, (int, float)) else ""
        self._line("dim", L["totals"].format(status=status, steps=totals.get("steps", 0),
                                             evaluated=totals.get("evaluated_tokens", 0),
                                             generated=totals.get("completion_tokens", 0), timing=timing))
