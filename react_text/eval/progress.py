"""The progress line of a running compare."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


class Progress:
    """A progress line with per-cell and overall counts and an ETA.

    Redrawn in place on a terminal; one plain line per finished task when piped,
    so logs stay readable.
    """

    def __init__(self, total: int, done: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.done, self.stream = total, done, stream
        self.started = time.monotonic()
        self.ran = 0
        self.tty = stream.isatty()
        self._lock = threading.Lock()

    def eta(self) -> str:
        if not self.ran:
            return "--:--"
        remaining = (time.monotonic() - self.started) / self.ran * (self.total - self.done)
        m, s = divmod(int(remaining), 60)
        h, m = divmod(m, 60)
        return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"

    def task_done(self, cell: str, cell_done: int, cell_total: int, task_id: str, correct: bool) -> None:
        with self._lock:
            self.done += 1
            self.ran += 1
            width = 24
            filled = int(width * self.done / max(1, self.total))
            bar = "#" * filled + "." * (width - filled)
            line = (f"[{bar}] {self.done}/{self.total} ETA {self.eta()} | {cell} {cell_done}/{cell_total} "
                    f"{task_id} {'ok' if correct else 'x'}")
            if self.tty:
                self.stream.write("\r\x1b[2K" + line)
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
