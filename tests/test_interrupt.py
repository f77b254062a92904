"""Ctrl-C inside llama.cpp: the abort callback reads a flag that Ctrl-C sets (the fake below), and
``react-text run`` with the real default model stops on Ctrl-C in the middle of a long answer."""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from react_text.backends.llama_cpp.interrupt import Interrupt


class FakeLib:
    """llama.cpp's two functions the mechanism uses: the callback type, and setting it on a context."""

    ggml_abort_callback = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p)

    def __init__(self) -> None:
        self.callback = None

    def llama_set_abort_callback(self, ctx, callback, data) -> None:
        self.callback = callback


def decode(lib: FakeLib, nodes: int = 1000) -> str:
    """A decode as llama.cpp runs it: the callback asked between graph nodes; aborted, it fails."""
    for node in range(nodes):
        if node == 3:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C arrives mid-batch
        if lib.callback(None):
            raise RuntimeError("llama_decode returned 2")
    return "done"


def test_ctrl_c_during_a_decode_aborts_it_and_raises_keyboard_interrupt():
    lib = FakeLib()
    interrupt = Interrupt(lib, ctx=None)
    with pytest.raises(KeyboardInterrupt):
        with interrupt.watching():
            decode(lib)
    assert interrupt.aborts == 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert not interrupt.requested and not lib.callback(None)  # the next generation starts clean


def test_without_ctrl_c_the_callback_never_aborts_and_errors_pass_through():
    lib = FakeLib()
    interrupt = Interrupt(lib, ctx=None)
    with interrupt.watching():
        assert not lib.callback(None)
    with pytest.raises(ValueError):
        with interrupt.watching():
            raise ValueError("llama.cpp's own failure")
    assert interrupt.aborts == 0


def test_outside_the_main_thread_or_under_a_programs_own_handler_nothing_is_installed(monkeypatch):
    lib = FakeLib()
    interrupt = Interrupt(lib, ctx=None)
    seen = []

    def worker() -> None:
        with interrupt.watching():
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]

    def own(signum, frame) -> None:
        pass

    monkeypatch.setattr(signal, "getsignal", lambda _sig: own)
    with interrupt.watching():
        pass  # left alone: the program's handler decides what Ctrl-C means


def _read_until(fd: int, proc: subprocess.Popen, seen: bytearray, wanted: bytes, limit_s: float) -> bool:
    """Read the terminal into ``seen`` until it holds ``wanted``, the program ends, or ``limit_s`` passes."""
    deadline = time.monotonic() + limit_s
    while wanted not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the program closed the terminal
                return wanted in seen
            seen += data
        elif proc.poll() is not None:
            break
    return wanted in seen


def _ctrl_c_as_at_a_terminal() -> None:
    """Ctrl-C's default action in the child: a test run started in the background (``cmd &``) ignores SIGINT,
    children inherit that, and Python then never installs its handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.model
def test_ctrl_c_stops_a_real_run_mid_answer_with_its_trace_saved(qwen_path, tmp_path: Path):
    """On a terminal, as a person runs it: once the model's first words show, Ctrl-C (SIGINT) ends the run
    within 10 s (a correctness bound, not a speed claim: the decode is aborted, not waited out), exit 130,
    a line saying so, and the trace ends with the interrupted run_end."""
    import pty

    trace = tmp_path / "run.jsonl"
    master, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "react_text.cli", "run", "--max-turn-tokens", "2000", "--trace", str(trace),
         "Write a very long story, at least 1500 words, about a lighthouse keeper and a storm. Use no tool."],
        stdin=terminal, stdout=terminal, stderr=terminal, close_fds=True, start_new_session=True,
        preexec_fn=_ctrl_c_as_at_a_terminal)
    os.close(terminal)
    seen = bytearray()
    try:
        assert _read_until(master, proc, seen, b"Thought 1: ", 300), seen.decode(errors="replace")
        time.sleep(0.5)  # well into generating
        assert proc.poll() is None, "the run ended before Ctrl-C"
        proc.send_signal(signal.SIGINT)
        signalled = time.monotonic()
        _read_until(master, proc, seen, b"\ntrace: ", 10)
        code = proc.wait(timeout=max(0.1, 10 - (time.monotonic() - signalled)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    printed = seen.decode(errors="replace")
    assert code == 130, printed
    assert "interrupted by the user" in printed and f"trace: {trace}" in printed, printed
    assert "Traceback" not in printed
    end = json.loads(trace.read_text(encoding="utf-8").splitlines()[-1])
    assert end["event"] == "run_end" and end["status"] == "interrupted"


def test_an_exception_a_signal_handler_raises_inside_the_callback_is_raised_instead_of_the_failed_decode(monkeypatch):
    """Python runs pending signal handlers inside the ctypes callback. A program's own SIGINT handler that
    raises there used to be lost ("Exception ignored on calling ctypes callback") and the program got
    llama.cpp's failed decode instead of its own exception."""
    lib = FakeLib()
    interrupt = Interrupt(lib, ctx=None)

    def own(signum, frame) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(signal, "getsignal", lambda _sig: own)

    def handler_runs_here(self) -> bool:  # where the handler's exception surfaces: inside the callback
        raise KeyboardInterrupt

    monkeypatch.setattr(Interrupt, "requested", property(handler_runs_here, lambda self, value: None), raising=False)
    with pytest.raises(KeyboardInterrupt) as caught:
        with interrupt.watching():
            decode(lib, nodes=1)
    assert isinstance(caught.value.__cause__, RuntimeError)  # the decode it stopped, kept as the cause
    monkeypatch.undo()
    with interrupt.watching():
        assert decode(lib, nodes=1) == "done"  # nothing left over for the next generation
