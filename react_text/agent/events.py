"""Where a run's events go (the trace file and the caller's ``on_event``, whole and in order), and the run's header."""

from __future__ import annotations

import threading
from dataclasses import asdict
from typing import Any, Callable, Iterable

from ..checks import DEFAULT_CHECKS, describe
from ..trace import TraceWriter, to_jsonable
from .state import Limits


class Events:
    """Sends each event to the trace (flushed) and then to ``on_event``, one event at a time.

    Tool calls running together emit from their own threads; the lock keeps
    each event whole and in the order it happened.
    """

    def __init__(self, writer: TraceWriter | None, on_event: Callable[[dict], None] | None, clock: Callable[[], float],
                 redactor: Callable[[Any], Any] | None = None):
        self.writer = writer
        self.on_event = on_event
        self.redactor = redactor
        self._clock = clock
        self._t0 = clock()
        self._lock = threading.Lock()

    def emit(self, event: str, **data: Any) -> dict[str, Any]:
        with self._lock:
            return self._emit(event, **data)

    def _emit(self, event: str, **data: Any) -> dict[str, Any]:
        if self.redactor is not None:
            data = self.redactor(to_jsonable(data))
        if self.writer is not None and not self.writer.closed:
            record = self.writer.write(event, **data)
        else:
            record = {"event": event, "t": round(self._clock() - self._t0, 6), **to_jsonable(data)}
        if self.on_event is not None:
            self.on_event(record)
        return record


def run_header(question: str, template: Any, backend: Any, limits: Limits, context_tokens: int | None,
               tools: Iterable[Any], *, constrain: bool, prose: str, temperature: float, seed: int,
               checks: Iterable[str] = DEFAULT_CHECKS) -> dict[str, Any]:
    """What ``run_start`` records: the question and everything a replay needs to ask it the same way."""
    return {
        "question": question,
        "template": {
            "name": getattr(template, "name", None),
            "dialect": getattr(template, "dialect", None),
            "path": str(getattr(template, "path", "") or ""),
            "stop": list(getattr(template, "stop", ())),
        },
        "backend": getattr(backend, "name", type(backend).__name__),
        "model": str(getattr(backend, "model", getattr(backend, "model_path", "")) or ""),
        "limits": asdict(limits),
        "context_tokens": context_tokens,
        "tools": [
            {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
            for tool in tools
        ],
        "constrain": constrain,
        "checks": describe(checks),
        "prose": prose,
        "temperature": temperature,
        "seed": seed,
    }
