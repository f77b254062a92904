"""A live ``fetch(url)`` tool, safe to hand to a model: opt-in hosts, bounded size and time.

A model that reads the web can be steered by what it reads into fetching
anything, so nothing is reachable unless the user listed its host
(``fetch_tool(allow=["docs.python.org"])``, ``react-text run --fetch-allow
HOST``). Redirects are followed by hand so every hop is checked against the
same list; the body is streamed and dropped past ``max_bytes``; one deadline
covers connecting, every redirect and reading. HTML becomes plain text with
the standard library's ``html.parser`` (title, headings, paragraphs, list
items, link text; no scripts or styles), so no parser dependency is needed.

Every failure raises ``FetchError`` whose message is written for the model
(``refused``, ``timeout``, ``too_large``, ``not_text``, ``http_error``,
``bad_url``, ``connection``); the loop shows it as the tool's error.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

from .spec import Tool, tool

__all__ = ["FetchError", "FetchPolicy", "FetchResult", "fetch", "fetch_tool", "host_allowed", "html_to_text"]

DEFAULT_MAX_BYTES = 500_000
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_REDIRECTS = 5
_CHUNK = 16_384
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml", "application/javascript")


class FetchError(RuntimeError):
    """Why a fetch gave nothing; ``kind`` is stable, the message is for the model."""

    def __init__(self, kind: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable


@dataclass(frozen=True)
class FetchPolicy:
    """What ``fetch`` may reach and how much of it. ``allow`` holds host names
    (``example.org``; ``*.example.org`` for its subdomains; ``host:port`` for
    one port only). Empty: nothing is allowed."""

    allow: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_redirects: int = DEFAULT_MAX_REDIRECTS

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or not self.timeout_s > 0 or self.max_redirects < 0:
            raise ValueError("max_bytes must be >= 1, timeout_s > 0 and max_redirects >= 0")
        for entry in self.allow:
            if not entry or "/" in entry or entry != entry.strip():
                raise ValueError(f"allowlist entry {entry!r} is not a host name (write 'example.org', not a URL)")


@dataclass(frozen=True)
class FetchResult:
    url: str
    """The final URL, after redirects."""
    status: int
    content_type: str
    text: str


def host_allowed(url: str, allow: Iterable[str]) -> bool:
    """Whether ``url``'s host (and port) is on the allowlist. Pure."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        return False
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    for entry in allow:
        entry = entry.lower().rstrip(".")
        want_host, _, want_port = entry.rpartition(":") if entry.count(":") == 1 else (entry, "", "")
        if want_port and (not want_port.isdigit() or int(want_port) != port):
            continue
        if want_host.startswith("*."):
            if host.endswith(want_host[1:]):
                return True
        elif host == want_host:
            return True
    return False


def _check_url(url: str, allow: tuple[str, ...], hop: str = "") -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError("bad_url", f"{url[:200]!r} is not an http(s) URL; write it as https://host/path.")
    if not host_allowed(url, allow):
        allowed = ", ".join(allow) if allow else "none: the user has not allowed any host"
        where = f"the URL redirected to {parts.hostname}" if hop else f"host {parts.hostname}"
        raise FetchError("refused", f"Refused: {where} is not on the fetch allowlist (allowed: {allowed}).")
    return url.strip()


