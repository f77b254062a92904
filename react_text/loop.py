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
``interrupted``    Ctrl-C; the trace holds everything up to that point.

Only ``answered`` carries the model's answer; every other status carries an
explanation (why it stopped, and the last observation), never an empty string.

Several actions in one turn: only the first runs. The rest were written before
the model saw the first result, so their arguments are guesses (field notes 1);
the scratchpad is cut right after the first action so it shows exactly what ran.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, Union

from .answers import is_refusal
from .backends.base import Backend, BackendError
from .episodes import episode_values
from .guards import AnswerContext, check_answer, say
from .parser import parse
from .trace import TraceWriter, to_jsonable
from .types import Action, Completion, FormatError, Observation, Step

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
    "interrupted",
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

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_total_tokens", "max_turn_tokens", "max_format_errors", "max_observation_chars"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("timeout_s", "tool_timeout_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits.{name} must be positive, got {getattr(self, name)!r}")
        if self.max_tool_retries < 0:
            raise ValueError(f"Limits.max_tool_retries must be 0 or more, got {self.max_tool_retries!r}")


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
    kind: str = field(default="retry", init=False)


@dataclass(frozen=True)
class Stop:
    status: str
    reason: str
    kind: str = field(default="stop", init=False)


Decision = Union[RunTool, Finish, Retry, Stop]


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

    @property
    def action(self) -> Action | None:
        return self.decision.action if isinstance(self.decision, RunTool) else None


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
            seen_text = _preview(earlier.text, _NUDGE_PREVIEW_CHARS)
            return Retry(
                say(
                    state.lang,
                    f"You already called {action.tool} with these arguments and got: {seen_text}\n"
                    "Use that result, or try something different.",
                    f"你已经用同样的参数调用过 {action.tool}，结果是：{seen_text}\n请利用这个结果，或者换一种做法。",
                ),
                "no_progress",
            )
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


def _unknown_tool(name: str, tool_names: Sequence[str], lang: str = "en") -> FormatError:
    if not tool_names:
        return FormatError("unknown_tool", say(
            lang,
            f"There is no tool {name!r}: no tools are available. Give the final answer.",
            f"没有名为 {name!r} 的工具：这里没有可用的工具。请直接给出最终答案。",
        ))
    return FormatError("unknown_tool", say(
        lang,
        f"There is no tool {name!r}. Use one of: {', '.join(tool_names)}.",
        f"没有名为 {name!r} 的工具。请使用其中之一：{'、'.join(tool_names)}。",
    ))


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
    if isinstance(d, RunTool) and record.observation is not None:
        obs = record.observation
        fp = fingerprint(d.action)
        if not any(s.fingerprint == fp for s in state.seen):
            changes["repeats"] = 0
        shown = record.observation_text if record.observation_text is not None else obs.text
        changes["seen"] = state.seen + (Seen(fp, shown, (not obs.ok) and obs.retryable),)
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


def explain(status: str, reason: str, state: RunState) -> str:
    """The answer of a run that did not answer: why, and what it last saw."""
    text = f"No answer ({status}): {reason}."
    if state.last_observation:
        text += f" Last observation: {_preview(state.last_observation, _EXPLAIN_PREVIEW_CHARS)}"
    return text


