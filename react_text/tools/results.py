"""Rendering a tool's return value as the bounded text the model reads.

A tool may return anything: megabytes of text, a huge or circular structure,
bytes, an object whose ``__str__`` raises. The model must get a short, honest
text in every case, so values are streamed as JSON piece by piece and cut at
the limit (a huge result costs at most the limit in copies), binary data
becomes a size note, and nothing here raises.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["COUNT_LIMIT", "DEFAULT_MAX_CHARS", "render_result", "safe_str", "truncate"]

DEFAULT_MAX_CHARS = 2000
"""How much of a result the model sees unless the tool or the call says otherwise."""

COUNT_LIMIT = 1_000_000
"""Past this many characters of rendered output we stop counting and say "more than"."""

_MAX_DEPTH = 64
_STRING_SLICE = 8192


def safe_str(value: Any) -> str:
    """``str(value)`` that cannot raise and never shows a bare ``<object at 0x...>``."""
    cls = type(value)
    if cls.__str__ is object.__str__ and cls.__repr__ is object.__repr__:
        return f"<{cls.__name__} object>"
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - an object whose __str__ is broken
        return f"<{cls.__name__} object (unprintable)>"
    return re.sub(r" at 0x[0-9a-fA-F]+>", ">", text)


def _scalar_json(value: Any) -> str | None:
    """JSON text of a small scalar, or None when the value needs the streaming walk."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() < 10_000:
            return str(value)
        return f'"<integer with about {int(value.bit_length() * 0.30103)} digits>"'
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else json.dumps(str(value))
    if isinstance(value, str) and len(value) <= _STRING_SLICE:
        return json.dumps(value, ensure_ascii=False)
    return None


def _json_chunks(value: Any, depth: int, active: set[int]) -> Iterator[str]:
    """Stream ``value`` as compact JSON text, piece by piece, so a caller can stop early."""
    scalar = _scalar_json(value)
    if scalar is not None:
        yield scalar
    elif isinstance(value, str):
        yield '"'
        for start in range(0, len(value), _STRING_SLICE):
            yield json.dumps(value[start:start + _STRING_SLICE], ensure_ascii=False)[1:-1]
        yield '"'
    elif isinstance(value, (bytes, bytearray, memoryview)):
        yield json.dumps(_binary_note(value))
    elif depth >= _MAX_DEPTH:
        yield '"..."'
    elif isinstance(value, (dict, list, tuple, set, frozenset)) or dataclasses.is_dataclass(value):
        marker = id(value)
        if marker in active:
            yield '"[circular]"'
            return
        active.add(marker)
        try:
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                value = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
            if isinstance(value, dict):
                separator = "{"
                for key, item in value.items():
                    key_text = key if isinstance(key, str) else safe_str(key)
                    head = separator + json.dumps(key_text[:1000], ensure_ascii=False) + ": "
                    separator = ", "
                    scalar = _scalar_json(item)
                    if scalar is not None:
                        yield head + scalar
                    else:
                        yield head
                        yield from _json_chunks(item, depth + 1, active)
                yield "{}" if separator == "{" else "}"
            else:
                if isinstance(value, (set, frozenset)):
                    value = sorted(value, key=repr) if len(value) <= 10_000 else list(value)
                separator = "["
                for item in value:
                    scalar = _scalar_json(item)
                    if scalar is not None:
                        yield separator + scalar
                    else:
                        yield separator
                        yield from _json_chunks(item, depth + 1, active)
                    separator = ", "
                yield "[]" if separator == "[" else "]"
        finally:
            active.discard(marker)
    else:
        isoformat = getattr(value, "isoformat", None)
        text = safe_str(value) if not callable(isoformat) else _call_str(isoformat, value)
        yield from _json_chunks(text, depth, active)


def _call_str(method: Callable[[], Any], value: Any) -> str:
    try:
        return str(method())
    except Exception:  # noqa: BLE001
        return safe_str(value)


def _is_structured(value: Any) -> bool:
    """Values rendered as JSON (containers, dataclasses, plain numbers); others become plain text."""
    return (isinstance(value, (dict, list, tuple, set, frozenset, bool, int, float))
            or (dataclasses.is_dataclass(value) and not isinstance(value, type)))


def _binary_note(data: bytes | bytearray | memoryview) -> str:
    return f"<{memoryview(data).nbytes} bytes of binary data>"


def truncate(text: str, limit: int, dropped: int, more: bool = False) -> str:
    """``text`` cut to ``limit``, saying how much was dropped (the model should know it saw a part)."""
    count = f"more than {dropped}" if more else str(dropped)
    return text[:limit] + f"\n…[truncated {count} chars]"


def render_result(value: Any, max_chars: int = DEFAULT_MAX_CHARS) -> tuple[str, bool]:
    """Text the model sees for a tool's return value, cut to ``max_chars``; returns (text, truncated).

    Strings pass through; bytes become a size note; None and empty text say
    so (an empty observation confuses small models); everything else becomes
    JSON, streamed so that a huge result costs at most ``max_chars`` of copy
    and stops being counted after ``COUNT_LIMIT`` characters.
    """
    if isinstance(value, str):
        text = "(empty result)" if not value or value.isspace() else value
        if len(text) > max_chars:
            return truncate(text, max_chars, len(text) - max_chars), True
        return text, False
    if value is None:
        return "(no result)", False
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _binary_note(value), False
    if not _is_structured(value):
        isoformat = getattr(value, "isoformat", None)
        return render_result(_call_str(isoformat, value) if callable(isoformat) else safe_str(value), max_chars)
    kept: list[str] = []
    size = 0
    total = 0
    stopped = False
    try:
        for chunk in _json_chunks(value, 0, set()):
            total += len(chunk)
            if size < max_chars:
                piece = chunk[:max_chars - size]
                kept.append(piece)
                size += len(piece)
            if total > COUNT_LIMIT:
                stopped = True
                break
    except Exception as exc:  # noqa: BLE001 - e.g. a container mutated while we walked it
        kept.append(f" …[rendering stopped: {type(exc).__name__}]")
    text = "".join(kept)
    if total > max_chars:
        return truncate(text, max_chars, total - max_chars, more=stopped), True
    return text or "(empty result)", False
