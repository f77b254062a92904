"""Folding an OpenAI chat into what a ReAct template needs: a question, a scratchpad, instructions.

* The *current episode* is everything after the last ``user`` message. Its
  assistant ``tool_calls`` become past turns (several calls in one message are
  several actions in one turn), and the ``tool`` results answering them become
  that turn's observation (matched by ``tool_call_id``).
* ``system``/``developer`` text becomes the instructions (not part of the question).
* The question is the last ``user`` message. Everything before it (earlier
  user messages, earlier answers, earlier tool calls with their results) is
  summarised in the question as an "Earlier in this conversation" block.
* An assistant message with plain content inside the current episode closes
  that episode's scratchpad: it and the turns before it move to the summary.

The folding also checks each message, naming the exact field it refuses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .request import ShimRequestError

__all__ = ["HistoryCall", "HistoryTurn", "Conversation", "fold_messages"]

_ROLES = ("system", "developer", "user", "assistant", "tool")


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


def fold_messages(messages: Sequence[Mapping[str, Any]]) -> Conversation:
    """Fold an OpenAI chat into a question and a scratchpad (see the module docstring)."""
    if not isinstance(messages, (list, tuple)) or not messages:
        raise ShimRequestError("'messages' must be a non-empty list of chat messages", "messages")
    fold = _Fold()
    for i, message in enumerate(messages):
        fold.add(message, f"messages[{i}]")
    return fold.finish()


class _Fold:
    """The fold in progress, one message at a time: results wait for the calls they answer."""

    def __init__(self) -> None:
        self.system: list[str] = []
        self.earlier: list[str] = []  # summary of everything before the current episode
        self.question: str | None = None
        self.turns: list[HistoryTurn] = []
        self.open_calls: tuple[HistoryCall, ...] = ()
        self.results: dict[str, str] = {}

    def add(self, message: Any, where: str) -> None:
        if not isinstance(message, Mapping):
            raise ShimRequestError(f"{where} must be an object with a 'role'", where)
        role = message.get("role")
        if role not in _ROLES:
            raise ShimRequestError(
                f"{where}.role must be one of {', '.join(_ROLES)}, got {role!r}", f"{where}.role"
            )
        text = _text_of(message.get("content"), where)
        if role != "tool":
            self._close_turn()
        if role in ("system", "developer"):
            if text.strip():
                self.system.append(text.strip())
        elif role == "user":
            self._user(text)
        elif role == "assistant":
            self._assistant(message, text, where)
        else:
            self._tool(message, text, where)

    def finish(self) -> Conversation:
        self._close_turn()
        question = self.question
        if question is None:
            raise ShimRequestError("'messages' must contain at least one 'user' message", "messages")
        if self.earlier:
            earlier = "\n".join(self.earlier)
            question = f"Earlier in this conversation:\n{earlier}\n\nThe user now asks: {question}"
        return Conversation(question, tuple(self.turns), "\n\n".join(self.system))

    def _close_turn(self) -> None:
        if self.open_calls:
            ordered = tuple(self.results.get(c.id, "(no result was sent for this call)") for c in self.open_calls)
            self.turns[-1] = HistoryTurn(self.turns[-1].thought, self.open_calls, ordered)
        self.open_calls, self.results = (), {}

    def _summarise_turns(self) -> None:
        """The current episode's turns move into the summary."""
        self.earlier.extend(_summary_lines(self.turns))
        self.turns = []

    def _user(self, text: str) -> None:
        if self.question is not None:
            self.earlier.append(f"User: {self.question}")
        self._summarise_turns()
        self.question = text.strip()

    def _assistant(self, message: Mapping[str, Any], text: str, where: str) -> None:
        raw_calls = message.get("tool_calls")
        if raw_calls:
            calls = _read_calls(raw_calls, where)
            self.turns.append(HistoryTurn(text.strip() or None, calls, ()))
            self.open_calls = calls
        else:
            self._summarise_turns()
            if text.strip():
                self.earlier.append(f"Assistant: {text.strip()}")

    def _tool(self, message: Mapping[str, Any], text: str, where: str) -> None:
        if not self.open_calls:
            raise ShimRequestError(
                f"{where}: a 'tool' message must follow an assistant message with tool_calls", where
            )
        call_id = message.get("tool_call_id")
        pending = [c for c in self.open_calls if c.id not in self.results]
        match = next((c for c in pending if c.id == call_id), None)
        if match is None:
            if any(c.id == call_id for c in self.open_calls):
                raise ShimRequestError(f"{where}: a second result for tool call {call_id!r}", f"{where}.tool_call_id")
            if not pending:
                raise ShimRequestError(
                    f"{where}: more tool results than tool calls in the assistant message before it",
                    f"{where}.tool_call_id",
                )
            match = pending[0]  # an unknown id answers the first unanswered call, in order
        self.results[match.id] = text if text.strip() else "(empty result)"


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
        call_id = call.get("id")
        calls.append(HistoryCall(call_id if isinstance(call_id, str) else f"#{j}", function["name"],
                                 _read_arguments(function.get("arguments", "{}"), at)))
    return tuple(calls)


def _read_arguments(arguments: Any, at: str) -> dict | str:
    """A past call's ``arguments``: decoded JSON, or the client's text when it is not JSON."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            decoded = arguments  # keep what the client sent; it is still readable text
        except RecursionError:
            raise ShimRequestError(f"{at}.function.arguments is nested too deeply", f"{at}.function.arguments") from None
        return decoded if isinstance(decoded, (dict, str)) else arguments
    raise ShimRequestError(f"{at}.function.arguments must be a JSON string", f"{at}.function.arguments")


def _summary_lines(turns: Iterable[HistoryTurn]) -> list[str]:
    lines = []
    for turn in turns:
        for call, result in zip(turn.calls, turn.results):
            lines.append(f"Assistant called {call.name}({_args_text(call.args)}) and got: {result}")
    return lines


def _args_text(args: dict | str) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
