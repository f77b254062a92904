"""A template's front matter: the ``key: value`` lines of its opening Jinja comment, read and checked::

    {#-
    name: classic
    dialect: classic
    language: en
    stop: ["\\nObservation:", "\\nQuestion:"]
    description: Thought / Action / Action Input.
    -#}

Why its own module: what a template declares (name, dialect, language, stop
sequences, example set) is checked before anything renders, and every mistake
gets the line it is on. The caller adds the file name (:class:`FrontMatterError`
carries none), as with :class:`react_text.prompting.sandbox.SandboxError`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..protocol.dialects import DIALECTS, dialect_named
from ..protocol.dialects.base import Dialect

_FRONT_OPEN = re.compile(r"\A\ufeff?[ \t\r\n]*\{#-?")
_KEY_LINE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_JSONISH = re.compile(r"^(?:[\[{\"]|-?\d|true$|false$|null$)")
_NAME_OK = re.compile(r"^[\w][\w.-]*$")
_LANGUAGE_OK = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
_KNOWN_KEYS = ("name", "dialect", "language", "stop", "description", "examples")


class FrontMatterError(Exception):
    """The front matter cannot be used: ``reason`` and ``line`` say why and where."""

    def __init__(self, reason: str, line: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line


@dataclass(frozen=True)
class FrontMatter:
    """What a template file declares about itself, checked."""

    name: str
    dialect: Dialect
    language: str
    stop: tuple[str, ...]
    """The declared stop sequences followed by the dialect's, deduplicated."""
    description: str
    examples: str
    """The example set asked for: the ``examples`` key, else the language."""
    examples_line: int
    """Where ``examples`` is written (1 when it is not), for errors about the set."""


def read_front_matter(text: str, default_name: str) -> FrontMatter:
    """The checked front matter of template source ``text``; ``default_name`` when it names none."""
    meta = _key_values(text)
    if "dialect" not in meta:
        raise FrontMatterError(f"front matter needs 'dialect' (one of {', '.join(DIALECTS)})", 1)
    dialect_name, dialect_line = meta["dialect"]
    if not isinstance(dialect_name, str) or dialect_name not in DIALECTS:
        raise FrontMatterError(f"unknown dialect {dialect_name!r}; known: {', '.join(DIALECTS)}", dialect_line)
    dialect = dialect_named(dialect_name)
    if "stop" not in meta:
        raise FrontMatterError("front matter needs 'stop' (a JSON list of the labels to stop at)", 1)
    stop = _checked_stops(meta["stop"][0], dialect, meta["stop"][1])
    name = _meta_str(meta, "name", default_name)
    if not _NAME_OK.match(name):
        raise FrontMatterError(f"bad template name {name!r} (letters, digits, '_', '-', '.')", meta["name"][1])
    language = _meta_str(meta, "language", "en")
    if not _LANGUAGE_OK.match(language):
        raise FrontMatterError(f"bad language code {language!r} (like 'en' or 'zh')", meta["language"][1])
    return FrontMatter(
        name=name,
        dialect=dialect,
        language=language,
        stop=stop,
        description=_meta_str(meta, "description", ""),
        examples=_meta_str(meta, "examples", language),
        examples_line=meta["examples"][1] if "examples" in meta else 1,
    )


def _key_values(text: str) -> dict[str, tuple[Any, int]]:
    """``key -> (value, line)`` from the opening Jinja comment."""
    opening = _FRONT_OPEN.match(text)
    if opening is None:
        raise FrontMatterError(
            "missing front matter: the file must open with a Jinja comment like "
            "'{#- name: x / dialect: classic / stop: [...] -#}' (one key per line)",
            1,
        )
    close = text.find("#}", opening.end())
    if close < 0:
        raise FrontMatterError("front matter comment is never closed with '#}'", text.count("\n", 0, opening.end()) + 1)
    body = text[opening.end() : close]
    if body.endswith("-"):
        body = body[:-1]
    first_line = text.count("\n", 0, opening.end()) + 1
    found: dict[str, tuple[Any, int]] = {}
    for offset, raw in enumerate(body.split("\n")):
        line_no = first_line + offset
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = _KEY_LINE.match(raw)
        if match is None:
            raise FrontMatterError(f"front matter line is not 'key: value': {stripped[:80]!r}", line_no)
        key, value_text = match.group(1), match.group(2)
        if key not in _KNOWN_KEYS:
            raise FrontMatterError(f"unknown front matter key {key!r}; known: {', '.join(_KNOWN_KEYS)}", line_no)
        if key in found:
            raise FrontMatterError(f"front matter key {key!r} given twice", line_no)
        found[key] = (_front_value(key, value_text, line_no), line_no)
    return found


def _front_value(key: str, text: str, line: int) -> Any:
    """JSON when it looks like JSON: ``[``, ``{`` or ``"`` must parse; a bare number or
    literal parses when it can (``description: 2 steps`` stays text)."""
    try:
        return json.loads(text) if _JSONISH.match(text) else text
    except json.JSONDecodeError as exc:
        if text[:1] in '[{"':
            raise FrontMatterError(f"bad JSON for {key!r}: {exc.msg} (column {exc.colno})", line) from None
        return text
    except RecursionError:
        raise FrontMatterError(f"bad JSON for {key!r}: nested too deeply", line) from None


def _checked_stops(value: Any, d: Dialect, line: int) -> tuple[str, ...]:
    """The declared stops plus the dialect's: they must cover its observation label and cut none
    of the model's own turns."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        raise FrontMatterError("'stop' must be a non-empty list of non-empty strings", line)
    declared = tuple(value)
    for n in (1, 2, 10):
        label = "\n" + d.observation.format(n=n)
        if not any(label.startswith(stop) for stop in declared):
            raise FrontMatterError(
                f"'stop' must cover the dialect's observation label {label!r} (e.g. add "
                f"{json.dumps(chr(10) + d.observation.split('{')[0].rstrip())}), or the model will write its own observations",
                line,
            )
    merged = tuple(dict.fromkeys(declared + d.stop))
    turns = (
        d.write_thought("t", 1) + "\n" + d.write_action("calculator", {"expression": "1 + 1"}, 1),
        d.write_thought("t", 2) + "\n" + d.write_final("done", 2),
    )
    for stop in merged:
        for turn in turns:
            if stop in turn:
                raise FrontMatterError(f"stop sequence {stop!r} would cut the model's own turn {turn!r}", line)
    return merged


def _meta_str(meta: dict[str, tuple[Any, int]], key: str, default: str) -> str:
    if key not in meta:
        return default
    value, line = meta[key]
    if not isinstance(value, str):
        raise FrontMatterError(f"{key!r} must be a string", line)
    return value.strip()
