"""One way to build a backend from options, and one way to ask a backend whether it takes a grammar.

The command line, the Python API and the compare runner all build backends
from the same few options; building them here keeps their defaults (the
catalog's default model, a 4096-token context) the same everywhere.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

from ..catalog import DEFAULT_MODEL
from .base import Backend, TokenOdds
from .http import HttpBackend
from .llama_cpp import LlamaCppBackend

BACKEND_KINDS = ("llama", "http")
"""``llama``: a model in process through llama.cpp; ``http``: a completion server at a URL."""

DEFAULT_CONTEXT = 4096
"""n_ctx of an in-process model when none is asked for."""


def build_backend(
    kind: str,
    *,
    model: str | os.PathLike[str] | None = None,
    url: str | None = None,
    api: str = "openai",
    context_size: int | None = None,
    seed: int = 0,
    n_batch: int = 512,
    n_gpu_layers: int | None = None,
    flash_attn: bool = False,
    timeout: float | None = None,
    retries: int | None = None,
) -> Backend:
    """A backend of ``kind`` (see ``BACKEND_KINDS``).

    ``model`` is the catalog name or .gguf path to load (default: the catalog's
    default model) or, for ``http``, the model name the server is asked for.
    ``context_size`` is the in-process n_ctx (default 4096) or, for ``http``,
    the server's window when known (else the server is asked). ``seed``,
    ``n_batch``, ``n_gpu_layers`` and ``flash_attn`` are for the in-process model
    only (see ``LlamaCppBackend``). ``timeout`` bounds each ``http`` request,
    connect to last byte, and ``retries`` is how often one is tried again
    (defaults: ``HttpBackend``'s).
    """
    if kind == "http":
        if not url:
            raise ValueError("the http backend needs a server URL (e.g. http://127.0.0.1:8080)")
        backend = HttpBackend(url, api=api, model=None if model is None else str(model),
                              **{k: v for k, v in (("timeout", timeout), ("retries", retries)) if v is not None})
        if context_size is not None:
            backend.context_size = context_size
        return backend
    if kind == "llama":
        return LlamaCppBackend(DEFAULT_MODEL if model is None else model, n_ctx=context_size or DEFAULT_CONTEXT,
                               seed=seed, n_batch=n_batch, n_gpu_layers=n_gpu_layers, flash_attn=flash_attn)
    raise ValueError(f"unknown backend kind {kind!r}: use one of {', '.join(BACKEND_KINDS)}")


def token_odds(backend: Any) -> Callable[[str, Sequence[str]], tuple[float, ...]] | None:
    """The backend's ``next_token_odds`` (``base.TokenOdds``), or None when it cannot report them."""
    return backend.next_token_odds if isinstance(backend, TokenOdds) else None


def supports_grammar(backend: Any) -> bool:
    """Whether ``backend`` can constrain its output with a GBNF grammar (it says so with ``supports_grammar``)."""
    return bool(getattr(backend, "supports_grammar", False))