def fetch(url: str, policy: FetchPolicy, *, session: object | None = None) -> FetchResult:
    """GET ``url`` under ``policy``: allowlisted hops only, streamed up to ``max_bytes``, one deadline."""
    import requests  # heavy: loaded on the first fetch, not with the tool

    deadline = time.monotonic() + policy.timeout_s
    current = _check_url(url, policy.allow)
    http = session or requests.Session()
    try:
        for hop in range(policy.max_redirects + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _timeout(policy)
            try:
                response = http.get(current, stream=True, allow_redirects=False, timeout=remaining,
                                    headers={"Accept": "text/html, text/plain, application/json;q=0.9, */*;q=0.1"})
            except requests.Timeout:
                raise _timeout(policy) from None
            except requests.RequestException as exc:
                raise FetchError("connection", f"Could not reach {urlsplit(current).hostname}: "
                                               f"{type(exc).__name__}.", retryable=True) from None
            with response:
                if response.is_redirect:
                    location = response.headers.get("Location", "")
                    current = _check_url(urljoin(current, location), policy.allow, hop="redirect")
                    continue
                return _read(response, current, policy, deadline)
        raise FetchError("too_many_redirects", f"Gave up after {policy.max_redirects} redirects.")
    finally:
        if session is None:
            http.close()


def _timeout(policy: FetchPolicy) -> FetchError:
    return FetchError("timeout", f"The page did not arrive within {policy.timeout_s:g} seconds.", retryable=True)


def _read(response, url: str, policy: FetchPolicy, deadline: float) -> FetchResult:
    import requests  # heavy: see fetch()

    status = response.status_code
    if status >= 400:
        reason = response.reason or ""
        raise FetchError("http_error", f"HTTP {status} {reason} from {url}.".replace("  ", " "),
                         retryable=status >= 500 or status == 429)
    content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if content_type and not content_type.startswith(_TEXT_TYPES) and not content_type.endswith(("+xml", "+json")):
        raise FetchError("not_text", f"Not text: {url} is {content_type}; fetch reads text and HTML only.")
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise _too_large(policy)
    body = bytearray()
    try:
        for chunk in _chunks(response):
            body += chunk
            if len(body) > policy.max_bytes:
                raise _too_large(policy)
            if time.monotonic() > deadline:
                raise _timeout(policy)
    except (requests.RequestException, OSError, _urllib3_error()) as exc:
        if "timed out" in str(exc).lower() or isinstance(exc, (requests.Timeout, TimeoutError)):
            raise _timeout(policy) from None
        raise FetchError("connection", f"The connection broke while reading {url}.", retryable=True) from None
    if not content_type and b"\x00" in body[:1024]:
        raise FetchError("not_text", f"Not text: {url} sent binary data; fetch reads text and HTML only.")
    text = bytes(body).decode(_charset(response.headers.get("Content-Type", "")), errors="replace")
    if content_type in ("text/html", "application/xhtml+xml") or (not content_type and "<html" in text[:500].lower()):
        text = html_to_text(text)
    return FetchResult(url=url, status=status, content_type=content_type, text=text.strip())


def _chunks(response):
    """The body as it arrives: ``read1`` returns whatever is there, so a server that
    drips a byte at a time cannot hold a read past the deadline."""
    read1 = getattr(response.raw, "read1", None)
    if read1 is None:  # urllib3 1.x
        yield from response.iter_content(_CHUNK)
        return
    while chunk := read1(_CHUNK, decode_content=True):
        yield chunk


def _urllib3_error() -> type[Exception]:
    from urllib3.exceptions import HTTPError  # requests' own dependency, loaded with it

    return HTTPError


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


# --- HTML to text -------------------------------------------------------------------

_DROP = frozenset({"script", "style", "noscript", "template", "svg", "iframe", "object"})
_BLOCKS = frozenset({"p", "div", "section", "article", "main", "header", "footer", "li", "tr", "br", "blockquote",
                     "pre", "table", "ul", "ol", "dl", "dt", "dd", "figcaption", "nav", "aside", "form"})
_HEADINGS = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "h5": "##### ", "h6": "###### "}


class _TextExtractor(HTMLParser):
    """Collects readable text: the title, headings (as ``#`` lines), blocks as paragraphs, list items."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.blocks: list[str] = []
        self._line: list[str] = []
        self._dropping = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in _DROP:
            self._dropping += 1
        elif tag == "title":
            self._in_title = True
        elif tag in _HEADINGS:
            self._flush()
            self._line.append(_HEADINGS[tag])
        elif tag in _BLOCKS:
            self._flush()
            if tag == "li":
                self._line.append("- ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP:
            self._dropping = max(0, self._dropping - 1)
        elif tag == "title":
            self._in_title = False
        elif tag in _HEADINGS or tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._dropping:
            return
        if self._in_title:
            self.title.append(data)
        else:
            self._line.append(data)

    def _flush(self) -> None:
        text = " ".join("".join(self._line).split())
        if text and text not in ("-", "#"):
            self.blocks.append(text)
        self._line = []

    def text(self) -> str:
        self._flush()
        title = " ".join("".join(self.title).split())
        lines = ([f"Title: {title}"] if title else []) + [b for b in self.blocks if b.strip("#- ")]
        return "\n".join(lines)


def html_to_text(html: str) -> str:
    """Readable text of an HTML page; never raises on malformed markup."""
    extractor = _TextExtractor()
    try:
        extractor.feed(html)
        extractor.close()
    except Exception:  # html.parser is lenient; anything left over is still worth returning
        pass
    return extractor.text()


# --- the tool -------------------------------------------------------------------------

def fetch_tool(allow: Iterable[str], *, max_bytes: int = DEFAULT_MAX_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S,
               max_redirects: int = DEFAULT_MAX_REDIRECTS, max_chars: int = 4000, name: str = "fetch") -> Tool:
    """A ``fetch(url)`` tool limited to the hosts in ``allow`` (none: every URL is refused)."""
    policy = FetchPolicy(tuple(allow), max_bytes=max_bytes, timeout_s=timeout_s, max_redirects=max_redirects)
    hosts = ", ".join(policy.allow) or "none"

    def fetch_page(url: str) -> str:
        result = fetch(url, policy)
        return result.text or f"(the page at {result.url} has no text)"

    return tool(name=name, timeout=timeout_s + 2.0, max_chars=max_chars,
                description=f"Fetch a web page and return its text. Only these hosts can be fetched: {hosts}.",
                examples={"url": f"https://{policy.allow[0].lstrip('*.')}/" if policy.allow else "https://example.org/"},
                )(fetch_page)
