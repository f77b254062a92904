"""A live ``fetch(url)`` tool, safe to hand to a model: opt-in hosts, public addresses, bounded size and time.

A model that reads the web can be steered by what it reads into fetching
anything, so nothing is reachable unless the user listed its host
(``fetch_tool(allow=["docs.python.org"])``, ``react-text run --fetch-allow
HOST``). The URL is parsed once (``fetch_policy.parse_target``) and that parse
is what is checked and what is connected to: the host is resolved here, every
address is checked (a listed *name* must resolve to public addresses; loopback,
private and link-local ones only when the user listed that IP or ``localhost``,
or passed ``allow_private`` / ``--fetch-private``), and the connection goes to
the checked address with the Host header and TLS name set from the URL, so no
second DNS answer can change where it lands. Redirects are followed by hand,
at most ``max_redirects``, each hop checked the same way. The body is streamed
(and inflated) no further than ``max_bytes``; headers are bounded by
``http.client`` (100 lines of 64 kB); one deadline covers connecting, every
redirect, headers and body, enforced by cutting the socket, so a server
dripping a byte at a time cannot outlast it (a DNS lookup is bounded by the
system resolver's own timeout). HTTP(S)_PROXY is not used: the
checked address is the one connected to. HTML becomes plain text in one linear
pass (``html_text``).

Every failure raises ``FetchError`` whose message is written for the model
(``refused``, ``timeout``, ``too_large``, ``not_text``, ``http_error``,
``bad_url``, ``connection``, ``too_many_redirects``); the loop shows it as the
tool's error.
"""

from __future__ import annotations

import codecs
import functools
import http.client
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import urljoin

from .fetch_policy import (DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_S, FetchError, FetchPolicy,
                           Target, host_allowed, parse_target, permitted_addresses, target_allowed)
from .html_text import html_to_text
from .spec import Tool, tool

__all__ = ["FetchError", "FetchPolicy", "FetchResult", "fetch", "fetch_tool", "host_allowed"]

