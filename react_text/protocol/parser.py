"""Read one model turn, in whatever ReAct dialect the model chose, into a ``Step``.

``parse(text, tools=None, *, prose="error") -> Step`` is pure and never raises
for any ``str``. It reads LangChain style (``Action:`` / ``Action Input:``),
calls (``Act: search(query="x")``), the paper's ``Search[x]`` / ``Finish[x]``
(labelled or alone on a line), JSON blobs in every common key convention
(bare, fenced, in prose, in ``<tool_call>`` tags, ModelScope's ``api_name`` /
``parameters``), Semantic Kernel's ``[ACTION]`` / ``[FINAL ANSWER]`` with
``action_variables``, LangChain's XML agent (``<tool>``, ``<tool_input>``,
``<final_answer>``), Haystack's ``Tool:`` / ``Tool Input:``, Chinese labels,
and the sloppy variants small models write. Labels count only at the start of
a line (after optional markdown decoration), so "Action" inside a thought is
prose. A bare input runs on over its following lines up to a blank line or a
label line.

Trust: nothing after the first action's input is trusted. A made-up
``Observation:``, a later ``Final Answer:`` or a new ``Question:`` is cut off
at ``Step.end`` (repair ``dropped_tail``); several actions written back to
back, before any observation, all come back in order. Two echoes are looked
past: an ``Observation:`` the turn opens with (the model repeating the last
result), and the prompt's format example (``Action: the action to take``,
``{"action": "tool_name", ...}``) when a real step follows it; an echo alone
is an error. When in doubt the answer is an error, never a guess.

Error codes (``Step.error.code``; stable, the message is written for the model
and shows the line it should write):

- ``empty``: nothing but whitespace (or bare labels) in the turn.
- ``no_action``: no action and no final answer (a thought alone, plain prose
  under ``prose="error"``, or a tool slot that holds no tool name at all).
- ``unknown_tool``: the tool slot names no tool in ``tools``; lists the valid
  tools and suggests the closest one.
- ``placeholder``: the model echoed the prompt's instructions
  (``the action to take``, ``$JSON_BLOB``, ``<tool>(<arguments>)``, ``...``).
- ``missing_input``: an ``Action:`` with no ``Action Input:`` after it.
- ``bad_arguments``: the input is not readable (broken JSON a person could not
  read either, or nested too deeply).
- ``truncated``: the input was cut off mid-string or after a comma (the token
  limit); never turned into a shortened call.
- ``missing_answer``: a final-answer label with nothing after it.
- ``internal``: a bug in this module; tests show it does not happen.

Repairs (``Step.repairs``) name what had to be mended: ``dropped_tail``,
``tool_name`` (case/separators/quotes fixed), ``name_on_next_line``,
``inline_input`` (``Action: search: x``), ``unlabeled_input`` (JSON right
under ``Action:`` without ``Action Input:``), ``extra_brace``,
``arguments_string_decoded``, ``positional_args``, ``raw_arguments``,
``closed_brackets``, ``dropped_truncated_action``, ``prose_as_final``,
``stated_answer`` (a thought that ends "The final answer is X." read as
``Final Answer: X``),
``too_many_actions``, ``emphasis`` (``**x**`` around an input),
``call_wrapper`` (``QueryEngineTool({...})``), ``tool_description``
(``Action: add (add two numbers)`` over an input line), ``unlabeled_action``
(a bare ``Search[x]`` line), ``inferred_tool`` (an ``Action Input:`` with no
``Action:`` whose keys only one tool's schema takes), plus the JSON repairs of
``react_text.protocol.jsonish``.

Cost: linear in the turn, and bounded on hostile input: JSON-looking lines
that are not JSON, echoed blocks and lenient JSON reading each have a per-turn
budget (``bench/parser_bench.py`` checks < 0.1 s of CPU per MB).

Layout: this module assembles the ``Step``; the reading is done by functions
over one ``turn.Turn`` (the turn's ``lines.Lines`` plus what was found so far):
``walk`` goes over the lines, ``actions`` reads an ``Action:`` line,
``values`` an input, ``calls`` ``Tool(args)`` and ``Tool[args]``, ``blobs``
JSON actions (``json_calls`` says what a decoded blob means), ``fallback`` the
dialects the walk does not see; ``slots`` checks a tool slot, ``names`` folds
and matches tool names, ``labels`` holds the label patterns and
``placeholders`` rejects echoed template instructions.
"""



