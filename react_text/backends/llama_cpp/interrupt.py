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
        self.aborts = 0
        """Decodes the callback cut short (tests read it: the mechanism, not a stopwatch)."""
        self._callback = lib.ggml_abort_callback(self._should_abort)  # kept alive as long as the context
        lib.llama_set_abort_callback(ctx, self._callback, None)

    def _should_abort(self, _data: Any) -> bool:
        if self.requested:
            self.aborts += 1
        return self.requested

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """While the body runs, Ctrl-C aborts llama.cpp's current decode; it then raises ``KeyboardInterrupt``.

        Only in the main thread (the only one Python delivers signals to) and only over Python's own
        handler: a program that installed its own keeps it."""
        if threading.current_thread() is not threading.main_thread() \
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            yield
            return
        self.requested = False

        def request(_signum: int, _frame: Any) -> None:
            self.requested = True

        signal.signal(signal.SIGINT, request)
        try:
            yield
        except Exception:
            if not self.requested:
                raise
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if self.requested:  # an aborted decode raised (or Ctrl-C came between two tokens): the user's stop
            self.requested = False
            raise KeyboardInterrupt
