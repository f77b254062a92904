"""Grammar-constrained sampling that asks the grammar about the likely tokens only.

Why: llama-cpp-python 0.3.36 puts llama.cpp's grammar sampler in front of the
sampler chain, so every token pays for checking the whole vocabulary (49k ids on
SmolLM2, 151k on Qwen) against every live parse stack: decoding gets 1.5-1.7x
slower. Nearly always the model's own favourite is already a token the grammar
allows. ``GrammarGate`` therefore looks at the few tokens the sampler could pick
(the top one when greedy, the top ``top_k`` otherwise), asks the grammar about
those, and filters the whole vocabulary only when it refuses all of them. For
greedy decoding the chosen token is exactly the one full filtering would choose.

The gate is a llama-cpp-python logits processor; the backend calls ``accept``
with every token it keeps, so the grammar's parse state follows the output.
``banned`` tokens (the model's control tokens) are never offered: llama.cpp's
grammar would read ``<|im_start|>`` as plain text and let it into a thought.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..base import BackendError

_TOKEN_DATA = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)


def control_tokens(lib: Any, vocab: Any, n_vocab: int) -> np.ndarray:
    """Control tokens that do not end generation. llama.cpp's grammar reads them as their
    text ("<|im_start|>"), which a free-text rule admits, so the gate must rule them out."""
    return np.array(
        [t for t in range(n_vocab) if lib.llama_vocab_is_control(vocab, t) and not lib.llama_vocab_is_eog(vocab, t)],
        dtype=np.intc,
    )


class _Candidates:
    """A numpy-backed ``llama_token_data_array`` llama.cpp samplers can work on in place."""

    def __init__(self, lib: Any, capacity: int) -> None:
        self.data = np.zeros(capacity, dtype=_TOKEN_DATA)
        pointer = ctypes.cast(self.data.ctypes.data, lib.llama_token_data_p)
        self.array = lib.llama_token_data_array(pointer, capacity, -1, False)

    def load(self, ids: np.ndarray, logits: np.ndarray) -> None:
        n = len(ids)
        self.data["id"][:n] = ids
        self.data["logit"][:n] = logits
        self.array.size, self.array.selected, self.array.sorted = n, -1, False


class GrammarGate:
    """One constrained completion's grammar state; call it as a logits processor."""

    def __init__(self, lib: Any, vocab: Any, n_vocab: int, gbnf: str, *, width: int, eog: int,
                 banned: np.ndarray | None = None) -> None:
        self._lib = lib
        self._sampler = lib.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not self._sampler:
            raise BackendError("llama.cpp could not parse the grammar")
        self._width = max(1, width)
        self._few = _Candidates(lib, self._width)
        self._all: _Candidates | None = None  # allocated on the first fallback only
        self._n_vocab = n_vocab
        self._eog = eog
        self._banned = banned if banned is not None and banned.size else None
        self.checked = 0
        self.fallbacks = 0

    def __call__(self, _input_ids: Any, logits: np.ndarray) -> np.ndarray:
        self.checked += 1
        logits = np.asarray(logits, dtype=np.single)
        if self._banned is not None:
            logits = logits.copy()
            logits[self._banned] = -np.inf
        if self._width == 1:
            top = np.array([int(np.argmax(logits))], dtype=np.intc)
        else:
            width = min(self._width, len(logits))
            top = np.argpartition(logits, -width)[-width:].astype(np.intc)
        allowed = self._allowed(self._few, top, logits[top])
        if allowed.size == top.size:
            return logits  # every candidate is grammatical: the sampler's choice stands
        if allowed.size == 0:
            self.fallbacks += 1
            if self._all is None:
                self._all = _Candidates(self._lib, self._n_vocab)
            allowed = self._allowed(self._all, np.arange(len(logits), dtype=np.intc), logits)
        out = np.full_like(logits, -np.inf)
        if allowed.size:
            out[allowed] = logits[allowed]
        else:  # the grammar has nowhere to go: end the turn rather than write ungrammatical text
            out[self._eog] = 0.0
        return out

    def _allowed(self, candidates: _Candidates, ids: np.ndarray, logits: np.ndarray) -> np.ndarray:
        candidates.load(ids, logits)
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(candidates.array))
        n = len(ids)
        kept = candidates.data[:n]
        return kept["id"][np.isfinite(kept["logit"])]

    def accept(self, token: int) -> None:
        """Advance the grammar past a token the model kept (never an end-of-generation token)."""
        self._lib.llama_sampler_accept(self._sampler, token)

    def close(self) -> None:
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None

    def __enter__(self) -> "GrammarGate":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
