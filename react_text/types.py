"""Frozen data that crosses module lines.

Everything here is plain data: the parser, the loop's decisions, the trace and
the backends exchange these objects and nothing else, so a run can be written
to JSON and replayed without any of the machinery that produced it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

Args = Union[dict, str]

ErrorCode = Literal[
    "empty", "no_action", "unknown_tool", "placeholder", "missing_input",
    "bad_arguments", "truncated", "missing_answer", "internal",
]
"""Why a turn could not be used (``FormatError.code``); the parser's docstring says when each is given."""

RepairCode = Literal[
    # what the parser mended
    "dropped_tail", "tool_name", "name_on_next_line", "inline_input", "unlabeled_input", "extra_brace",
    "arguments_string_decoded", "positional_args", "raw_arguments", "closed_brackets", "dropped_truncated_action",
    "prose_as_final", "stated_answer", "too_many_actions", "emphasis", "call_wrapper", "tool_description",
    "unlabeled_action",
    # what the lenient JSON reader mended (react_text.protocol.jsonish)
    "comments", "python_tuples", "single_quotes", "smart_quotes", "python_literals", "unquoted_value",
    "missing_colon", "fullwidth_punctuation", "closed_braces", "trailing_comma", "missing_comma", "unquoted_keys",
    "closed_parens", "colon_keyword",
]
"""What the parser had to mend to read a turn (``Step.repairs``)."""


@dataclass(frozen=True, init=False)
class Action:
    """One tool call read from a model turn.

    ``args`` is a dict when the model wrote JSON or keyword arguments and the
    bare string otherwise; ``span`` is the (start, end) slice of the turn text
    the action was read from, so callers can show or cut exactly that text.
    """

    tool: str
    args: Args
    span: tuple[int, int] = (0, 0)

    def __init__(self, tool: str, args: Args, span: tuple[int, int] = (0, 0)) -> None:
        fields = self.__dict__  # frozen: filled directly, see Step.__init__
        fields["tool"], fields["args"], fields["span"] = tool, args, span


@dataclass(frozen=True, init=False)
class FormatError:
    """Why a turn could not be used, written for the model to read.

    ``code`` is stable (``empty``, ``no_action``, ``unknown_tool``,
    ``bad_arguments``, ``missing_input``, ``truncated``, ``placeholder``, ...);
    ``message`` is one or two sentences that show the line the model should
    have written. The loop sends ``message`` back as the next observation.
    ``detail`` is what the model wrote that is wrong, when the parser knows it,
    so no caller has to read the turn again to learn it: the tool name for
    ``missing_input``, and for ``bad_arguments`` and ``truncated`` when the
    input follows a tool name; for ``unknown_tool``, the name the model called,
    when its call is whole (input read, no echoed instruction in it) and the
    slot holds a name rather than a sentence; the echoed instruction for
    ``placeholder``; the slot text for a ``no_action`` whose tool slot holds no
    name. Otherwise None.
    """

    code: ErrorCode
    message: str
    detail: Optional[str] = None

    def __init__(self, code: ErrorCode, message: str, detail: Optional[str] = None) -> None:
        fields = self.__dict__  # frozen: filled directly, see Step.__init__
        fields["code"], fields["message"], fields["detail"] = code, message, detail


@dataclass(frozen=True, init=False)
class Step:
    """One parsed model turn.

    Exactly one of these holds: ``error`` is set; or ``actions`` is non-empty;
    or ``final_answer`` is set. ``repairs`` lists what the parser had to mend
    to read the turn (for example ``single_quotes`` or ``dropped_observation``),
    the way json_repair can report what it fixed.
    """

    text: str
    thought: str | None = None
    actions: tuple[Action, ...] = ()
    final_answer: str | None = None
    error: FormatError | None = None
    repairs: tuple[RepairCode, ...] = ()
    end: int = 0
    """Offset in ``text`` after which nothing is trusted (a made-up observation,
    a second question). The loop keeps ``text[:end]`` in the scratchpad."""

    def __init__(self, text: str, thought: str | None = None, actions: tuple[Action, ...] = (),
                 final_answer: str | None = None, error: FormatError | None = None,
                 repairs: tuple[RepairCode, ...] = (), end: int = 0) -> None:
        # The __init__ a frozen dataclass writes sets each field through object.__setattr__: a
        # fourteenth of a short turn's parse. Filling the instance dictionary gives the same
        # object; the class stays frozen, compared and hashed by its fields as before.
        fields = self.__dict__
        fields["text"], fields["thought"], fields["actions"] = text, thought, actions
        fields["final_answer"], fields["error"], fields["repairs"], fields["end"] = final_answer, error, repairs, end

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Observation:
    """What a tool call gave back, or why it failed, as the model will see it."""

    ok: bool
    text: str
    code: str = "ok"
    retryable: bool = False
    truncated: bool = False
    seconds: float = 0.0


@dataclass(frozen=True)
class Completion:
    """One generation from a backend.

    ``prompt_tokens`` is the size of the prompt in tokens; ``evaluated_tokens``
    is how many of them the backend actually had to evaluate (the rest came
    from its prefix cache), or None when the backend cannot tell.
    """

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    evaluated_tokens: int | None = None
    finish_reason: str = "stop"
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
