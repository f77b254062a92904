"""The ReAct loop: a scratchpad that only grows, and pure decisions over it.

One run goes: render the template once, wrap it for the model once, then for
each model turn append the trusted part of the turn and the observation the
model should see next. The prompt of turn n+1 therefore starts with the exact
text of turn n's prompt plus the kept turn, which keeps llama.cpp's prefix cache
warm (see ``shared/models.md``).

Everything that decides is pure and lives in this module's top half:
``decide(state, step)`` picks what to do with a parsed turn, ``check_limits``
says whether to stop before the next turn and ``advance`` folds a finished
step into the next ``RunState``. ``Agent`` does the I/O (backend, tools, trace,
clock) around them.

Statuses (``RunResult.status``):

``answered``       the model gave a final answer (``answer`` holds it).
``gave_up``        the model produced nothing usable at the end: two empty turns
                   in a row (it only emitted end-of-text), or an empty answer.
``max_steps``      ``Limits.max_steps`` model turns without a final answer.
``max_tokens``     ``Limits.max_total_tokens`` (prompt tokens evaluated plus
                   tokens generated, over the run) used up.
``timeout``        ``Limits.timeout_s`` of wall-clock time passed.
``no_progress``    the model repeated a call it had already made (same tool,
                   same arguments) after being told once what it returned.
``format_errors``  ``Limits.max_format_errors`` unusable turns in a row.
``tool_failures``  one tool failed more than ``Limits.max_tool_retries`` times
                   in a row after its first failure.
``backend_error``  the backend could not produce a completion.
``context_full``   the next turn cannot fit the backend's context window even
                   with every older step shortened or dropped (see ``context``).
``interrupted``    Ctrl-C; the trace holds everything up to that point.
``template_error`` the prompt could not be rendered (a user template's undefined name, a sandbox limit).

An unexpected exception (a bug, a broken ``on_event``) is not a status: the
trace still ends with a ``run_end`` of status ``error`` and ``run`` re-raises.

Only ``answered`` carries the model's answer; every other status carries an
explanation (why it stopped, and the last observation), never an empty string.

Several actions in one turn: by default only the first runs. The rest were
written before the model saw the first result, so their arguments may be
guesses (field notes 1); the scratchpad is cut right after the first action so
it shows exactly what ran. With ``Limits.max_parallel_tools`` above 1 every
action of the turn runs (``decide_turn``), up to that many at once, each with
a call id; tools with side effects run alone and in order, and the model sees
one observation holding every result, failures included, call by call.

An identical call (same tool, same canonical arguments) is never run twice in
a run: the model is shown the earlier result, marked "(same result as step
n)", and it still counts as no progress. A persistent cache across runs for
pure tools is ``tool_cache.ToolCache``.

A long run never overflows the context: before each turn the prompt is
counted against the backend's context and older steps are shortened
(``context.fit_context``); the head of the prompt never changes.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, Union

from ..eval.answers import is_refusal
from ..backends.base import Backend, BackendError, complete_streaming, context_size, token_counter
from ..prompting.context import Entry, fit_context
from ..prompting.episodes import episode_values, prompt_language
from ..protocol.guards import AnswerContext, check_answer, say
from ..protocol.parser import parse
from ..trace import TraceWriter, to_jsonable
from ..types import Action, Completion, FormatError, Observation, Step

if TYPE_CHECKING:
    from ..tools.cache import ToolCache

STATUSES = (
    "answered",
    "gave_up",
    "max_steps",
    "max_tokens",
    "timeout",
    "no_progress",
    "format_errors",
    "tool_failures",
    "backend_error",
    "context_full",
    "interrupted",
    "template_error",
)

_NUDGE_PREVIEW_CHARS = 500
_EXPLAIN_PREVIEW_CHARS = 300


@dataclass(frozen=True)
class Limits:
    """Every bound on a run; the loop checks them, never the model."""

    max_steps: int = 8
    max_total_tokens: int = 8192
    timeout_s: float = 180.0
    tool_timeout_s: float = 10.0
    max_turn_tokens: int = 256
    """Per model turn. A turn under a grammar (``constrain=True``) may run to the
    grammar's own length bound instead, so it is never cut off half-written."""
    max_format_errors: int = 3
    max_tool_retries: int = 2
    max_observation_chars: int = 2000
    require_observation: bool = True
    """The "fake success" guard: question (once) a final answer given before any
    tool ran, when the agent has tools; a refusal is never questioned."""
    max_parallel_tools: int = 1
    """1: only a turn's first action runs. More: every action of a turn runs,
    this many at once (tools with side effects alone, in order)."""
    context_tokens: int | None = None
    """The context window the prompt must fit; None asks the backend (and
    without an answer, nothing is counted)."""

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_total_tokens", "max_turn_tokens", "max_format_errors", "max_observation_chars",
                     "max_parallel_tools"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("timeout_s", "tool_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits.{name} must be positive, got {getattr(self, name)!r}")
        if self.max_tool_retries < 0:
            raise ValueError(f"Limits.max_tool_retries must be 0 or more, got {self.max_tool_retries!r}")
        if self.context_tokens is not None and self.context_tokens < 1:
            raise ValueError(f"Limits.context_tokens must be at least 1 or None, got {self.context_tokens!r}")


# --- decisions -------------------------------------------------------------

@dataclass(frozen=True)
class RunTool:
    action: Action
    kind: str = field(default="run_tool", init=False)


@dataclass(frozen=True)
class Finish:
    answer: str
    kind: str = field(default="finish", init=False)


@dataclass(frozen=True)
class Retry:
    """Feed ``observation`` back to the model instead of a tool result.

    ``reason`` is ``format_error:<code>``, ``no_progress`` or
    ``needs_observation``; ``advance`` counts them by it.
    """

    observation: str
    reason: str
    same_as: int | None = None
    """For a repeated call: the step whose result was shown again."""
    kind: str = field(default="retry", init=False)


@dataclass(frozen=True)
class Stop:
    status: str
    reason: str
    kind: str = field(default="stop", init=False)