from __future__ import annotations

import re
from typing import Optional, get_args

from ..types import Action, ErrorCode, FormatError, Step
from . import feedback
from .dialects import DIALECTS
from .fallback import fallback
from .names import ToolsArg, Toolset, toolset
from .native import has_marker, read_native
from .placeholders import is_placeholder, placeholder_error
from .quick import quick
from .slots import check_name
from .turn import Call, Turn, TurnError
from .walk import read, thought_before

__all__ = ["parse", "ERROR_CODES"]

ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)
"""Every ``Step.error.code`` the parser gives (documented above)."""


# "The final answer is 68.04 kg." / "So the final answer is: $\\boxed{5}$" / "最终答案是 42。": a model that
# never saw a "Final Answer:" label (a prompt of call demos only) states its answer this way, and
# repeats it word for word after a format error. Only the words "final answer" count: "the answer
# is ..." is too often the start of a plan.
_SENTENCE_MAX = 300
"""A one-line thought up to this long, written after an observation, is offered back as the answer."""
_STATED = re.compile(r"final[ \t]+answer[ \t]+is[ \t]*[:：]?[ \t]*(?P<en>[^\n]+)|"
                     r"(?:最终答案|final[ \t]*answer)[ \t]*(?:是|为)[ \t]*[:：]?[ \t]*(?P<zh>[^\n]+)",
                     re.IGNORECASE)
_STATED_LEAD = re.compile(r"(?:(?:so|thus|therefore|hence|and)[,，]?\s*)?(?:the)?", re.IGNORECASE)
_BOXED = re.compile(r"^\$*\s*\\boxed\{(.+)\}\s*\$*$")
_ANY_SPACE = re.compile(r"\s*")


def _stated_answer(thought: str) -> Optional[str]:
    """The answer of the last sentence "The final answer is X" in ``thought``, else None."""
    answer = None
    for found in _STATED.finditer(thought):
        head = thought[max(0, found.start() - 24):found.start()]
        cut = max(head.rfind(c) for c in ".!?。！？\n")
        if cut < 0 and found.start() > 24:
            continue  # "final answer is" inside a longer sentence ("I think the final answer is ...")
        if found.group("zh") is not None or _STATED_LEAD.fullmatch(head[cut + 1:].strip()):
            answer = found.group("en") or found.group("zh")
    if answer is None:
        return None
    answer = answer.strip().rstrip("。.").strip().strip("*").strip()
    boxed = _BOXED.match(answer)
    if boxed:
        answer = boxed.group(1).strip()
    return answer or None


def _has_text(text: str, start: int) -> bool:
    """Whether anything but whitespace follows ``start`` (without copying the tail)."""
    if start >= len(text):  # the usual answers, without a regex call
        return False
    if not text[start].isspace():
        return True
    return _ANY_SPACE.match(text, start).end() < len(text)


def _resolve(turn: Turn, calls: tuple[Call, ...]) -> tuple[Action, ...]:
    """The calls as ``Action``s, each name checked against the tools (and ``tool_name`` noted when mended)."""
    actions = []
    for call in calls:
        tool = call.tool or check_name(turn, call.name, call.end, call.args)
        if not isinstance(tool, str):  # a final-answer name among several calls
            raise TurnError("no_action", feedback.no_action(turn.voice), call.end)
        if tool != call.name.strip():
            turn.add("tool_name")
        actions.append(Action(tool, call.args, (call.start, call.end)))
    return tuple(actions)


def _done(turn: Turn, end: int, thought: Optional[str] = None, actions: tuple[Action, ...] = (),
          final_answer: Optional[str] = None, error: Optional[FormatError] = None) -> Step:
    """The ``Step`` of ``turn``, trusted up to ``end`` (a module function, not a closure: one is built per parse)."""
    text = turn.text
    repairs = turn.repairs
    if end < len(text) and _has_text(text, end) and "dropped_tail" not in repairs:  # most turns are read to their end
        repairs = [*repairs, "dropped_tail"]
    return Step(text, thought, actions, final_answer, error, tuple(repairs), end)  # positional: cheaper


