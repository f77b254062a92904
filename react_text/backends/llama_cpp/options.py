"""How llama.cpp is asked to load a model: GPU layers, flash attention, threads, weight buffers.

Each option depends on the llama-cpp-python build at hand, so each is probed
on the library module passed in (imported lazily by the backend) rather than assumed.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import threading
from typing import Any, Iterator


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
    try:
        return "flash_attn" in inspect.signature(llama_cpp.Llama.__init__).parameters
    except (TypeError, ValueError):
        return False


def default_threads() -> int:
    """The CPUs this process may run on (not all the machine has)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


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
