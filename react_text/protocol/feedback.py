"""What a format error tells the model, in the protocol style and the language of its prompt.

Why: the message is the model's next observation, and a small model copies
what it reads. An example written in another protocol style (``Action Input:``
shown to a model prompted with ``Act: tool(k=v)``) or in English under a
Chinese prompt teaches it to drift; the same example in its own dialect is the
cheapest correction there is. The parser decides *what* went wrong; this
module only words it.

Every message is one or two sentences followed by the exact text to write,
built from the model's own last call where it wrote one. Values the model must
fill in stay ``...``: the parser reports a copied ``...`` as a ``placeholder``
error, while a made-up concrete value would be copied silently into a wrong
tool call or an answer.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence

from ..lexicon.messages import message
from .dialects import DialectLike, dialect_named
from .dialects.base import Dialect


class ToolsView(Protocol):
    """What a message needs to know about the offered tools."""

    names: Sequence[str]
    schemas: Mapping[str, dict]

    def parameters(self, name: str) -> Mapping[str, Any]: ...

    def takes_no_arguments(self, name: str) -> bool: ...


FILL = "..."


@dataclass(frozen=True, init=False)
class Voice:
    """Who the messages speak to: the tools on offer, the prompt's dialect, its language and the step number."""

    tools: Optional[ToolsView] = None
    dialect: DialectLike = "classic"
    n: int = 1
    lang: Optional[str] = None
    """The language messages are worded in (``lexicon.messages``); None follows the dialect's own (Chinese for ``zh``)."""
    tried: Optional[str] = None
    """The offered tool the turn named: an example under it fixes the call the model meant to make."""

    def __init__(self, tools: Optional[ToolsView] = None, dialect: DialectLike = "classic", n: int = 1,
                 lang: Optional[str] = None, tried: Optional[str] = None) -> None:
        fields = self.__dict__  # frozen: filled at once (one per turn that gets a message), as react_text.types.Step
        fields["tools"], fields["dialect"], fields["n"], fields["lang"], fields["tried"] = tools, dialect, n, lang, tried

    @property
    def style(self) -> Dialect:
        """The dialect the examples are written in."""
        return dialect_named(self.dialect)

    def say(self, key: str, **values: Any) -> str:
        """The message ``key`` (``lexicon.messages``) in the voice's language."""
        return message(self.lang or self.style.language, key, **values)

    def args(self, tool: Optional[str], given: Any = None) -> dict[str, Any]:
        """Arguments to show for ``tool``: its required keys (or its first one), with values the
        model already wrote (``given``), else from the schema, else ``...``."""
        if self.tools is None or tool is None:
            return {"query": _reuse(given) or FILL}
        params = self.tools.parameters(tool)
        props = params.get("properties") if isinstance(params.get("properties"), dict) else {}
        if not props:
            return {} if self.tools.takes_no_arguments(tool) else {"input": _reuse(given) or FILL}
        required = [p for p in params.get("required", []) if p in props] or list(props)[:1]
        shown = {p: fill_value(props[p]) for p in required}
        if isinstance(given, dict):
            shown.update({k: v for k, v in given.items() if k in shown})
        if len(shown) == 1 and _reuse(given) and not (isinstance(given, dict) and set(given) & set(shown)):
            (key,) = shown
            if fill_value(props[key]) == FILL:  # a string slot: the model's lone value fits it
                shown[key] = _reuse(given)
        return shown

    def action(self, tool: Optional[str] = None, given: Any = None) -> str:
        if tool is None:
            tool = self.tried or (self.tools.names[0] if self.tools is not None and self.tools.names else "search")
        return self.style.write_action(tool, self.args(tool, given), self.n)

    def thought(self) -> str:
        return self.style.write_thought(self.say("feedback.thought"), self.n)

    def final(self) -> str:
        return self.style.write_final(FILL, self.n)


def fill_value(schema: Any, depth: int = 0) -> Any:
    """A value to show for a slot the model did not fill: an enum's first value or a constant
    (the only values that are right whatever the question), an object's keys each filled so
    (its shape is what the model got wrong), else ``...``. Never a schema example or a made-up
    number: a small model copies those into its next call or even its answer."""
    if not isinstance(schema, Mapping):
        return FILL
    values = schema.get("enum")
    if isinstance(values, list) and values:
        return values[0]
    if "const" in schema:
        return schema["const"]
    props = schema.get("properties")
    if isinstance(props, Mapping) and props and depth < 3:
        return {name: fill_value(sub, depth + 1) for name, sub in props.items()}
    return FILL


