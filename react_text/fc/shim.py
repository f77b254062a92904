"""Function calling for models that have none: OpenAI-style chat in, ``tool_calls`` out.

``tool_calls(messages, tools, backend=...)`` runs ONE assistant turn: it renders
the conversation through a text-protocol template, lets the model write a
ReAct turn, reads it with the tolerant parser, checks the arguments against
the tools' JSON schemas and answers the way an OpenAI chat endpoint would.
Nothing here runs a tool; the caller does, and sends the results back as
``role: tool`` messages.

How a conversation becomes a prompt (the "folding"):

* The *current episode* is everything after the last ``user`` message. Its
  assistant ``tool_calls`` become actions written in the template's dialect
  (several calls in one message become several actions in one turn), and the
  ``tool`` results answering them become that turn's observation (results are
  matched by ``tool_call_id``; several results are joined as ``name: result``
  lines). The assistant's ``content`` next to its calls, if any, is the turn's
  thought; otherwise a neutral thought is written. Rendering is deterministic,
  so while a client loops on tool results each prompt only *appends* to the
  previous one and llama.cpp reuses its cached prefix.
* ``system``/``developer`` text is put in front of the rendered template, as
  instructions (it is not part of the question).
* The question is the last ``user`` message. Everything before it (earlier
  user messages, earlier answers, earlier tool calls with their results) is
  summarised in the question as an "Earlier in this conversation" block, so a
  new user message after a final answer starts a new question turn with the
  old exchange as context.
* An assistant message with plain content inside the current episode closes
  that episode's scratchpad: it and the turns before it move to the summary.

The model's turn is judged by ``tool_choice``: ``"auto"`` (a call or a plain
answer; bare prose counts as an answer, so a question no tool fits comes back
as ``content`` -- prose is first read as the turn's thought and the answer is
asked for once more under the dialect's answer label, because small models
often stop after a thought), ``"none"`` (an answer only), ``"required"`` or
``{"type": "function", "function": {"name": ...}}`` (a call, forced with a
grammar when the backend supports one). A turn that cannot be used (format
error, unknown tool, arguments that do not fit the schema, a call when none
is allowed) is retried with the problem as the observation, up to
``max_retries`` times; after that the reply is a plain assistant message that
explains what went wrong, never an invented call.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..backends.base import Backend, complete_streaming
from ..prompting.episodes import episode_values, prompt_language
from ..protocol.guards import AnswerContext, check_answer
from ..protocol.parser import parse, suggest_tool
from ..types import Step

__all__ = [
    "ShimRequestError",
    "ToolChoice",
    "HistoryCall",
    "HistoryTurn",
    "Conversation",
    "read_tools",
    "read_tool_choice",
    "fold_messages",
    "open_prompt",
    "render_scratchpad",
    "tool_calls",
]

_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_ROLES = ("system", "developer", "user", "assistant", "tool")


class ShimRequestError(ValueError):
    """The request cannot be served as written; ``param`` names the bad field.

    A ``ValueError`` so library callers can catch it plainly; the server turns
    it into an OpenAI-shaped ``invalid_request_error``.
    """

    def __init__(self, message: str, param: str | None = None, *, unsupported: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.unsupported = unsupported
        """True when the request is well formed but asks for something the shim does not do."""


@dataclass(frozen=True)
class ToolChoice:
    """``mode`` is ``auto``, ``none``, ``required`` or ``named`` (then ``name`` is set)."""

    mode: str = "auto"
    name: str | None = None


@dataclass(frozen=True)
class HistoryCall:
    """A tool call the assistant already made, as the client sent it back."""

    id: str
    name: str
    args: dict | str


@dataclass(frozen=True)
class HistoryTurn:
    """One past assistant turn of the current episode with its tool results."""

    thought: str | None
    calls: tuple[HistoryCall, ...]
    results: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    """A chat folded into what a ReAct template needs: a question and a scratchpad.

    ``instructions`` (the system messages) go in front of the rendered template.
    """

    question: str
    turns: tuple[HistoryTurn, ...] = ()
    instructions: str = ""


# --- reading the request ----------------------------------------------------


def _never_called(**_: Any) -> Any:
    raise RuntimeError("the function-calling shim never runs tools; the client does")


def read_tools(tools: Sequence[Mapping[str, Any]] | None) -> tuple[Any, ...]:
    """OpenAI ``tools`` → react-text ``Tool`` objects (with a placeholder ``fn``).

    Checks the shape first so a bad list gets a message naming the exact field,
    rather than whatever the schema reader trips over.
    """
    from ..tools.spec import tool_from_schema

    if tools is None:
        return ()
    if not isinstance(tools, (list, tuple)):
        raise ShimRequestError("'tools' must be a list of {\"type\": \"function\", \"function\": {...}} objects", "tools")
    out = []
    seen: set[str] = set()
    for i, entry in enumerate(tools):
        where = f"tools[{i}]"
        if not isinstance(entry, Mapping):
            raise ShimRequestError(f"{where} must be an object", where)
        kind = entry.get("type", "function")
        if kind != "function":
            raise ShimRequestError(f"{where}.type must be 'function', got {kind!r}", f"{where}.type")
        function = entry.get("function")
        if not isinstance(function, Mapping):
            raise ShimRequestError(f"{where}.function must be an object with a 'name'", f"{where}.function")
        name = function.get("name")
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise ShimRequestError(
                f"{where}.function.name must be 1-64 letters, digits, '_', '-' or '.', got {name!r}",
                f"{where}.function.name",
            )
        if name in seen:
            raise ShimRequestError(f"{where}: duplicate tool name {name!r}", f"{where}.function.name")
        seen.add(name)
        description = function.get("description", "")
        if description is not None and not isinstance(description, str):
            raise ShimRequestError(f"{where}.function.description must be a string", f"{where}.function.description")
        parameters = function.get("parameters")
        if parameters is None:
            parameters = {"type": "object", "properties": {}}
        _check_parameters(parameters, f"{where}.function.parameters")
        schema = {"name": name, "description": description or "", "parameters": parameters}
        try:
            out.append(tool_from_schema({"type": "function", "function": schema}, _never_called))
        except Exception as exc:  # the schema reader's own complaint, re-labelled with the field
            raise ShimRequestError(f"{where}.function: {exc}", f"{where}.function") from exc
    return tuple(out)


def _check_parameters(parameters: Any, where: str) -> None:
    if not isinstance(parameters, Mapping):
        raise ShimRequestError(f"{where} must be a JSON schema object", where)
    kind = parameters.get("type", "object")
    if kind not in ("object", "dict"):
        raise ShimRequestError(f"{where}.type must be 'object', got {kind!r}", f"{where}.type")
    properties = parameters.get("properties", {})
    if not isinstance(properties, Mapping) or not all(isinstance(v, Mapping) for v in properties.values()):
        raise ShimRequestError(f"{where}.properties must map parameter names to schema objects", f"{where}.properties")
    required = parameters.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ShimRequestError(f"{where}.required must be a list of parameter names", f"{where}.required")
    missing = [r for r in required if r not in properties]
    if missing:
        raise ShimRequestError(f"{where}.required names unknown parameters: {', '.join(missing)}", f"{where}.required")


def read_tool_choice(tool_choice: Any, tools: Sequence[Any]) -> ToolChoice:
    """Validate OpenAI's ``tool_choice`` against the offered tools."""
    names = [t.name for t in tools]
    if tool_choice is None or tool_choice == "auto":
        return ToolChoice("auto")
    if tool_choice == "none":
        return ToolChoice("none")
    if tool_choice == "required":
        if not names:
            raise ShimRequestError("tool_choice 'required' needs at least one tool in 'tools'", "tool_choice")
        return ToolChoice("required")
    if isinstance(tool_choice, Mapping):
        function = tool_choice.get("function")
        name = function.get("name") if isinstance(function, Mapping) else None
        if tool_choice.get("type", "function") == "function" and isinstance(name, str):
            if name not in names:
                raise ShimRequestError(
                    f"tool_choice names {name!r}, which is not in 'tools' ({', '.join(names) or 'none given'})",
                    "tool_choice",
                )
            return ToolChoice("named", name)
    raise ShimRequestError(
        "tool_choice must be 'auto', 'none', 'required' or {\"type\": \"function\", \"function\": {\"name\": ...}}",
        "tool_choice",
    )


