"""A persistent cache of tool results across runs, for pure tools only.

A tool declared ``@tool(cacheable=True, version="2")`` promises that the same
arguments give the same result, so a result computed in one run may answer
the same call in a later one. Entries are JSON files in a folder, keyed by
the tool's name, its version and its canonical arguments (the arguments as
the tool's function receives them, after binding and coercion), so
``"37*91"`` and ``{"expression": "37*91"}`` share one entry and a new
version never sees an old result. Only successful calls are stored: a
failure may not repeat.

Within one run the loop needs no cache: an identical call is answered from
the scratchpad (see ``loop.decide``), and that holds for every tool.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..types import Args, Observation
from .arguments import ArgumentError, bind_args
from .spec import Tool

__all__ = ["ToolCache", "cache_key", "default_cache_dir"]


def default_cache_dir() -> Path:
    """``$REACT_TEXT_HOME/tool-cache``, else ``$XDG_CACHE_HOME`` (or ``~/.cache``)``/react-text/tool-cache``."""
    home = os.environ.get("REACT_TEXT_HOME")
    if home:
        return Path(home).expanduser() / "tool-cache"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "react-text" / "tool-cache"


def cache_key(tool: Tool, args: Args | None) -> str | None:
    """The entry name for this call, or None when the call cannot be cached.

    None for a tool that is not ``cacheable`` and for arguments that do not
    bind (the call fails anyway, and a failure is never stored).
    """
    if not tool.cacheable:
        return None
    try:
        bound = bind_args(tool, args)
    except ArgumentError:
        return None
    canonical = json.dumps([tool.name, tool.version, bound.values], sort_keys=True, ensure_ascii=False,
                           default=repr)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ToolCache:
    """Tool results on disk, one JSON file per call, under ``folder/<tool name>/``.

    Reads that fail (a missing, torn or foreign file) are misses, never
    errors; writes go through a temporary file and a rename, so concurrent
    runs never see half an entry.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder).expanduser() if folder is not None else default_cache_dir()

    def _path(self, tool: Tool, key: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in tool.name)
        return self.folder / safe / f"{key}.json"

    def get(self, tool: Tool, args: Args | None) -> Observation | None:
        key = cache_key(tool, args)
        if key is None:
            return None
        try:
            data = json.loads(self._path(tool, key).read_text(encoding="utf-8"))
            if data.get("tool") != tool.name or data.get("version") != tool.version:
                return None
            obs = data["observation"]
            return Observation(ok=True, text=str(obs["text"]), code="ok", truncated=bool(obs.get("truncated")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, tool: Tool, args: Args | None, observation: Observation) -> bool:
        """Store a successful result; returns whether anything was written."""
        key = cache_key(tool, args)
        if key is None or not observation.ok:
            return False
        path = self._path(tool, key)
        entry: dict[str, Any] = {"tool": tool.name, "version": tool.version, "args": args,
                                 "observation": asdict(observation)}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError:
            return False
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entry, fh, ensure_ascii=False, default=repr)
            os.replace(tmp, path)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return False
        return True
