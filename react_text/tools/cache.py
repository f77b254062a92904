"""A persistent cache of tool results across runs, for pure tools only.

A tool declared ``@tool(cacheable=True, version="2")`` promises that the same
arguments give the same result, so a result computed in one run may answer
the same call in a later one. What is stored is the value the tool
returned, not the text a run showed: a hit goes through the same redaction
and length limit as a fresh result, so each run's ``redact=`` and
``max_observation_chars`` hold for hits too. Only successful calls are
stored: a failure may not repeat.

An entry is bound to the tool's identity -- its name, the module and
qualified name of its function, and its ``version`` or, without one, a hash
of its code -- so two different tools called ``lookup`` never share entries
and an edited tool never sees an old result. The key is a hash of that
identity and the canonical arguments (after binding and coercion, so
``"37*91"`` and ``{"expression": "37*91"}`` share one entry); arguments are
never stored. Each entry carries an HMAC of its content under a key kept in
the folder (``0600``, the folder ``0700``), and entries are bounded in size:
a damaged, foreign, oversized or deeply nested entry is a miss, never an
error. A result that holds a secret (``redaction.Redactor``) or is not plain
JSON data is not stored.

Within one run the loop needs no cache: an identical call is answered from
the scratchpad (see ``loop.decide``), and that holds for every tool.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import marshal
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..redaction import Redactor
from ..trace import private_dir
from ..types import Args
from .arguments import ArgumentError, bind_args
from .spec import Tool

__all__ = ["Hit", "MAX_ENTRY_BYTES", "ToolCache", "cache_key", "default_cache_dir", "tool_identity"]

MAX_ENTRY_BYTES = 1_000_000
"""An entry larger than this is never written, and never read."""

_MAX_DEPTH = 64
_FORMAT = 2


@dataclass(frozen=True)
class Hit:
    """A stored result: the value the tool returned for these arguments."""

    value: Any


def default_cache_dir() -> Path:
    """``$REACT_TEXT_HOME/tool-cache``, else ``$XDG_CACHE_HOME`` (or ``~/.cache``)``/react-text/tool-cache``."""
    home = os.environ.get("REACT_TEXT_HOME")
    if home:
        return Path(home).expanduser() / "tool-cache"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "react-text" / "tool-cache"


def tool_identity(tool: Tool) -> list[str] | None:
    """What tells this tool apart from any other: name, module.qualname, and version or code hash.

    None when the tool has no ``version`` and its function has no code to hash
    (a builtin, a callable object): it could change unseen, so it is not cached.
    """
    fn = tool.fn
    qualified = f"{getattr(fn, '__module__', None) or type(fn).__module__}." \
                f"{getattr(fn, '__qualname__', None) or type(fn).__qualname__}"
    if tool.version:
        return [tool.name, qualified, "version", tool.version]
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return [tool.name, qualified, "code", hashlib.sha256(marshal.dumps(code)).hexdigest()]


def cache_key(tool: Tool, args: Args | None) -> str | None:
    """The entry name for this call, or None when the call cannot be cached.

    None for a tool that is not ``cacheable`` or has no identity, and for
    arguments that do not bind (the call fails anyway, and a failure is never stored).
    """
    if not tool.cacheable:
        return None
    identity = tool_identity(tool)
    if identity is None:
        return None
    try:
        bound = bind_args(tool, args)
        canonical = json.dumps([identity, bound.values], sort_keys=True, ensure_ascii=False, default=repr)
    except (ArgumentError, ValueError, RecursionError):
        return None
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is JSON data that reads back as the very same value (so a hit renders as fresh)."""
    if depth > _MAX_DEPTH:
        return False
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    if type(value) is list:
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(isinstance(k, str) and _plain(v, depth + 1) for k, v in value.items())
    return False


class ToolCache:
    """Tool results on disk, one JSON file per call, under ``folder/<tool name>/``.

    Reads that fail (a missing, torn, tampered, oversized or foreign file) are
    misses, never errors; writes go through a temporary file and a rename, so
    concurrent runs never see half an entry.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *,
                 max_entry_bytes: int = MAX_ENTRY_BYTES) -> None:
        self.folder = Path(folder).expanduser() if folder is not None else default_cache_dir()
        self.max_entry_bytes = max_entry_bytes
        self._redactor = Redactor()

    def _path(self, tool: Tool, key: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in tool.name)
        return self.folder / safe / f"{key}.json"

    def _secret(self, create: bool) -> bytes | None:
        """The folder's HMAC key (made on the first write), or None."""
        path = self.folder / ".hmac-key"
        with contextlib.suppress(OSError):
            data = path.read_bytes()
            return data if len(data) >= 32 else None
        if not create:
            return None
        try:
            private_dir(self.folder)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-key-")  # 0600
        except OSError:
            return None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(32))
            os.link(tmp, path)  # the key appears whole or not at all: a racing writer never reads it half-made
        except FileExistsError:
            pass  # another writer made it first; use theirs
        except OSError:
            return None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return self._secret(False)

    def get(self, tool: Tool, args: Args | None) -> Hit | None:
        key = cache_key(tool, args)
        secret = self._secret(False) if key is not None else None
        if key is None or secret is None:
            return None
        try:
            with open(self._path(tool, key), "rb") as fh:
                raw = fh.read(self.max_entry_bytes + 1)
            if len(raw) > self.max_entry_bytes:
                return None
            entry = json.loads(raw)
            payload, mac = entry["payload"], entry["mac"]
            if not hmac.compare_digest(_mac(secret, payload), str(mac)):
                return None
            data = json.loads(payload)
            if data.get("format") != _FORMAT or data.get("key") != key:
                return None
            return Hit(data["value"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def put(self, tool: Tool, args: Args | None, value: Any) -> bool:
        """Store a successful call's value; returns whether anything was written."""
        key = cache_key(tool, args)
        if key is None or not _plain(value) or self._redactor(value) != value:
            return False
        try:
            payload = json.dumps({"format": _FORMAT, "key": key, "tool": tool_identity(tool), "value": value},
                                 ensure_ascii=False)
        except (ValueError, RecursionError):  # an integer too long to write, say
            return False
        secret = self._secret(True)
        if secret is None:
            return False
        text = json.dumps({"payload": payload, "mac": _mac(secret, payload)}, ensure_ascii=False)
        if len(text.encode("utf-8")) > self.max_entry_bytes:
            return False
        path = self._path(tool, key)
        try:
            private_dir(path.parent)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError:
            return False
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return False
        return True


def _mac(secret: bytes, payload: str) -> str:
    return hmac.new(secret, payload.encode("utf-8"), hashlib.sha256).hexdigest()
