"""The state of reading one turn, and what the readers hand each other.

``Turn`` is the text's ``Lines`` plus what the reading has found so far (where
the first step starts, the echoes it looked past, the repairs it made); the
readers in ``walk``, ``actions``, ``values``, ``calls``, ``blobs`` and
``fallback`` are functions over it. Everything else they return is plain data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from . import feedback, jsonish
from .lines import Lines, hard_end
from .names import Toolset

MAX_ACTIONS = 32
"""More actions than this in one turn are dropped (repair ``too_many_actions``)."""


class TurnError(Exception):
    """A format error found while reading; ``end`` is where the loop should cut the turn."""

    def __init__(self, code: str, message: str, end: Optional[int] = None, *, no_tool: bool = False,
                 detail: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.end = end
        self.detail = detail  # what the model wrote that is wrong (a tool name, an echoed instruction)
        self.no_tool = no_tool  # "Action: None": the model says it needs no tool


@dataclass(slots=True)
class Call:
    """A tool call before its name is resolved against the tools.

    Not frozen, though never changed: one is built per call on the parser's hot
    path, and a frozen dataclass costs about 3% of a parse to build."""

    name: str
    args: Union[dict, str]
    start: int
    end: int
    thought: Optional[str] = None
    tool: Optional[str] = None
    """The canonical tool, when the reader already checked the name."""


@dataclass(slots=True)
class Reading:
    """What the line walk found: calls, or a final answer, and where trust ends (not frozen: as ``Call``)."""

    calls: tuple[Call, ...]
    final: Optional[str]
    end: int


FINAL = object()  # check_name's answer for a final-answer tool name


class Turn(Lines):
    """One turn being read left to right: its lines, the tools it may name, and what was found so far.

    One is built per turn (slots: no __dict__, faster attributes). The cursor
    only moves forward, and a failed JSON read raises ``blob_floor`` so the same
    text is never parsed twice: the work is linear in the turn's length.
    """

    __slots__ = ("ts", "style", "_voice", "_budget", "repairs", "blob_floor", "resume", "thought_labels",
                 "first_start", "final_end", "blob_thought", "stray_input", "blob_line", "stopped_at",
                 "placeholder_err", "skip_floor", "echoes", "tried")

    def __init__(self, text: str, ts: Optional[Toolset], style: tuple[str, int, Optional[str]]) -> None:
        self.text = text  # Lines.__init__, inlined: one Turn is built per parse
        self.limit = hard_end(text) if "<" in text else len(text)  # no "<": no special token, no call
        self.blob_failures = 0
        self.ts = ts
        self.style = style  # (dialect, n, lang) of the messages
        self._voice: Optional[feedback.Voice] = None
        self._budget: Optional[jsonish.Budget] = None
        self.repairs: list[str] = []
        self.blob_floor = 0  # JSON is not read again before this offset (a failed read got this far)
        self.resume = 0  # where the walk goes on after a blob that was no action
        self.thought_labels: list[tuple[int, int]] = []  # spans cut out of the thought (echoes)
        self.first_start: Optional[int] = None  # where the step proper starts (the thought ends)
        self.final_end = 0
        self.blob_thought: Optional[str] = None  # a "thought" key of a final-answer blob
        self.stray_input = False  # an "Action Input:" with no action above it
        self.blob_line = 0
        self.stopped_at: Optional[int] = None
        self.placeholder_err: Optional[TurnError] = None  # an echoed format example, kept while a real step may follow
        self.skip_floor = 0  # end of the echoed observation(s) a turn may open with
        self.echoes = 0  # echoed blocks skipped so far (bounded: a flood of them is not an echo)
        self.tried: Optional[str] = None  # the last offered tool this turn named: what its corrections show

    @property
    def voice(self) -> feedback.Voice:
        """Who error messages speak to; built on first use, as most turns need no message."""
        if self._voice is None or self._voice.tried != self.tried:
            self._voice = feedback.Voice(self.ts, *self.style, tried=self.tried)
        return self._voice

    @property
    def budget(self) -> jsonish.Budget:
        """What this turn may still spend on lenient JSON; built on first use, as many turns hold no JSON."""
        if self._budget is None:
            self._budget = jsonish.Budget(jsonish.LENIENT_ITEMS, 2 * len(self.text) + 65536)  # positional: cheaper
        return self._budget

    def add(self, *repairs: str) -> None:
        for r in repairs:
            if r not in self.repairs:
                self.repairs.append(r)