def _step(text: str, ts: Optional[Toolset], prose: str, style: tuple[str, int, Optional[str]]) -> Step:
    """``parse`` past its argument checks: read the turn, then decide what a turn with no step means."""
    if not text or text.isspace():
        return Step(text=text, error=FormatError("empty", feedback.empty(feedback.Voice(ts, *style))), end=0)
    turn = Turn(text, ts, style)
    try:
        got = (read_native(turn) if has_marker(text) else quick(turn)) or read(turn)
        if not got.calls and got.final is None:
            got = fallback(turn) or got
        actions = _resolve(turn, got.calls) if got.calls else ()
    except TurnError as err:
        end = turn.limit if err.end is None else max(0, min(err.end, len(text)))
        thought = thought_before(turn, turn.first_start if turn.first_start is not None else end)
        return _done(turn, end, thought=thought, error=FormatError(err.code, err.message, err.detail))
    if actions:
        thought = thought_before(turn, turn.first_start or 0) or got.calls[0].thought
        return _done(turn, got.end, thought=thought, actions=actions)
    if got.final is not None:
        thought = thought_before(turn, turn.first_start or 0) or turn.blob_thought
        return _done(turn, got.end, thought=thought, final_answer=got.final)
    thought = thought_before(turn, got.end)
    if thought is None:
        if turn.stopped_at is not None:  # the turn opens with an Observation or a new Question
            return _done(turn, got.end, error=FormatError("no_action", feedback.untrusted(turn.voice)))
        return _done(turn, got.end, error=FormatError("empty", feedback.empty(turn.voice)))
    if is_placeholder(thought):
        err = placeholder_error(turn, thought, got.end)
        return _done(turn, got.end, thought=thought, error=FormatError(err.code, err.message, err.detail))
    if turn.stray_input:
        return _done(turn, got.end, thought=thought, error=FormatError("no_action", feedback.stray_input(turn.voice)))
    stated = _stated_answer(thought)
    if stated is not None:
        turn.add("stated_answer")
        return _done(turn, got.end, thought=thought, final_answer=stated)
    if prose == "final":
        turn.add("prose_as_final")
        return _done(turn, got.end, final_answer=thought)
    if turn.voice.n > 1 and "\n" not in thought and len(thought) <= _SENTENCE_MAX:
        return _done(turn, got.end, thought=thought, error=FormatError("no_action", feedback.answer_or_action(turn.voice, thought)))
    return _done(turn, got.end, thought=thought, error=FormatError("no_action", feedback.no_action(turn.voice)))


def parse(
    text: str,
    tools: ToolsArg = None,
    *,
    prose: str = "error",
    dialect: str = "classic",
    lang: Optional[str] = None,
    n: int = 1,
) -> Step:
    """Read one model turn into a ``Step``; never raises for a ``str``.

    ``tools`` (names, a mapping name -> JSON schema, Tool objects or plain functions) turns on forgiving name
    matching and ``unknown_tool`` errors; without it any identifier-like name
    is accepted. ``prose="final"`` makes a turn with no action and no answer
    (plain prose, or a thought alone) the final answer; the default
    ``"error"`` reports ``no_action``. Every dialect is read whatever
    ``dialect`` says: it, the prompt's language ``lang`` (default: Chinese for
    the ``zh`` dialect, else English) and the step number ``n`` only decide how
    an error message is worded, so the model is corrected in the style and
    language its prompt taught it.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() needs the turn as str, not {type(text).__name__}")
    if prose not in ("error", "final"):
        raise ValueError(f"prose must be 'error' or 'final', not {prose!r}")
    if type(dialect) is not str or dialect not in DIALECTS:  # a known name (the usual case): no further call
        feedback.check_dialect(dialect)
    try:
        ts = toolset(tools)
    except Exception as exc:  # a malformed tools argument is the caller's bug: say so
        raise TypeError(f"tools must be names, a name -> schema mapping, Tool objects or functions: {exc}") from exc
    try:
        return _step(text, ts, prose, (dialect, n, lang))
    except Exception as exc:  # a bug here must not take the agent down
        voice = feedback.Voice(ts, dialect, n, lang)
        return Step(text=text, end=len(text), error=FormatError("internal", feedback.internal(voice, type(exc).__name__)))
