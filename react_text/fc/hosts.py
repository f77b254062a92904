"""Which names are loopback: the server's own address, and the ``Host`` and ``Origin`` a browser sends.

A loopback server must not be drivable by a web page: a DNS-rebound name
reaches it with a foreign ``Host``, and a page elsewhere sends its ``Origin``.
"""

from __future__ import annotations

import ipaddress
import socket

__all__ = ["is_loopback", "host_name", "is_loopback_name"]

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def host_name(authority: str) -> str:
    """``host`` from ``host:port`` / ``[v6]:port``, lowercased."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1:].split("]", 1)[0]
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def is_loopback_name(host: str) -> bool:
    """A loopback name or address as written, without asking DNS (a rebound name would lie)."""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
