"""Talking to a completion server: retries with backoff, one deadline per attempt and a reply size cap.

Transient failures (refused connection, timeout, HTTP 5xx and 429) are retried
with exponential backoff, honouring ``Retry-After`` up to a limit; a 4xx fails
at once with the URL and status. Each attempt has one deadline covering
connect, headers and body (``react_text.http_deadline`` cuts the socket when
it passes), and every reply, streamed or not, is read in large pieces up to a
byte budget, so a server that trickles or floods cannot hold a run for ever,
burn the CPU or fill the memory.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

from ..http_deadline import Deadline
from .base import BackendError
from .http_replies import decode_json, snippet

MAX_RETRY_AFTER_S = 30.0
"""Longest ``Retry-After`` honoured between attempts."""

_PIECE = 65536
"""Bytes asked of the socket at a time: large pieces keep reading linear in the reply's size."""


class Transport:
    """Sends JSON to one server through a ``requests`` session from ``watched_session``.

    ``requests`` is the module itself, imported by the backend only when one is built.
    """

    def __init__(self, requests: Any, session: Any, url: str, *, timeout: float, retries: int, backoff: float,
                 max_reply_bytes: int) -> None:
        self._requests = requests
        self._session = session
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_reply_bytes = max_reply_bytes

    def post(self, body: dict[str, Any]) -> tuple[Any, int]:
        """POST with retries; returns the decoded JSON and how many attempts it took."""
        last: BackendError | None = None
        attempts = self.retries + 1
        for attempt in range(1, attempts + 1):
            wait = self.backoff * 2 ** (attempt - 1)
            try:
                status, raw, retry_after = self._exchange("POST", self.url, body, self.max_reply_bytes, self.timeout)
            except BackendError as exc:
                if not exc.retryable:
                    raise
                last = exc
            else:
                text = raw.decode("utf-8", errors="replace")
                if status >= 500 or status == 429:
                    last = BackendError(f"POST {self.url}: HTTP {status} from the server: {snippet(text)}",
                                        retryable=True)
                    wait = max(wait, min(retry_after or 0.0, MAX_RETRY_AFTER_S))
                elif status >= 400:
                    raise BackendError(f"POST {self.url}: HTTP {status}, request rejected: {snippet(text)}")
                else:
                    return decode_json(raw, f"POST {self.url}: HTTP {status} but the reply"), attempt
            if attempt < attempts:
                time.sleep(wait)
        assert last is not None
        raise BackendError(f"{last} (gave up after {attempts} attempts)", retryable=True)

    def side_read(self, method: str, url: str, body: dict[str, Any] | None, *, max_bytes: int,
                  timeout: float) -> Any:
        """One request for facts about the server (``/props``, ``/tokenize``): its JSON, at most ``max_bytes``.

        Not retried; any failure, a non-200 status included, is a ``BackendError``.
        """
        status, raw, _ = self._exchange(method, url, body, max_bytes, timeout)
        if status != 200:
            raise BackendError(f"{method} {url}: HTTP {status}")
        return decode_json(raw, f"{method} {url}: the reply")

    def open_stream(self, body: dict[str, Any]) -> Stream:
        """POST asking for a stream; retried (like ``post``) until the server answers 200.

        The attempt's deadline runs on while the stream is read: ``timeout`` bounds the whole reply.
        """
        attempts = self.retries + 1
        last: BackendError | None = None
        for attempt in range(1, attempts + 1):
            deadline = Deadline(self.timeout)
            try:
                response = self._send(deadline, "POST", self.url, body)
            except BackendError as exc:
                deadline.cancel()
                if not exc.retryable:
                    raise
                last = exc
            else:
                if response.status_code < 400:
                    return Stream(self, response, deadline, attempt)
                status = response.status_code
                with deadline:
                    try:
                        text = _read_capped(self, response, deadline, 4096, "POST").decode("utf-8", "replace")
                    except BackendError:
                        text = ""
                    response.close()
                if status < 500:
                    raise BackendError(f"POST {self.url}: HTTP {status}, request rejected: {snippet(text)}")
                last = BackendError(f"POST {self.url}: HTTP {status} from the server: {snippet(text)}",
                                    retryable=True)
            if attempt < attempts:
                time.sleep(self.backoff * 2 ** (attempt - 1))
        assert last is not None
        raise BackendError(f"{last} (gave up after {attempts} attempts)", retryable=True)

    def error(self, method: str, url: str, exc: BaseException, deadline: Deadline) -> BackendError:
        """A failed exchange as an error: a deadline, a timeout or a refused connection is worth retrying."""
        requests = self._requests
        if deadline.expired or isinstance(exc, (requests.Timeout, TimeoutError)) or _is_timeout(exc):
            return BackendError(f"{method} {url}: no answer within {deadline.seconds:g}s", retryable=True)
        broken = isinstance(exc, OSError) and not isinstance(exc, requests.RequestException)  # a socket error
        if broken or isinstance(exc, requests.ConnectionError) or _is_connection_error(exc):
            return BackendError(f"{method} {url}: cannot connect ({_reason(exc)})", retryable=True)
        return BackendError(f"{method} {url}: request failed ({snippet(str(exc), 160)})")

    def _send(self, deadline: Deadline, method: str, url: str, body: dict[str, Any] | None) -> Any:
        """The response (headers read, body not) of one request under ``deadline``."""
        try:
            with deadline.applies():
                return self._session.request(method, url, json=body, timeout=deadline.remaining(), stream=True)
        except Exception as exc:  # requests' and urllib3's errors, and a socket cut by the deadline
            raise self.error(method, url, exc, deadline) from exc

    def _exchange(self, method: str, url: str, body: dict[str, Any] | None, max_bytes: int,
                  timeout: float) -> tuple[int, bytes, float | None]:
        """One request: status, the reply body and any ``Retry-After`` seconds, within ``timeout`` and ``max_bytes``."""
        with Deadline(timeout) as deadline:
            response = self._send(deadline, method, url, body)
            with response:
                declared = response.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise _oversized(method, url, max_bytes, int(declared))
                raw = _read_capped(self, response, deadline, max_bytes, method)
                return response.status_code, raw, _seconds(response.headers.get("Retry-After"))


