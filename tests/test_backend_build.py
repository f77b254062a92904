"""build_backend and supports_grammar: the one way to build a backend and to ask it about grammars."""

from __future__ import annotations

import subprocess
import sys

import pytest

from react_text.backends import build_backend, supports_grammar
from react_text.backends.http import HttpBackend


def test_http_backend_from_options():
    backend = build_backend("http", url="http://127.0.0.1:8080", api="llama", model="served", context_size=2048)
    assert isinstance(backend, HttpBackend)
    assert backend.url == "http://127.0.0.1:8080/completion"
    assert backend.model == "served" and backend.context_size == 2048


def test_http_backend_needs_a_url_and_kinds_are_checked():
    with pytest.raises(ValueError, match="URL"):
        build_backend("http")
    with pytest.raises(ValueError, match="unknown backend kind"):
        build_backend("gpt")


def test_supports_grammar_reads_the_backend_flag():
    class Plain:
        pass

    class Constrained:
        supports_grammar = True

    assert supports_grammar(Constrained()) and not supports_grammar(Plain())
    assert supports_grammar(build_backend("http", url="http://127.0.0.1:8080"))


def test_importing_backends_does_not_load_llama_cpp():
    code = "import sys, react_text.backends, react_text.backends.llama_cpp; print('llama_cpp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
