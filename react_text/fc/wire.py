"""Reading a request off the socket without trusting the client: one deadline, a header budget, sane JSON.

A socket timeout bounds each wait, so a client trickling a byte at a time
would hold a thread for ever; here every read gets only what is left of one
deadline for the whole request, and the headers have a byte budget.
"""

from __future__ import annotations

import http.client
import io
import json
import re
import socket
import time
from typing import Any

from .endpoint import ApiError

__all__ = ["REQUEST_LINE_LIMIT", "DISCARD_CAP", "HeadersTooLarge", "RequestReader", "decode_json_body"]

REQUEST_LINE_LIMIT = 65537 + 8192
"""http.server's own cap on the request line, plus one read-ahead buffer."""

DISCARD_CAP = 16 * 1024 * 1024
"""Largest refused body still read (and dropped) so the 413 reaches the client."""

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class HeadersTooLarge(http.client.HTTPException):
    """Raised while reading headers; http.server answers it with 431 (see the handler's ``send_error``)."""


class RequestReader(io.RawIOBase):
    """The socket as a raw stream that enforces a whole-request deadline and a header byte budget."""

    def __init__(self, sock: socket.socket, deadline: float, header_budget: int) -> None:
        self._sock = sock
        self.deadline = deadline
        self.header_budget: int | None = header_budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("the request took too long to arrive")
        if self.header_budget is not None and self.header_budget <= 0:
            raise HeadersTooLarge("request headers too large")
        self._sock.settimeout(left)
        n = self._sock.recv_into(buffer)
        if self.header_budget is not None:
            self.header_budget -= n
        return n


def decode_json_body(raw: bytes) -> Any:
    """The body as JSON, or ``ApiError`` 400: not UTF-8 JSON, or nested too deeply to read."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"We could not parse the JSON body of your request: {exc}.", code="invalid_json") from None
    except RecursionError:
        raise ApiError(400, "The JSON body of your request is nested too deeply.", code="invalid_json") from None
    try:
        return _without_lone_surrogates(body) if _SURROGATE_ESCAPE.search(raw) else body
    except RecursionError:
        raise ApiError(400, "The JSON body of your request is nested too deeply.", code="invalid_json") from None


def _without_lone_surrogates(value: Any) -> Any:
    """Request text with unpaired surrogates (``"\\ud800"``) replaced by U+FFFD: no model can read them."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value
