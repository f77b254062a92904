"""Ctrl-C inside llama.cpp: the abort callback reads a flag that Ctrl-C sets (no model needed here;
tests/test_backend_llama.py interrupts the real one)."""

from __future__ import annotations

import ctypes
import os
import signal
import threading

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
