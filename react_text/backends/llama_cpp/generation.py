"""One sampling run through llama.cpp: tokens in, text out, stopped by a stop string, the budget or the model.

``complete`` turns the frozen ``Generation`` into a ``Completion`` and the
next ``TokenLedger``; a listener's own failure travels out of the loop
wrapped, so it is never mistaken for llama.cpp's.
"""

from __future__ import annotations

import codecs
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..stops import StopCutter
from .ledger import Vocabulary
from .loading import DecodeCounter

if TYPE_CHECKING:  # pragma: no cover - the gate needs numpy, which only comes with llama-cpp-python
    from .grammar_gate import GrammarGate

TOP_K = 40


class ListenerFailed(Exception):
    """Carries an exception raised by ``on_token`` out of the generation loop unchanged."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class Listener:
    """``on_token`` behind a guard, so its failures are not mistaken for llama.cpp's."""

    def __init__(self, on_token: Callable[[str], None]) -> None:
        self._on_token = on_token

    def __call__(self, text: str) -> None:
        try:
            self._on_token(text)
        except BaseException as exc:  # noqa: B902 - re-raised as is by complete()
            raise ListenerFailed(exc) from exc


@dataclass(frozen=True)
class Generation:
    """What one sampling run produced.

    ``sampled`` are the kept token ids and ``output`` their bytes (what the
    ledger remembers); ``text`` is what the caller sees, cut at a stop string.
    ``evaluated`` counts the prompt tokens llama.cpp really decoded,
    ``model_seconds`` the time spent inside it, ``perf`` its own timers.
    """

    sampled: list[int]
    output: bytes
    text: str
    finish: str
    evaluated: int
    model_seconds: float
    perf: dict[str, float]


def sample(
    llm: Any,
    lib: Any,
    vocabulary: Vocabulary,
    counter: DecodeCounter,
    tokens: list[int],
    *,
    budget: int,
    temperature: float,
    gate: GrammarGate | None,
    cutter: StopCutter,
    probe: Callable[[Any, Any], Any] | None = None,
) -> Generation:
    """Sample after ``tokens`` until the model ends its turn, a stop string appears or ``budget`` runs out.
    ``probe`` sees each step's scores before the grammar does (``probe.Probe``)."""
    before = counter.n
    evaluated: int | None = None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
    sampled: list[int] = []
    out = bytearray()
    finish = "length"
    model_seconds = 0.0
    generator = llm.generate(
        tokens, temp=temperature, top_k=TOP_K, top_p=0.95, min_p=0.05, repeat_penalty=1.0,
        logits_processor=[p for p in (probe, gate) if p is not None] or None,
    )
    try:
        while True:
            tick = time.perf_counter()
            try:
                token = next(generator)
            except StopIteration:
                finish = "stop"
                break
            finally:
                model_seconds += time.perf_counter() - tick
            if evaluated is None:
                evaluated = counter.n - before
            if lib.llama_vocab_is_eog(vocabulary.vocab, token) or lib.llama_vocab_is_control(vocabulary.vocab, token):
                finish = "stop"  # a control token (<|im_start|>) opens another chat turn: this one is over
                break
            sampled.append(token)
            if gate is not None:
                gate.accept(token)
            piece = vocabulary.piece(token)
            out += piece
            if cutter.feed(decoder.decode(piece)):
                finish = "stop"
                break
            if len(sampled) >= budget:
                break
        cutter.close()
    finally:
        generator.close()
    return Generation(sampled, bytes(out), cutter.text, finish, evaluated or 0, model_seconds,
                      _perf(llm, lib, gate))


def _perf(llm: Any, lib: Any, gate: GrammarGate | None) -> dict[str, float]:
    """llama.cpp's own timers for the run, and the gate's fallbacks when there was a grammar."""
    data = lib.llama_perf_context(llm._ctx.ctx)
    perf = {"prompt_eval_ms": float(data.t_p_eval_ms), "eval_ms": float(data.t_eval_ms)}
    if gate is not None:
        perf["grammar_fallbacks"] = float(gate.fallbacks)
    return perf