def _text_of(content: Any, where: str) -> str:
    """Message content as text: a string, null, or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for j, part in enumerate(content):
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
            else:
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                raise ShimRequestError(
                    f"{where}.content[{j}]: only text content parts are supported, got {kind!r}",
                    f"{where}.content",
                    unsupported=True,
                )
        return "\n".join(parts)
    if isinstance(content, (dict, int, float, bool)):  # lenient: a structured tool result
        return json.dumps(content, ensure_ascii=False)
    raise ShimRequestError(f"{where}.content must be a string, null or a list of text parts", f"{where}.content")


def _read_calls(raw: Any, where: str) -> tuple[HistoryCall, ...]:
    if not isinstance(raw, list):
        raise ShimRequestError(f"{where}.tool_calls must be a list", f"{where}.tool_calls")
    calls = []
    for j, call in enumerate(raw):
        at = f"{where}.tool_calls[{j}]"
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str) or not function["name"]:
            raise ShimRequestError(f"{at}.function.name must be a non-empty string", f"{at}.function")
        arguments = function.get("arguments", "{}")
        args: dict | str
        if isinstance(arguments, Mapping):
            args = dict(arguments)
        elif isinstance(arguments, str):
            try:
                decoded = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                decoded = arguments  # keep what the client sent; it is still readable text
            args = decoded if isinstance(decoded, (dict, str)) else arguments
        else:
            raise ShimRequestError(f"{at}.function.arguments must be a JSON string", f"{at}.function.arguments")
        call_id = call.get("id")
        calls.append(HistoryCall(call_id if isinstance(call_id, str) else f"#{j}", function["name"], args))
    return tuple(calls)


def _args_text(args: dict | str) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def _summary_lines(turns: Iterable[HistoryTurn]) -> list[str]:
    lines = []
    for turn in turns:
        for call, result in zip(turn.calls, turn.results):
            lines.append(f"Assistant called {call.name}({_args_text(call.args)}) and got: {result}")
    return lines


def fold_messages(messages: Sequence[Mapping[str, Any]]) -> Conversation:
    """Fold an OpenAI chat into a question and a scratchpad (see the module docstring)."""
    if not isinstance(messages, (list, tuple)) or not messages:
        raise ShimRequestError("'messages' must be a non-empty list of chat messages", "messages")
    system: list[str] = []
    earlier: list[str] = []  # summary of everything before the current episode
    question: str | None = None
    turns: list[HistoryTurn] = []
    open_calls: tuple[HistoryCall, ...] = ()
    results: dict[str, str] = {}

    def close_turn() -> None:
        nonlocal open_calls, results
        if open_calls:
            ordered = tuple(results.get(c.id, "(no result was sent for this call)") for c in open_calls)
            turns[-1] = HistoryTurn(turns[-1].thought, open_calls, ordered)
        open_calls, results = (), {}

    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, Mapping):
            raise ShimRequestError(f"{where} must be an object with a 'role'", where)
        role = message.get("role")
        if role not in _ROLES:
            raise ShimRequestError(
                f"{where}.role must be one of {', '.join(_ROLES)}, got {role!r}", f"{where}.role"
            )
        text = _text_of(message.get("content"), where)
        if role != "tool":
            close_turn()
        if role in ("system", "developer"):
            if text.strip():
                system.append(text.strip())
        elif role == "user":
            if question is not None:
                earlier.append(f"User: {question}")
            earlier.extend(_summary_lines(turns))
            turns = []
            question = text.strip()
        elif role == "assistant":
            raw_calls = message.get("tool_calls")
            if raw_calls:
                calls = _read_calls(raw_calls, where)
                turns.append(HistoryTurn(text.strip() or None, calls, ()))
                open_calls = calls
            else:
                earlier.extend(_summary_lines(turns))
                turns = []
                if text.strip():
                    earlier.append(f"Assistant: {text.strip()}")
        else:  # tool
            if not open_calls:
                raise ShimRequestError(
                    f"{where}: a 'tool' message must follow an assistant message with tool_calls", where
                )
            call_id = message.get("tool_call_id")
            pending = [c for c in open_calls if c.id not in results]
            match = next((c for c in pending if c.id == call_id), None)
            if match is None:
                if any(c.id == call_id for c in open_calls):
                    raise ShimRequestError(f"{where}: a second result for tool call {call_id!r}", f"{where}.tool_call_id")
                if not pending:
                    raise ShimRequestError(
                        f"{where}: more tool results than tool calls in the assistant message before it",
                        f"{where}.tool_call_id",
                    )
                match = pending[0]  # an unknown id answers the first unanswered call, in order
            results[match.id] = text if text.strip() else "(empty result)"
    close_turn()
    if question is None:
        raise ShimRequestError("'messages' must contain at least one 'user' message", "messages")
    if earlier:
        question = "Earlier in this conversation:\n" + "\n".join(earlier) + f"\n\nThe user now asks: {question}"
    return Conversation(question, tuple(turns), "\n\n".join(system))


# --- rendering the scratchpad --------------------------------------------------


def _default_thought(template: Any, names: Sequence[str]) -> str:
    joined = ", ".join(names)
    if getattr(template, "language", "en") == "zh":
        return f"我将调用 {joined}。"
    return f"I will call {joined}."


def _thought_text(template: Any, thought: str, n: int) -> str:
    """What follows the turn label for ``thought`` (usually ``" " + thought``)."""
    from ..protocol.dialects import format_thought

    prefix = template.turn_prefix(n)
    full = format_thought(template.dialect, thought, n)
    return full[len(prefix):] if full.startswith(prefix) else f" {thought}"


def render_turn(template: Any, thought: str, calls: Sequence[tuple[str, dict | str]], n: int) -> str:
    """Text of an assistant turn the way the model would have written it after the turn label."""
    from ..protocol.dialects import format_action

    actions = "\n".join(format_action(template.dialect, name, args, n) for name, args in calls)
    return _thought_text(template, thought, n) + "\n" + actions


def _observation_text(turn: HistoryTurn) -> str:
    if len(turn.calls) == 1:
        return turn.results[0]
    return "\n".join(f"{call.name}: {result}" for call, result in zip(turn.calls, turn.results))


def open_prompt(backend: Backend, rendered: str, label: str) -> str:
    """The wrapped prompt, with the first turn's label inside the model's own turn.

    As in the loop: an instruct model gets the instructions as its user message
    and ``Thought:`` opening its assistant turn, so its first tokens already
    continue the protocol; a base model (no wrapping) gets the rendered text.
    """
    body = rendered[: len(rendered) - len(label)] if rendered.endswith(label) else rendered
    wrapped = backend.wrap_prompt(body)
    return rendered if wrapped == body else wrapped + label


def render_scratchpad(template: Any, turns: Sequence[HistoryTurn]) -> str:
    """Past turns and their observations, ready to append to the rendered prompt."""
    out = []
    for n, turn in enumerate(turns, start=1):
        thought = turn.thought or _default_thought(template, [c.name for c in turn.calls])
        out.append(render_turn(template, thought, [(c.name, c.args) for c in turn.calls], n))
        out.append(template.observation(_observation_text(turn), n))
    return "".join(out)


# --- judging the model's turn ---------------------------------------------------


@dataclass(frozen=True)
class _Verdict:
    calls: tuple[tuple[str, dict], ...] = ()
    answer: str | None = None
    problem: str | None = None  # message for the model when the turn cannot be used
    code: str | None = None


def _judge(step: Step, tools: Mapping[str, Any], choice: ToolChoice, example: str) -> _Verdict:
    """Pure: what the parsed turn means under ``tool_choice``, or why it is unusable."""
    from ..tools.spec import ArgumentError, coerce_args

    if step.error is not None:
        return _Verdict(problem=step.error.message, code=step.error.code)
    if step.final_answer is not None:
        if choice.mode in ("required", "named"):
            want = choice.name or " or ".join(tools)
            return _Verdict(
                problem=f"You must call a tool now ({want}); do not answer yet. Write the call, e.g.\n{example}",
                code="call_required",
            )
        return _Verdict(answer=step.final_answer)
    if choice.mode == "none":
        return _Verdict(
            problem="Do not call a tool now. Answer from what you know, e.g.\nFinal Answer: <your answer>",
            code="call_forbidden",
        )
    if not step.actions:  # the parser promises one of error/answer/actions; do not trust it blindly
        return _Verdict(problem=f"Write a tool call or a final answer, e.g.\n{example}", code="no_action")
    calls = []
    for action in step.actions:
        tool = tools.get(action.tool)
        if tool is None:
            return _Verdict(
                problem=f"There is no tool named {action.tool!r}. Valid tools: {', '.join(tools)}.",
                code="unknown_tool",
            )
        if choice.mode == "named" and action.tool != choice.name:
            return _Verdict(problem=f"Call {choice.name} now, e.g.\n{example}", code="wrong_tool")
        try:
            calls.append((tool.name, coerce_args(tool, action.args)))
        except ArgumentError as exc:
            return _Verdict(problem=str(exc), code="bad_arguments")
    return _Verdict(calls=tuple(calls))


def _example_call(template: Any, tools: Sequence[Any], choice: ToolChoice) -> str:
    from ..protocol.dialects import format_action

    if not tools:
        return "Final Answer: <your answer>"
    tool = next((t for t in tools if t.name == choice.name), tools[0])
    props = tool.parameters.get("properties", {}) if isinstance(tool.parameters, Mapping) else {}
    required = tool.parameters.get("required", []) if isinstance(tool.parameters, Mapping) else []
    args = {k: "..." for k in (required or list(props)[:1])}
    return format_action(template.dialect, tool.name, args, 1)


def _final_label(template: Any, n: int) -> str:
    """The text that opens a final answer in the template's dialect (``Final Answer:``, ``Finish[``...)."""
    from ..protocol.dialects import format_final

    mark = "\ue000"  # a private-use character: no dialect escapes or contains it
    return format_final(template.dialect, mark, n).split(mark)[0].rstrip(" ")


