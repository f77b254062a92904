"""What ``fetch`` may reach: one strict URL parser, the allowlist, and the address check. Pure.

The URL a model writes is parsed here once, and the connection is built from
this parse alone (``Target``), never from the URL text again: a second parser
that ends the host somewhere else (at ``\\``, at ``@``) is how an allowlist is
bypassed. Anything but a plain ``host[:port]`` authority is refused. A listed
*name* must also resolve to public addresses only, so a DNS answer cannot turn
an allowed name into a door to loopback, the LAN or a cloud metadata address;
an IP or ``localhost`` the user listed, or ``allow_private``, opens those.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

__all__ = ["FetchError", "FetchPolicy", "Target", "host_allowed", "parse_target", "permitted_addresses",
           "target_allowed"]

DEFAULT_MAX_BYTES = 500_000
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_REDIRECTS = 5

_AUTHORITY = re.compile(r"(?P<host>[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_PATH_SAFE = "/?%:@!$&'()*+,;=~[]"
"""Characters a path or query keeps as written; spaces and non-ASCII are percent-encoded."""


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
    one port only). Empty: nothing is allowed. A listed name must resolve to
    public addresses; loopback, private and link-local ones are reached only
    through an IP or ``localhost`` listed as such, or with ``allow_private``."""

    allow: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    allow_private: bool = False

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or not self.timeout_s > 0 or self.max_redirects < 0:
            raise ValueError("max_bytes must be >= 1, timeout_s > 0 and max_redirects >= 0")
        for entry in self.allow:
            if not entry or "/" in entry or "@" in entry or "\\" in entry or entry != entry.strip():
                raise ValueError(f"allowlist entry {entry!r} is not a host name (write 'example.org', not a URL)")


@dataclass(frozen=True)
class Target:
    """One parsed http(s) URL: what is checked is exactly what is connected to."""

    scheme: str
    host: str
    """Lower case, no trailing dot, IPv6 without brackets."""
    port: int
    path: str
    """Path and query, percent-encoded, as sent in the request line."""

    @property
    def is_ip(self) -> bool:
        return _ip(self.host) is not None

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.authority}{self.path}"

    @property
    def names_itself(self) -> bool:
        """An IP or ``localhost``: listing it names the very address, private or not."""
        return self.is_ip or self.host == "localhost"


def parse_target(url: str) -> Target:
    """``url`` as a ``Target``, or ``FetchError("bad_url")``: http(s) only, a plain ``host[:port]``
    authority (no user name, ``@``, ``\\``, spaces or control characters anywhere)."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:  # brackets that hold no IPv6 address
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise FetchError("bad_url", f"{url[:200]!r} is not an http(s) URL; write it as https://host/path.")
    match = _AUTHORITY.fullmatch(parts.netloc)
    if _CONTROL.search(text) or match is None:
        raise FetchError("bad_url", f"{url[:200]!r} has characters a host may not have (@, \\, spaces or "
                                    "control characters); write it as https://host/path.")
    host = match["host"].strip("[]").rstrip(".").lower()
    port = int(match["port"]) if match["port"] else (443 if parts.scheme == "https" else 80)
    if not host or not 0 < port < 65536 or (match["host"].startswith("[") and _ip(host) is None):
        raise FetchError("bad_url", f"{url[:200]!r} has no valid host and port; write it as https://host/path.")
    path = quote(parts.path or "/", safe=_PATH_SAFE) + (f"?{quote(parts.query, safe=_PATH_SAFE)}" if parts.query else "")
    return Target(parts.scheme, host, port, path)


def target_allowed(target: Target, allow: Iterable[str]) -> bool:
    """Whether the target's host (and port) is on the allowlist; a wildcard never matches an IP."""
    for entry in allow:
        want_host, want_port = _entry(entry)
        if want_port is not None and want_port != target.port:
            continue
        if want_host.startswith("*."):
            if not target.is_ip and target.host.endswith(want_host[1:]):
                return True
        elif target.host == want_host:
            return True
    return False


def host_allowed(url: str, allow: Iterable[str]) -> bool:
    """Whether ``url`` parses (``parse_target``) and its host is on the allowlist."""
    try:
        return target_allowed(parse_target(url), allow)
    except FetchError:
        return False


def permitted_addresses(target: Target, addresses: Iterable[str], allow_private: bool) -> tuple[str, ...]:
    """The resolved ``addresses`` to connect to, or ``FetchError("refused")`` when any is not public
    and neither the user listed the address itself (``Target.names_itself``) nor ``allow_private``."""
    found = tuple(dict.fromkeys(addresses))
    if not found:
        raise FetchError("connection", f"Could not resolve {target.host}.", retryable=True)
    closed = [a for a in found if not _public(a)]
    if closed and not (allow_private or target.names_itself):
        raise FetchError("refused", f"Refused: {target.host} resolves to {closed[0]}, a loopback, private or "
                                    "link-local address; fetch reaches only the public internet there.")
    return found


def _entry(entry: str) -> tuple[str, int | None]:
    entry = entry.lower().rstrip(".")
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif entry.count(":") == 1:
        host, _, port = entry.partition(":")
    else:
        host, port = entry, ""
    if port and not port.isdigit():
        return host, -1  # a malformed port matches nothing
    return host.rstrip("."), int(port) if port else None


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _public(address: str) -> bool:
    ip = _ip(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip is not None and ip.is_global and not ip.is_multicast