def kept_text(step: Step, prefix_len: int) -> str:
    """The trusted part of a turn, without its label and trailing whitespace."""
    end = step.end if step.end > 0 else len(step.text)
    if len(step.actions) > 1 and step.actions[0].span[1] > 0:
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
    """Sends each event to the trace (flushed) and then to ``on_event``."""

    def __init__(self, writer: TraceWriter | None, on_event: Callable[[dict], None] | None, clock: Callable[[], float]):
        self.writer = writer
        self.on_event = on_event
        self._clock = clock
        self._t0 = clock()

    def emit(self, event: str, **data: Any) -> dict[str, Any]:
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

    ``trace`` is a path (a fresh JSONL file per run) or an open
    ``TraceWriter`` (the caller closes it). ``on_event`` receives every trace
    event as it happens (the CLI prints from it). ``clock`` is injectable so
    tests can drive the timeout. ``prose="final"`` accepts bare prose as the
    final answer (for chat-wrapped tiny models); the default treats it as a
    format error.

    ``tool_retrieval=True`` with more than ``max_shown_tools`` tools shows the
    model only the best matches for each question plus ``list_tools(query)``,
    which reveals more (``react_text.tool_retrieval``); the trace records
    ``tools_shown`` and ``tools_revealed``.
    """

    def __init__(
        self,
        backend: Backend,
        tools: Iterable[Any],
        template: Any,
        limits: Limits = Limits(),
        trace: str | Path | TraceWriter | None = None,
        on_event: Callable[[dict], None] | None = None,
        constrain: bool = False,
        prose: str = "error",
        *,
        clock: Callable[[], float] = time.monotonic,
        temperature: float = 0.0,
        seed: int = 0,
        examples: Any = None,
        tool_retrieval: bool = False,
        max_shown_tools: int = 8,
    ) -> None:
        from .tools import Tool, tool as make_tool

        if prose not in ("error", "final"):
            raise ValueError(f"prose must be 'error' or 'final', got {prose!r}")
        self.backend = backend
        self.limits = limits
        self.trace = trace
        self.on_event = on_event
        self.prose = prose
        self.temperature = temperature
        self.seed = seed
        self.examples = examples
        self._clock = clock
        if isinstance(template, (str, Path)):
            from .templates import load_template

            template = load_template(str(template))
        self.template = template
        self.tools: dict[str, Any] = {}
        for t in tools:
            t = t if isinstance(t, Tool) else make_tool(t)
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

    # -- public ---------------------------------------------------------------

    def run(self, question: str) -> RunResult:
        """Answer ``question``. Never raises for model, tool or backend failures, nor Ctrl-C."""
        clock = self._clock
        started = clock()
        writer, own_writer = self._open_trace()
        events = _Events(writer, self.on_event, clock)
        tool_names = self._show_tools(question, events)
        state = RunState(
            limits=self.limits,
            tool_names=tool_names,
            question=question,
            lang=getattr(self.template, "language", "en"),
            example_values=self._example_values(question),
        )
        records: list[StepRecord] = []
        status = reason = answer = ""
        try:
            try:
                events.emit("run_start", **self._run_start(question))
                prompt, wrap_info = self._first_prompt(question)
                previous: str | None = None
                while True:
                    stop = check_limits(state, clock() - started)
                    if stop is not None:
                        status, reason = stop.status, stop.reason
                        break
                    n = state.steps + 1
                    turn = self._model_turn(prompt, previous, n, state, events, wrap_info)
                    decision = decide(state, turn.step)
                    events.emit("decision", n=n, decision=decision)
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
            except KeyboardInterrupt:
                status, reason = "interrupted", f"interrupted by the user after {len(records)} steps"
            except BackendError as exc:
                status, reason = "backend_error", f"backend error: {exc}"
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
        from .dialects import format_action

        writer, own_writer = self._open_trace()
        events = _Events(writer, self.on_event, self._clock)
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
            state = RunState(
                limits=self.limits,
                tool_names=tool_names,
                question=question,
                lang=getattr(self.template, "language", "en"),
                example_values=self._example_values(question),
            )
            previous: str | None = None
            while True:
                turn = self._model_turn(prompt, previous, n, state, events, wrap_info)
                step = turn.step
                if step.error is None and step.actions and step.actions[0].tool not in state.tool_names:
                    step = replace(step, actions=(), error=_unknown_tool(step.actions[0].tool, state.tool_names))
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

    def _example_values(self, question: str) -> frozenset[str]:
        shown = getattr(self.template, "shown_episodes", None)
        if shown is None:
            return frozenset()
        return episode_values(shown([self.tools[n] for n in self._visible], question, self.examples))

    def _add_tool_finder(self, max_shown: int) -> Any:
        """With more than ``max_shown`` tools, add ``list_tools`` and return the retrieval that picks what is shown."""
        from .tool_retrieval import ToolRetrieval

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
        from .tool_retrieval import LIST_TOOLS

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
        label = self.template.turn_prefix(1)
        body = rendered[: len(rendered) - len(label)] if rendered.endswith(label) else rendered
        wrapped = self.backend.wrap_prompt(body)
        if wrapped == body:
            return rendered, {"wrap": ["", ""]}
        return wrapped + label, _wrap_parts(body, wrapped)

    def _model_turn(self, prompt: str, previous: str | None, n: int, state: RunState, events: _Events,
                    wrap_info: dict[str, Any]) -> _Turn:
        if previous is None:
            events.emit("prompt", n=n, chars=len(prompt), text=prompt, **wrap_info)
        else:
            events.emit("prompt", n=n, chars=len(prompt), delta=prompt[len(previous):])
        budget = max(1, self.limits.max_total_tokens - state.tokens)
        max_tokens = min(self._turn_tokens, budget)
        t0 = self._clock()
        completion = self.backend.complete(
            prompt,
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
                     dialect=self.template.dialect, lang=getattr(self.template, "language", None), n=n)
        step = flag_truncation(step, completion.finish_reason, max_tokens)
        kept = kept_text(step, len(prefix))
        events.emit("step", n=n, step=step, kept=kept)
        return _Turn(completion, step, kept, seconds, max_tokens)

    def _act(
        self, turn: _Turn, decision: Decision, n: int, state: RunState, started: float, events: _Events
    ) -> StepRecord:
        from .tools import call_tool

        observation: Observation | None = None
        shown: str | None = None
        tool_seconds = 0.0
        if isinstance(decision, RunTool):
            tool = self.tools[decision.action.tool]
            remaining = self.limits.timeout_s - (self._clock() - started)
            timeout = max(0.05, min(self.limits.tool_timeout_s, remaining, getattr(tool, "timeout", None) or float("inf")))
            max_chars = min(self.limits.max_observation_chars, getattr(tool, "max_chars", None) or 10**9)
            events.emit("tool_call", n=n, tool=tool.name, args=decision.action.args, timeout=timeout)
            t0 = self._clock()
            observation = call_tool(tool, decision.action.args, timeout=timeout, max_chars=max_chars)
            tool_seconds = self._clock() - t0
            shown = _shown(observation)
            events.emit("observation", n=n, observation=observation, shown=shown)
        elif isinstance(decision, Retry):
            shown = decision.observation
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
        )


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
    from .grammar import max_bytes

    return max_bytes(grammar) or 0


def _build_grammar(backend: Backend, template: Any, tools: list[Any]) -> str:
    """The grammar hook for ``constrain=True``; fails early and plainly."""
    if not getattr(backend, "supports_grammar", False):
        raise ValueError(
            f"backend {getattr(backend, 'name', backend)!r} cannot constrain output with a grammar; "
            "use the llama or http backend, or drop constrain"
        )
    try:
        from .grammar import build_grammar
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.grammar":
            raise
        raise ValueError("constrain=True needs react_text.grammar, which this installation lacks") from None
    return build_grammar(template.dialect, tools)
