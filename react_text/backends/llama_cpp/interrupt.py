"""Ctrl-C inside llama.cpp: answered between two steps of its compute graph, not after a whole batch.

Python runs its SIGINT handler only between bytecodes, and ``llama_decode`` of a
512-token prompt batch is one C call: on a slow machine Ctrl-C waited ~20 s for
it. llama.cpp asks an abort callback between graph nodes; while a generation
runs in the main thread, Ctrl-C only sets a flag that the callback reads, the
decode returns early, and the generation ends in ``KeyboardInterrupt``.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any, Iterator


class Interrupt:
    """The abort callback of one llama.cpp context, and the Ctrl-C watch that feeds it."""

    def __init__(self, lib: Any, ctx: Any) -> None:
        self.requested = False
        self.raised: BaseException | None = None
        """An exception a signal handler raised inside the callback, for ``watching`` to raise again."""
        self.aborts = 0
        """Decodes the callback cut short (tests read it: the mechanism, not a stopwatch)."""
        self._callback = lib.ggml_abort_callback(self._should_abort)  # kept alive as long as the context
        lib.llama_set_abort_callback(ctx, self._callback, None)

    def _should_abort(self, _data: Any) -> bool:
        try:
            if self.requested:
                self.aborts += 1
            return self.requested
        except BaseException as exc:  # noqa: BLE001 -- a signal handler ran here and raised
            # Python runs pending signal handlers inside this callback; an exception there (the
            # KeyboardInterrupt of Python's or a program's own handler) cannot cross into C. Kept, the
            # decode is stopped, and ``watching`` raises it where the program can catch it.
            self.raised = exc
            return True

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """While the body runs, Ctrl-C aborts llama.cpp's current decode; it then raises ``KeyboardInterrupt``.

        Only in the main thread (the only one Python delivers signals to) and only over Python's own
        handler: a program that installed its own keeps it."""
        self.raised = None
        if threading.current_thread() is not threading.main_thread() \
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            with self._reraising():
                yield
            return
        self.requested = False

        def request(_signum: int, _frame: Any) -> None:
            self.requested = True

        signal.signal(signal.SIGINT, request)
        try:
            with self._reraising():
                yield
        except Exception:
            if not self.requested:
                raise
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.requested:  # an aborted decode raised (or Ctrl-C came between two tokens): the user's stop
            self.requested = False
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def _reraising(self) -> Iterator[None]:
        """The exception a signal handler raised inside the callback, raised instead of the failed decode
        it caused (llama.cpp's "decode returned 2"): a program's own Ctrl-C handler keeps its meaning."""
        try:
            yield
        except Exception as exc:
            raised, self.raised = self.raised, None
            if raised is None:
                raise
            raise raised from exc
        raised, self.raised = self.raised, None
        if raised is not None:
            raise raised