def _reaches_elsewhere(step: Step, turn: str, schemas: Mapping[str, Any], template: Any,
                       copied: frozenset[str]) -> str | None:
    """The turn's thought, when its action names a tool that is not offered, is not a
    near miss of one that is (``get_wether``, ``weather``) and is not one the few-shot
    examples use (``copied``: a model copying the examples' ``calculator`` should be
    told to use the offered tools, not be taken to decline); otherwise None."""
    if step.error is None or step.error.code != "unknown_tool":
        return None
    # The error does not carry the name: read the turn again without the tool list.
    raw = parse(turn, None, dialect=template.dialect, lang=getattr(template, "language", None))
    if not raw.actions:
        return None
    name = raw.actions[0].tool
    if name in copied or suggest_tool(name, list(schemas)) is not None:
        return None
    return f" {raw.thought}" if raw.thought else ""


def _call_id(messages: Sequence[Any], index: int, name: str, arguments: str) -> str:
    """Deterministic and unique within a conversation: turn position + index + content."""
    seed = f"{len(messages)}|{index}|{name}|{arguments}"
    return "call_" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]


def _grammar(template: Any, tools: Sequence[Any], choice: ToolChoice, backend: Backend, constrain: bool,
             *, unoffered: bool = True) -> str | None:
    """GBNF for the turn, when asked for (``constrain``) or when a call is forced."""
    forced = choice.mode in ("required", "named")
    if not (constrain or forced):
        return None
    if not getattr(backend, "supports_grammar", False):
        if constrain:
            raise ValueError(f"backend {getattr(backend, 'name', backend)!r} does not support grammars; drop constrain")
        return None  # forced calls then rely on the retries alone
    from ..grammar.gbnf import build_grammar
    from ..grammar.terms import GrammarError

    if choice.mode == "none":
        offered: list[Any] = []
    elif choice.mode == "named":
        offered = [t for t in tools if t.name == choice.name]
    else:
        offered = list(tools)
    try:
        # Unless a call is forced, the model may stop after its thought or (``unoffered``)
        # reach for a tool it was not offered: that is how it declines (see _reaches_elsewhere).
        return build_grammar(template.dialect, offered, allow_final=not forced, allow_thought_only=not forced,
                             allow_unoffered=unoffered and not forced)
    except GrammarError as exc:  # e.g. a tool name the text protocol cannot carry
        raise ShimRequestError(f"cannot constrain this request: {exc}", "tools") from exc


