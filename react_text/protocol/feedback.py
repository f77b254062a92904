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

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Protocol, Sequence

from ..lexicon.zh import is_chinese
from .dialects import DialectLike, dialect_named
from .dialects.base import Dialect


class ToolsView(Protocol):
    """What a message needs to know about the offered tools."""

    names: Sequence[str]

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
    """``zh`` words messages in Chinese; None follows the dialect's own language (Chinese for ``zh``)."""
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

    @property
    def zh(self) -> bool:
        return is_chinese(self.lang or self.style.language)

    def say(self, en: str, zh: str) -> str:
        return zh if self.zh else en

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
        return self.style.write_thought(self.say("I should look this up.", "我需要先查一下。"), self.n)

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


def empty(v: Voice) -> str:
    return v.say("Your reply was empty. Write a thought and then an action, e.g.",
                 "你的回复是空的。请先写思考，再写一个行动，例如：") + f"\n{v.thought()}\n{v.action()}"


def untrusted(v: Voice) -> str:
    return v.say(
        "Do not write the Observation or a new Question yourself; the tool result comes back to you. "
        "Write only your next step, e.g.",
        "不要自己写观察或新的问题，工具的结果会返回给你。只写你的下一步，例如：",
    ) + f"\n{v.thought()}\n{v.action()}"


def no_action(v: Voice) -> str:
    return (v.say("I found no action and no final answer. Write one action, e.g.",
                  "没有找到行动，也没有最终答案。请写一个行动，例如：")
            + f"\n{v.action()}\n"
            + v.say("or, when you know the answer:", "或者，如果你已经知道答案：")
            + f"\n{v.final()}")


def answer_or_action(v: Voice, said: str) -> str:
    """For a one-line thought written after an observation: the model's own sentence under the
    answer label, then the action format. A small model that states its answer in prose copies the
    repaired line it is shown; a generic "Final Answer: ..." it copies as "...", or not at all."""
    return (v.say("I found no action and no final answer. If that sentence is your answer, write it after the label:",
                  "没有找到行动，也没有最终答案。如果这句话就是你的答案，请写在标签后面：")
            + f"\n{v.style.write_final(said, v.n)}\n"
            + v.say("Otherwise write one action, e.g.", "否则请写一个行动，例如：")
            + f"\n{v.action()}")


def unknown_tool(v: Voice, name: str, suggestion: Optional[str], given: Any = None) -> str:
    if v.tools is None or not v.tools.names:
        return v.say(f"There are no tools, so \"{_q(name)}\" cannot run. Give your answer:",
                     f"没有可用的工具，所以“{_q(name)}”无法运行。请直接给出答案：") + f"\n{v.final()}"
    names = ", ".join(v.tools.names)
    hint = v.say(f" Did you mean {suggestion}?", f"你是不是想用 {suggestion}？") if suggestion else ""
    return v.say(f"\"{_q(name)}\" is not a tool.{hint} Valid tools: {names}. Use one of them exactly, e.g.",
                 f"“{_q(name)}”不是工具。{hint}可用的工具：{names}。请原样使用其中之一，例如：") \
        + f"\n{v.action(suggestion, given if suggestion else None)}"  # another tool's values would mislead


def not_a_name(v: Voice, name: str) -> str:
    return v.say(f"\"{_q(name)}\" is not a tool name. Name one tool, e.g.",
                 f"“{_q(name)}”不是工具名。请写一个工具名，例如：") + f"\n{v.action()}"


def placeholder(v: Voice, what: str) -> str:
    return v.say(
        f"You copied the format instructions (\"{_q(what, 40)}\") instead of filling them in. "
        "Write a real tool name and replace every ... with a real value, e.g.",
        f"你照抄了格式说明（“{_q(what, 40)}”），没有填写内容。请写真实的工具名，并把每个 ... 换成真实的值，例如：",
    ) + f"\n{v.action()}"


def missing_input(v: Voice, tool: str) -> str:
    return v.say(f"The action {tool} has no input. Write it like this:",
                 f"行动 {tool} 没有输入。请这样写：") + f"\n{v.action(tool)}"


def stray_input(v: Voice) -> str:
    return v.say("The input has no tool name before it. Write the tool name first, e.g.",
                 "输入前面没有工具名。请先写工具名，例如：") + f"\n{v.action()}"


def bad_arguments(v: Voice, tool: Optional[str], detail: str) -> str:
    return v.say(f"The input could not be read ({_q(detail)}). Write it like this:",
                 f"输入无法读取（{_q(detail)}）。请这样写：") + f"\n{v.action(tool)}"


def truncated(v: Voice, tool: Optional[str]) -> str:
    return v.say("The input was cut off before it ended. Write a shorter input and close every quote "
                 "and bracket, e.g.",
                 "输入还没写完就断了。请写短一些，并把每个引号和括号都闭合，例如：") + f"\n{v.action(tool)}"


def missing_answer(v: Voice) -> str:
    example = v.style.write_final(v.say("Paris", "北京"), v.n)
    return v.say("The final answer is empty. Write the answer itself, e.g.",
                 "最终答案是空的。请写出答案本身，例如：") + f"\n{example}"


def internal(v: Voice, what: str) -> str:
    return v.say(f"The reply could not be read ({what}). Write one action, e.g.",
                 f"无法读取这条回复（{what}）。请写一个行动，例如：") + f"\n{v.action()}"


def check_dialect(dialect: DialectLike) -> None:
    """ValueError for a dialect the messages cannot be written in: the caller's mistake, not the model's."""
    dialect_named(dialect)


