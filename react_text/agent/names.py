"""Objects from their names: a backend from ``"llama"`` or a server URL, a model from its catalog name, a tool from its built-in name.

Wherever ``Agent`` expects an object its name works too. A named model is
loaded at its first use, not when the agent is built, and once per process:
every agent naming the same model shares one loaded copy.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..backends.base import Backend
from ..backends.build import build_backend
from ..backends.llama_cpp import LlamaCppBackend
from ..catalog import DEFAULT_MODEL, ModelStore
from ..prompting.native import NativeTemplate, chat_template_of
from ..prompting.templates import as_template
from ..protocol.dialects import dialect_named
from ..tools.builtins import builtin_tool
from ..tools.spec import Tool, tool as make_tool
from ..types import Completion

__all__ = ["backend_named", "tools_named", "tools_by_name", "LazyLlamaBackend",
           "shared_llama", "BACKEND_NAMES"]

BACKEND_NAMES = ("llama", "llama.cpp")
"""Names of the in-process backend; a backend may also be named by an ``http(s)://`` server URL."""

_loaded: dict[str, LlamaCppBackend] = {}
_loading = threading.Lock()


class LazyLlamaBackend:
    """llama.cpp in process for a model known by name or path, loaded at its first use.

    The loaded model is shared by every agent that names it (see ``shared_llama``);
    nothing here closes it.
    """

    supports_grammar = True
    supports_streaming = True

    def __init__(self, model: str | Path) -> None:
        text = str(model).strip()
        store = ModelStore.from_env()
        if not Path(text).expanduser().is_file() and store.find(text) is None:
            raise ValueError(f"{store.unknown(text)}, or pass a path to a .gguf file")
        self.model = text
        self.name = f"llama.cpp:{text}"

    @property
    def loaded(self) -> LlamaCppBackend:
        """The real backend (loading the model now if no agent has yet)."""
        return shared_llama(self.model)

    def wrap_prompt(self, prompt: str) -> str:
        return self.loaded.wrap_prompt(prompt)

    def native_chat_template(self) -> str | None:
        """The model's chat template (GGUF metadata), for the ``native`` protocol."""
        return self.loaded.chat_template

    def complete(self, prompt: str, **options: Any) -> Completion:
        return self.loaded.complete(prompt, **options)

    def next_token_odds(self, prompt: str, options: Sequence[str]) -> tuple[float, ...]:
        return self.loaded.next_token_odds(prompt, options)

    def count_tokens(self, text: str) -> int:
        return self.loaded.count_tokens(text)


def shared_llama(model: str | Path) -> LlamaCppBackend:
    """One ``LlamaCppBackend`` per model name or path in this process, loaded on first request."""
    key = str(model).strip()
    with _loading:
        backend = _loaded.get(key)
        if backend is None:
            if not _loaded:
                atexit.register(_close_all)
            backend = _loaded[key] = build_backend("llama", model=key)
    return backend


def _close_all() -> None:
    """Free shared models before the interpreter tears llama_cpp down (its finaliser fails after that)."""
    with _loading:
        while _loaded:
            _loaded.popitem()[1].close()


def backend_named(backend: Backend | str | None, model: str | Path | None = None) -> Backend:
    """A backend object from a backend, a backend name or URL, and/or a model name or path.

    ``None`` and ``"llama"`` mean llama.cpp in process with ``model`` (default:
    the catalog's default model); an ``http(s)://`` URL means that server's
    OpenAI-style ``/v1/completions``, with ``model`` as the model it is asked for.
    """
    if backend is None or (isinstance(backend, str) and backend.strip().lower() in BACKEND_NAMES):
        return LazyLlamaBackend(model if model is not None else DEFAULT_MODEL)
    if isinstance(backend, str):
        if backend.startswith(("http://", "https://")):
            return build_backend("http", url=backend, model=model)
        raise ValueError(f"unknown backend {backend!r}: use 'llama' (in process, the default) "
                         "or a server URL such as 'http://127.0.0.1:8080'")
    if model is not None:
        raise ValueError("model= is for a backend given by name; this backend object already has its model")
    return backend


def tools_named(tools: Iterable[Any] | Any) -> list[Tool]:
    """``Tool`` objects from tools, plain functions (read as ``@tool`` would) and built-in tool names."""
    if isinstance(tools, (str, Tool)) or callable(tools):
        tools = [tools]  # one tool given bare
    return [builtin_tool(t) if isinstance(t, str) else t if isinstance(t, Tool) else make_tool(t) for t in tools]


def tools_by_name(tools: Iterable[Any] | Any) -> dict[str, Tool]:
    """The agent's tool table from anything ``tools_named`` reads; two tools may not share a name."""
    table: dict[str, Tool] = {}
    for t in tools_named(tools):
        if t.name in table:
            raise ValueError(f"two tools are named {t.name!r}")
        table[t.name] = t
    return table




def template_named(template: Any, backend: Any) -> Any:
    """The run's template: a text template (a name, a path or a ``Template``), or ``"native"``, the
    model's own chat template with tools (tool results go back as its ``role: tool`` messages)."""
    if template == "native":
        return NativeTemplate(lambda: chat_template_of(backend), stop=dialect_named("native").stop)
    return as_template(template)