class _AnswerStream:
    """Passes on a turn's final answer while the model writes it, once the turn is clearly an answer.

    Each new piece re-reads the turn so far with ``read`` (the same parse the
    verdict will use). Only the answer's settled part goes out: its finished
    lines, or on its first line everything up to the last letter or digit (a
    closing quote or brace may still turn out to be syntax), and only while it
    extends what already went out, so the pieces stay a prefix of the answer
    the finished turn yields. A turn that is a call, or prose without an answer
    label, sends nothing.
    """

    def __init__(self, lead: str, read: Callable[[str], Step], on_content: Callable[[str], None]) -> None:
        self.lead = lead
        self.text = ""
        self.sent = ""
        self._read = read
        self._on_content = on_content

    def __call__(self, piece: str) -> None:
        self.text += piece
        step = self._read(self.lead + self.text)
        answer = step.final_answer
        if answer is None or step.actions or "prose_as_final" in step.repairs:
            return
        answer = answer.lstrip()
        cut = answer.rfind("\n")
        if cut >= 0:
            settled = answer[:cut].rstrip()
        else:
            last = max((i for i, ch in enumerate(answer) if ch.isalnum()), default=-1)
            settled = answer[:last + 1]
        if len(settled) > len(self.sent) and settled.startswith(self.sent):
            self._on_content(settled[len(self.sent):])
            self.sent = settled