def _reuse(given: Any) -> Optional[str]:
    """The model's own single short text value, worth showing back to it."""
    if isinstance(given, dict) and len(given) == 1:
        (given,) = given.values()
    if isinstance(given, str) and given.strip() and len(given) <= 120 and given.strip() != FILL:
        return given.strip()
    return None


def _q(text: str, n: int = 60) -> str:
    """A model-written string, shortened and on one line, to quote back."""
    text = " ".join(text[: n * 4].split())
    return text if len(text) <= n else text[: n - 1] + "…"


# --- one function per situation ---------------------------------------------------------

_SAID: dict[tuple, str] = {}
_SAID_MAX = 1024


def _remembered(situation: Callable[..., str]) -> Callable[..., str]:
    """``situation`` memoised on what its message depends on.

    Why: wording a message costs about as much as reading the turn, and a model
    repeats its mistakes, so the same messages come back turn after turn. Only
    for tools given by name: a schema is the caller's dict, which may change
    between turns; and not for an unhashable argument (the model's own values)."""

    @functools.wraps(situation)
    def word(v: Voice, *args: Any) -> str:
        tools = v.tools
        if tools is not None and tools.schemas:
            return situation(v, *args)
        key = (situation, tools and tuple(tools.names), v.dialect, v.n, v.lang, v.tried, *args)
        try:
            return _SAID[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument
            return situation(v, *args)
        if len(_SAID) >= _SAID_MAX:
            _SAID.clear()
        said = _SAID[key] = situation(v, *args)
        return said

    return word


@_remembered
def empty(v: Voice) -> str:
    return v.say("feedback.empty") + f"\n{v.thought()}\n{v.action()}"


@_remembered
def untrusted(v: Voice) -> str:
    return v.say("feedback.untrusted") + f"\n{v.thought()}\n{v.action()}"


@_remembered
def no_action(v: Voice) -> str:
    return v.say("feedback.no_action") + f"\n{v.action()}\n" + v.say("feedback.no_action.or_answer") + f"\n{v.final()}"


@_remembered
def answer_or_action(v: Voice, said: str) -> str:
    """For a one-line thought written after an observation: the model's own sentence under the
    answer label, then the action format. A small model that states its answer in prose copies the
    repaired line it is shown; a generic "Final Answer: ..." it copies as "...", or not at all."""
    return (v.say("feedback.answer_or_action") + f"\n{v.style.write_final(said, v.n)}\n"
            + v.say("feedback.answer_or_action.otherwise") + f"\n{v.action()}")


@_remembered
def unknown_tool(v: Voice, name: str, suggestion: Optional[str], given: Any = None) -> str:
    if v.tools is None or not v.tools.names:
        return v.say("feedback.no_tools", name=_q(name)) + f"\n{v.final()}"
    hint = v.say("feedback.unknown_tool.hint", suggestion=suggestion) if suggestion else ""
    return v.say("feedback.unknown_tool", name=_q(name), hint=hint, names=", ".join(v.tools.names)) \
        + f"\n{v.action(suggestion, given if suggestion else None)}"  # another tool's values would mislead


@_remembered
def not_a_name(v: Voice, name: str) -> str:
    return v.say("feedback.not_a_name", name=_q(name)) + f"\n{v.action()}"


@_remembered
def placeholder(v: Voice, what: str) -> str:
    return v.say("feedback.placeholder", what=_q(what, 40)) + f"\n{v.action()}"


@_remembered
def missing_input(v: Voice, tool: str) -> str:
    return v.say("feedback.missing_input", tool=tool) + f"\n{v.action(tool)}"


@_remembered
def stray_input(v: Voice) -> str:
    return v.say("feedback.stray_input") + f"\n{v.action()}"


@_remembered
def bad_arguments(v: Voice, tool: Optional[str], detail: str) -> str:
    return v.say("feedback.bad_arguments", detail=_q(detail)) + f"\n{v.action(tool)}"


@_remembered
def truncated(v: Voice, tool: Optional[str]) -> str:
    return v.say("feedback.truncated") + f"\n{v.action(tool)}"


@_remembered
def missing_answer(v: Voice) -> str:
    return v.say("feedback.missing_answer") + f"\n{v.style.write_final(v.say('feedback.missing_answer.example'), v.n)}"


@_remembered
def internal(v: Voice, what: str) -> str:
    return v.say("feedback.internal", what=what) + f"\n{v.action()}"


def check_dialect(dialect: DialectLike) -> None:
    """ValueError for a dialect the messages cannot be written in: the caller's mistake, not the model's."""
    dialect_named(dialect)