@dataclass(frozen=True)
class PlannedCall:
    """One action of a turn and how it is answered: run, or an earlier result shown again, or an error."""

    call_id: str
    action: Action
    same_as: str | None = None
    """An earlier identical call answers this one: ``step 2``, or a call id of this turn."""
    shown: str | None = None
    """The text shown for it when it does not run (earlier result, or why it cannot run)."""
    error: str | None = None
    """Why it cannot run (``unknown_tool``)."""

    @property
    def runs(self) -> bool:
        return self.same_as is None and self.error is None


@dataclass(frozen=True)
class RunTools:
    """Run every action of a turn (``Limits.max_parallel_tools`` > 1)."""

    calls: tuple[PlannedCall, ...]
    kind: str = field(default="run_tools", init=False)

    @property
    def action(self) -> Action:
        return self.calls[0].action


Decision = Union[RunTool, RunTools, Finish, Retry, Stop]


@dataclass(frozen=True)
class CallRecord:
    """One call of a turn and what came of it."""

    call_id: str
    action: Action
    observation: Observation | None
    """None when the call did not run (a repeat or an error)."""
    shown: str
    same_as: str | None = None
    cached: bool = False
    """Answered by the persistent cache rather than the tool."""


@dataclass(frozen=True)
class StepRecord:
    """One model turn and what came of it."""

    n: int
    text: str
    """The raw completion text (after the turn's label)."""
    kept: str
    """What stayed in the scratchpad: the trusted part of ``text``."""
    step: Step
    decision: Decision
    observation: Observation | None = None
    """The tool's result, when a tool ran."""
    observation_text: str | None = None
    """What the model was shown next: tool result, format error or nudge."""
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    calls: tuple[CallRecord, ...] = ()
    """Every call of a turn that ran several (``RunTools``), in the order written."""

    @property
    def action(self) -> Action | None:
        return self.decision.action if isinstance(self.decision, (RunTool, RunTools)) else None


@dataclass(frozen=True)
class Totals:
    steps: int = 0
    prompt_tokens: int = 0
    evaluated_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    engine_seconds: float = 0.0
    """Wall time not spent in the model or in tools: the loop's own cost."""
    wall_seconds: float = 0.0


@dataclass(frozen=True)
class RunResult:
    question: str
    status: str
    answer: str
    """The final answer when ``status == "answered"``; otherwise why the run stopped."""
    reason: str
    steps: tuple[StepRecord, ...]
    totals: Totals
    trace_path: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "answered"


@dataclass(frozen=True)
class Seen:
    """A call already made: its fingerprint and what the model was shown."""

    fingerprint: str
    text: str
    rerunnable: bool
    """A failure that may succeed next time (timeout, bad arguments)."""
    step: int = 0
    """The step that made the call (0: unknown)."""


@dataclass(frozen=True)
class RunState:
    """Everything ``decide`` and ``check_limits`` need, as plain data."""

    limits: Limits = Limits()
    tool_names: tuple[str, ...] = ()
    steps: int = 0
    tokens: int = 0
    format_errors: int = 0
    empty_turns: int = 0
    failing_tool: str | None = None
    tool_failures: int = 0
    repeats: int = 0
    """No-progress nudges given since the last new call."""
    observation_nudged: bool = False
    real_observations: int = 0
    seen: tuple[Seen, ...] = ()
    last_observation: str | None = None
    question: str = ""
    lang: str = "en"
    """The language corrections are worded in: the template's."""
    example_values: frozenset[str] = frozenset()
    """Numbers shown in the few-shot episodes (see ``episodes.episode_values``)."""
    nudged: frozenset[str] = frozenset()
    """Answer checks (``guards``) that already fired; each fires once."""


def fingerprint(action: Action) -> str:
    """Tool plus canonical arguments; ``"x"`` and ``{"only_key": "x"}`` are the same call."""
    args: Any = action.args
    if isinstance(args, dict) and len(args) == 1:
        (value,) = args.values()
        if isinstance(value, str):
            args = value
    if isinstance(args, str):
        canon = json.dumps(args.strip(), ensure_ascii=False)
    else:
        canon = json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    return f"{action.tool.lower()}:{canon}"