# --- the public entry point ---------------------------------------------------------


def tool_calls(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    *,
    backend: Backend,
    template: Any = "classic",
    tool_choice: Any = "auto",
    constrain: bool = False,
    max_tokens: int = 256,
    max_retries: int = 2,
    temperature: float = 0.0,
    seed: int = 0,
    parallel_tool_calls: bool = True,
    examples: Sequence[Any] | None = None,
    on_content: Callable[[str], None] | None = None,
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

    ``on_content`` streams a plain answer: it is called with pieces of the
    answer as the model writes them (see ``_AnswerStream``); they join to a
    prefix of the final ``content`` (the caller sends the rest). Only answers
    nothing can still refuse stream (under ``tool_choice="none"``, and the
    answer asked for after a bare thought); an "auto" turn's own answer is
    judged whole by the answer checks first. Tool calls are never streamed
    here: they exist only once checked against the schemas.
    """
    from ..prompting.templates import load_template

    if max_retries < 0 or max_tokens < 1:
        raise ValueError("max_retries must be >= 0 and max_tokens >= 1")
    tpl = load_template(template) if isinstance(template, str) else template
    offered = read_tools(tools)
    choice = read_tool_choice(tool_choice, offered)
    conversation = fold_messages(messages)
    by_name = {t.name: t for t in offered}
    schemas = {t.name: t.parameters for t in offered}
    grammar = _grammar(tpl, offered, choice, backend, constrain)
    # A retry follows a turn that was no decline; under a grammar it may only use what is offered.
    strict = _grammar(tpl, offered, choice, backend, constrain, unoffered=False)
    example = _example_call(tpl, offered, choice)
    prose = "error" if choice.mode in ("required", "named") else "final"
    shown = tpl.shown_episodes(offered, conversation.question, examples)
    copied = frozenset(step.tool for episode in shown for step in episode.steps) - frozenset(by_name)

    rendered = tpl.render(conversation.question, offered, examples)
    if conversation.instructions:
        rendered = f"{conversation.instructions}\n\n{rendered}"
    prompt = open_prompt(backend, rendered, tpl.turn_prefix(1))
    prompt += render_scratchpad(tpl, conversation.turns)
    n = len(conversation.turns) + 1
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    errors: list[str] = []
    verdict = _Verdict()
    # An answer may go out as it is written only when nothing can still refuse it: under "auto" the
    # answer checks (guards) judge the whole answer first, so there it is sent once accepted; the
    # answer asked for after a bare thought is not checked again, so it streams in either mode.
    answering = on_content is not None and choice.mode in ("auto", "none")
    streams_first = answering and choice.mode == "none"

    def complete(text: str, grammar: str | None, stream: _AnswerStream | None = None) -> str:
        completion = complete_streaming(
            backend, text, stream, stop=tpl.stop, max_tokens=max_tokens, temperature=temperature, seed=seed,
            grammar=grammar,
        )
        usage["prompt_tokens"] += completion.prompt_tokens
        usage["completion_tokens"] += completion.completion_tokens
        return completion.text

    # A final answer gets the loop's checks. "Use a tool first" applies only after a call this
    # request tried and got wrong: declining a call is a legitimate reply, but an answer made up
    # right after a failed call is not.
    answer_context = AnswerContext(
        question=conversation.question,
        tool_names=tuple(by_name),
        observations=tuple(r for turn in conversation.turns for r in turn.results),
        example_values=episode_values(shown),
        require_observation=False,
        lang=prompt_language(tpl, conversation.question),
    )
    nudged: set[str] = set()
    thought: str | None = None
    for _attempt in range(max_retries + 1):
        prefix = tpl.turn_prefix(n)
        stream = None
        if streams_first:
            def read_turn(text: str, n: int = n) -> Step:
                return parse(text, schemas, dialect=tpl.dialect, lang=answer_context.lang, n=n)

            stream = _AnswerStream(prefix, read_turn, on_content)  # type: ignore[arg-type]
        turn = prefix + complete(prompt, strict if errors else grammar, stream)
        step = parse(turn, schemas, prose=prose, dialect=tpl.dialect, lang=answer_context.lang, n=n)
        verdict = _judge(step, by_name, choice, example)
        if verdict.answer is not None and choice.mode == "auto":
            tried_call = any(code in ("bad_arguments", "unknown_tool") for code in errors)
            nudge = check_answer(verdict.answer, replace(answer_context, nudged=frozenset(nudged),
                                                         require_observation=tried_call))
            if nudge is not None:
                nudged.add(nudge.code)
                verdict = _Verdict(problem=nudge.message, code=f"guard:{nudge.code}")
        kept = turn[len(prefix): max(step.end, len(prefix))]
        thought = step.thought
        elsewhere = _reaches_elsewhere(step, turn, schemas, tpl, copied) if choice.mode == "auto" else None
        if elsewhere is not None or (verdict.problem is None and "prose_as_final" in step.repairs):
            # Two ways a model declines without saying "Final Answer": it stops after its
            # thought ("I know this; no tool is needed."), or it reaches for a tool it was not
            # offered and no offered tool is like it (steering it onto one gives a wrong call).
            # Either way, ask for the answer under its own label after the thought.
            said = (elsewhere if elsewhere is not None else kept).rstrip()
            label = _final_label(tpl, n)
            lead = prefix + said + "\n" + label
            stream = _AnswerStream(lead, lambda text: parse(text, schemas), on_content) if answering else None
            answer = parse(lead + complete(prompt + said + "\n" + label, None, stream), schemas).final_answer
            if answer and answer.strip():
                thought = said.strip() or None
                verdict = _Verdict(answer=answer.strip())
                break
            if elsewhere is None:
                break  # no better answer came: the prose itself stands
        elif verdict.problem is None:
            break
        errors.append(verdict.code or "format")
        prompt += kept + tpl.observation(verdict.problem, n)
        n += 1

    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    result: dict[str, Any] = {"usage": usage, "thought": thought, "format_errors": errors}
    if verdict.calls:
        calls = verdict.calls if parallel_tool_calls else verdict.calls[:1]
        out = []
        for index, (name, args) in enumerate(calls):
            arguments = json.dumps(args, ensure_ascii=False)
            out.append({
                "id": _call_id(messages, index, name, arguments),
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            })
        result["message"] = {"role": "assistant", "content": None, "tool_calls": out}
        result["finish_reason"] = "tool_calls"
    elif verdict.answer is not None:
        result["message"] = {"role": "assistant", "content": verdict.answer}
        result["finish_reason"] = "stop"
    else:
        attempts = max_retries + 1
        result["message"] = {
            "role": "assistant",
            "content": (
                f"The model did not produce a usable reply in {attempts} attempt(s); "
                f"last problem ({verdict.code}): {verdict.problem}"
            ),
        }
        result["finish_reason"] = "stop"
    return result
