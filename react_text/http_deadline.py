"""One deadline for a whole HTTP exchange (connect, headers, body), kept even by a server that trickles.

A socket timeout bounds each wait, not the exchange: a server that sends one
byte every half second never trips it, in the status line, the headers or the
body. A ``Deadline`` arms a timer; when it fires, it shuts down the sockets of
the requests sent under it (``with deadline.applies(): session.post(...)`` on a
session from ``watched_session``), so whatever read is blocked returns at once
and the caller sees ``deadline.expired``. Shared by the HTTP backend and the
``fetch`` tool (which may also ``watch`` an ``http.client`` connection of its
own); ``requests`` and urllib3 are imported on first use only.
"""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator

__all__ = ["Deadline", "watched_session"]

_current = threading.local()


class Deadline:
    """``with Deadline(5) as d:`` everything sent under ``d.applies()`` ends within 5 s of here."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._lock = threading.Lock()
        self._watched: list[tuple[Any, Any]] = []  # (connection, its socket when it was watched)
        self._over = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        """Seconds left (never below a millisecond: a socket timeout of 0 would mean non-blocking)."""
        return max(0.001, self.ends - time.monotonic())

    @contextmanager
    def applies(self) -> Iterator[Deadline]:
        """Connections of a watched session that send a request on this thread inside the block are cut at the deadline."""
        outer = getattr(_current, "deadline", None)
        _current.deadline = self
        try:
            yield self
        finally:
            _current.deadline = outer

    def cancel(self) -> None:
        """The exchange is over: the timer no longer touches its connections (they may go back to a pool)."""
        self._timer.cancel()
        with self._lock:
            self._over = True
            self._watched.clear()

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def watch(self, connection: Any) -> None:
        """Cut ``connection`` (anything with a ``sock``, e.g. an ``http.client`` connection) at the deadline.

        Its socket of the moment is kept too: ``http.client`` lets go of it
        while the body is still being read from it. Watching before
        connecting is fine: the connection's socket at the deadline is cut.
        """
        with self._lock:
            if self._over:
                return
            self._watched.append((connection, getattr(connection, "sock", None)))
            if self.expired:
                _cut(self._watched[-1])

    def _expire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.expired = True
            for watched in self._watched:
                _cut(watched)


def _cut(watched: tuple[Any, Any]) -> None:
    """Shut the sockets down: a read blocked on one returns at once (``close`` would not wake it)."""
    connection, kept = watched
    for sock in {id(s): s for s in (kept, getattr(connection, "sock", None)) if s is not None}.values():
        try:
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's: an SSL socket's drops its state
        except OSError:
            pass  # already closed


def _watch_current(connection: Any) -> None:
    deadline = getattr(_current, "deadline", None)
    if deadline is not None:
        deadline.watch(connection)


def watched_session(requests: Any) -> Any:
    """A ``requests.Session`` whose connections a ``Deadline`` can cut (``requests`` is the module)."""
    session = requests.Session()
    adapter = _adapter_class()()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


@lru_cache(maxsize=1)
def _adapter_class() -> type:
    from requests.adapters import HTTPAdapter
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Watched:
        def connect(self) -> None:
            super().connect()  # type: ignore[misc]
            _watch_current(self)  # again: a deadline that passed while connecting cuts the new socket

        def request(self, *args: Any, **kwargs: Any) -> None:
            _watch_current(self)
            super().request(*args, **kwargs)  # type: ignore[misc]

    class WatchedHTTPConnection(Watched, HTTPConnection):
        pass

    class WatchedHTTPSConnection(Watched, HTTPSConnection):
        pass

    class WatchedHTTPPool(HTTPConnectionPool):
        ConnectionCls = WatchedHTTPConnection

    class WatchedHTTPSPool(HTTPSConnectionPool):
        ConnectionCls = WatchedHTTPSConnection

    class WatchedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = {"http": WatchedHTTPPool, "https": WatchedHTTPSPool}

    return WatchedAdapter
