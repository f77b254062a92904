"""``LlamaCppBackend``: a GGUF model in process through llama-cpp-python.

The backend ties the parts together: ``loading`` (the model, with a count of
decoded tokens), ``ledger`` (token ids reused so the prefix cache holds),
``grammar_gate`` (constrained sampling) and ``generation`` (the sampling loop).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ...catalog import ModelError, resolve_model
from ...types import Completion
from ..base import BackendError
from ..chat_template import render_chat_template
from ..stops import StopCutter
from .generation import TOP_K, Generation, Listener, ListenerFailed, sample
from .ledger import PromptPlan, TokenLedger, Vocabulary
from .interrupt import Interrupt
from .loading import DecodeCounter, LoadSettings, captured_stderr_fd, load_llama
from .options import default_gpu_layers, default_threads, flash_attn_supported, gpu_offload_supported

if TYPE_CHECKING:  # pragma: no cover - the gate needs numpy, which only comes with llama-cpp-python
    from .grammar_gate import GrammarGate


class LlamaCppBackend:
    """A local GGUF model through llama-cpp-python, keeping llama.cpp's prefix cache effective.

    ``model`` is a path to a .gguf file or a catalog name (``smollm2``,
    ``qwen``...). ``chat=None`` wraps prompts in the model's own chat template
    when it has one (instruct models) and leaves them alone otherwise.

    ``Completion.evaluated_tokens`` counts the prompt tokens llama.cpp really
    decoded (the rest came from its cache). ``Completion.extra`` holds
    ``model_seconds`` (time inside llama.cpp: tokenising, decoding, sampling),
    ``prompt_eval_ms`` and ``eval_ms`` (llama.cpp's own timers),
    ``reused_tokens``, ``ledger_reused_tokens`` (ids reused from the last call
    rather than re-tokenised), ``context_full`` when n_ctx cut generation short,
    and with a grammar ``grammar_fallbacks``: tokens where the model's own choice
    was ungrammatical and the whole vocabulary had to be filtered (see ``grammar_gate``).
    """

    supports_grammar = True
    supports_streaming = True

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        chat: bool | None = None,
        seed: int = 0,
        verbose: bool = False,
        n_gpu_layers: int | None = None,
        n_batch: int = 512,
        flash_attn: bool = False,
    ) -> None:
        try:
            self.model_path: Path = resolve_model(model)
        except ModelError as exc:
            raise BackendError(str(exc)) from exc
        try:
            import llama_cpp  # heavy and optional: loaded only when a model is
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise BackendError(
                "llama-cpp-python is not installed: pip install 'react-text[llama]'"
            ) from exc
        self._lib = llama_cpp
        self.name = f"llama.cpp:{self.model_path.name}"
        self.n_ctx = n_ctx
        self.verbose = verbose
        self.gpu_offload: bool = gpu_offload_supported(llama_cpp)
        self.n_gpu_layers: int = default_gpu_layers(self.gpu_offload) if n_gpu_layers is None else n_gpu_layers
        if n_batch < 1:
            raise BackendError(f"n_batch must be at least 1, got {n_batch}")
        self.n_batch = n_batch
        if flash_attn and not flash_attn_supported(llama_cpp):
            raise BackendError("this llama-cpp-python has no flash attention option (Llama(flash_attn=...)); "
                               "upgrade it or leave flash attention off")
        self.flash_attn = flash_attn
        self._evaluated = DecodeCounter()
        settings = LoadSettings(n_ctx=n_ctx, n_threads=n_threads or default_threads(), seed=seed,
                                n_gpu_layers=self.n_gpu_layers, n_batch=n_batch, flash_attn=flash_attn,
                                verbose=verbose)
        self._llm = load_llama(llama_cpp, self.model_path, settings, self._evaluated)
        self._after_load(chat)

    def _after_load(self, chat: bool | None) -> None:
        """Read what the loaded model says about itself: metadata, chat template, vocabulary."""
        if not self.verbose:
            # Llama() resets this logger to ERROR; runtime problems become BackendErrors instead.
            logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)
        self._vocabulary = Vocabulary(self._lib, self._llm)
        self._vocab = self._vocabulary.vocab
        self.metadata: dict[str, str] = dict(self._llm.metadata)
        self.chat_template: str | None = self.metadata.get("tokenizer.chat_template") or None
        if chat and not self.chat_template:
            raise BackendError(f"{self.model_path.name} has no chat template (tokenizer.chat_template); use chat=False")
        self.chat: bool = bool(self.chat_template) if chat is None else chat
        self._grammars: dict[str, bool] = {}
        self._controls: Any = None  # ids of control tokens (<|im_start|>, ...), found on first grammar use
        self._masks: Any = None  # ``probe.OptionMasks``, built on the first ``next_token_odds``
        self._ledger = TokenLedger()
        self._lock = threading.Lock()
        self._interrupt = Interrupt(self._lib, self._llm._ctx.ctx)

    @property
    def settings(self) -> dict[str, Any]:
        """How the model was loaded, for the run header: context, batch, GPU layers, flash attention."""
        return {"n_ctx": self.n_ctx, "n_batch": self.n_batch, "n_gpu_layers": self.n_gpu_layers,
                "gpu_offload": self.gpu_offload, "flash_attn": self.flash_attn}

    # -- protocol ------------------------------------------------------------------

    def wrap_prompt(self, prompt: str) -> str:
        if not self.chat or not self.chat_template:
            return prompt
        model = self._llm._model
        bos = self._vocabulary.bos
        try:
            return render_chat_template(
                self.chat_template,
                prompt,
                bos_token=model.token_get_text(bos) if bos >= 0 else "",
                eos_token=model.token_get_text(self._llm.token_eos()),
            )
        except Exception as exc:  # jinja2 errors of every kind, from a template we did not write
            raise BackendError(
                f"the chat template in {self.model_path.name} failed to render ({exc}); use chat=False"
            ) from exc

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
        return self._complete(prompt, stop, max_tokens, temperature, seed, grammar, on_token, None)

    def next_token_odds(self, prompt: str, options: Sequence[str]) -> tuple[float, ...]:
        """The probability the model gives to going on after ``prompt`` with each of ``options`` (the mass
        on the tokens that can begin it), read from its next-token distribution with no grammar."""
        from .probe import OptionMasks, Probe  # numpy comes with llama-cpp-python

        if self._masks is None:
            self._masks = OptionMasks(self._llm.n_vocab(), self._vocabulary.piece)
        probe = Probe()
        self._complete(prompt, [], 1, 0.0, 0, None, None, probe)
        if probe.probs is None:
            raise BackendError("llama.cpp gave no scores for the next token")
        return self._masks.odds(probe.probs, options)

    def _complete(self, prompt: str, stop: Sequence[str], max_tokens: int, temperature: float, seed: int,
                  grammar: str | None, on_token: Callable[[str], None] | None, probe: Any) -> Completion:
        if max_tokens < 1:
            raise BackendError(f"max_tokens must be at least 1, not {max_tokens}")
        stop = [s for s in stop if s]
        listener = Listener(on_token) if on_token is not None else None
        with self._lock:
            started = time.perf_counter()
            checked = self._grammar(grammar) if grammar is not None else None
            prompt_bytes = prompt.encode("utf-8", "replace")  # a lone surrogate (undecodable input) becomes "?"
            tick = time.perf_counter()
            plan = self._plan(prompt_bytes)
            plan_seconds = time.perf_counter() - tick
            budget = min(max_tokens, self.n_ctx - len(plan.tokens))
            result = self._generate_guarded(plan.tokens, stop, budget, temperature, seed, checked, listener, probe)
            sampled_ends = self._vocabulary.ends(result.sampled, len(prompt_bytes))
            self._ledger = TokenLedger(plan.tokens + result.sampled, plan.ends + sampled_ends,
                                       prompt_bytes + result.output, plan.exact)
            extra: dict[str, Any] = {
                "model_seconds": plan_seconds + result.model_seconds,
                "reused_tokens": len(plan.tokens) - result.evaluated,
                "ledger_reused_tokens": plan.reused,
                **result.perf,
            }
            if result.finish == "length" and budget < max_tokens and len(result.sampled) >= budget:
                extra["context_full"] = True
            return Completion(
                text=result.text,
                prompt_tokens=len(plan.tokens),
                completion_tokens=len(result.sampled),
                evaluated_tokens=result.evaluated,
                finish_reason=result.finish,
                seconds=time.perf_counter() - started,
                extra=extra,
            )

    # -- helpers -------------------------------------------------------------------

    @property
    def last_tokens(self) -> tuple[int, ...]:
        """Token ids of the last prompt and everything sampled after it (what the prefix cache reuses)."""
        return tuple(self._ledger.tokens)

    @property
    def context_size(self) -> int:
        """The context window (n_ctx) in tokens; a prompt plus its turn must fit in it."""
        return self.n_ctx

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes on its own (no BOS), for reports and budgets."""
        return self._vocabulary.count(text)

    def close(self) -> None:
        """Free the model now rather than at garbage collection."""
        self._llm.close()

    def __enter__(self) -> "LlamaCppBackend":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _piece(self, token: int) -> bytes:
        """The bytes one token stands for."""
        return self._vocabulary.piece(token)

    def _control_tokens(self) -> Any:
        """Control tokens that do not end generation, which the grammar gate rules out (found once)."""
        if self._controls is None:
            from .grammar_gate import control_tokens  # numpy comes with llama-cpp-python

            self._controls = control_tokens(self._lib, self._vocab, self._llm.n_vocab())
        return self._controls

    def _plan(self, prompt: bytes) -> PromptPlan:
        """The prompt's token ids (see ``Vocabulary.plan``), refused when empty or too long for n_ctx."""
        plan = self._vocabulary.plan(prompt, self._ledger)
        if not plan.tokens:
            raise BackendError("the prompt is empty: there is nothing to continue")
        if len(plan.tokens) >= self.n_ctx:
            raise BackendError(
                f"the prompt is {len(plan.tokens)} tokens but the context window holds {self.n_ctx} "
                f"(n_ctx): shorten the prompt or load the model with a larger n_ctx"
            )
        return plan

    def _grammar(self, text: str) -> str:
        """``text`` once llama.cpp has parsed it: a grammar it cannot parse would crash it mid-sampling."""
        if text in self._grammars:
            return text
        if not text.strip():
            raise BackendError("the grammar is empty; pass grammar=None for unconstrained output")
        lib = self._lib
        with captured_stderr_fd() as said:
            sampler = lib.llama_sampler_init_grammar(self._vocab, text.encode("utf-8"), b"root")
        if not sampler:
            reason = " ".join(said().split()) or "no reason given; is there a `root` rule?"
            raise BackendError(f"llama.cpp could not parse the grammar: {reason[:500]}")
        lib.llama_sampler_free(sampler)
        if len(self._grammars) >= 64:  # the shim makes one per tool set; keep the memo small
            self._grammars.clear()
        self._grammars[text] = True
        return text

    def _generate_guarded(self, tokens: list[int], stop: list[str], budget: int, temperature: float, seed: int,
                          grammar: str | None, listener: Listener | None, probe: Any = None) -> Generation:
        """``_generate`` with every failure as a BackendError (or the listener's own error) and the ledger reset."""
        try:
            return self._generate(tokens, stop, budget, temperature, seed, grammar, listener, probe)
        except BackendError:
            self._ledger = TokenLedger()
            raise
        except ListenerFailed as failed:  # the caller's own error (a closed socket, Ctrl-C), not llama.cpp's
            self._ledger = TokenLedger()
            raise failed.error from None
        except KeyboardInterrupt:  # the cache may hold part of an aborted batch: forget what it holds
            self._ledger = TokenLedger()
            raise
        except Exception as exc:  # llama.cpp decode failures surface as assorted exceptions
            self._ledger = TokenLedger()
            raise BackendError(f"llama.cpp failed while generating: {exc}") from exc

    def _generate(
        self,
        tokens: list[int],
        stop: list[str],
        budget: int,
        temperature: float,
        seed: int,
        grammar: str | None,
        listener: Listener | None = None,
        probe: Any = None,
    ) -> Generation:
        llm, lib = self._llm, self._lib
        llm.set_seed(seed)
        lib.llama_perf_context_reset(llm._ctx.ctx)
        gate = self._gate(grammar, temperature) if grammar is not None else None
        try:
            with self._interrupt.watching():
                return sample(llm, lib, self._vocabulary, self._evaluated, tokens, budget=budget,
                              temperature=temperature, gate=gate, cutter=StopCutter(stop, listener), probe=probe)
        finally:
            if gate is not None:
                gate.close()

    def _gate(self, grammar: str, temperature: float) -> "GrammarGate":
        """A grammar gate as wide as the sampler's choice: the top token when greedy, top-k otherwise."""
        from .grammar_gate import GrammarGate  # numpy comes with llama-cpp-python

        width = 1 if temperature == 0 else TOP_K
        return GrammarGate(self._lib, self._vocab, self._llm.n_vocab(), grammar, width=width,
                           eog=self._llm.token_eos(), banned=self._control_tokens())
