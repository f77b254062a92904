"""The one contract every backend keeps.

A backend turns prompt text into a ``Completion``. Nothing else in react-text
talks to a model, so a scripted backend can stand in for tests and a replay
backend can reproduce a recorded run exactly.
"""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

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
        ``BackendError`` rather than ignore it silently.
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
