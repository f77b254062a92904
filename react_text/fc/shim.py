"""Function calling for models that have none: OpenAI-style chat in, ``tool_calls`` out.

``tool_calls(messages, tools, backend=...)`` runs ONE assistant turn: it folds
the conversation into a question and a scratchpad (``fc.folding``), renders it
through a text-protocol template (``fc.scratchpad``), lets the model write a
ReAct turn, reads it with the tolerant parser, checks the arguments against
the tools' JSON schemas (``fc.verdict``) and answers the way an OpenAI chat
endpoint would. Nothing here runs a tool; the caller does, and sends the
results back as ``role: tool`` messages.

The model's turn is judged by ``tool_choice``: ``"auto"`` (a call or a plain
answer; bare prose counts as an answer, so a question no tool fits comes back
as ``content`` -- prose is first read as the turn's thought and the answer is
asked for once more under the dialect's answer label, because small models
often stop after a thought), ``"none"`` (an answer only), ``"required"`` or
``{"type": "function", "function": {"name": ...}}`` (a call, forced with a
grammar when the backend supports one). A turn that cannot be used (format
error, unknown tool, arguments that do not fit the schema, a call when none
is allowed) is retried with the problem as the observation, up to ``max_retries`` times (after the
correction that names the tool a question plainly asks for, the retry is held by a grammar to a call of
that tool when the backend takes grammars: ``checks.hold``, the ``held_call`` check); after that the reply
is a plain assistant message that explains what went wrong, never an invented call.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

from ..backends.base import Backend, complete_streaming
from ..backends.build import supports_grammar
from ..prompting.episodes import episode_arguments, episode_tools, episode_values, prompt_language
from ..prompting.opening import first_prompt, parse_turn
from ..prompting.retrieval import clear_pick, fits_nothing, named_tools
from ..prompting.templates import as_template
from ..checks.declines import reaches_elsewhere
from ..checks import CheckName, CheckSpec, in_order, parse_checks
from ..checks.hold import held_grammar
from ..checks.reading import Reading, Situation
from ..checks.review import ONE_TURN, review
from ..grammar.gbnf import DEFAULT_MAX_THOUGHT_CHARS
from ..protocol.parser import parse
from ..types import Step
from .answer_stream import AnswerStream
from .folding import Conversation, fold_messages
from .choice import AUTO, choose_template
from .native import NATIVE, native_turn
from .reply import ShimResult, result_of
from .request import ToolChoice, read_tool_choice, read_tools
from .scratchpad import render_scratchpad
from .next_calls import Asking, asking, next_calls
from .finished import settle
from .verdict import PARALLEL_CALLS, Verdict, example_call, final_label, judge, turn_grammar

__all__ = ["tool_calls"]

# --- the public entry point ---------------------------------------------------------


def tool_calls(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    *,
    backend: Backend,
    template: Any = AUTO,
    tool_choice: Any = "auto",
    constrain: bool | None = None,
    max_tokens: int = 256,
    max_retries: int = 2,
    temperature: float = 0.0,
    seed: int = 0,
    parallel_tool_calls: bool = True,
    examples: Sequence[Any] | None = None,
    on_content: Callable[[str], None] | None = None,
    checks: CheckSpec = "default",
) -> dict[str, Any]:
    """One assistant turn for an OpenAI-style chat, from a model without function calling.

    Returns ``{"message": {...}, "finish_reason": "tool_calls"|"stop",
    "usage": {...}, "thought": str|None, "format_errors": [codes]}`` where
    ``message`` is an OpenAI assistant message: ``content`` None and
    ``tool_calls`` (ids ``call_...``, ``arguments`` a JSON string), or a plain
    ``content`` answer. ``examples`` are few-shot episodes for the template
    (default: the template's own, which use the built-in tools; episodes written
    for the client's tools teach the model better). Raises ``ShimRequestError``
    (a ``ValueError``) for a malformed request and ``BackendError`` when the
    model cannot be reached.

    ``on_content`` streams a plain answer: it is called with pieces of the answer as the model writes them
    (see ``AnswerStream``); they join to a prefix of the final ``content`` (the caller sends the rest). Only
    answers nothing can still refuse stream (under ``tool_choice="none"``, under "auto" when no answer check
    and no ``tool_choice`` check is on, and the answer asked for after a bare thought); otherwise an "auto"
    turn's own answer is judged whole by the answer checks first. Tool calls are never streamed here: they
    exist only once checked against the schemas.

    ``template``: a text-protocol template, ``"native"`` (the model's own tool format, ``fc.native``) or
    ``"auto"`` (default; ``fc.choice``: measured best, else native when the chat template has tools,
    else classic; the reply's ``template`` says which and why).

    ``constrain`` puts the turn under a grammar built from the tools; None (the default) does so whenever the
    backend takes grammars (llama.cpp in process or llama-server). Measured on the ``tools`` suite with
    Qwen2.5-coder-0.5B: 36/45 with the grammar, 33/45 without (19/45 for a plain function-calling prompt).
    """
    if max_retries < 0 or max_tokens < 1:
        raise ValueError("max_retries must be >= 0 and max_tokens >= 1")
    chosen = choose_template(backend) if template == AUTO else None
    result = _turn(messages, tools, backend, chosen.name if chosen is not None else template, tool_choice,
                   constrain=supports_grammar(backend) if constrain is None else constrain, examples=examples,
                   on_content=on_content, checks=checks, max_tokens=max_tokens, max_retries=max_retries,
                   temperature=temperature, seed=seed, parallel_tool_calls=parallel_tool_calls)
    if chosen is not None:
        result = replace(result, template=chosen.to_dict())
    return result.to_dict()


def _turn(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None, backend: Backend,
          template: Any, tool_choice: Any, *, constrain: bool, examples: Sequence[Any] | None,
          on_content: Callable[[str], None] | None, checks: CheckSpec, **options: Any) -> ShimResult:
    """One turn in the model's own tool format (``native``) or in a text protocol."""
    if template == NATIVE:
        offered = read_tools(tools)
        return native_turn(messages, offered, read_tool_choice(tool_choice, offered), backend=backend,
                           constrain=constrain, **options)
    request = _read_request(messages, tools, backend=backend, template=template, tool_choice=tool_choice,
                            constrain=constrain, examples=examples, checks=parse_checks(checks),
                            calls=PARALLEL_CALLS if options["parallel_tool_calls"] else 1)
    return _text_turn(request, backend, messages, on_content=on_content, **options)


def _text_turn(request: _Request, backend: Backend, messages: Sequence[Any], *, max_tokens: int, max_retries: int,
               temperature: float, seed: int, parallel_tool_calls: bool,
               on_content: Callable[[str], None] | None) -> ShimResult:
    """One turn in a text protocol, with its retries."""
    attempts = _Attempts(request, backend, max_tokens=max_tokens, temperature=temperature, seed=seed,
                         on_content=on_content)
    verdict, thought = attempts.run(max_retries)
    done = settle(verdict, request, messages, backend, max_tokens)
    result = result_of(done.verdict, thought, attempts.errors, (attempts.prompt_tokens + done.usage[0],
                       attempts.completion_tokens + done.usage[1]), messages, parallel_tool_calls, max_retries)
    return replace(result, more_calls=attempts.more_calls - done.merged,
                   step_checks=attempts.step_checks + done.acted)


# --- one turn, with its retries -----------------------------------------------------


@dataclass(frozen=True)
class _Request:
    """Everything one ``tool_calls`` call fixes before the model runs, read and checked."""

    template: Any
    choice: ToolChoice
    by_name: Mapping[str, Any]
    schemas: Mapping[str, Any]
    grammar: str | None
    strict: str | None  # a retry follows a turn that was no decline: under a grammar, only what is offered
    going_on: str | None  # the rest of a turn whose thought the bound cut (``cut_thought``); None: not asked
    calls: int  # how many calls one turn may hold
    asking: Asking | None  # how the calls after a turn's calls are asked for (``next_calls``); None: not asked
    example: str
    prose: str
    copied: frozenset[str]
    situation: Situation  # what the checks read (``checks.review``); per attempt, what was nudged and tried
    checks: frozenset[CheckName]  # the checks the turn gets (``checks.registry``), as the loop's
    prompt: str
    turns_before: int


def _read_request(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None, *,
                  backend: Backend, template: Any, tool_choice: Any, constrain: bool,
                  examples: Sequence[Any] | None, checks: frozenset[CheckName], calls: int) -> _Request:
    tpl = as_template(template)
    offered = read_tools(tools)
    choice = read_tool_choice(tool_choice, offered)
    conversation = fold_messages(messages)
    by_name = {t.name: t for t in offered}
    grammar = turn_grammar(tpl, offered, choice, backend, constrain, calls=calls)
    strict = turn_grammar(tpl, offered, choice, backend, constrain, unoffered=False, calls=calls)
    going_on = turn_grammar(tpl, offered, choice, backend, constrain, calls=calls, going_on=True) \
        if "cut_thought" in checks else None
    example = example_call(tpl, offered, choice)
    shown = tpl.shown_episodes(offered, conversation.question, examples)
    situation = _situation(tpl, conversation, offered, shown, checks, choice.mode == "auto")
    return _Request(
        template=tpl, choice=choice, by_name=by_name, schemas={t.name: t.parameters for t in offered},
        grammar=grammar, strict=strict, going_on=going_on, example=example, prose="error" if choice.forced else "final",
        calls=calls,
        asking=asking(tpl, offered, choice, backend, grammar, checks, calls, situation.lang, conversation.question,
                      situation.grounds),
        copied=episode_tools(shown, by_name), prompt=_first_prompt(backend, tpl, conversation, offered, examples),
        situation=situation, checks=checks,
        turns_before=len(conversation.turns),
    )


def _cut(written: str) -> bool:
    """Whether a turn written under a turn grammar is a thought its length bound ended (nothing after it)."""
    thought = written.lstrip(" ")
    return "\n" not in thought.rstrip("\n") and len(thought.rstrip("\n")) >= DEFAULT_MAX_THOUGHT_CHARS


def _choice(offered: Sequence[Any], conversation: Conversation,
            ) -> tuple[tuple[str, str] | None, tuple[tuple[str, str], ...]]:
    """The tool the question's words clearly name (``retrieval.clear_pick``) and the tools they name alike
    (``retrieval.named_tools``), each with its description; neither once the conversation holds a tool result
    (the choice is then the model's)."""
    if conversation.turns:
        return None, ()
    described = {t.name: (t.name, t.description or "") for t in offered}
    pick = clear_pick(offered, conversation.question)
    return described.get(pick or ""), tuple(described[n] for n in named_tools(offered, conversation.question))


def _first_prompt(backend: Backend, template: Any, conversation: Conversation, offered: Sequence[Any],
                  examples: Sequence[Any] | None) -> str:
    prompt, _ = first_prompt(template, backend.wrap_prompt, offered, examples, conversation.instructions,
                             conversation.question)
    return prompt + render_scratchpad(template, conversation.turns)


def _situation(template: Any, conversation: Conversation, offered: Sequence[Any], shown: Sequence[Any],
               checks: frozenset[CheckName], auto: bool) -> Situation:
    """What the checks read: the loop's checks but those that need a run (``ONE_TURN``), values grounded in
    the instructions too, and the shim's gates (``Situation.choice_covers_answers``, ``leads_for``).

    "Use a tool first" applies only after a call this request tried and got
    wrong (set per attempt): declining a call is a legitimate reply, but an
    answer made up right after a failed call is not.
    """
    pick, named = _choice(offered, conversation) if auto else (None, ())
    results = tuple(r for turn in conversation.turns for r in turn.results)
    return Situation(
        question=conversation.question,
        tool_names=tuple(dict.fromkeys(t.name for t in offered)),
        observations=results,
        example_values=episode_values(shown),
        require_observation=False,
        lang=prompt_language(template, conversation.question),
        checks=checks - ONE_TURN,
        grounds=(conversation.instructions, conversation.question, *results),
        example_arguments=episode_arguments(shown),
        schemas={t.name: t.parameters for t in offered},
        defaults_checked=True,
        pick=pick,
        named=named,
        unfit=auto and not conversation.turns and fits_nothing(offered, conversation.question),
        choice_covers_answers=True,
        leads_for=frozenset({"tool_choice", "several_named"}),
    )


class _Attempts:
    """The tries at one turn: each unusable turn and its problem extend the prompt for the next."""

    def __init__(self, request: _Request, backend: Backend, *, max_tokens: int, temperature: float, seed: int,
                 on_content: Callable[[str], None] | None) -> None:
        self.request = request
        self.backend = backend
        self.options = {"max_tokens": max_tokens, "temperature": temperature, "seed": seed}
        self.prompt = request.prompt
        self.n = request.turns_before + 1
        self.errors: list[str] = []
        self.nudged: set[str] = set()
        self.lead = ""  # words the next turn starts with, written for the model (``_guarded``)
        self.accepted = ""  # the text of the turn whose verdict stands, as the prompt goes on after it
        self.more_calls = 0  # calls the steps after that turn added (``next_calls``)
        self.step_checks: tuple[str, ...] = ()  # the checks that acted on the thought and on those steps
        self.held: str | None = None  # the next turn's grammar after a correction that names the tool (``_guarded``)
        self.prompt_tokens = 0
        self.completion_tokens = 0
        # An answer goes out as it is written only when nothing can still refuse it: under "auto" the answer checks
        # judge the whole answer first (with none on, nothing refuses it); one asked for after a bare thought streams.
        self.on_content = on_content if request.choice.mode in ("auto", "none") else None
        refusable = request.choice.mode == "auto" and bool(
            in_order("answer", request.checks) or {"tool_choice", "several_named"} & request.checks)
        self.streams_first = self.on_content is not None and not refusable

    def run(self, max_retries: int) -> tuple[Verdict, str | None]:
        """The last verdict and the thought that goes with it."""
        verdict, thought = Verdict(), None
        for _attempt in range(max_retries + 1):
            verdict, thought, done = self._attempt()
            if done:
                break
        return self._more(verdict), thought

    def _more(self, verdict: Verdict) -> Verdict:
        """The verdict's calls and those the request asks for after them (``next_calls``), when asked."""
        r = self.request
        if r.asking is None or not verdict.calls:
            return verdict

        def complete(prompt: str, grammar: str | None) -> str:
            return self._complete(prompt, grammar, None)

        more = next_calls(verdict.calls, self.prompt + self.accepted, self.n, complete, r.asking,
                          template=r.template, tools=r.by_name, choice=r.choice, example=r.example,
                          lang=r.situation.lang)
        self.more_calls, self.step_checks = len(more.calls) - len(verdict.calls), self.step_checks + more.acted
        return replace(verdict, calls=more.calls)

    def _attempt(self) -> tuple[Verdict, str | None, bool]:
        """One try: (verdict, thought, done). When not done, the problem is in the prompt now."""
        r = self.request
        prefix = r.template.turn_prefix(self.n)
        lead, self.lead = self.lead, ""
        grammar = self._grammar()
        written = self._complete(self.prompt + lead, grammar, self._turn_stream(prefix + lead))
        if r.going_on is not None and grammar in (r.grammar, r.strict) and _cut(written):
            # The grammar's bound ended the thought mid-sentence ("...; lawCr"), not the model: what it
            # meant to do next is its own choice, where a bare thought would be read as a decline.
            self.step_checks += ("cut_thought",)
            written += self._complete(self.prompt + lead + written, r.going_on, None)
        text = lead + written
        step = parse_turn(r.template, text, self.n, r.schemas, prose=r.prose, lang=r.situation.lang)
        turn = prefix + text
        verdict = self._guarded(judge(step, r.by_name, r.choice, r.example))
        kept = turn[len(prefix): max(step.end, len(prefix))]
        auto = r.choice.mode == "auto"
        elsewhere = reaches_elsewhere(step, list(r.schemas), r.copied) if auto and "no_fit" in r.checks else None
        if elsewhere is not None or (verdict.problem is None and "prose_as_final" in step.repairs
                                     and "continuation" in r.checks):
            # Two ways a model declines without saying "Final Answer": it stops after its
            # thought ("I know this; no tool is needed."), or it reaches for a tool it was not
            # offered and no offered tool is like it (steering it onto one gives a wrong call).
            # Either way, ask for the answer under its own label after the thought.
            said = (elsewhere if elsewhere is not None else kept).rstrip()
            answer = self._ask_answer(prefix, said)
            if answer is not None:
                return Verdict(answer=answer), said.strip() or None, True
            if elsewhere is None:
                return verdict, step.thought, True  # no better answer came: the prose itself stands
        elif verdict.problem is None:
            self.accepted = kept
            return verdict, step.thought, True
        self.errors.append(verdict.code or "format")
        self.prompt += kept + r.template.observation(verdict.problem, self.n)
        self.n += 1
        return verdict, step.thought, False

    def _grammar(self) -> str | None:
        """The first try's grammar; after a problem, only what is offered; after a correction that names the
        tool to call, a call of that tool (``checks.hold``; the model had its chance to answer)."""
        held, self.held = self.held, None
        if held is not None:
            return held
        return self.request.grammar if not self.errors else self.request.strict

    def _complete(self, text: str, grammar: str | None, stream: AnswerStream | None) -> str:
        completion = complete_streaming(self.backend, text, stream, stop=self.request.template.stop,
                                        grammar=grammar, **self.options)
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        return completion.text

    def _turn_stream(self, prefix: str) -> AnswerStream | None:
        """The turn's own answer streams as it is written when nothing can refuse it (``streams_first``)."""
        if not self.streams_first or self.on_content is None:
            return None
        r, n = self.request, self.n

        def read_turn(text: str) -> Step:
            return parse(text, r.schemas, dialect=r.template.dialect, lang=r.situation.lang, n=n)

        return AnswerStream(prefix, read_turn, self.on_content)

    def _guarded(self, verdict: Verdict) -> Verdict:
        """An "auto" turn that ``checks.review`` corrects becomes a problem, with the correction's lead as
        the next turn's start. A first call is questioned only on the first attempt (a call the model makes
        after a correction has had its say), and "use a tool first" only after a call this request tried."""
        r = self.request
        if r.choice.mode != "auto" or verdict.problem is not None or not (verdict.calls or verdict.answer is not None):
            return verdict
        tried_call = any(code in ("bad_arguments", "unknown_tool") for code in self.errors)
        situation = replace(r.situation, nudged=frozenset(self.nudged), require_observation=tried_call,
                            unfit=r.situation.unfit and not self.errors)
        reading = Reading(calls=tuple(verdict.calls)) if verdict.calls else Reading(answer=verdict.answer)
        nudge = review(reading, situation)
        if nudge is None:
            return verdict
        self.nudged.add(nudge.code)
        self.lead = nudge.lead  # the model writes the rest: a call, or an answer
        # A decline is written as a call of a tool nobody offered, whose name may spell the held one: with
        # the values held too, that way round them is closed (``ungrounded_hold``).
        self.held = held_grammar(nudge.hold, list(r.by_name.values()), r.template.dialect, self.backend,
                                 declines=not nudge.hold_values, calls=r.calls, values=nudge.hold_values)
        return Verdict(problem=nudge.message, code=f"guard:{nudge.code}")

    def _ask_answer(self, prefix: str, said: str) -> str | None:
        """The answer asked for under the dialect's answer label after ``said``, or None when none came."""
        r, n = self.request, self.n
        label = final_label(r.template, n)
        lead = prefix + said + "\n" + label

        def read(text: str) -> Step:  # in the template's own dialect, like the turn it follows
            return parse(text, r.schemas, dialect=r.template.dialect, lang=r.situation.lang, n=n)

        stream = AnswerStream(lead, read, self.on_content) if self.on_content is not None else None
        answer = read(lead + self._complete(self.prompt + said + "\n" + label, None, stream)).final_answer
        return answer.strip() if answer and answer.strip() else None
