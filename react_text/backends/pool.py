"""Spreading compare's tasks over several completion servers, and surviving one that fails.

Each server gets as many worker slots as it serves requests in parallel
(``URL#N``, or ``--concurrency N`` for every URL). Workers pull from one shared
queue, so a fast server simply takes more tasks. A task whose server failed
under it (any backend error) is put back for a server it has not failed on;
its result is written once, by whichever server finishes it. Each server has a
circuit breaker: ``trip_after`` failures in a row take it out of rotation for
``cooldown_s`` (doubling while it keeps failing), then one task probes it
(half-open) and a success brings it back. A server that fails fast therefore
cannot drain the queue into errors while a healthy one waits. When every
server is out at once, the remaining tasks stay unrun (and unrecorded) so
running the same compare again resumes them.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

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
    """A backend that remembers the ``BackendError`` its server gave, if any.

    The loop turns a backend error into a ``backend_error`` result; compare
    needs the error itself to rerun the task on another server, and to know
    whether it was the server going down (``retryable``) or the request.
    """

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self.server_failure: BackendError | None = None

    def complete(self, prompt: str, **kwargs: Any) -> Any:
        try:
            return self._backend.complete(prompt, **kwargs)
        except BackendError as exc:
            self.server_failure = exc
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


@dataclass
class _Breaker:
    """One server's circuit: closed (``open_until`` 0), open until a time, or half-open with one probe out."""

    failures: int = 0
    open_until: float = 0.0
    probing: bool = False


class TaskQueue(Generic[Item]):
    """Work shared by every server's workers, with failover and a circuit breaker per server. Thread-safe.

    ``take(url)`` blocks while ``url`` is out of rotation or other tasks are
    still running (one may come back), and returns None when there is nothing
    left for that server. ``failed(item, url)`` counts a failure against
    ``url`` and puts the task back unless every server has failed it;
    ``finished(item, url)`` counts a success (and takes back the failures a
    request that every server refused was counted).
    """

    def __init__(self, items: list[Item], servers: tuple[Server, ...], *, trip_after: int = 2,
                 cooldown_s: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        if trip_after < 1 or cooldown_s <= 0:
            raise ValueError("trip_after must be at least 1 and cooldown_s above 0")
        self._waiting: deque[tuple[Item, frozenset[str]]] = deque((item, frozenset()) for item in items)
        self._servers = tuple(s.url for s in servers)
        self._breakers = {url: _Breaker() for url in self._servers}
        self._trip_after, self._cooldown_s, self._clock = trip_after, cooldown_s, clock
        self._running = 0
        self._stopped = False
        self._tried: dict[int, frozenset[str]] = {}
        self._cond = threading.Condition()
        self.unrun: list[Item] = []
        """Tasks no server was left to run."""

    @property
    def dead(self) -> frozenset[str]:
        """The servers out of rotation now."""
        with self._cond:
            now = self._clock()
            return frozenset(u for u, b in self._breakers.items() if b.open_until > now)

    def take(self, url: str) -> Item | None:
        with self._cond:
            while True:
                if self._stopped:
                    return None
                now = self._clock()
                breaker = self._breakers[url]
                mine = next((i for i, (_, tried) in enumerate(self._waiting) if url not in tried), None)
                if mine is None and self._running == 0:
                    self._settle()
                    return None
                if all(b.open_until > now for b in self._breakers.values()) and self._running == 0:
                    self._give_up()  # nobody can run anything now: leave it for the next compare
                    return None
                if mine is not None and breaker.open_until <= now and not breaker.probing:
                    item, tried = self._waiting[mine]
                    del self._waiting[mine]
                    self._running += 1
                    self._tried[id(item)] = tried
                    breaker.probing = breaker.failures >= self._trip_after  # half-open: this task is the probe
                    return item
                self._cond.wait(max(0.01, breaker.open_until - now) if breaker.open_until > now else None)

    def elsewhere(self, item: Item, url: str) -> bool:
        """Whether a server other than ``url`` has not failed ``item`` yet."""
        with self._cond:
            tried = self._tried.get(id(item), frozenset()) | {url}
            return any(u not in tried for u in self._servers)

    def finished(self, item: Item, url: str, *, refused_everywhere: bool = False) -> None:
        """``url`` answered ``item``. ``refused_everywhere``: with the error every server gave it, so the
        request was at fault, not the servers that failed it before: their failures are taken back."""
        with self._cond:
            self._running -= 1
            tried = self._tried.pop(id(item), frozenset())
            self._breakers[url] = _Breaker()
            for other in tried if refused_everywhere else ():
                breaker = self._breakers[other]
                breaker.failures = max(0, breaker.failures - 1)
                if breaker.failures < self._trip_after:
                    breaker.open_until, breaker.probing = 0.0, False
            self._cond.notify_all()

    def failed(self, item: Item, url: str) -> None:
        """``url`` failed while running ``item``: count it against the server; ``item`` goes back in line."""
        with self._cond:
            self._running -= 1
            breaker = self._breakers[url]
            breaker.failures += 1
            breaker.probing = False
            if breaker.failures >= self._trip_after:
                doublings = min(breaker.failures - self._trip_after, 6)
                breaker.open_until = self._clock() + self._cooldown_s * 2 ** doublings
            tried = self._tried.pop(id(item), frozenset()) | {url}
            self._waiting.appendleft((item, tried))
            self._settle()
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def _settle(self) -> None:
        """Move tasks that every server has failed to ``unrun``."""
        keep: deque[tuple[Item, frozenset[str]]] = deque()
        for item, tried in self._waiting:
            if any(u not in tried for u in self._servers):
                keep.append((item, tried))
            else:
                self.unrun.append(item)
        self._waiting = keep

    def _give_up(self) -> None:
        self.unrun.extend(item for item, _ in self._waiting)
        self._waiting.clear()
        self._cond.notify_all()
