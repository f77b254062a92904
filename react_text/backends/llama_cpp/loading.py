"""Loading a GGUF file into llama.cpp quietly, with a count of every token it decodes.

The count is what ``Completion.evaluated_tokens`` reports: the tokens llama.cpp
really decoded, so prefix-cache reuse is measured rather than assumed.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from ..base import BackendError
from .options import plain_weight_buffers


@contextlib.contextmanager
def captured_stderr_fd() -> Iterator[Callable[[], str]]:
    """Capture what C code writes to file descriptor 2 (llama.cpp's grammar parser prints there)."""
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


class DecodeCounter:
    """Tokens llama.cpp has been asked to decode so far, by one loaded model."""

    def __init__(self) -> None:
        self.n = 0


@dataclass(frozen=True)
class LoadSettings:
    """What ``Llama()`` is given besides the file."""

    n_ctx: int
    n_threads: int
    seed: int
    n_gpu_layers: int
    n_batch: int
    flash_attn: bool
    verbose: bool


def load_llama(llama_cpp: Any, path: Path, settings: LoadSettings, counter: DecodeCounter) -> Any:
    """A ``Llama`` for ``path`` whose decode step adds to ``counter``; a file llama.cpp rejects is a BackendError."""

    class _CountingLlama(llama_cpp.Llama):
        """Counts the tokens llama.cpp is asked to decode: the truth about prefix reuse."""

        def _decode_counted(self, tokens: Sequence[int]) -> None:
            counter.n += len(tokens)
            llama_cpp.Llama.eval(self, tokens)

        # llama-cpp-python names its decode step ``eval``; override it under that
        # name (this is llama.cpp's decoder, not Python's eval builtin).
        eval = _decode_counted  # noqa: A003

    size = path.stat().st_size
    quiet = contextlib.nullcontext(lambda: "") if settings.verbose else captured_stderr_fd()
    try:
        with quiet, plain_weight_buffers(llama_cpp):  # llama.cpp chatters on stderr while loading
            return _CountingLlama(
                model_path=str(path),
                n_ctx=settings.n_ctx,
                n_threads=settings.n_threads,
                seed=settings.seed,
                logits_all=False,
                verbose=settings.verbose,
                n_gpu_layers=settings.n_gpu_layers,
                n_batch=settings.n_batch,
                **({"flash_attn": True} if settings.flash_attn else {}),
            )
    except (ValueError, RuntimeError, OSError) as exc:
        raise BackendError(
            f"llama.cpp could not load {path} ({size} bytes): the file is damaged, truncated "
            f"or not a model this llama.cpp supports ({exc})"
        ) from exc
