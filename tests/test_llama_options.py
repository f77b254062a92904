"""GPU offload, batch, context and flash attention reach llama.cpp and the run header (real SmolLM2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from react_text.backends.base import BackendError
from react_text.backends.llama_cpp import LlamaCppBackend
from react_text.backends.llama_cpp.options import default_gpu_layers, flash_attn_supported

pytestmark = pytest.mark.model


def test_default_gpu_layers_follow_what_the_build_supports():
    assert default_gpu_layers(True) == -1
    assert default_gpu_layers(False) == 0


def test_options_are_passed_to_llama_cpp(smollm2_path):
    import llama_cpp

    backend = LlamaCppBackend(smollm2_path, n_ctx=1024, n_batch=64)
    try:
        offload = bool(llama_cpp.llama_supports_gpu_offload())
        assert backend.settings == {"n_ctx": 1024, "n_batch": 64, "n_gpu_layers": -1 if offload else 0,
                                    "gpu_offload": offload, "flash_attn": False}
        assert backend._llm.n_batch == 64
        assert backend._llm.n_ctx() == 1024
        assert backend._llm.model_params.n_gpu_layers == backend.n_gpu_layers
    finally:
        backend.close()
    explicit = LlamaCppBackend(smollm2_path, n_ctx=512, n_gpu_layers=0)
    try:
        assert explicit._llm.model_params.n_gpu_layers == 0
    finally:
        explicit.close()


def test_flash_attention_is_passed_or_refused_plainly(smollm2_path):
    import llama_cpp

    if flash_attn_supported(llama_cpp):
        backend = LlamaCppBackend(smollm2_path, n_ctx=512, flash_attn=True)
        try:
            assert backend.settings["flash_attn"] is True
            assert backend.complete("Hello", max_tokens=2).completion_tokens >= 1
        finally:
            backend.close()
    else:
        with pytest.raises(BackendError, match="flash attention"):
            LlamaCppBackend(smollm2_path, n_ctx=512, flash_attn=True)


def test_run_header_shows_how_the_model_was_loaded(tmp_path):
    """The header comes before the first model turn; a template that cannot render ends the run right
    after it, so this checks a real `run` without generating anything."""
    from react_text.prompting.templates import builtin_folder

    broken = tmp_path / "broken.j2"
    broken.write_text((builtin_folder() / "classic.j2").read_text(encoding="utf-8")
                      .replace("name: classic", "name: broken", 1).replace("{{ question }}", "{{ nope.x }}", 1),
                      encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "react_text.cli", "run", "What is 2 + 2?", "--model", "smollm2-135m",
         "--template", str(broken), "--ctx", "1024", "--batch", "128", "--gpu-layers", "0",
         "--trace", str(tmp_path / "t.jsonl")],
        capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 2, proc.stderr
    header = proc.stdout.splitlines()[0]
    assert header.startswith("[llama.cpp:SmolLM2")
    assert "ctx 1024" in header and "batch 128" in header and "gpu layers 0" in header
    assert "flash attention off" in header
