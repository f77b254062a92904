"""A backend that plays a script, for testing the loop without a model.

It behaves like a real backend where the loop can tell the difference: it cuts
its text at the earliest stop string, honours ``max_tokens`` (whitespace
separated words stand in for tokens), counts prompt tokens and how many of them
a prefix cache would have had to evaluate, and raises ``BackendError`` when the
script runs out. With ``on_token`` it streams its text in small pieces through
the same stop-sequence hold-back as the real backends. Every request is recorded so tests can assert what the loop
sent (prompt, stop sequences, token budget, grammar).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, Union

from ..types import Completion
from .base import BackendError
from .stops import StopCutter, cut_at_stop

ScriptItem = Union[str, Callable[[str], str], BaseException]
"""A turn's text; a function of the prompt giving the text; or an exception to raise."""

_WORD = re.compile(r"\S+\s*")
_LEADING_SPACE = re.compile(r"\s*")


def count_words(text: str) -> int:
    """The scripted backend's notion of a token: one whitespace-separated word."""
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class ScriptedCall:
    """One request the loop made, exactly as it was sent."""

    prompt: str
    stop: tuple[str, ...]
    max_tokens: int
    temperature: float
    seed: int
    grammar: str | None


def apply_max_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """Keep the first ``max_tokens`` words (with the leading whitespace)."""
    lead = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]
    words = _WORD.findall(text, lead)
    if len(words) <= max_tokens:
        return text, False
    return (text[:lead] + "".join(words[:max_tokens])).rstrip(), True


class ScriptedBackend:
    """Answers each ``complete`` call with the next item of ``turns``.

    ``wrap`` stands in for an instruct model's chat template (identity by
    default); ``supports_grammar`` lets tests exercise the grammar hook.
    ``context_size`` makes it behave like a model with that context window:
    a prompt that does not fit is a ``BackendError``, as in llama.cpp.
    ``count_tokens`` (default: words) is its tokenizer, e.g. a real model's.
    """

    def __init__(
        self,
        turns: Iterable[ScriptItem],
        *,
        name: str = "scripted",
        supports_grammar: bool = False,
        wrap: Callable[[str], str] | None = None,
        seconds_per_turn: float = 0.0,
        context_size: int | None = None,
        count_tokens: Callable[[str], int] = count_words,
    ) -> None:
        self.name = name
        self.supports_grammar = supports_grammar
        self.supports_streaming = True
        self._turns = list(turns)
        self._wrap = wrap
        self._seconds = seconds_per_turn
        self._cached = ""
        self.context_size = context_size
        self.count_tokens = count_tokens
        self.calls: list[ScriptedCall] = []

    @property
    def remaining(self) -> int:
        return len(self._turns) - len(self.calls)

    @property
    def prompts(self) -> list[str]:
        return [c.prompt for c in self.calls]

    def wrap_prompt(self, prompt: str) -> str:
        return self._wrap(prompt) if self._wrap else prompt

    def complete(
        self,
        prompt: str,
        *,
        stop: Sequence[str] = (),
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int = 0,
        grammar: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> Completion:
        if grammar is not None and not self.supports_grammar:
            raise BackendError(f"backend {self.name!r} does not support grammars")
        index = len(self.calls)
        if index >= len(self._turns):
            raise BackendError(
                f"script exhausted: {len(self._turns)} turn(s) scripted, call {index + 1} requested"
            )
        self.calls.append(
            ScriptedCall(prompt, tuple(stop), max_tokens, temperature, seed, grammar)
        )
        item = self._turns[index]
        if isinstance(item, BaseException):
            raise item
        prompt_tokens = self.count_tokens(prompt)
        if self.context_size is not None and prompt_tokens >= self.context_size:
            raise BackendError(f"the prompt is {prompt_tokens} tokens but the context window holds "
                               f"{self.context_size}")
        raw = item(prompt) if callable(item) else item
        text, stopped = cut_at_stop(raw, stop)
        text, cut = apply_max_tokens(text, max_tokens)
        if on_token is not None:
            _stream(text, stop, on_token)
        reused = _common_prefix(self._cached, prompt)
        self._cached = prompt + text
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=self.count_tokens(text),
            evaluated_tokens=self.count_tokens(prompt[reused:]),
            finish_reason="length" if cut else "stop",
            seconds=self._seconds,
            extra={"stopped_by_sequence": stopped and not cut},
        )


def _stream(text: str, stop: Sequence[str], on_token: Callable[[str], None]) -> None:
    """Play ``text`` to ``on_token`` in pieces of at most four characters, as a model would."""
    cutter = StopCutter(stop, on_token)
    for i in range(0, len(text), 4):
        cutter.feed(text[i:i + 4])
    cutter.close()


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
