"""A GGUF model in process through llama-cpp-python.

The scratchpad of a ReAct run only ever grows, so llama.cpp's prefix cache
can make each step cost only its new tokens. That holds only if the token ids
sent for the old text are the ids llama.cpp already evaluated: re-tokenising
the model's own output can split it differently and silently throw the cache
away. ``TokenLedger`` therefore keeps the ids of the last prompt and of the
sampled output together with the bytes each one covers, and a new prompt
reuses the longest run of those ids whose text it starts with; only the new
suffix is tokenised.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import json
import logging
import os
import tempfile
import threading
import time
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..types import Completion
from .base import BackendError
from .stops import StopCutter

_TOP_K = 40

# --- pure bookkeeping -----------------------------------------------------------


def common_prefix_len(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix (binary search over memcmp, fast for long prompts)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass
class TokenLedger:
    """Token ids of the last prompt + output, and the byte offset in ``text`` where each one ends.

    ``exact`` is False when the ids' pieces do not spell ``text`` exactly (a
    tokenizer that inserts a leading space, say); then nothing is reused by
    text and llama.cpp's own token comparison is all that is left.
    """

    tokens: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    text: bytes = b""
    exact: bool = True

    def reusable(self, prompt: bytes) -> int:
        """How many leading ids cover text that ``prompt`` starts with, ending on a UTF-8 boundary."""
        if not self.exact or not self.tokens:
            return 0
        common = common_prefix_len(self.text, prompt)
        k = bisect_right(self.ends, common)
        while k > 0 and self.ends[k - 1] < len(prompt) and (prompt[self.ends[k - 1]] & 0xC0) == 0x80:
            k -= 1  # never split a character between reused ids and the freshly tokenised suffix
        return k

    def covered(self, k: int) -> int:
        """Bytes of text covered by the first ``k`` ids."""
        return self.ends[k - 1] if k else 0


# --- chat template --------------------------------------------------------------


def render_chat_template(template: str, prompt: str, *, bos_token: str, eos_token: str) -> str:
    """``prompt`` as one user message in the model's own chat template, with the assistant turn opened.

    Rendered in Jinja's immutable sandbox: the template comes from the model
    file, which is data, not code we trust.
    """
    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = lambda x, indent=None, **_: json.dumps(x, ensure_ascii=False, indent=indent)
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env.from_string(template).render(
        messages=[{"role": "user", "content": prompt}],
        add_generation_prompt=True,
        bos_token=bos_token,
        eos_token=eos_token,
    )


# --- the backend ----------------------------------------------------------------


class _ListenerFailed(Exception):
    """Carries an exception raised by ``on_token`` out of the generation loop unchanged."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class _Listener:
    """``on_token`` behind a guard, so its failures are not mistaken for llama.cpp's."""

    def __init__(self, on_token: Callable[[str], None]) -> None:
        self._on_token = on_token

    def __call__(self, text: str) -> None:
        try:
            self._on_token(text)
        except BaseException as exc:  # noqa: B902 - re-raised as is by complete()
            raise _ListenerFailed(exc) from exc


@contextlib.contextmanager
def _captured_stderr_fd() -> Iterator[Callable[[], str]]:
    """Capture what C code writes to file descriptor 2 (llama.cpp's grammar parser prints there)."""
    import sys

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        text: list[str] = []
        try:
            yield lambda: "".join(text)
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text.append(sink.read().decode("utf-8", "replace"))


def gpu_offload_supported(llama_cpp: Any) -> bool:
    """Whether this llama.cpp build can put layers on a GPU (CUDA, Metal, Vulkan...)."""
    probe = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    try:
        return bool(probe()) if probe is not None else False
    except Exception:  # noqa: BLE001 - an odd build: assume CPU only
        return False


def default_gpu_layers(offload: bool) -> int:
    """All layers (-1) on a build that can offload, else none: GPU users get the GPU without a flag."""
    return -1 if offload else 0


def flash_attn_supported(llama_cpp: Any) -> bool:
    """Whether ``Llama`` takes ``flash_attn`` (added in llama-cpp-python 0.2.78)."""
    import inspect

    try:
        return "flash_attn" in inspect.signature(llama_cpp.Llama.__init__).parameters
    except (TypeError, ValueError):
        return False