_CHUNK = 16_384
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/javascript")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_HEADERS = {"Accept": "text/html, text/plain, application/json;q=0.9, */*;q=0.1", "Accept-Encoding": "gzip",
            "User-Agent": "react-text-fetch", "Connection": "close"}


@dataclass(frozen=True)
class FetchResult:
    url: str
    """The final URL, after redirects."""
    status: int
    content_type: str
    text: str


def fetch(url: str, policy: FetchPolicy) -> FetchResult:
    """GET ``url`` under ``policy``: allowlisted hosts at permitted addresses on every hop,
    streamed up to ``max_bytes``, one deadline."""
    target = _allowed(parse_target(url), policy, redirect=False)
    with _Deadline(policy.timeout_s) as deadline:
        for _ in range(policy.max_redirects + 1):
            deadline.remaining()
            addresses = permitted_addresses(target, _resolve(target), policy.allow_private)
            connection, response = _open(target, addresses, deadline)
            try:
                location = response.getheader("Location")
                if response.status in _REDIRECTS and location:
                    target = _allowed(parse_target(urljoin(target.url, location)), policy, redirect=True)
                    continue
                return _read(response, target, policy, deadline)
            finally:
                connection.close()
        raise FetchError("too_many_redirects", f"Gave up after {policy.max_redirects} redirects.")


def _allowed(target: Target, policy: FetchPolicy, *, redirect: bool) -> Target:
    if not target_allowed(target, policy.allow):
        allowed = ", ".join(policy.allow) if policy.allow else "none: the user has not allowed any host"
        where = f"the URL redirected to {target.host}" if redirect else f"host {target.host}"
        raise FetchError("refused", f"Refused: {where} is not on the fetch allowlist (allowed: {allowed}).")
    return target


def _resolve(target: Target) -> list[str]:
    """Every address of the target's host: the one lookup; the connection uses its answer."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise FetchError("connection", f"Could not resolve {target.host}.", retryable=True) from None
    return [str(info[4][0]) for info in infos]


class _Deadline:
    """One deadline for the whole fetch, enforced by shutting the socket down when it passes:
    a per-read timeout never fires on a server that sends a byte just before each one would."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self.expired = threading.Event()
        self._connection: http.client.HTTPConnection | None = None
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def remaining(self) -> float:
        """Seconds left; ``FetchError("timeout")`` when none are."""
        left = self._end - time.monotonic()
        if left <= 0 or self.expired.is_set():
            raise self.error()
        return left

    def watch(self, connection: http.client.HTTPConnection) -> None:
        self._connection = connection

    def error(self) -> FetchError:
        return FetchError("timeout", f"The page did not arrive within {self.seconds:g} seconds.", retryable=True)

    def _cut(self) -> None:
        self.expired.set()
        sock = self._connection.sock if self._connection is not None else None
        if sock is not None:
            try:
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, under any TLS layer
            except OSError:
                pass


class _Connection(http.client.HTTPConnection):
    """A connection to one checked address. For https the handshake names the URL's host (SNI)
    and the certificate is verified against it, so pinning the address weakens no check."""

    def __init__(self, address: str, port: int, timeout: float, tls_host: str | None) -> None:
        super().__init__(address, port, timeout=timeout)
        self.tls_host = tls_host

    def connect(self) -> None:
        super().connect()
        if self.tls_host is not None:
            self.sock = _tls().wrap_socket(self.sock, server_hostname=self.tls_host)


@functools.lru_cache(maxsize=1)
def _tls() -> ssl.SSLContext:
    try:
        import certifi  # requests' CA bundle when present, as before; the system's otherwise
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _open(target: Target, addresses: Iterable[str], deadline: _Deadline
          ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    """Connect to the first checked address that answers and send the request."""
    failure: Exception | None = None
    for address in addresses:
        connection = _Connection(address, target.port, deadline.remaining(),
                                 target.host if target.scheme == "https" else None)
        deadline.watch(connection)
        try:
            connection.connect()
        except OSError as exc:
            connection.close()
            if isinstance(exc, TimeoutError) or deadline.expired.is_set():
                raise deadline.error() from None
            failure = exc
            continue
        try:
            connection.request("GET", target.path, headers={"Host": target.authority, **_HEADERS})
            return connection, connection.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise _broken(exc, deadline, f"Could not read an answer from {target.host}") from None
    raise FetchError("connection", f"Could not reach {target.host}: {type(failure).__name__}.", retryable=True)


def _broken(exc: Exception, deadline: _Deadline, what: str) -> FetchError:
    if isinstance(exc, TimeoutError) or deadline.expired.is_set():
        return deadline.error()
    return FetchError("connection", f"{what}: {type(exc).__name__}.", retryable=True)


def _read(response: http.client.HTTPResponse, target: Target, policy: FetchPolicy, deadline: _Deadline
          ) -> FetchResult:
    status, url = response.status, target.url
    if status >= 400:
        raise FetchError("http_error", f"HTTP {status} {response.reason or ''} from {url}.".replace("  ", " "),
                         retryable=status >= 500 or status == 429)
    content_type = response.getheader("Content-Type", "").split(";")[0].strip().lower()
    if content_type and not content_type.startswith(_TEXT_TYPES) and not content_type.endswith(("+xml", "+json")):
        raise FetchError("not_text", f"Not text: {url} is {content_type}; fetch reads text and HTML only.")
    declared = response.getheader("Content-Length", "").strip()
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise _too_large(policy)
    encoding = response.getheader("Content-Encoding", "").strip().lower()
    body = bytearray()
    try:
        for chunk in _inflated(_chunks(response), encoding, policy.max_bytes, url):
            body += chunk
            if len(body) > policy.max_bytes:
                raise _too_large(policy)
            deadline.remaining()
    except (OSError, http.client.HTTPException, zlib.error) as exc:
        raise _broken(exc, deadline, f"The connection broke while reading {url}") from None
    deadline.remaining()  # a connection cut at the deadline ends like a whole body
    if not content_type and b"\x00" in body[:1024]:
        raise FetchError("not_text", f"Not text: {url} sent binary data; fetch reads text and HTML only.")
    text = bytes(body).decode(_charset(response.getheader("Content-Type", "")), errors="replace")
    if content_type in ("text/html", "application/xhtml+xml") or (not content_type and "<html" in text[:500].lower()):
        text = html_to_text(text)
    return FetchResult(url=url, status=status, content_type=content_type, text=text.strip())


def _chunks(response: http.client.HTTPResponse) -> Iterator[bytes]:
    """The body as it arrives: ``read1`` returns whatever is there."""
    while chunk := response.read1(_CHUNK):
        yield chunk


def _inflated(chunks: Iterator[bytes], encoding: str, max_bytes: int, url: str) -> Iterator[bytes]:
    """The body without its gzip layer, at most ``max_bytes + 1`` bytes per step: a small
    compressed bomb never inflates in memory past what the size check sees."""
    if encoding in ("", "identity"):
        yield from chunks
        return
    if encoding not in ("gzip", "x-gzip"):
        raise FetchError("not_text", f"Not text: {url} is compressed as {encoding}, which fetch does not read.")
    inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)
    for chunk in chunks:
        while chunk:
            yield inflate.decompress(chunk, max_bytes + 1)
            chunk = inflate.unconsumed_tail


def _charset(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset":
            try:
                return codecs.lookup(value.strip().strip('"')).name
            except LookupError:
                break
    return "utf-8"


def _too_large(policy: FetchPolicy) -> FetchError:
    return FetchError("too_large", f"Too large: the page is more than {policy.max_bytes:,} bytes; "
                                   "fetch a more specific page.")


# --- the tool -------------------------------------------------------------------------

def fetch_tool(allow: Iterable[str], *, max_bytes: int = DEFAULT_MAX_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S,
               max_redirects: int = DEFAULT_MAX_REDIRECTS, allow_private: bool = False, max_chars: int = 4000,
               name: str = "fetch") -> Tool:
    """A ``fetch(url)`` tool limited to the hosts in ``allow`` (none: every URL is refused).

    A listed name is fetched only while it resolves to public addresses; a loopback, private
    or link-local address is reached when ``allow`` names that IP (``127.0.0.1:8080``) or
    ``localhost`` itself, or for every listed name with ``allow_private=True`` (an intranet)."""
    policy = FetchPolicy(tuple(allow), max_bytes=max_bytes, timeout_s=timeout_s, max_redirects=max_redirects,
                         allow_private=allow_private)
    hosts = ", ".join(policy.allow) or "none"

    def fetch_page(url: str) -> str:
        result = fetch(url, policy)
        return result.text or f"(the page at {result.url} has no text)"

    return tool(name=name, timeout=timeout_s + 2.0, max_chars=max_chars,
                description=f"Fetch a web page and return its text. Only these hosts can be fetched: {hosts}.",
                examples={"url": f"https://{policy.allow[0].lstrip('*.')}/" if policy.allow else "https://example.org/"},
                )(fetch_page)
