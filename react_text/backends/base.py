"""The one contract every backend keeps.

A backend turns prompt text into a ``Completion``. Nothing else in react-text
talks to a model, so a scripted backend can stand in for tests and a replay
backend can reproduce a recorded run exactly.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from ..types import Completion


class BackendError(RuntimeError):
    """A backend could not produce a completion (dead server, bad reply, missing model).

    ``retryable`` says whether the same request may succeed later.
    """

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


@runtime_checkable
class Backend(Protocol):
    name: str
    supports_grammar: bool

    def complete(
        self,
        prompt: str,
        *,
        stop: Sequence[str] = (),
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int = 0,
        grammar: str | None = None,
    ) -> Completion:
        """Continue ``prompt``; stop before any string in ``stop``.

        ``grammar`` is GBNF text; backends that cannot honour it raise
        ``BackendError`` rather than ignore it silently. Backends with
        ``supports_streaming`` also take ``on_token``: called with each piece
        of text as it is generated (never text a stop string may still cut;
        see ``stops.StopCutter``), the pieces joining to ``Completion.text``.
        """
        ...

    def wrap_prompt(self, prompt: str) -> str:
        """The text that opens an assistant turn for this model.

        Instruct models put the rendered template in one user message of their
        own chat template and open the assistant turn; base models (and
        endpoints that do not know the model) return ``prompt`` unchanged. The
        scratchpad is appended after it, so the wrapping happens once per run.
        """
        ...


@runtime_checkable
class TokenOdds(Protocol):
    """What a backend that can read its model's next-token distribution adds (llama.cpp in process)."""

    def next_token_odds(self, prompt: str, options: Sequence[str]) -> tuple[float, ...]:
        """For each option, the probability that the model's continuation of ``prompt`` begins with it (the
        mass on the tokens that can begin it), with no grammar. Generates one token; the prefix cache holds."""
        ...


TokenCallback = Callable[[str], None]
"""Receives each new piece of a completion's text as the model writes it."""


def complete_streaming(backend: Backend, prompt: str, on_token: TokenCallback | None, **options: Any) -> Completion:
    """``backend.complete``, streaming to ``on_token`` when the backend can.

    A backend without ``supports_streaming`` (a replay, a user's own) still
    works: ``on_token`` then gets the whole text once, when it is done, so a
    listener sees the same text either way.
    """
    if on_token is None:
        return backend.complete(prompt, **options)
    if getattr(backend, "supports_streaming", False):
        return backend.complete(prompt, on_token=on_token, **options)
    completion = backend.complete(prompt, **options)
    if completion.text:
        on_token(completion.text)
    return completion
# --- optional parts of the contract ----------------------------------------------
#
# A backend may also tell how many tokens its context window holds
# (``context_size``: an int attribute or property, None when unknown) and count
# the tokens of a text (``count_tokens(text) -> int``). The loop uses them to
# keep a long run's prompt inside the window; a backend without them is
# simply not counted. They are not in the Protocol above so that a minimal
# backend still satisfies it.

def context_size(backend: object) -> int | None:
    """The backend's context window in tokens, or None when it cannot tell."""
    size = getattr(backend, "context_size", None)
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else None


def estimate_tokens(text: str) -> int:
    """A deliberately high guess (a token per 3 bytes) for backends that cannot count."""
    return len(text.encode("utf-8")) // 3 + 1


def token_counter(backend: object) -> Callable[[str], int]:
    """The backend's ``count_tokens``, or ``estimate_tokens`` when it has none."""
    count = getattr(backend, "count_tokens", None)
    return count if callable(count) else estimate_tokens