def _preview(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _format_error_decision(state: RunState, error: FormatError) -> Decision:
    if error.code == "empty" and state.empty_turns >= 1:
        return Stop("gave_up", "the model wrote nothing in two turns in a row")
    if state.format_errors + 1 >= state.limits.max_format_errors:
        return Stop("format_errors", f"{state.format_errors + 1} unusable turns in a row (the last: {error.code})")
    return Retry(error.message, f"format_error:{error.code}")


def decide(state: RunState, step: Step) -> Decision:
    """What to do with a parsed turn. Pure: same state and step, same decision."""
    if step.error is not None:
        return _format_error_decision(state, step.error)
    if step.actions:
        action = step.actions[0]
        if action.tool not in state.tool_names:
            return _format_error_decision(state, _unknown_tool(action.tool, state.tool_names, state.lang))
        fp = fingerprint(action)
        earlier = next((s for s in reversed(state.seen) if s.fingerprint == fp), None)
        if earlier is not None and not earlier.rerunnable:
            if state.repeats >= 1:
                return Stop("no_progress", f"the model called {action.tool} again with the same arguments")
            return Retry(_repeat_text(action.tool, earlier, state.lang), "no_progress", same_as=earlier.step or None)
        return RunTool(action)
    if step.final_answer is not None:
        answer = step.final_answer.strip()
        if not answer:
            if state.empty_turns >= 1 or state.format_errors + 1 >= state.limits.max_format_errors:
                return Stop("gave_up", "the model's final answer was empty")
            return Retry(say(state.lang, "Your final answer was empty. Write the answer after the label.",
                             "你的最终答案是空的。请在标签后写出答案。"), "format_error:empty")
        nudge = check_answer(answer, _answer_context(state), refusal=is_refusal(answer))
        if nudge is not None:
            reason = "needs_observation" if nudge.code == "no_observation" else f"guard:{nudge.code}"
            return Retry(nudge.message, reason)
        return Finish(answer)
    return _format_error_decision(
        state, FormatError("no_action", say(state.lang, "Write an action or a final answer after your thought.",
                                            "请在思考之后写一个行动或最终答案。"))
    )


def _answer_context(state: RunState) -> AnswerContext:
    return AnswerContext(
        question=state.question,
        tool_names=state.tool_names,
        observations=tuple(seen.text for seen in state.seen),
        real_observations=state.real_observations,
        example_values=state.example_values,
        nudged=state.nudged | ({"no_observation"} if state.observation_nudged else set()),
        require_observation=state.limits.require_observation,
        lang=state.lang,
    )


def _repeat_text(tool: str, earlier: Seen, lang: str = "en") -> str:
    """An earlier result shown again, marked as such, with the nudge to move on."""
    seen_text = _preview(earlier.text, _NUDGE_PREVIEW_CHARS)
    return say(
        lang,
        (f"You already called {tool} with these arguments"
         + (f" (same result as step {earlier.step})" if earlier.step else "")
         + f": {seen_text}\nUse that result, or try something different."),
        (f"你已经用同样的参数调用过 {tool}" + (f"（与第 {earlier.step} 步结果相同）" if earlier.step else "")
         + f"，结果是：{seen_text}\n请利用这个结果，或者换一种做法。"),
    )


def decide_turn(state: RunState, step: Step) -> Decision:
    """``decide``, running every action of a turn when ``Limits.max_parallel_tools`` > 1. Pure.

    A turn whose calls are all repeats is no progress (nudged once, then
    stopped), as in ``decide``; one whose calls all name unknown tools is a
    format error. Otherwise the fresh calls run and the rest are answered
    call by call: an earlier identical call's result, or the error.
    """
    if state.limits.max_parallel_tools < 2 or step.error is not None or len(step.actions) < 2:
        return decide(state, step)
    calls = plan_calls(state, step.actions, state.steps + 1)
    if any(c.runs for c in calls):
        return RunTools(calls)
    if all(c.error is not None for c in calls):
        return _format_error_decision(state, _unknown_tool(calls[0].action.tool, state.tool_names, state.lang))
    if state.repeats >= 1:
        return Stop("no_progress", "the model repeated calls it had already made")
    return Retry(batch_text([(c.action.tool, c.shown or "") for c in calls]), "no_progress")


def plan_calls(state: RunState, actions: Sequence[Action], n: int) -> tuple[PlannedCall, ...]:
    """How each action of turn ``n`` is answered. Pure.

    Call ids are ``n.i`` (i from 1). A repeat of an earlier step's call whose
    result still holds is answered with that result; a repeat within the turn
    runs once and is answered with the first one's result.
    """
    planned: list[PlannedCall] = []
    first_in_turn: dict[str, str] = {}
    for i, action in enumerate(actions, 1):
        call_id = f"{n}.{i}"
        if action.tool not in state.tool_names:
            planned.append(PlannedCall(call_id, action, shown=_unknown_tool(action.tool, state.tool_names, state.lang).message,
                                       error="unknown_tool"))
            continue
        fp = fingerprint(action)
        earlier = next((s for s in reversed(state.seen) if s.fingerprint == fp), None)
        if earlier is not None and not earlier.rerunnable:
            mark = f"(same result as step {earlier.step}) " if earlier.step else ""
            planned.append(PlannedCall(call_id, action, same_as=f"step {earlier.step}",
                                       shown=mark + earlier.text))
        elif fp in first_in_turn:
            planned.append(PlannedCall(call_id, action, same_as=first_in_turn[fp]))
        else:
            first_in_turn[fp] = call_id
            planned.append(PlannedCall(call_id, action))
    return tuple(planned)


def batch_text(results: Sequence[tuple[str, str]]) -> str:
    """One observation for several calls: each tool's name and its result, in the order called."""
    if len(results) == 1:
        return results[0][1]
    return "\n".join(f"{tool}: {text.strip()}" for tool, text in results)


def _unknown_tool(name: str, tool_names: Sequence[str], lang: str = "en") -> FormatError:
    if not tool_names:
        return FormatError("unknown_tool", say(
            lang,
            f"There is no tool {name!r}: no tools are available. Give the final answer.",
            f"没有名为 {name!r} 的工具：这里没有可用的工具。请直接给出最终答案。",
        ), name)
    return FormatError("unknown_tool", say(
        lang,
        f"There is no tool {name!r}. Use one of: {', '.join(tool_names)}.",
        f"没有名为 {name!r} 的工具。请使用其中之一：{'、'.join(tool_names)}。",
    ), name)


def check_limits(state: RunState, elapsed: float) -> Stop | None:
    """Whether the run must stop before the next model turn."""
    limits = state.limits
    if state.failing_tool is not None and state.tool_failures > limits.max_tool_retries:
        return Stop(
            "tool_failures",
            f"{state.failing_tool} failed {state.tool_failures} times in a row",
        )
    if elapsed >= limits.timeout_s:
        return Stop("timeout", f"the run took longer than {limits.timeout_s:g} s")
    if state.tokens >= limits.max_total_tokens:
        return Stop("max_tokens", f"{state.tokens} tokens used; the limit is {limits.max_total_tokens}")
    if state.steps >= limits.max_steps:
        return Stop("max_steps", f"no final answer after {state.steps} steps")
    return None


def advance(state: RunState, record: StepRecord) -> RunState:
    """The state after ``record``. Pure."""
    d = record.decision
    changes: dict[str, Any] = {
        "steps": state.steps + 1,
        "tokens": state.tokens + record.evaluated_tokens + record.completion_tokens,
    }
    if isinstance(d, Retry) and d.reason.startswith("format_error:"):
        changes["format_errors"] = state.format_errors + 1
        changes["empty_turns"] = state.empty_turns + 1 if d.reason == "format_error:empty" else 0
    else:
        changes["format_errors"] = 0
        changes["empty_turns"] = 0
    if isinstance(d, Retry) and d.reason == "no_progress":
        changes["repeats"] = state.repeats + 1
    if isinstance(d, Retry) and d.reason == "needs_observation":
        changes["observation_nudged"] = True
    if isinstance(d, Retry) and d.reason.startswith("guard:"):
        changes["nudged"] = state.nudged | {d.reason.split(":", 1)[1]}
    if isinstance(d, RunTools):
        changes.update(_after_calls(state, record))
    if isinstance(d, RunTool) and record.observation is not None:
        obs = record.observation
        fp = fingerprint(d.action)
        if not any(s.fingerprint == fp for s in state.seen):
            changes["repeats"] = 0
        shown = record.observation_text if record.observation_text is not None else obs.text
        changes["seen"] = state.seen + (Seen(fp, shown, (not obs.ok) and obs.retryable, record.n),)
        changes["last_observation"] = shown
        if obs.ok:
            changes["real_observations"] = state.real_observations + 1
            changes["failing_tool"] = None
            changes["tool_failures"] = 0
        elif state.failing_tool == d.action.tool:
            changes["tool_failures"] = state.tool_failures + 1
        else:
            changes["failing_tool"] = d.action.tool
            changes["tool_failures"] = 1
    return replace(state, **changes)


def _after_calls(state: RunState, record: StepRecord) -> dict[str, Any]:
    """What a turn of several calls changes: every call it ran is seen; any success resets the failure count."""
    ran = [c for c in record.calls if c.observation is not None]
    changes: dict[str, Any] = {}
    if not ran:
        return changes
    known = {s.fingerprint for s in state.seen}
    fresh = [Seen(fingerprint(c.action), c.shown, (not c.observation.ok) and c.observation.retryable, record.n)
             for c in ran if c.observation is not None]
    if any(s.fingerprint not in known for s in fresh):
        changes["repeats"] = 0
    changes["seen"] = state.seen + tuple(fresh)
    changes["last_observation"] = record.observation_text
    succeeded = sum(1 for c in ran if c.observation is not None and c.observation.ok)
    if succeeded:
        changes["real_observations"] = state.real_observations + succeeded
        changes["failing_tool"] = None
        changes["tool_failures"] = 0
    else:
        tool = ran[0].action.tool
        if state.failing_tool == tool:
            changes["tool_failures"] = state.tool_failures + 1
        else:
            changes["failing_tool"] = tool
            changes["tool_failures"] = 1
    return changes


def explain(status: str, reason: str, state: RunState) -> str:
    """The answer of a run that did not answer: why, and what it last saw."""
    text = f"No answer ({status}): {reason}."
    if state.last_observation:
        text += f" Last observation: {_preview(state.last_observation, _EXPLAIN_PREVIEW_CHARS)}"
    return text


def kept_text(step: Step, prefix_len: int, all_actions: bool = False) -> str:
    """The trusted part of a turn, without its label and trailing whitespace.

    With several actions it ends after the first, unless ``all_actions`` (they all ran).
    """
    end = step.end if step.end > 0 else len(step.text)
    if not all_actions and len(step.actions) > 1 and step.actions[0].span[1] > 0:
        end = min(end, step.actions[0].span[1])
    return step.text[prefix_len:max(end, prefix_len)].rstrip()


def flag_truncation(step: Step, finish_reason: str, max_tokens: int) -> Step:
    """An action that runs into the token limit may be cut short: refuse it.

    The parser catches a cut-off JSON string; a bare ``Action Input: 37*9``
    that stopped at the limit looks complete, so the loop checks the
    backend's finish reason too.
    """
    if finish_reason != "length" or step.error is not None or not step.actions:
        return step
    first = step.actions[0]
    end = first.span[1] if first.span[1] > 0 else step.end
    if end < len(step.text.rstrip()):
        return step
    return replace(
        step,
        actions=(),
        error=FormatError(
            "truncated",
            f"Your turn was cut off at the {max_tokens}-token limit before the action was complete. "
            "Keep the thought short and write the whole action.",
        ),
    )


# --- the agent -------------------------------------------------------------

@dataclass(frozen=True)
class _Turn:
    completion: Completion
    step: Step
    kept: str
    seconds: float
    max_tokens: int


class _Events:
    """Sends each event to the trace (flushed) and then to ``on_event``, one event at a time.

    Tool calls running together emit from their own threads; the lock keeps
    each event whole and in the order it happened.
    """

    def __init__(self, writer: TraceWriter | None, on_event: Callable[[dict], None] | None, clock: Callable[[], float],
                 redactor: Callable[[Any], Any] | None = None):
        self.writer = writer
        self.on_event = on_event
        self.redactor = redactor
        self._clock = clock
        self._t0 = clock()
        self._lock = threading.Lock()

    def emit(self, event: str, **data: Any) -> dict[str, Any]:
        with self._lock:
            return self._emit(event, **data)

    def _emit(self, event: str, **data: Any) -> dict[str, Any]:
        if self.redactor is not None:
            data = self.redactor(to_jsonable(data))
        if self.writer is not None and not self.writer.closed:
            record = self.writer.write(event, **data)
        else:
            record = {"event": event, "t": round(self._clock() - self._t0, 6), **to_jsonable(data)}
        if self.on_event is not None:
            self.on_event(record)
        return record


_HISTORY_THOUGHT = {"en": " I will use {tool}.\n", "zh": "我将使用 {tool}。\n"}


class Agent:
    """Runs a question through a backend, tools and a template.

    Every argument has a default: ``Agent(tools=[f])`` uses the catalog's
    default model through llama.cpp (loaded at the first run, not here), the
    ``classic`` template and ``Limits()``. Names work wherever objects do:
    ``backend`` is a ``Backend``, ``"llama"`` or a server URL (``model`` then
    names the catalog model or .gguf path), ``template`` a name or path,
    ``tools`` may hold built-in tool names (``"calculator"``).

    ``instructions`` (a system prompt) goes in front of the rendered template.
    ``trace`` is a path (a fresh JSONL file per run) or an open
    ``TraceWriter`` (the caller closes it). ``on_event`` receives every trace
    event as it happens (the CLI prints from it); ``on_token`` receives the
    text of each model turn as it is generated (see ``complete_streaming``).
    ``clock`` is injectable so tests can drive the timeout. ``prose="final"``
    accepts bare prose as the final answer (for chat-wrapped tiny models); the
    default treats it as a format error. ``redact`` (field names, or a
    ``hook(tool_name, result)``) hides tool-result fields from the model and,
    with secret-looking values and ``name: value`` pairs, masks them in the
    trace and ``on_event``. ``tool_cache`` (a ``tool_cache.ToolCache``) answers calls
    to ``cacheable`` tools from earlier runs and keeps their results.

    ``tool_retrieval=True`` with more than ``max_shown_tools`` tools shows the
    model only the best matches for each question plus ``list_tools(query)``,
    which reveals more (``react_text.prompting.retrieval``); the trace records
    ``tools_shown`` and ``tools_revealed``.
    """

    def __init__(
        self,
        backend: Backend | str | None = None,
        tools: Iterable[Any] = (),
        template: Any = "classic",
        limits: Limits = Limits(),
        trace: str | Path | TraceWriter | None = None,
        on_event: Callable[[dict], None] | None = None,
        constrain: bool = False,
        prose: str = "error",
        *,
        model: str | Path | None = None,
        instructions: str | None = None,
        on_token: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        temperature: float = 0.0,
        seed: int = 0,
        examples: Any = None,
        redact: Any = None,
        tool_cache: ToolCache | None = None,
        tool_retrieval: bool = False,
        max_shown_tools: int = 8,
    ) -> None:
        from .api import backend_named, tools_named
        from ..redaction import Redactor

        if prose not in ("error", "final"):
            raise ValueError(f"prose must be 'error' or 'final', got {prose!r}")
        if instructions is not None and not isinstance(instructions, str):
            raise TypeError(f"instructions must be a string, not {type(instructions).__name__}")
        self.backend = backend_named(backend, model)
        self.limits = limits
        self.trace = trace
        self.on_event = on_event
        self.on_token = on_token
        self.instructions = (instructions or "").strip()
        self.prose = prose
        self.temperature = temperature
        self.seed = seed
        self.examples = examples
        self.redact = redact
        self._redactor = None if redact is None else Redactor.with_fields(() if callable(redact) else
                                                                          [redact] if isinstance(redact, str) else redact)
        self.tool_cache = tool_cache
        self._clock = clock
        self._history: str | None = None
        self._transcript = ""
        if template is None or isinstance(template, (str, Path)):
            from ..prompting.templates import load_template

            template = load_template(str(template or "classic"))
        self.template = template
        self.tools: dict[str, Any] = {}
        for t in tools_named(tools):
            if t.name in self.tools:
                raise ValueError(f"two tools are named {t.name!r}")
            self.tools[t.name] = t
        self._retrieval = self._add_tool_finder(max_shown_tools) if tool_retrieval else None
        self._visible: tuple[str, ...] = tuple(self.tools)
        self._tool_specs = {name: t.parameters for name, t in self.tools.items()}
        self.grammar: str | None = None
        self._turn_tokens = self.limits.max_turn_tokens
        if constrain:
            self.grammar = _build_grammar(backend, template, list(self.tools.values()))
            self._turn_tokens = max(self._turn_tokens, _grammar_tokens(self.grammar))
        self.context_tokens = limits.context_tokens or context_size(backend)

    # -- public ---------------------------------------------------------------

    def run(self, question: str) -> RunResult:
        """Answer ``question``. Never raises for model, tool, backend or template failures, nor Ctrl-C."""
        return self._run(question, None)

    def chat(self, message: str) -> RunResult:
        """Answer ``message`` as the next question of one conversation.

        The scratchpad carries over: the new question is appended after the
        last turn of the previous one, so earlier questions, steps and answers
        stay in the prompt exactly as the model saw them (and llama.cpp reuses
        them from its cache). ``run`` never touches this history; ``reset``
        starts a new conversation.
        """
        result = self._run(message, self._history)
        if result.steps:  # a question that never reached the model leaves no trace in the conversation
            self._history = self._transcript
        return result

    def reset(self) -> None:
        """Forget the conversation ``chat`` has been keeping."""
        self._history = None

    @property
    def history(self) -> str | None:
        """The conversation so far, exactly as the model saw it (None before the first ``chat``)."""
        return self._history

    def _run(self, question: str, history: str | None) -> RunResult:
        from ..prompting.templates import TemplateError

        clock = self._clock
        started = clock()
        writer, own_writer = self._open_trace()
        events = _Events(writer, self.on_event, clock, self._redactor)
        tool_names = self._show_tools(question, events)
        state = self._initial_state(question, tool_names)
        records: list[StepRecord] = []
        status = reason = answer = ""
        try:
            try:
                events.emit("run_start", **self._run_start(question))
                if history is None:
                    prompt, wrap_info = self._first_prompt(question)
                else:
                    prompt, wrap_info = self._follow_up(history, question)
                head, entries, window = prompt, [], self._window()
                previous: str | None = None
                while True:
                    stop = check_limits(state, clock() - started)
                    if stop is None and window is not None:
                        fitted, stop = window.fit(head, entries, state.steps + 1, events)
                        if fitted is not None:
                            entries, prompt, previous = fitted, head + window.render(fitted), None
                    if stop is not None:
                        status, reason = stop.status, stop.reason
                        break
                    n = state.steps + 1
                    turn = self._model_turn(prompt, previous, n, state, events, wrap_info)
                    decision = decide_turn(state, turn.step)
                    if isinstance(decision, RunTools):
                        turn = replace(turn, kept=kept_text(turn.step, len(self.template.turn_prefix(n)), True))
                    events.emit("decision", n=n, decision=decision)
                    self._transcript = prompt + turn.kept
                    record = self._act(turn, decision, n, state, started, events)
                    records.append(record)
                    state = advance(state, record)
                    state = self._revealed(state, n, events)
                    if isinstance(decision, Finish):
                        status, reason, answer = "answered", "the model gave a final answer", decision.answer
                        break
                    if isinstance(decision, Stop):
                        status, reason = decision.status, decision.reason
                        break
                    previous = prompt
                    prompt = prompt + turn.kept + self.template.observation(record.observation_text, n)
                    entries.append(Entry(n, turn.kept, record.observation_text or ""))
            except KeyboardInterrupt:
                status, reason = "interrupted", f"interrupted by the user after {len(records)} steps"
            except BackendError as exc:
                status, reason = "backend_error", f"backend error: {exc}"
            except TemplateError as exc:  # a user template that fails to render (undefined name, sandbox limit)
                status, reason = "template_error", f"the prompt could not be built: {exc}"
            except Exception as exc:  # a bug: the trace still ends with run_end, then it surfaces
                events.emit("run_end", status="error", answer="", totals=_totals(records, clock() - started),
                            reason=f"internal error: {type(exc).__name__}: {exc}")
                raise
            if not answer:
                answer = explain(status, reason, state)
            result = RunResult(
                question=question,
                status=status,
                answer=answer,
                reason=reason,
                steps=tuple(records),
                totals=_totals(records, clock() - started),
                trace_path=str(writer.path) if writer is not None else None,
            )
            events.emit("run_end", status=status, answer=answer, reason=reason, totals=result.totals)
            return result
        finally:
            if own_writer and writer is not None:
                writer.close()

    def propose(self, question: str, history: Sequence[tuple[Action, Observation | str]] = ()) -> Step:
        """One model turn, parsed, without running any tool.

        ``history`` continues a conversation: each (action, observation) pair
        is written into the scratchpad in the template's own syntax before the
        model's turn. Format errors are fed back (as in ``run``) until a usable
        turn or ``Limits.max_format_errors`` unusable ones; the last one is
        returned. ``BackendError`` propagates: there is no run to end.
        """
        from ..protocol.dialects import format_action

        writer, own_writer = self._open_trace()
        events = _Events(writer, self.on_event, self._clock, self._redactor)
        try:
            events.emit("run_start", **self._run_start(question), mode="propose")
            tool_names = self._show_tools(question, events)
            prompt, wrap_info = self._first_prompt(question)
            n = 1
            thought = _HISTORY_THOUGHT.get(getattr(self.template, "language", "en"), _HISTORY_THOUGHT["en"])
            for action, obs in history:
                shown = obs if isinstance(obs, str) else _shown(obs)
                turn_text = thought.format(tool=action.tool) + format_action(
                    self.template.dialect, action.tool, action.args, n
                )
                prompt += turn_text + self.template.observation(shown, n)
                n += 1
            state = self._initial_state(question, tool_names)
            previous: str | None = None
            while True:
                turn = self._model_turn(prompt, previous, n, state, events, wrap_info)
                step = turn.step
                if step.error is None and step.actions and step.actions[0].tool not in state.tool_names:
                    step = replace(step, actions=(), error=_unknown_tool(step.actions[0].tool, state.tool_names, state.lang))
                if step.error is None or state.format_errors + 1 >= self.limits.max_format_errors:
                    events.emit("run_end", status="proposed" if step.error is None else "format_errors",
                                answer=step.final_answer, step=step)
                    return step
                state = replace(state, format_errors=state.format_errors + 1)
                previous = prompt
                prompt = prompt + turn.kept + self.template.observation(step.error.message, n)
                n += 1
        finally:
            if own_writer and writer is not None:
                writer.close()

    # -- internals ------------------------------------------------------------

    def _initial_state(self, question: str, tool_names: tuple[str, ...]) -> RunState:
        return RunState(
            limits=self.limits,
            tool_names=tool_names,
            question=question,
            lang=prompt_language(self.template, question),
            example_values=self._example_values(question),
        )

    def _example_values(self, question: str) -> frozenset[str]:
        shown = getattr(self.template, "shown_episodes", None)
        if shown is None:
            return frozenset()
        return episode_values(shown([self.tools[n] for n in self._visible], question, self.examples))

    def _add_tool_finder(self, max_shown: int) -> Any:
        """With more than ``max_shown`` tools, add ``list_tools`` and return the retrieval that picks what is shown."""
        from ..prompting.retrieval import ToolRetrieval

        if len(self.tools) <= max_shown:
            return None
        retrieval = ToolRetrieval(list(self.tools.values()), max_shown=max_shown)

        def reveal(names: tuple[str, ...]) -> None:
            self._visible = self._visible + tuple(n for n in names if n not in self._visible)

        finder = retrieval.list_tool(lambda: self._visible, reveal)
        self.tools[finder.name] = finder
        return retrieval

    def _show_tools(self, question: str, events: _Events) -> tuple[str, ...]:
        """The tools this run starts with: all of them, or the best matches for the question and ``list_tools``."""
        if self._retrieval is None:
            self._visible = tuple(self.tools)
            return self._visible
        from ..prompting.retrieval import LIST_TOOLS

        matches = self._retrieval.shown(question)
        self._visible = tuple(m.name for m in matches) + (LIST_TOOLS,)
        events.emit("tools_shown", tools=[{"name": m.name, "score": m.score} for m in matches],
                    hidden=len(self.tools) - len(self._visible))
        return self._visible

    def _revealed(self, state: RunState, n: int, events: _Events) -> RunState:
        """Tools ``list_tools`` revealed during step ``n`` become callable (their signatures are in its observation)."""
        if self._visible == state.tool_names:
            return state
        events.emit("tools_revealed", n=n, tools=[t for t in self._visible if t not in state.tool_names])
        return replace(state, tool_names=self._visible)

    def _window(self) -> _Window | None:
        """The context keeper, when the context size is known (``Limits.context_tokens`` or the backend)."""
        if self.context_tokens is None:
            return None
        return _Window(self.template, token_counter(self.backend), self.context_tokens, self._turn_tokens + 8)

    def _open_trace(self) -> tuple[TraceWriter | None, bool]:
        if self.trace is None:
            return None, False
        if isinstance(self.trace, TraceWriter):
            return self.trace, False
        return TraceWriter(self.trace, clock=self._clock), True

    def _run_start(self, question: str) -> dict[str, Any]:
        t = self.template
        return {
            "question": question,
            "template": {
                "name": getattr(t, "name", None),
                "dialect": getattr(t, "dialect", None),
                "path": str(getattr(t, "path", "") or ""),
                "stop": list(getattr(t, "stop", ())),
            },
            "backend": getattr(self.backend, "name", type(self.backend).__name__),
            "model": str(getattr(self.backend, "model", getattr(self.backend, "model_path", "")) or ""),
            "limits": asdict(self.limits),
            "context_tokens": self.context_tokens,
            "tools": [
                {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
                for tool in self.tools.values()
            ],
            "constrain": self.grammar is not None,
            "prose": self.prose,
            "temperature": self.temperature,
            "seed": self.seed,
        }

    def _first_prompt(self, question: str) -> tuple[str, dict[str, Any]]:
        """The wrapped prompt, and how it was wrapped (for the trace, so a replay wraps alike).

        An instruct model gets the instructions as its user message and the
        first turn's label (``Thought:``) inside its own assistant turn, so the
        very first tokens it writes already continue the protocol.
        """
        rendered = self.template.render(question, [self.tools[n] for n in self._visible], self.examples)
        if self.instructions:
            rendered = f"{self.instructions}\n\n{rendered}"
        label = self.template.turn_prefix(1)
        body = rendered[: len(rendered) - len(label)] if rendered.endswith(label) else rendered
        wrapped = self.backend.wrap_prompt(body)
        if wrapped == body:
            return rendered, {"wrap": ["", ""]}
        return wrapped + label, _wrap_parts(body, wrapped)

    def _follow_up(self, history: str, question: str) -> tuple[str, dict[str, Any]]:
        """The next question of a conversation, appended to its scratchpad in the template's own words.

        The question line is cut from the template rendered around a marker,
        so it reads exactly like the first question (``Question: ...``,
        ``问题：...``) and ends with the label that opens the model's turn.
        """
        marker = "\ue000"
        rendered = self.template.render(marker, list(self.tools.values()), self.examples)
        at = rendered.rfind(marker)
        tail = rendered[rendered.rfind("\n", 0, at) + 1:] if at >= 0 else f"{marker}\n{self.template.turn_prefix(1)}"
        return f"{history}\n\n{tail.replace(marker, question.strip())}", {"continues": len(history)}

    def _model_turn(self, prompt: str, previous: str | None, n: int, state: RunState, events: _Events,
                    wrap_info: dict[str, Any]) -> _Turn:
        if previous is None:
            events.emit("prompt", n=n, chars=len(prompt), text=prompt, **wrap_info)
        else:
            events.emit("prompt", n=n, chars=len(prompt), delta=prompt[len(previous):])
        budget = max(1, self.limits.max_total_tokens - state.tokens)
        max_tokens = min(self._turn_tokens, budget)
        t0 = self._clock()
        completion = complete_streaming(
            self.backend,
            prompt,
            self.on_token,
            stop=list(self.template.stop),
            max_tokens=max_tokens,
            temperature=self.temperature,
            seed=self.seed,
            grammar=self.grammar,
        )
        seconds = self._clock() - t0
        events.emit(
            "model_turn",
            n=n,
            text=completion.text,
            prompt_tokens=completion.prompt_tokens,
            evaluated_tokens=_evaluated(completion),
            completion_tokens=completion.completion_tokens,
            finish_reason=completion.finish_reason,
            seconds=seconds,
            backend_seconds=completion.seconds,
            extra=completion.extra,
        )
        prefix = self.template.turn_prefix(n)
        specs = {name: self._tool_specs[name] for name in state.tool_names}
        step = parse(prefix + completion.text, specs, prose=self.prose,
                     dialect=self.template.dialect, lang=state.lang, n=n)
        step = flag_truncation(step, completion.finish_reason, max_tokens)
        kept = kept_text(step, len(prefix))
        events.emit("step", n=n, step=step, kept=kept)
        return _Turn(completion, step, kept, seconds, max_tokens)

    def _act(
        self, turn: _Turn, decision: Decision, n: int, state: RunState, started: float, events: _Events
    ) -> StepRecord:
        observation: Observation | None = None
        shown: str | None = None
        tool_seconds = 0.0
        calls: tuple[CallRecord, ...] = ()
        if isinstance(decision, (RunTool, RunTools)):
            planned = decision.calls if isinstance(decision, RunTools) else (PlannedCall(f"{n}.1", decision.action),)
            t0 = self._clock()
            ran = self._run_calls(planned, n, started, events)
            tool_seconds = self._clock() - t0
            observation = next((c.observation for c in ran if c.observation is not None), None)
            shown = batch_text([(c.action.tool, c.shown) for c in ran])
            calls = ran if isinstance(decision, RunTools) else ()
        elif isinstance(decision, Retry):
            shown = decision.observation
            if decision.reason == "no_progress":
                for action in turn.step.actions[: 1 if self.limits.max_parallel_tools < 2 else None]:
                    events.emit("cache_hit", n=n, tool=action.tool, args=action.args, scope="run",
                                same_as=f"step {decision.same_as}" if decision.same_as else None)
        c = turn.completion
        return StepRecord(
            n=n,
            text=c.text,
            kept=turn.kept,
            step=turn.step,
            decision=decision,
            observation=observation,
            observation_text=shown,
            prompt_tokens=c.prompt_tokens,
            evaluated_tokens=_evaluated(c),
            completion_tokens=c.completion_tokens,
            finish_reason=c.finish_reason,
            model_seconds=turn.seconds,
            tool_seconds=tool_seconds,
            calls=calls,
        )

    def _run_calls(self, planned: Sequence[PlannedCall], n: int, started: float,
                   events: _Events) -> tuple[CallRecord, ...]:
        """Run the calls that run (together, up to the limit); answer the others from what is known."""
        from ..tools.calling import ToolCall, call_tools

        remaining = self.limits.timeout_s - (self._clock() - started)
        to_run: list[ToolCall] = []
        for p in planned:
            if not p.runs:
                continue
            tool = self.tools[p.action.tool]
            timeout = max(0.05, min(self.limits.tool_timeout_s, remaining, tool.timeout or float("inf")))
            max_chars = min(self.limits.max_observation_chars, tool.max_chars)
            to_run.append(ToolCall(p.call_id, tool, p.action.args, timeout, max_chars, self.redact))

        def on_start(call: ToolCall) -> None:
            events.emit("tool_call", n=n, call_id=call.call_id, tool=call.tool.name, args=call.args,
                        timeout=call.timeout)

        def on_end(call: ToolCall, result: Any) -> None:
            if result.cached:
                events.emit("cache_hit", n=n, call_id=call.call_id, tool=call.tool.name, args=call.args,
                            scope="disk")
            events.emit("observation", n=n, call_id=call.call_id, observation=result.observation,
                        shown=_shown(result.observation), cached=result.cached)

        results = call_tools(to_run, max_workers=self.limits.max_parallel_tools, cache=self.tool_cache,
                             on_start=on_start, on_end=on_end)
        by_id = {r.call_id: r for r in results}
        records: list[CallRecord] = []
        for p in planned:
            if p.call_id in by_id:
                r = by_id[p.call_id]
                records.append(CallRecord(p.call_id, p.action, r.observation, _shown(r.observation), cached=r.cached))
                continue
            if p.error is None and p.same_as in by_id:  # a repeat within this turn
                text = f"(same result as call {p.same_as}) " + _shown(by_id[p.same_as].observation)
            else:
                text = p.shown or ""
            if p.error is None:
                events.emit("cache_hit", n=n, call_id=p.call_id, tool=p.action.tool, args=p.action.args,
                            scope="run", same_as=p.same_as)
            records.append(CallRecord(p.call_id, p.action, None, text, same_as=p.same_as))
        return tuple(records)


class _Window:
    """Counts each prompt against the context window and cuts older steps when the next turn would not fit.

    What to cut is ``context.fit_context``'s (pure) decision; this holds the
    token counter (the backend's tokenizer, memoised per step text) and
    writes a ``context`` event for every cut.
    """

    def __init__(self, template: Any, count: Callable[[str], int], context_tokens: int, reserve: int) -> None:
        self.template = template
        self.context_tokens = context_tokens
        self.reserve = reserve
        self.limit = context_tokens - reserve
        self.drop_target = self.limit // 2
        self._count = count
        self._counted: dict[str, int] = {}

    def render(self, entries: Sequence[Entry]) -> str:
        return "".join(e.turn + self.template.observation(e.observation, e.n) for e in entries)

    def _count_entry(self, entry: Entry) -> int:
        text = self.render([entry])
        if text not in self._counted:
            self._counted[text] = self._count(text)
        return self._counted[text]

    def fit(self, head: str, entries: list[Entry], n: int, events: _Events) -> tuple[list[Entry] | None, Stop | None]:
        """(the entries after a cut or None when nothing was cut, and a Stop when even the cut does not fit)."""
        before = tokens = self._count(head + self.render(entries))
        current, cuts = entries, []
        for _ in range(3):  # the summed estimate may be off by a few tokens: recount and cut again
            fit = fit_context(tokens, current, count_entry=self._count_entry, limit=self.limit,
                              drop_target=self.drop_target)
            if not fit.cuts:
                break
            current, cuts = list(fit.entries), cuts + list(fit.cuts)
            tokens = self._count(head + self.render(current))
            if tokens <= self.limit:
                break
        if cuts:
            events.emit("context", n=n, tokens_before=before, tokens_after=tokens, context=self.context_tokens,
                        reserve=self.reserve, cuts=cuts)
        stop = None
        if tokens > self.limit:
            stop = Stop("context_full",
                        f"the prompt takes {tokens} tokens and a turn may need {self.reserve} more, but the context "
                        f"holds {self.context_tokens}, even with older steps shortened")
        return (current if cuts else None), stop


def _evaluated(c: Completion) -> int:
    return c.prompt_tokens if c.evaluated_tokens is None else c.evaluated_tokens


def _shown(obs: Observation) -> str:
    """A tool result as the model reads it; failures say so and why."""
    if obs.ok:
        return obs.text
    text = obs.text.strip()
    if text.lower().startswith("error"):
        return text
    return f"Error ({obs.code}): {text}"


def _wrap_parts(rendered: str, wrapped: str) -> dict[str, Any]:
    """How the backend wrapped the rendered prompt, so a replay can wrap the same way."""
    at = wrapped.find(rendered)
    if at < 0:
        return {"rendered": rendered, "wrapped": wrapped}
    return {"wrap": [wrapped[:at], wrapped[at + len(rendered):]]}


def _totals(records: Sequence[StepRecord], wall: float) -> Totals:
    model = sum(r.model_seconds for r in records)
    tools = sum(r.tool_seconds for r in records)
    return Totals(
        steps=len(records),
        prompt_tokens=sum(r.prompt_tokens for r in records),
        evaluated_tokens=sum(r.evaluated_tokens for r in records),
        completion_tokens=sum(r.completion_tokens for r in records),
        model_seconds=model,
        tool_seconds=tools,
        engine_seconds=max(0.0, wall - model - tools),
        wall_seconds=wall,
    )


def _grammar_tokens(grammar: str) -> int:
    """Tokens a turn under ``grammar`` may need to finish (a token is at least a byte); 0 if unbounded."""
    from ..grammar.gbnf import max_bytes

    return max_bytes(grammar) or 0


def _build_grammar(backend: Backend, template: Any, tools: list[Any]) -> str:
    """The grammar hook for ``constrain=True``; fails early and plainly."""
    if not getattr(backend, "supports_grammar", False):
        raise ValueError(
            f"backend {getattr(backend, 'name', backend)!r} cannot constrain output with a grammar; "
            "use the llama or http backend, or drop constrain"
        )
    from ..grammar.gbnf import build_grammar

    return build_grammar(template.dialect, tools)
