"""Shared fixtures: real models, loaded once per test session.

A missing model fails the tests that need it with the install command; it is
never a skip, because a green run without the model proves nothing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import settings

# CI draws the same examples every time (HYPOTHESIS_PROFILE=ci in .ci/run), so a landing never fails on a draw
# no one has seen; local runs keep searching at random and print a reproduction blob when they find one.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Every run leaves a trace in the user trace folder by default; the tests' runs (and the commands they
# start, which inherit the environment) leave theirs in a folder of the session's, not in the user's.
os.environ["REACT_TEXT_TRACES"] = tempfile.mkdtemp(prefix="react-text-test-traces-")

SMOLLM2 = "smollm2-135m"
QWEN = "qwen2.5-coder-0.5b"


def _resolve(name: str) -> Path:
    from react_text.catalog import ModelError, resolve_model

    try:
        return resolve_model(name)
    except ModelError as exc:
        pytest.fail(f"test model {name} is unavailable: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def smollm2_path() -> Path:
    """The real SmolLM2-135M-Instruct GGUF (fast; for integration tests)."""
    return _resolve(SMOLLM2)


@pytest.fixture(scope="session")
def smol_backend(smollm2_path: Path) -> Iterator["LlamaCppBackend"]:  # noqa: F821
    """SmolLM2 through real llama.cpp, shared by every test in the session (loads in ~0.3 s)."""
    from react_text.backends.llama_cpp import LlamaCppBackend

    backend = LlamaCppBackend(smollm2_path, n_ctx=2048)
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def qwen_path() -> Path:
    """The default model, Qwen2.5-Coder-0.5B-Instruct (assembled and verified on first use)."""
    return _resolve(QWEN)


@pytest.fixture(scope="session")
def qwen_backend(qwen_path: Path) -> Iterator["LlamaCppBackend"]:  # noqa: F821
    """Qwen2.5-Coder-0.5B through real llama.cpp, shared by the session; only loaded if a test asks."""
    from react_text.backends.llama_cpp import LlamaCppBackend

    backend = LlamaCppBackend(qwen_path, n_ctx=4096)
    yield backend
    backend.close()


_MODEL_FIXTURES = {"smollm2_path", "smol_backend", "qwen_path", "qwen_backend"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that asks for a real model as ``model``, so ``-m "not model"`` never loads one."""
    for item in items:
        if _MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)