class Stream:
    """An open streamed reply: ``lines()`` yields its lines until it ends, the deadline passes or it grows too big.

    Lines are split here from large pieces, so a line that never ends costs
    reading it once, and is refused past the byte budget.
    """

    def __init__(self, transport: Transport, response: Any, deadline: Deadline, attempts: int) -> None:
        self._transport = transport
        self._response = response
        self._deadline = deadline
        self.attempts = attempts

    def lines(self) -> Iterator[bytes]:
        transport, url = self._transport, self._transport.url
        budget = transport.max_reply_bytes
        size = 0
        parts: list[bytes] = []  # the line being read, in pieces: joined once, when it ends
        for piece in _pieces(transport, self._response, self._deadline, "POST"):
            size += len(piece)
            if size > budget:
                raise BackendError(f"POST {url}: the streamed reply passed {budget} bytes; refusing to read more")
            start = 0
            while (end := piece.find(b"\n", start)) != -1:
                parts.append(piece[start:end])
                yield b"".join(parts).rstrip(b"\r")
                parts, start = [], end + 1
            if start < len(piece):
                parts.append(piece[start:])
        if parts:
            yield b"".join(parts).rstrip(b"\r")

    def close(self) -> None:
        self._response.close()
        self._deadline.cancel()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_capped(transport: Transport, response: Any, deadline: Deadline, max_bytes: int, method: str) -> bytes:
    pieces: list[bytes] = []
    size = 0
    for piece in _pieces(transport, response, deadline, method):
        size += len(piece)
        if size > max_bytes:
            raise _oversized(method, response.url or transport.url, max_bytes, size)
        pieces.append(piece)
    return b"".join(pieces)


def _pieces(transport: Transport, response: Any, deadline: Deadline, method: str) -> Iterator[bytes]:
    """The body as it arrives, in pieces of up to ``_PIECE`` bytes; a cut socket is a timeout, not an end."""
    raw = response.raw
    read1 = getattr(raw, "read1", None)  # returns what has arrived instead of waiting for a full block
    while True:
        try:
            piece = (read1 or raw.read)(_PIECE, decode_content=True)
        except Exception as exc:  # urllib3's errors, and a socket cut by the deadline
            raise transport.error(method, response.url or transport.url, exc, deadline) from exc
        if deadline.expired:
            raise transport.error(method, response.url or transport.url, TimeoutError(), deadline)
        if not piece:
            return
        yield piece


def _oversized(method: str, url: str, max_bytes: int, size: int) -> BackendError:
    return BackendError(f"{method} {url}: the reply is over {max_bytes} bytes ({size}); refusing to read more")


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _is_timeout(exc: BaseException) -> bool:
    import urllib3.exceptions as u3  # comes with requests, which is imported lazily too

    return isinstance(exc, u3.TimeoutError)


def _is_connection_error(exc: BaseException) -> bool:
    import urllib3.exceptions as u3

    return isinstance(exc, (u3.ProtocolError, u3.HTTPError))


def _reason(exc: BaseException) -> str:
    text = str(exc)
    if "Connection refused" in text or "ECONNREFUSED" in text:
        return "connection refused: is the server running?"
    return snippet(text, 160)