_loading = threading.Lock()


def _amx_advertised() -> bool:
    """Whether the CPU claims AMX tiles (read from /proc/cpuinfo; False where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            return any(line.startswith("flags") and " amx_tile" in line for line in fh)
    except OSError:
        return False


@contextlib.contextmanager
def plain_weight_buffers(llama_cpp: Any) -> Iterator[None]:
    """Load without llama.cpp's "extra" weight buffers (AMX, repacking) on CPUs that advertise AMX.

    Virtual machines may report AMX in cpuid without enabling its tile state;
    llama.cpp then picks its AMX buffer and the first ``ldtilecfg`` kills the
    process (a general protection fault, seen on this project's CI VMs).
    ``Llama()`` offers no switch, so its default model parameters are
    patched for the duration of the load, under a lock.
    """
    if not _amx_advertised():
        yield
        return
    module = llama_cpp.llama_cpp
    default = module.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = default()
        params.use_extra_bufts = False
        return params

    with _loading:
        module.llama_model_default_params = without_extra_buffers
        try:
            yield
        finally:
            module.llama_model_default_params = default


def _default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


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
        from ..catalog import ModelError, resolve_model

        try:
            self.model_path: Path = resolve_model(model)
        except ModelError as exc:
            raise BackendError(str(exc)) from exc
        try:
            import llama_cpp
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
        self._llm = self._load(n_ctx=n_ctx, n_threads=n_threads or _default_threads(), seed=seed)
        if not verbose:
            # Llama() resets this logger to ERROR; runtime problems become BackendErrors instead.
            logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)
        self._vocab = self._llm._model.vocab
        self.metadata: dict[str, str] = dict(self._llm.metadata)
        self.chat_template: str | None = self.metadata.get("tokenizer.chat_template") or None
        if chat and not self.chat_template:
            raise BackendError(f"{self.model_path.name} has no chat template (tokenizer.chat_template); use chat=False")
        self.chat: bool = bool(self.chat_template) if chat is None else chat
        self._bos = self._llm.token_bos()
        self._add_bos = bool(self._llm._model.add_bos_token()) and self._bos >= 0
        self._pieces: dict[int, bytes] = {}
        self._grammars: dict[str, bool] = {}
        self._controls: Any = None  # ids of control tokens (<|im_start|>, ...), found on first grammar use
        self._ledger = TokenLedger()
        self._lock = threading.Lock()

    def _load(self, *, n_ctx: int, n_threads: int, seed: int) -> Any:
        llama_cpp = self._lib
        evaluated = {"n": 0}

        class _CountingLlama(llama_cpp.Llama):
            """Counts the tokens llama.cpp is asked to decode: the truth about prefix reuse."""

            def _decode_counted(self, tokens: Sequence[int]) -> None:
                evaluated["n"] += len(tokens)
                llama_cpp.Llama.eval(self, tokens)

            # llama-cpp-python names its decode step ``eval``; override it under that
            # name (this is llama.cpp's decoder, not Python's eval builtin).
            eval = _decode_counted  # noqa: A003

        self._evaluated = evaluated
        size = self.model_path.stat().st_size
        quiet = contextlib.nullcontext(lambda: "") if self.verbose else _captured_stderr_fd()
        try:
            with quiet, plain_weight_buffers(llama_cpp):  # llama.cpp chatters on stderr while loading
                return _CountingLlama(
                    model_path=str(self.model_path),
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    seed=seed,
                    logits_all=False,
                    verbose=self.verbose,
                    n_gpu_layers=self.n_gpu_layers,
                    n_batch=self.n_batch,
                    **({"flash_attn": True} if self.flash_attn else {}),
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise BackendError(
                f"llama.cpp could not load {self.model_path} ({size} bytes): the file is damaged, truncated "
                f"or not a model this llama.cpp supports ({exc})"
            ) from exc

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
        try:
            return render_chat_template(
                self.chat_template,
                prompt,
                bos_token=model.token_get_text(self._bos) if self._bos >= 0 else "",
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
        if max_tokens < 1:
            raise BackendError(f"max_tokens must be at least 1, not {max_tokens}")
        stop = [s for s in stop if s]
        listener = _Listener(on_token) if on_token is not None else None
        with self._lock:
            started = time.perf_counter()
            checked = self._grammar(grammar) if grammar is not None else None
            prompt_bytes = prompt.encode("utf-8", "replace")  # a lone surrogate (undecodable input) becomes "?"
            tick = time.perf_counter()
            tokens, ends, exact, reused = self._plan(prompt_bytes)
            model_seconds = time.perf_counter() - tick
            if not tokens:
                raise BackendError("the prompt is empty: there is nothing to continue")
            if len(tokens) >= self.n_ctx:
                raise BackendError(
                    f"the prompt is {len(tokens)} tokens but the context window holds {self.n_ctx} "
                    f"(n_ctx): shorten the prompt or load the model with a larger n_ctx"
                )
            budget = min(max_tokens, self.n_ctx - len(tokens))
            try:
                result = self._generate(tokens, stop, budget, temperature, seed, checked, listener)
            except BackendError:
                self._ledger = TokenLedger()
                raise
            except _ListenerFailed as failed:  # the caller's own error (a closed socket, Ctrl-C), not llama.cpp's
                self._ledger = TokenLedger()
                raise failed.error from None
            except Exception as exc:  # llama.cpp decode failures surface as assorted exceptions
                self._ledger = TokenLedger()
                raise BackendError(f"llama.cpp failed while generating: {exc}") from exc
            sampled, out, text, finish, evaluated, gen_seconds, perf = result
            model_seconds += gen_seconds
            sampled_ends = self._ends(sampled, len(prompt_bytes))
            self._ledger = TokenLedger(tokens + sampled, ends + sampled_ends, prompt_bytes + out, exact)
            extra: dict[str, Any] = {
                "model_seconds": model_seconds,
                "reused_tokens": len(tokens) - evaluated,
                "ledger_reused_tokens": reused,
                **perf,
            }
            if finish == "length" and budget < max_tokens and len(sampled) >= budget:
                extra["context_full"] = True
            return Completion(
                text=text,
                prompt_tokens=len(tokens),
                completion_tokens=len(sampled),
                evaluated_tokens=evaluated,
                finish_reason=finish,
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
        return len(self._llm.tokenize(text.encode("utf-8", "replace"), add_bos=False, special=True))

    def close(self) -> None:
        """Free the model now rather than at garbage collection."""
        self._llm.close()

    def __enter__(self) -> "LlamaCppBackend":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _control_tokens(self) -> Any:
        """Control tokens that do not end generation. llama.cpp's grammar reads them as their
        text ("<|im_start|>"), which a free-text rule admits, so the gate must rule them out."""
        if self._controls is None:
            import numpy as np

            vocab, lib = self._vocab, self._lib
            self._controls = np.array(
                [t for t in range(self._llm.n_vocab())
                 if lib.llama_vocab_is_control(vocab, t) and not lib.llama_vocab_is_eog(vocab, t)],
                dtype=np.intc,
            )
        return self._controls

    def _piece(self, token: int) -> bytes:
        """The bytes one token stands for (special tokens as their text, as tokenize(special=True) reads them)."""
        piece = self._pieces.get(token)
        if piece is None:
            buf = ctypes.create_string_buffer(64)
            n = self._lib.llama_token_to_piece(self._vocab, token, buf, len(buf), 0, True)
            if n < 0:  # the piece is longer than the buffer: -n is the size it needs
                buf = ctypes.create_string_buffer(-n)
                n = self._lib.llama_token_to_piece(self._vocab, token, buf, len(buf), 0, True)
            piece = self._pieces[token] = buf.raw[: max(n, 0)]
        return piece

    def _tokenize(self, data: bytes) -> list[int]:
        return list(self._llm.tokenize(data, add_bos=False, special=True)) if data else []

    def _ends(self, tokens: list[int], start: int) -> list[int]:
        ends, offset = [], start
        for token in tokens:
            offset += len(self._piece(token))
            ends.append(offset)
        return ends

    def _plan(self, prompt: bytes) -> tuple[list[int], list[int], bool, int]:
        """Token ids for ``prompt``: reused ids for the text the ledger already covers, fresh ids for the rest.

        Returns the ids, the byte offset each ends at, whether those offsets
        are exact, and how many ids came from the ledger.
        """
        ledger = self._ledger
        k = ledger.reusable(prompt)
        if k:
            start = ledger.covered(k)
            suffix = self._tokenize(prompt[start:])
            suffix_ends = self._ends(suffix, start)
            if not suffix or suffix_ends[-1] == len(prompt):
                return ledger.tokens[:k] + suffix, ledger.ends[:k] + suffix_ends, True, k
        tokens = self._tokenize(prompt)
        lead: list[int] = []
        if self._add_bos and (not tokens or tokens[0] != self._bos):
            lead = [self._bos]
        ends = [0] * len(lead) + self._ends(tokens, 0)
        exact = (ends[-1] if ends else 0) == len(prompt) and b"".join(map(self._piece, tokens)) == prompt
        return lead + tokens, ends, exact, 0

    def _grammar(self, text: str) -> str:
        """``text`` once llama.cpp has parsed it: a grammar it cannot parse would crash it mid-sampling."""
        if text in self._grammars:
            return text
        if not text.strip():
            raise BackendError("the grammar is empty; pass grammar=None for unconstrained output")
        lib = self._lib
        with _captured_stderr_fd() as said:
            sampler = lib.llama_sampler_init_grammar(self._vocab, text.encode("utf-8"), b"root")
        if not sampler:
            reason = " ".join(said().split()) or "no reason given; is there a `root` rule?"
            raise BackendError(f"llama.cpp could not parse the grammar: {reason[:500]}")
        lib.llama_sampler_free(sampler)
        if len(self._grammars) >= 64:  # the shim makes one per tool set; keep the memo small
            self._grammars.clear()
        self._grammars[text] = True
        return text

    def _generate(
        self,
        tokens: list[int],
        stop: list[str],
        budget: int,
        temperature: float,
        seed: int,
        grammar: str | None,
        listener: "_Listener | None" = None,
    ) -> tuple[list[int], bytes, str, str, int, float, dict[str, float]]:
        llm, lib = self._llm, self._lib
        llm.set_seed(seed)
        lib.llama_perf_context_reset(llm._ctx.ctx)
        before = self._evaluated["n"]
        evaluated: int | None = None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        cutter = StopCutter(stop, listener)
        sampled: list[int] = []
        out = bytearray()
        finish = "length"
        model_seconds = 0.0
        gate = None
        if grammar is not None:
            from .grammar_gate import GrammarGate  # numpy comes with llama-cpp-python

            width = 1 if temperature == 0 else _TOP_K
            gate = GrammarGate(lib, self._vocab, llm.n_vocab(), grammar, width=width, eog=llm.token_eos(),
                               banned=self._control_tokens())
        generator = llm.generate(
            tokens, temp=temperature, top_k=_TOP_K, top_p=0.95, min_p=0.05, repeat_penalty=1.0,
            logits_processor=[gate] if gate is not None else None,
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
                    evaluated = self._evaluated["n"] - before
                if lib.llama_vocab_is_eog(self._vocab, token) or lib.llama_vocab_is_control(self._vocab, token):
                    finish = "stop"  # a control token (<|im_start|>) opens another chat turn: this one is over
                    break
                sampled.append(token)
                if gate is not None:
                    gate.accept(token)
                piece = self._piece(token)
                out += piece
                if cutter.feed(decoder.decode(piece)):
                    finish = "stop"
                    break
                if len(sampled) >= budget:
                    break
            cutter.close()
        finally:
            generator.close()
            if gate is not None:
                gate.close()
        data = lib.llama_perf_context(llm._ctx.ctx)
        perf = {"prompt_eval_ms": float(data.t_p_eval_ms), "eval_ms": float(data.t_eval_ms)}
        if gate is not None:
            perf["grammar_fallbacks"] = float(gate.fallbacks)
        return sampled, bytes(out), cutter.text, finish, evaluated or 0, model_seconds, perf
