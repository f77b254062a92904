"""Sending a completion request: retries with backoff, a total deadline and a reply size cap.

Transient failures (refused connection, timeout, HTTP 5xx and 429) are retried
with exponential backoff, honouring ``Retry-After`` up to a limit; a 4xx fails
at once with the URL and status. A server that trickles or floods cannot hold
a run for ever or fill the memory.
"""

from __future__ import annotations

import json
import time
from typing import Any

from .base import BackendError
from .http_replies import snippet

MAX_RETRY_AFTER_S = 30.0
"""Longest ``Retry-After`` honoured between attempts."""


class Transport:
    """POSTs JSON to one URL through a ``requests`` session, with retries, a deadline and a size cap.

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
        requests = self._requests
        last: BackendError | None = None
        attempts = self.retries + 1
        for attempt in range(1, attempts + 1):
            wait = self.backoff * 2 ** (attempt - 1)
            try:
                status, raw, retry_after = self._exchange(body)
            except requests.RequestException as exc:
                last = self.transport_error(exc)
                if not last.retryable:
                    raise last from exc
            else:
                text = raw.decode("utf-8", errors="replace")
                if status >= 500 or status == 429:
                    last = BackendError(f"POST {self.url}: HTTP {status} from the server: {snippet(text)}",
                                        retryable=True)
                    wait = max(wait, min(retry_after or 0.0, MAX_RETRY_AFTER_S))
                elif status >= 400:
                    raise BackendError(f"POST {self.url}: HTTP {status}, request rejected: {snippet(text)}")
                else:
                    try:
                        return json.loads(raw), attempt
                    except (ValueError, RecursionError):
                        raise BackendError(
                            f"POST {self.url}: HTTP {status} but the reply is not JSON: {snippet(text)}"
                        ) from None
            if attempt < attempts:
                time.sleep(wait)
        assert last is not None
        raise BackendError(f"{last} (gave up after {attempts} attempts)", retryable=True)

    def open_stream(self, body: dict[str, Any]) -> tuple[Any, int]:
        """POST asking for a stream; retried (like ``post``) until the server answers 200."""
        requests = self._requests
        attempts = self.retries + 1
        last: BackendError | None = None
        for attempt in range(1, attempts + 1):
            try:
                response = self._session.post(self.url, json=body, timeout=self.timeout, stream=True)
            except requests.RequestException as exc:
                last = self.transport_error(exc)
                if not last.retryable:
                    raise last from exc
            else:
                if response.status_code < 400:
                    return response, attempt
                status, text = response.status_code, response.text
                response.close()
                if status < 500:
                    raise BackendError(f"POST {self.url}: HTTP {status}, request rejected: {snippet(text)}")
                last = BackendError(f"POST {self.url}: HTTP {status} from the server: {snippet(text)}",
                                    retryable=True)
            if attempt < attempts:
                time.sleep(self.backoff * 2 ** (attempt - 1))
        assert last is not None
        raise BackendError(f"{last} (gave up after {attempts} attempts)", retryable=True)

    def transport_error(self, exc: Exception) -> BackendError:
        """A failed request as an error: a timeout or a refused connection is worth retrying."""
        requests = self._requests
        if isinstance(exc, requests.Timeout):
            return BackendError(f"POST {self.url}: no answer within {self.timeout}s", retryable=True)
        if isinstance(exc, requests.ConnectionError):
            return BackendError(f"POST {self.url}: cannot connect ({_reason(exc)})", retryable=True)
        return BackendError(f"POST {self.url}: request failed ({exc})")

    def _exchange(self, body: dict[str, Any]) -> tuple[int, bytes, float | None]:
        """One POST: status, the reply body and any ``Retry-After`` seconds, within the deadline and size cap.

        ``timeout`` bounds each socket wait and the whole exchange: a server that
        trickles a byte now and then would otherwise never time out. The reply
        is read in pieces and abandoned past ``max_reply_bytes``.
        """
        deadline = time.monotonic() + self.timeout
        with self._session.post(self.url, json=body, timeout=self.timeout, stream=True) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_reply_bytes:
                raise self._oversized(int(declared))
            raw = response.raw
            read1 = getattr(raw, "read1", None)  # returns what has arrived instead of waiting for a full block
            pieces: list[bytes] = []
            size = 0
            while True:
                if time.monotonic() > deadline:
                    raise self._requests.Timeout(f"the reply took longer than {self.timeout}s")
                try:
                    piece = (read1 or raw.read)(65536, decode_content=True)
                except Exception as exc:  # urllib3 errors wrapped the way requests does
                    raise _as_requests_error(self._requests, exc) from exc
                if not piece:
                    break
                size += len(piece)
                if size > self.max_reply_bytes:
                    raise self._oversized(size)
                pieces.append(piece)
            return response.status_code, b"".join(pieces), _seconds(response.headers.get("Retry-After"))

    def _oversized(self, size: int) -> BackendError:
        return BackendError(f"POST {self.url}: the reply is over {self.max_reply_bytes} bytes ({size}); "
                            "refusing to read more")


def _seconds(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def _as_requests_error(requests: Any, exc: Exception) -> Exception:
    """A read failure inside the body as the requests exception it stands for."""
    import urllib3.exceptions as u3  # comes with requests, which is imported lazily too

    if isinstance(exc, (u3.ReadTimeoutError, TimeoutError)):
        return requests.Timeout(str(exc))
    if isinstance(exc, (u3.ProtocolError, u3.HTTPError, OSError)):
        return requests.ConnectionError(str(exc))
    return exc


def _reason(exc: Exception) -> str:
    text = str(exc)
    if "Connection refused" in text or "ECONNREFUSED" in text:
        return "connection refused: is the server running?"
    return snippet(text, 160)
