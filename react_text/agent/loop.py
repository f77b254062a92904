"""The ReAct loop: the ``Agent`` that runs a question through a backend, tools and a template.

One run goes: render the template once, wrap it for the model once, then for each model turn
append the trusted part of the turn and the observation the model should see next. The prompt of
turn n+1 therefore starts with the exact text of turn n's prompt plus the kept turn, which keeps
llama.cpp's prefix cache warm (``bench/engine_bench.py`` measures it).

Everything that decides is pure and lives in ``policy`` (over ``state``'s data, answering with
``decisions``); ``Agent`` does the I/O (backend, tools, trace, clock) around it and returns a
``results.RunResult``. A long run never overflows the context: before each turn the prompt is
counted against the backend's context and older steps are shortened (``window``, deciding with
``context.fit_context``); the head of the prompt never changes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..backends.base import Backend, BackendError, context_size, token_counter
from ..checks import CheckSpec, parse_checks
from ..prompting.context import Entry
from ..prompting.episodes import episode_arguments, episode_tools, episode_values, prompt_language
from ..prompting.facts import named_lead
from ..prompting.opening import first_prompt, follow_up
from ..prompting.templates import TemplateError
from ..protocol.dialects import format_action
from ..redaction import SECRET_FIELDS, Redactor
from ..tools.cache import ToolCache
from ..trace import TraceWriter, fresh_trace_path
from ..types import Action, Observation, Step
from .calls import run_calls, shown_text
from .constrain import grammar_tokens, held_turn, turn_grammar
from .decisions import Decision, Finish, PlannedCall, Retry, RunTool, RunTools, Stop
from .events import Events, run_header
from .names import backend_named, template_named, tools_by_name
from .policy import advance, batch_text, check_limits, decide_turn, explain, kept_text, unknown_tool
from .results import CallRecord, RunResult, StepRecord, totals
from .second_look import look_query, second_look
from .shown_tools import ShownTools
from .state import Limits, RunState
from .turn import Turn, take_turn
from .window import ContextWindow


@dataclass
class _Progress:
    """A run in flight. Mutable on purpose: a Ctrl-C or an error still sees the last state and every step."""

    state: RunState
    events: Events
    started: float
    records: list[StepRecord] = field(default_factory=list)


_HISTORY_THOUGHT = {"en": " I will use {tool}.\n", "zh": "我将使用 {tool}。\n"}


class Agent:
    """Runs a question through a backend, tools and a template.

    Every argument has a default: ``Agent(tools=[f])`` uses the catalog's default model through llama.cpp (loaded at
    the first run, not here), the ``classic`` template and ``Limits()``. Names work wherever objects do: ``backend``
    is a ``Backend``, ``"llama"`` or a server URL (``model`` then names the catalog model or .gguf path),
    ``template`` a name or path, ``tools`` may hold built-in tool names (``"calculator"``).

    ``instructions`` (a system prompt) goes in front of the rendered template. ``trace``: ``True`` (a new file per
    run in the folder ``react-text traces`` lists), a path, an open ``TraceWriter`` (the caller closes it) or
    ``False``. ``on_event`` receives every trace event as it happens (the CLI prints from it); ``on_token`` the text
    of each model turn as it is generated. ``clock`` is injectable so tests can drive the timeout. ``prose="final"``
    accepts bare prose as the final answer (for chat-wrapped tiny models); the default treats it as a format error.
    The trace and ``on_event`` mask secrets (``redaction``); ``redact`` (field names, or a ``hook(tool_name,
    result)``) adds names and hides those tool-result fields from the model too; ``redact=False`` masks nothing.
    ``tool_cache`` (a ``ToolCache``) answers calls to ``cacheable`` tools from earlier runs and keeps their results.
    ``tool_retrieval=True`` with more than ``max_shown_tools`` tools shows the model only the best matches for each
    question plus ``list_tools(query)``, which reveals more (``prompting.retrieval``; the trace records
    ``tools_shown`` and ``tools_revealed``).
    ``checks``: the engine's corrections and leads a run applies (``checks.registry``): ``"default"`` (those
    measured to pay), ``"all"``, ``"none"`` (the plain engine: turns only parsed, run and bounded),
    ``"-facts,+rounding"`` (the defaults less or plus those), ``"rounding,facts"``
    or a set of names; e.g. ``evidence`` opens the thought after a search with the sentence that answers
    (``prompting.evidence``; the trace records an ``evidence`` event).
    """

    def __init__(
        self,
        backend: Backend | str | None = None,
        tools: Iterable[Any] = (),
        template: Any = "classic",
        limits: Limits = Limits(),
        trace: str | Path | TraceWriter | bool | None = True,
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
        checks: CheckSpec = "default",
    ) -> None:
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
        self.checks = parse_checks(checks)
        self.temperature = temperature
        self.seed = seed
        self.examples = examples
        self.redact = None if redact is False else redact
        self._redactor = Redactor.from_option(redact)
        self.tool_cache = tool_cache
        self._clock = clock
        self._history: str | None = None
        self._transcript = ""
        self.template = template_named(template, self.backend)
        self.prose = "final" if getattr(self.template, "whole_chat", False) else prose  # native: plain-text answers
        self.tools: dict[str, Any] = tools_by_name(tools)
        self._shown = ShownTools(self.tools, tool_retrieval, max_shown_tools)
        self._tool_specs = {name: t.parameters for name, t in self.tools.items()}
        self.grammar: str | None = None
        self._turn_tokens = self.limits.max_turn_tokens
        if constrain:
            self.grammar = turn_grammar(self.backend, self.template, list(self.tools.values()))
            self._turn_tokens = max(self._turn_tokens, grammar_tokens(self.grammar))
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
        started = self._clock()
        writer, own_writer = self._open_trace()
        events = Events(writer, self.on_event, self._clock, self._redactor)
        tool_names = self._shown.start(question, events)
        run = _Progress(self._initial_state(question, tool_names), events, started)
        try:
            status, reason, answer = self._outcome(question, history, run)
            if not answer:
                answer = explain(status, reason, run.state)
            result = RunResult(question=question, status=status, answer=answer, reason=reason,
                               steps=tuple(run.records), totals=totals(run.records, self._clock() - started),
                               trace_path=str(writer.path) if writer is not None else None)
            events.emit("run_end", status=status, answer=answer, reason=reason, totals=result.totals)
            return result
        finally:
            if own_writer and writer is not None:
                writer.close()

    def _outcome(self, question: str, history: str | None, run: _Progress) -> tuple[str, str, str]:
        """(status, reason, answer): a failure of the model, backend or template, or Ctrl-C, is a status."""
        try:
            run.events.emit("run_start", **self._run_start(question))
            opened = self._first_prompt(question) if history is None else self._follow_up(history, question)
            prompt, wrap_info = opened
            return self._turns(prompt, wrap_info, run)
        except KeyboardInterrupt:
            return "interrupted", f"interrupted by the user after {len(run.records)} steps", ""
        except BackendError as exc:
            return "backend_error", f"backend error: {exc}", ""
        except TemplateError as exc:  # a user template that fails to render (undefined name, sandbox limit)
            return "template_error", f"the prompt could not be built: {exc}", ""
        except Exception as exc:  # a bug: the trace still ends with run_end, then it surfaces
            run.events.emit("run_end", status="error", answer="", totals=totals(run.records, self._clock() - run.started),
                            reason=f"internal error: {type(exc).__name__}: {exc}")
            raise

    def _turns(self, prompt: str, wrap_info: dict[str, Any], run: _Progress) -> tuple[str, str, str]:
        """Model turns until an answer or a stop: (status, reason, answer)."""
        head, entries, window = prompt, [], self._window()
        previous: str | None = None
        lead, held = "", None
        while True:
            stop = check_limits(run.state, self._clock() - run.started)
            if stop is None and window is not None:
                fitted, stop = window.fit(head, entries, run.state.steps + 1, run.events)
                if fitted is not None:
                    entries, prompt, previous = fitted, head + window.render(fitted), None
            if stop is not None:
                return stop.status, stop.reason, ""
            n = run.state.steps + 1
            turn = self._model_turn(prompt, previous, n, run.state, run.events, wrap_info, lead, held)
            decision = decide_turn(run.state, turn.step)
            if isinstance(decision, Finish):
                decision = self._second_look(run, decision, n)
            if isinstance(decision, RunTools):
                turn = replace(turn, kept=kept_text(turn.step, len(self.template.turn_prefix(n)), True))
            run.events.emit("decision", n=n, decision=decision)
            self._transcript = prompt + turn.kept
            record = self._act(turn, decision, n, run.state, run.started, run.events)
            run.records.append(record)
            run.state = advance(run.state, record)
            run.state = self._shown.revealed(run.state, n, run.events)
            if isinstance(decision, Finish):
                return "answered", "the model gave a final answer", decision.answer
            if isinstance(decision, Stop):
                return decision.status, decision.reason, ""
            previous = None if turn.continued else prompt + lead  # the trace's last prompt; else shown whole
            prompt = prompt + turn.kept + self.template.observation(record.observation_text, n)
            entries.append(Entry(n, turn.kept, record.observation_text or ""))
            lead = decision.lead if isinstance(decision, Retry) else self._evidence(run, decision, record)
            held = held_turn(decision, [self.tools[name] for name in run.state.tool_names], self.template, self.backend)

    def _evidence(self, run: _Progress, decision: Decision, record: StepRecord) -> str:
        """The quote that opens the next thought (``prompting.facts.named_lead``, named in the trace); empty without one."""
        if not (isinstance(decision, (RunTool, RunTools)) and record.observation_text):
            return ""
        state = run.state
        found = named_lead(state.question, [seen.text for seen in state.seen], state.lang, state.tool_names,
                           facts="facts" in self.checks, evidence="evidence" in self.checks)
        if found:
            run.events.emit("evidence", n=record.n + 1, lead=found[1], check=found[0])
        return found[1] if found else ""

    def _second_look(self, run: _Progress, decision: Finish, n: int) -> Decision:
        """Before a refusal stands, one search with the question's words (``second_look``)."""
        action = look_query(run.state, decision.answer)
        if action is None:
            return decision
        run.events.emit("second_look", n=n, tool=action.tool, args=action.args)
        (call,) = run_calls((PlannedCall(f"{n}.look", action),), self.tools, self.limits,
                            self.limits.timeout_s - (self._clock() - run.started), n, run.events,
                            cache=self.tool_cache, redact=self.redact)
        looked = call.observation is not None and call.observation.ok
        return (second_look(run.state, action, call.shown, n) if looked else None) or decision

    def propose(self, question: str, history: Sequence[tuple[Action, Observation | str]] = ()) -> Step:
        """One model turn, parsed, without running any tool.

        ``history`` continues a conversation: each (action, observation) pair
        is written into the scratchpad in the template's own syntax before the
        model's turn. Format errors are fed back (as in ``run``) until a usable
        turn or ``Limits.max_format_errors`` unusable ones; the last one is
        returned. ``BackendError`` propagates: there is no run to end.
        """
        writer, own_writer = self._open_trace()
        events = Events(writer, self.on_event, self._clock, self._redactor)
        try:
            events.emit("run_start", **self._run_start(question), mode="propose")
            tool_names = self._shown.start(question, events)
            prompt, wrap_info = self._first_prompt(question)
            n = 1
            thought = _HISTORY_THOUGHT.get(getattr(self.template, "language", "en"), _HISTORY_THOUGHT["en"])
            for action, obs in history:
                shown = obs if isinstance(obs, str) else shown_text(obs)
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
                    step = replace(step, actions=(), error=unknown_tool(step.actions[0].tool, state.tool_names, state.lang))
                if step.error is None or state.format_errors + 1 >= self.limits.max_format_errors:
                    events.emit("run_end", status="proposed" if step.error is None else "format_errors",
                                answer=step.final_answer, step=step)
                    return step
                state = replace(state, format_errors=state.format_errors + 1)
                previous = None if turn.continued else prompt
                prompt = prompt + turn.kept + self.template.observation(step.error.message, n)
                n += 1
        finally:
            if own_writer and writer is not None:
                writer.close()

    # -- internals ------------------------------------------------------------

    def _initial_state(self, question: str, tool_names: tuple[str, ...]) -> RunState:
        shown = self._shown_episodes(question)
        return RunState(
            limits=self.limits,
            tool_names=tool_names,
            question=question,
            lang=prompt_language(self.template, question),
            example_values=episode_values(shown),
            example_arguments=episode_arguments(shown),
            example_tools=episode_tools(shown, tool_names),
            schemas=self._tool_specs,
            secret_fields=self._redactor.fields if self._redactor is not None else SECRET_FIELDS,
            pick=self._shown.pick(question),
            checks=self.checks,
            unfit=self._shown.unfit(question),
        )

    def _shown_episodes(self, question: str) -> tuple[Any, ...]:
        shown = getattr(self.template, "shown_episodes", None)
        if shown is None:
            return ()
        return tuple(shown([self.tools[n] for n in self._shown.visible], question, self.examples))

    def _window(self) -> ContextWindow | None:
        """The context keeper, when the context size is known (``Limits.context_tokens`` or the backend)."""
        if self.context_tokens is None:
            return None
        return ContextWindow(self.template, token_counter(self.backend), self.context_tokens, self._turn_tokens + 8)

    def _open_trace(self) -> tuple[TraceWriter | None, bool]:
        if not self.trace or isinstance(self.trace, TraceWriter):  # none (None, False), or the caller's writer
            return self.trace or None, False
        path = fresh_trace_path() if self.trace is True else self.trace
        return TraceWriter(path, clock=self._clock, redactor=None), True  # ``Events`` masks with ours

    def _run_start(self, question: str) -> dict[str, Any]:
        return run_header(question, self.template, self.backend, self.limits, self.context_tokens, self.tools.values(),
                          constrain=self.grammar is not None, prose=self.prose, temperature=self.temperature,
                          seed=self.seed, checks=self.checks)

    def _first_prompt(self, question: str) -> tuple[str, dict[str, Any]]:
        tools = [self.tools[n] for n in self._shown.visible]
        return first_prompt(self.template, self.backend.wrap_prompt, tools, self.examples, self.instructions,
                            question)

    def _follow_up(self, history: str, question: str) -> tuple[str, dict[str, Any]]:
        return follow_up(self.template, list(self.tools.values()), self.examples, history, question)

    def _model_turn(self, prompt: str, previous: str | None, n: int, state: RunState, events: Events,
                    wrap_info: dict[str, Any], lead: str = "", held: str | None = None) -> Turn:
        """Turn ``n``: the model continues ``prompt`` after ``lead`` (words we wrote), under ``held`` if set."""
        prompt += lead
        if previous is None:
            events.emit("prompt", n=n, chars=len(prompt), text=prompt, **wrap_info)
        else:
            events.emit("prompt", n=n, chars=len(prompt), delta=prompt[len(previous):])
        budget = max(1, self.limits.max_total_tokens - state.tokens)
        specs = [self.tools[name] for name in state.tool_names]  # Tool objects: schemas and aliases
        return take_turn(self.backend, self.template, prompt, n, events, self._clock, specs=specs, prose=self.prose,
                         lang=state.lang, lead=lead, on_token=self.on_token, stop=list(self.template.stop),
                         go_on="continuation" in self.checks, temperature=self.temperature, seed=self.seed,
                         max_tokens=min(max(self._turn_tokens, grammar_tokens(held) if held else 0), budget),
                         grammar=held or self.grammar)  # ``held``: a correction's grammar (``constrain.held_turn``)

    def _act(
        self, turn: Turn, decision: Decision, n: int, state: RunState, started: float, events: Events
    ) -> StepRecord:
        observation: Observation | None = None
        shown: str | None = None
        tool_seconds = 0.0
        calls: tuple[CallRecord, ...] = ()
        if isinstance(decision, (RunTool, RunTools)):
            planned = decision.calls if isinstance(decision, RunTools) else (PlannedCall(f"{n}.1", decision.action),)
            t0 = self._clock()
            ran = run_calls(planned, self.tools, self.limits, self.limits.timeout_s - (self._clock() - started), n,
                            events, cache=self.tool_cache, redact=self.redact)
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
        return turn.record(n, decision, observation, shown, tool_seconds, calls)
