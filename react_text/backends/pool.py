"""Spreading compare's tasks over several completion servers, and surviving one that dies.

Each server gets as many worker slots as it serves requests in parallel
(``URL#N``, or ``--concurrency N`` for every URL). Workers pull from one shared
queue, so a fast server simply takes more tasks. A task whose server died
under it (a retryable backend failure after the HTTP client's own retries) is
put back for a server it has not failed on, and the dead server's workers
stop; the task's result is written once, by whichever server finishes it.
When no live server is left, the remaining tasks stay unrun (and unrecorded)
so running the same compare again resumes them.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..redaction import safe_url
from .base import BackendError

__all__ = ["Server", "TaskQueue", "WatchedBackend", "parse_servers"]

Item = TypeVar("Item")


@dataclass(frozen=True)
class Server:
    url: str
    slots: int


def parse_servers(urls: tuple[str, ...] | list[str], concurrency: int) -> tuple[Server, ...]:
    """``["http://a:8080#4", "http://b:8080"]`` with concurrency 2: a with 4 slots, b with 2.

    Raises ValueError (for the user) on a bad slot count or a URL given twice.
    """
    if concurrency < 1:
        raise ValueError(f"--concurrency must be at least 1, got {concurrency}")
    servers: list[Server] = []
    for spec in urls:
        url, sep, count = spec.rpartition("#") if "#" in spec else (spec, "", "")
        if sep and not (count.isdigit() and int(count) >= 1):
            raise ValueError(f"{spec!r}: write URL#N with N a whole number of parallel requests (1 or more)")
        url = url.rstrip("/")
        if any(s.url == url for s in servers):
            raise ValueError(f"{safe_url(url)} is given twice; use URL#N for more parallel requests to one server")
        servers.append(Server(url, int(count) if sep else concurrency))
    return tuple(servers)


class WatchedBackend:
    """A backend that remembers whether its server failed (a retryable ``BackendError``).

    The loop turns a backend error into a ``backend_error`` result; compare
    needs to know whether that was the server dying (retry elsewhere) or the
    request itself (record it).
    """

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.server_failure: BackendError | None = None

    def complete(self, prompt: str, **kwargs: Any) -> Any:
        try:
            return self._backend.complete(prompt, **kwargs)
        except BackendError as exc:
            if exc.retryable:
                self.server_failure = exc
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


class TaskQueue(Generic[Item]):
    """Work shared by every server's workers, with failover. Thread-safe.

    ``take(url)`` blocks while other tasks are still running (one may come
    back) and returns None when there is nothing left for that server, or it
    is dead. ``failed(item, url)`` marks the server dead and puts the task back
    unless every server has failed it.
    """

    def __init__(self, items: list[Item], servers: tuple[Server, ...]) -> None:
        self._waiting: deque[tuple[Item, frozenset[str]]] = deque((item, frozenset()) for item in items)
        self._servers = tuple(s.url for s in servers)
        self._dead: set[str] = set()
        self._running = 0
        self._stopped = False
        self._tried: dict[int, frozenset[str]] = {}
        self._cond = threading.Condition()
        self.unrun: list[Item] = []
        """Tasks no live server was left to run."""

    @property
    def dead(self) -> frozenset[str]:
        with self._cond:
            return frozenset(self._dead)

    def take(self, url: str) -> Item | None:
        with self._cond:
            while True:
                if self._stopped or url in self._dead:
                    return None
                for i, (item, tried) in enumerate(self._waiting):
                    if url not in tried:
                        del self._waiting[i]
                        self._running += 1
                        self._tried[id(item)] = tried
                        return item
                if self._running == 0:
                    self._settle()
                    return None
                self._cond.wait()

    def finished(self, item: Item) -> None:
        with self._cond:
            self._running -= 1
            self._tried.pop(id(item), None)
            self._cond.notify_all()

    def failed(self, item: Item, url: str) -> None:
        """``url`` died while running ``item``: no more work for it; ``item`` goes back in line."""
        with self._cond:
            self._running -= 1
            self._dead.add(url)
            tried = self._tried.pop(id(item), frozenset()) | {url}
            self._waiting.appendleft((item, tried))
            self._settle()
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def _settle(self) -> None:
        """Move tasks that no live server may take any more to ``unrun``."""
        live = [u for u in self._servers if u not in self._dead]
        keep: deque[tuple[Item, frozenset[str]]] = deque()
        for item, tried in self._waiting:
            if any(u not in tried for u in live):
                keep.append((item, tried))
            else:
                self.unrun.append(item)
        self._waiting = keep
