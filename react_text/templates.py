"""Few-shot prompt templates: finding them, reading their front matter, rendering them safely.

A template is one ``.j2`` file. It opens with a Jinja comment holding ``key: value``
lines (the *front matter*)::

    {#-
    name: classic
    dialect: classic
    language: en
    stop: ["\\nObservation:", "\\nQuestion:"]
    description: Thought / Action / Action Input.
    -#}

and renders the prompt up to and including the label that opens the model's first
turn. Few-shot examples are data (``prompts/examples/<set>.json``), written out in
the template's dialect with :mod:`react_text.dialects`, so one example set serves
every style. Users add templates by dropping files in a folder they name (argument
``search_paths`` or env var ``REACT_TEXT_PROMPTS``); those folders shadow the
built-in ones.

Templates are untrusted text, so they render in an immutable sandbox with strict
undefined variables, and every loop iteration, call, operator and emitted chunk is
charged against a :class:`RenderLimits` budget: a broken or hostile template gets a
:class:`TemplateError` naming its file and line, never a traceback, an escape, or a
hung process.
"""

from __future__ import annotations

import contextvars
import functools
import importlib.resources
import json
import os
import re
import string
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

from jinja2 import StrictUndefined, TemplateSyntaxError, nodes
from jinja2.exceptions import SecurityError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from .dialects import DIALECTS, format_action, format_final, format_observation, format_thought

__all__ = [
    "Episode",
    "ExampleStep",
    "ParamSpec",
    "RenderLimits",
    "Template",
    "TemplateError",
    "ToolSpec",
    "builtin_folder",
    "describe_tools",
    "list_templates",
    "load_examples",
    "load_template",
    "select_episodes",
    "template_folders",
]

ENV_VAR = "REACT_TEXT_PROMPTS"
"""os.pathsep-separated folders searched for templates before the built-in ones."""

MAX_FILE_BYTES = 256 * 1024
"""A template or example file larger than this is refused before it is read in full."""

_NO_EXAMPLES = "none"


# --- errors and data -------------------------------------------------------------


class TemplateError(Exception):
    """A template (or its example file) cannot be used; says which file and line.

    ``path`` and ``line`` are kept apart from the message so tools can point at
    the spot; ``str(error)`` reads ``path:line: reason``.
    """

    def __init__(self, reason: str, path: str | os.PathLike[str] | None = None, line: int | None = None):
        self.reason = reason
        self.path = str(path) if path is not None else None
        self.line = line
        where = self.path or ""
        if line is not None:
            where = f"{where or '<template>'}:{line}"
        super().__init__(f"{where}: {reason}" if where else reason)


@dataclass(frozen=True)
class RenderLimits:
    """What one render may spend. Generous for any real prompt, tiny for a bomb."""

    seconds: float = 2.0
    max_chars: int = 200_000
    """Size of the rendered prompt."""
    max_value_chars: int = 200_000
    """Size of any one string, list or dict the template builds."""
    max_emitted_chars: int = 1_000_000
    """All text emitted anywhere (macros and ``{% set %}`` blocks included)."""
    max_iterations: int = 100_000
    max_calls: int = 20_000
    max_int_bits: int = 4_096


@dataclass(frozen=True)
class ExampleStep:
    """One tool use inside a few-shot episode."""

    thought: str
    tool: str
    args: dict[str, Any] | str
    observation: str


@dataclass(frozen=True)
class Episode:
    """A worked few-shot example: question, tool steps, closing thought, answer."""

    question: str
    steps: tuple[ExampleStep, ...]
    thought: str
    answer: str

    @property
    def tools(self) -> frozenset[str]:
        return frozenset(step.tool for step in self.steps)


@dataclass(frozen=True)
class ParamSpec:
    """One tool parameter as a template sees it (a view of the JSON schema)."""

    name: str
    type: str
    """JSON-schema type (``string``, ``integer``, ..., or ``any``)."""
    pytype: str
    """The same type in Python spelling (``str``, ``int``, ``list[str]``, ...)."""
    required: bool
    description: str = ""
    enum: tuple[Any, ...] | None = None
    has_default: bool = False
    default: Any = None


@dataclass(frozen=True)
class ToolSpec:
    """A tool as a template sees it: data only, never the callable behind it."""

    name: str
    description: str
    parameters: tuple[ParamSpec, ...]
    schema: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """The raw parameters schema, for templates that want to print it whole."""


ToolsLike = Union[Iterable[Any], Mapping[str, Mapping[str, Any]], None]
ExamplesLike = Union[Sequence[Union[Episode, Mapping[str, Any]]], None]


@dataclass(frozen=True)
class Template:
    """One prompt template, loaded and compiled.

    ``stop`` holds the template's own stop sequences followed by its dialect's,
    deduplicated: every label the model could use to start writing an
    observation or a new question. ``episodes`` are the few-shot examples shown
    when ``render`` is not given any.
    """

    name: str
    dialect: str
    language: str
    stop: tuple[str, ...]
    path: Path
    description: str = ""
    examples: str = ""
    """Name (or path) of the example set the template asked for; ``none`` for zero-shot."""
    episodes: tuple[Episode, ...] = field(default=(), compare=False, repr=False)
    source: str = field(default="", repr=False, compare=False)
    _compiled: Any = field(default=None, repr=False, compare=False)

    def turn_prefix(self, n: int = 1) -> str:
        """The label that opens the model's turn ``n`` (``Thought:``, ``Thought 2:``, ``思考：``)."""
        return DIALECTS[self.dialect].thought.format(n=n)

    def observation(self, text: str, n: int) -> str:
        """The exact text appended after the model's (trimmed) turn ``n``.

        It ends with the label of turn ``n + 1``, so the next prompt is the
        previous prompt plus the turn plus this: only appends, which is what
        keeps llama.cpp's prefix cache valid. Trailing whitespace of ``text``
        is dropped (a blank line before the label would change the format).
        """
        body = format_observation(self.dialect, text.rstrip(), n)
        return f"\n{body}\n{self.turn_prefix(n + 1)}"

    def render(
        self,
        question: str,
        tools: ToolsLike = (),
        examples: ExamplesLike = None,
        *,
        limits: RenderLimits | None = None,
    ) -> str:
        """The prompt up to and including the label that opens the model's first turn.

        ``examples=None`` shows the template's own episodes, keeping those whose
        tools are all available (when that leaves no tool-using episode, all are
        kept and the template sees ``examples_use_other_tools``); a list shows
        exactly those episodes, ``[]`` none.
        """
        if not isinstance(question, str):
            raise TypeError(f"question must be str, not {type(question).__name__}")
        specs = describe_tools(tools)
        names = frozenset(spec.name for spec in specs)
        if examples is None:
            shown, other_tools = select_episodes(self.episodes, names)
        else:
            shown, other_tools = tuple(_coerce_episodes(examples, "<examples argument>")), False
        context = {
            "question": question.strip(),
            "tools": specs,
            "tool_names": tuple(spec.name for spec in specs),
            "examples": shown,
            "examples_use_other_tools": other_tools,
            "dialect": self.dialect,
            "language": self.language,
            "template": self.name,
        }
        text = _render_guarded(self._compiled, context, self.path, limits or RenderLimits()).rstrip()
        prefix = self.turn_prefix(1)
        if not text.endswith(prefix):
            raise TemplateError(
                f"the rendered prompt must end with the label that opens the model's turn, "
                f"{prefix!r}; it ends with {text[-40:]!r}",
                self.path,
            )
        return text


# --- tools as templates see them ---------------------------------------------------

_TYPE_ALIASES = {
    "dict": "object",
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
}
_PYTYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "null": "None",
    "any": "any",
}


def _json_type(prop: Mapping[str, Any]) -> str:
    raw = prop.get("type")
    if isinstance(raw, (list, tuple)):
        raw = next((t for t in raw if t != "null"), "null")
    if isinstance(raw, str):
        return _TYPE_ALIASES.get(raw, raw)
    enum = prop.get("enum")
    if isinstance(enum, (list, tuple)) and enum:
        first = enum[0]
        if isinstance(first, bool):
            return "boolean"
        if isinstance(first, int):
            return "integer"
        if isinstance(first, float):
            return "number"
        if isinstance(first, str):
            return "string"
    return "any"


def _pytype(prop: Mapping[str, Any], json_type: str) -> str:
    base = _PYTYPES.get(json_type, json_type)
    if json_type == "array" and isinstance(prop.get("items"), Mapping):
        inner = _json_type(prop["items"])
        if inner != "any":
            return f"list[{_PYTYPES.get(inner, inner)}]"
    return base


def _param_specs(schema: Any, tool_name: str) -> tuple[ParamSpec, ...]:
    if schema is None:
        return ()
    if not isinstance(schema, Mapping):
        raise TypeError(f"tool {tool_name!r}: parameters must be a JSON-schema object, not {type(schema).__name__}")
    props = schema.get("properties") or {}
    if not isinstance(props, Mapping):
        raise TypeError(f"tool {tool_name!r}: 'properties' must be an object")
    required = set(schema.get("required") or ())
    specs = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        json_type = _json_type(prop)
        enum = prop.get("enum")
        specs.append(
            ParamSpec(
                name=str(name),
                type=json_type,
                pytype=_pytype(prop, json_type),
                required=name in required,
                description=str(prop.get("description") or "").strip(),
                enum=tuple(enum) if isinstance(enum, (list, tuple)) else None,
                has_default="default" in prop,
                default=prop.get("default"),
            )
        )
    return tuple(specs)


def _spec_from_dict(entry: Mapping[str, Any]) -> ToolSpec:
    if isinstance(entry.get("function"), Mapping):  # OpenAI {"type": "function", "function": {...}}
        entry = entry["function"]
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"tool description has no 'name': {dict(entry)!r:.120}")
    params = entry.get("parameters")
    return ToolSpec(
        name=name.strip(),
        description=str(entry.get("description") or "").strip(),
        parameters=_param_specs(params, name),
        schema=dict(params or {}),
    )


def describe_tools(tools: ToolsLike) -> tuple[ToolSpec, ...]:
    """Read tools in any accepted shape into the views a template sees.

    Accepts ``Tool`` objects (anything with ``name``, ``description``,
    ``parameters``), OpenAI-style dicts (``{"type": "function", "function": ...}``
    or bare ``{"name", "description", "parameters"}``), bare names, or a mapping
    of name to parameters schema (the shape ``parse`` takes).
    """
    if tools is None:
        return ()
    specs: list[ToolSpec] = []
    if isinstance(tools, Mapping):
        for name, schema in tools.items():
            if isinstance(schema, Mapping) and ("parameters" in schema or "function" in schema):
                specs.append(_spec_from_dict({"name": name, **schema}))
            else:
                description = schema.get("description", "") if isinstance(schema, Mapping) else ""
                specs.append(ToolSpec(str(name), str(description), _param_specs(schema, str(name)), dict(schema or {})))
    else:
        for item in tools:
            if isinstance(item, ToolSpec):
                specs.append(item)
            elif isinstance(item, str):
                specs.append(ToolSpec(item, "", ()))
            elif isinstance(item, Mapping):
                specs.append(_spec_from_dict(item))
            elif hasattr(item, "name"):
                params = getattr(item, "parameters", None)
                specs.append(
                    ToolSpec(
                        name=str(item.name),
                        description=str(getattr(item, "description", "") or "").strip(),
                        parameters=_param_specs(params, str(item.name)),
                        schema=dict(params or {}),
                    )
                )
            else:
                raise TypeError(f"cannot describe a tool from {type(item).__name__}")
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ValueError(f"two tools are named {spec.name!r}")
        seen.add(spec.name)
    return tuple(specs)


def _json_args(tool: ToolSpec) -> str:
    """``{"query": string, "limit": integer (optional)}``: the JSON argument shape."""
    parts = []
    for p in tool.parameters:
        kind = " | ".join(json.dumps(v, ensure_ascii=False) for v in p.enum) if p.enum else p.type
        note = ""
        if not p.required:
            note = f" (optional, default {json.dumps(p.default, ensure_ascii=False)})" if p.has_default else " (optional)"
        parts.append(f"{json.dumps(p.name, ensure_ascii=False)}: {kind}{note}")
    return "{" + ", ".join(parts) + "}"


def _py_args(tool: ToolSpec) -> str:
    """``query: str, limit: int = 5``: the argument list of a Python-style call."""
    parts = []
    for p in tool.parameters:
        kind = " | ".join(json.dumps(v, ensure_ascii=False) for v in p.enum) if p.enum else p.pytype
        text = f"{p.name}: {kind}"
        if not p.required:
            text += f" = {json.dumps(p.default, ensure_ascii=False) if p.has_default else 'None'}"
        parts.append(text)
    return ", ".join(parts)


def _param_notes(tool: ToolSpec) -> str:
    """``query: words to look for; limit: how many``: the parameters that carry a description."""
    return "; ".join(f"{p.name}: {p.description.rstrip('.')}" for p in tool.parameters if p.description)


def _to_json(value: Any) -> str:
    """Plain JSON (Jinja's own ``tojson`` HTML-escapes, wrong for a text prompt)."""
    return json.dumps(value, ensure_ascii=False)


# --- few-shot examples ---------------------------------------------------------------


def _require_str(entry: Mapping[str, Any], key: str, where: str, *, empty_ok: bool = False) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise ValueError(f"{where}: '{key}' must be a non-empty string")
    return value


def _coerce_episode(entry: Any, where: str) -> Episode:
    if isinstance(entry, Episode):
        return entry
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: an episode must be an object, not {type(entry).__name__}")
    raw_steps = entry.get("steps", [])
    if not isinstance(raw_steps, list):
        raise ValueError(f"{where}: 'steps' must be a list")
    steps = []
    for i, raw in enumerate(raw_steps, 1):
        at = f"{where} step {i}"
        if isinstance(raw, ExampleStep):
            steps.append(raw)
            continue
        if not isinstance(raw, Mapping):
            raise ValueError(f"{at}: a step must be an object")
        args = raw.get("args", {})
        if not isinstance(args, (dict, str)):
            raise ValueError(f"{at}: 'args' must be an object or a string")
        steps.append(
            ExampleStep(
                thought=_require_str(raw, "thought", at),
                tool=_require_str(raw, "tool", at),
                args=args,
                observation=_require_str(raw, "observation", at, empty_ok=True),
            )
        )
    return Episode(
        question=_require_str(entry, "question", where),
        steps=tuple(steps),
        thought=_require_str(entry, "thought", where),
        answer=_require_str(entry, "answer", where),
    )


def _coerce_episodes(entries: Any, where: str) -> list[Episode]:
    if isinstance(entries, Mapping):
        entries = entries.get("episodes")
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"{where}: expected a list of episodes (or an object with 'episodes')")
    return [_coerce_episode(entry, f"{where} episode {i}") for i, entry in enumerate(entries, 1)]


def select_episodes(episodes: Sequence[Episode], tool_names: frozenset[str]) -> tuple[tuple[Episode, ...], bool]:
    """The episodes worth showing with these tools, and whether they use other tools.

    An example that calls a tool the model does not have invites a call to it,
    so such episodes are dropped; but a format is learnt from examples more than
    from instructions, so when nothing tool-using would remain (and there are
    tools), all episodes are kept and the flag is set for the template to say so.
    """
    fitting = tuple(ep for ep in episodes if ep.tools <= tool_names)
    if not tool_names or any(ep.steps for ep in fitting) or not any(ep.steps for ep in episodes):
        return fitting, False
    return tuple(episodes), True


@functools.lru_cache(maxsize=64)
def _read_examples(path: str, mtime_ns: int, size: int) -> tuple[Episode, ...]:
    text = _read_text(Path(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TemplateError(f"bad JSON in examples: {exc.msg}", path, exc.lineno) from None
    try:
        return tuple(_coerce_episodes(data, "examples"))
    except ValueError as exc:
        raise TemplateError(str(exc), path) from None


def load_examples(path: str | os.PathLike[str]) -> tuple[Episode, ...]:
    """Read and check one example file (``{"episodes": [...]}`` or a bare list)."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError as exc:
        raise TemplateError(f"cannot read examples: {exc.strerror}", p) from None
    return _read_examples(str(p), st.st_mtime_ns, st.st_size)


def _find_examples(name: str, template_path: Path, folders: Sequence[Path]) -> Path | None:
    if name.endswith(".json") or "/" in name or os.sep in name:
        candidate = Path(name)
        if not candidate.is_absolute():
            candidate = template_path.parent / candidate
        return candidate if candidate.is_file() else None
    for folder in (template_path.parent, *folders):
        candidate = folder / "examples" / f"{name}.json"
        if candidate.is_file():
            return candidate
    return None


# --- front matter ----------------------------------------------------------------------

_FRONT_OPEN = re.compile(r"\A\ufeff?[ \t\r\n]*\{#-?")
_KEY_LINE = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_JSONISH = re.compile(r"^(?:[\[{\"]|-?\d|true$|false$|null$)")
_NAME_OK = re.compile(r"^[\w][\w.-]*$")
_LANGUAGE_OK = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")
_KNOWN_KEYS = ("name", "dialect", "language", "stop", "description", "examples")


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TemplateError(f"file is {size} bytes; the limit is {MAX_FILE_BYTES}", path)
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    except OSError as exc:
        raise TemplateError(f"cannot read: {exc.strerror or exc}", path) from None


def _front_matter(text: str, path: Path) -> dict[str, tuple[Any, int]]:
    """``key -> (value, line)`` from the opening Jinja comment."""
    opening = _FRONT_OPEN.match(text)
    if opening is None:
        raise TemplateError(
            "missing front matter: the file must open with a Jinja comment like "
            "'{#- name: x / dialect: classic / stop: [...] -#}' (one key per line)",
            path,
            1,
        )
    close = text.find("#}", opening.end())
    if close < 0:
        raise TemplateError("front matter comment is never closed with '#}'", path, text.count("\n", 0, opening.end()) + 1)
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
            raise TemplateError(f"front matter line is not 'key: value': {stripped[:80]!r}", path, line_no)
        key, value_text = match.group(1), match.group(2)
        if key not in _KNOWN_KEYS:
            raise TemplateError(f"unknown front matter key {key!r}; known: {', '.join(_KNOWN_KEYS)}", path, line_no)
        if key in found:
            raise TemplateError(f"front matter key {key!r} given twice", path, line_no)
        found[key] = (_front_value(key, value_text, path, line_no), line_no)
    return found


def _front_value(key: str, text: str, path: Path, line: int) -> Any:
    """JSON when it looks like JSON: ``[``, ``{`` or ``"`` must parse; a bare number or
    literal parses when it can (``description: 2 steps`` stays text)."""
    try:
        return json.loads(text) if _JSONISH.match(text) else text
    except json.JSONDecodeError as exc:
        if text[:1] in '[{"':
            raise TemplateError(f"bad JSON for {key!r}: {exc.msg} (column {exc.colno})", path, line) from None
        return text


def _checked_stops(value: Any, dialect: str, path: Path, line: int) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(s, str) and s for s in value):
        raise TemplateError("'stop' must be a non-empty list of non-empty strings", path, line)
    declared = tuple(value)
    d = DIALECTS[dialect]
    for n in (1, 2, 10):
        label = "\n" + d.observation.format(n=n)
        if not any(label.startswith(stop) for stop in declared):
            raise TemplateError(
                f"'stop' must cover the dialect's observation label {label!r} (e.g. add "
                f"{json.dumps(chr(10) + d.observation.split('{')[0].rstrip())}), or the model will write its own observations",
                path,
                line,
            )
    merged = tuple(dict.fromkeys(declared + d.stop))
    turns = (
        format_thought(dialect, "t", 1) + "\n" + format_action(dialect, "calculator", {"expression": "1 + 1"}, 1),
        format_thought(dialect, "t", 2) + "\n" + format_final(dialect, "done", 2),
    )
    for stop in merged:
        for turn in turns:
            if stop in turn:
                raise TemplateError(f"stop sequence {stop!r} would cut the model's own turn {turn!r}", path, line)
    return merged


def _meta_str(meta: dict[str, tuple[Any, int]], key: str, default: str, path: Path) -> str:
    if key not in meta:
        return default
    value, line = meta[key]
    if not isinstance(value, str):
        raise TemplateError(f"{key!r} must be a string", path, line)
    return value.strip()


def _load_file(path: Path, folders: Sequence[Path]) -> Template:
    text = _read_text(path)
    meta = _front_matter(text, path)
    if "dialect" not in meta:
        raise TemplateError(f"front matter needs 'dialect' (one of {', '.join(DIALECTS)})", path, 1)
    dialect, dialect_line = meta["dialect"]
    if not isinstance(dialect, str) or dialect not in DIALECTS:
        raise TemplateError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}", path, dialect_line)
    if "stop" not in meta:
        raise TemplateError("front matter needs 'stop' (a JSON list of the labels to stop at)", path, 1)
    stop = _checked_stops(meta["stop"][0], dialect, path, meta["stop"][1])
    name = _meta_str(meta, "name", path.stem, path)
    if not _NAME_OK.match(name):
        raise TemplateError(f"bad template name {name!r} (letters, digits, '_', '-', '.')", path, meta["name"][1])
    language = _meta_str(meta, "language", "en", path)
    if not _LANGUAGE_OK.match(language):
        raise TemplateError(f"bad language code {language!r} (like 'en' or 'zh')", path, meta["language"][1])
    examples_name = _meta_str(meta, "examples", language, path)
    episodes: tuple[Episode, ...] = ()
    if examples_name.lower() != _NO_EXAMPLES:
        found = _find_examples(examples_name, path, folders)
        if found is None:
            line = meta["examples"][1] if "examples" in meta else 1
            raise TemplateError(
                f"no example set {examples_name!r} (looked for examples/{examples_name}.json beside the "
                f"template and in the template folders); use 'examples: none' for zero-shot",
                path,
                line,
            )
        episodes = load_examples(found)
    return Template(
        name=name,
        dialect=dialect,
        language=language,
        stop=stop,
        path=path,
        description=_meta_str(meta, "description", "", path),
        examples=examples_name,
        episodes=episodes,
        source=text,
        _compiled=_compile(text, path),
    )


# --- finding templates -------------------------------------------------------------


def builtin_folder() -> Path:
    """The folder of templates shipped with react-text (package ``react_text.prompts``)."""
    return Path(str(importlib.resources.files("react_text.prompts")))


def template_folders(search_paths: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
    """Folders searched for templates, first wins: ``search_paths``, ``$REACT_TEXT_PROMPTS``, built-in."""
    folders: list[Path] = []
    for raw in search_paths:
        folder = Path(raw).expanduser()
        if not folder.is_dir():
            raise TemplateError("template folder does not exist", folder)
        folders.append(folder)
    for raw in os.environ.get(ENV_VAR, "").split(os.pathsep):
        if raw.strip():
            folder = Path(raw.strip()).expanduser()
            if not folder.is_dir():
                raise TemplateError(f"template folder named in ${ENV_VAR} does not exist", folder)
            folders.append(folder)
    folders.append(builtin_folder())
    return list(dict.fromkeys(folders))


def _looks_like_path(name: str | os.PathLike[str]) -> bool:
    if isinstance(name, os.PathLike):
        return True
    return name.endswith(".j2") or "/" in name or os.sep in name


def _folder_templates(folder: Path, folders: Sequence[Path], errors: list[TemplateError] | None) -> list[Template]:
    loaded = []
    for path in sorted(folder.glob("*.j2")):
        try:
            loaded.append(_load_file(path, folders))
        except TemplateError as exc:
            if errors is None:
                raise
            errors.append(exc)
    return loaded


def list_templates(
    search_paths: Iterable[str | os.PathLike[str]] = (),
    *,
    errors: list[TemplateError] | None = None,
) -> list[Template]:
    """Every usable template by name, user folders shadowing built-ins, sorted by name.

    A broken file raises :class:`TemplateError`, or, when an ``errors`` list is
    given, is recorded there and skipped (so one bad file does not hide the rest).
    """
    folders = template_folders(search_paths)
    by_name: dict[str, Template] = {}
    for folder in folders:
        for template in _folder_templates(folder, folders, errors):
            by_name.setdefault(template.name, template)
    return [by_name[name] for name in sorted(by_name)]


def load_template(
    name_or_path: str | os.PathLike[str],
    search_paths: Iterable[str | os.PathLike[str]] = (),
) -> Template:
    """A template by name (searching user folders, then built-ins) or by file path."""
    folders = template_folders(search_paths)
    if _looks_like_path(name_or_path):
        path = Path(name_or_path).expanduser()
        if not path.is_file():
            raise TemplateError("no such template file", path)
        return _load_file(path, folders)
    name = str(name_or_path)
    for folder in folders:
        direct = folder / f"{name}.j2"
        if direct.is_file():
            template = _load_file(direct, folders)
            if template.name == name:
                return template
        for path in sorted(folder.glob("*.j2")):
            if path == direct:
                continue
            try:
                template = _load_file(path, folders)
            except TemplateError:
                continue  # a broken neighbour is reported when asked for by name
            if template.name == name:
                return template
    available = sorted({t.name for t in list_templates(search_paths, errors=[])})
    raise TemplateError(f"unknown template {name!r}; available: {', '.join(available) or '(none)'}")


# --- the guarded sandbox ------------------------------------------------------------


class _LimitExceeded(Exception):
    """A render went over one of its :class:`RenderLimits`."""


class _Budget:
    """What the current render has spent; checked by every hook."""

    __slots__ = ("limits", "deadline", "iterations", "calls", "emitted")

    def __init__(self, limits: RenderLimits):
        self.limits = limits
        self.deadline = time.monotonic() + limits.seconds
        self.iterations = 0
        self.calls = 0
        self.emitted = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise _LimitExceeded(f"rendering took longer than {self.limits.seconds:g} s")

    def iteration(self) -> None:
        self.iterations += 1
        if self.iterations > self.limits.max_iterations:
            raise _LimitExceeded(f"more than {self.limits.max_iterations} loop iterations")
        self.check_time()

    def call(self) -> None:
        self.calls += 1
        if self.calls > self.limits.max_calls:
            raise _LimitExceeded(f"more than {self.limits.max_calls} calls")
        self.check_time()

    def emit(self, n: int) -> None:
        self.emitted += n
        if self.emitted > self.limits.max_emitted_chars:
            raise _LimitExceeded(f"more than {self.limits.max_emitted_chars} characters of output")

    def size(self, n: int, what: str = "value") -> None:
        if n > self.limits.max_value_chars:
            raise _LimitExceeded(f"a {what} of {n} items; the limit is {self.limits.max_value_chars}")

    def check_value(self, value: Any) -> Any:
        if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
            self.size(len(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            if value.bit_length() > self.limits.max_int_bits:
                raise _LimitExceeded(f"an integer of {value.bit_length()} bits")
        return value


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("react_text_render_budget", default=None)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    if budget is None:  # only reachable if a compiled template is rendered outside _render_guarded
        budget = _Budget(RenderLimits())
    return budget


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\*|\d+)?(?:\.(\*|\d+))?")


def _check_percent_format(fmt: str, budget: _Budget) -> None:
    for width, precision in _PERCENT_SPEC.findall(fmt):
        for part in (width, precision):
            if part == "*":
                raise _LimitExceeded("'*' widths are not allowed in templates")
            if part and int(part) > budget.limits.max_value_chars:
                budget.size(int(part), "format width")


def _check_brace_format(fmt: str, budget: _Budget) -> None:
    for _, field_name, spec, _ in string.Formatter().parse(fmt):
        if field_name is None or not spec:
            continue
        if "{" in spec:
            raise _LimitExceeded("nested format fields are not allowed in templates")
        for digits in re.findall(r"\d+", spec):
            budget.size(int(digits), "format width")


def _check_repeat(left: Any, right: Any, budget: _Budget) -> None:
    if isinstance(left, (str, bytes, list, tuple)) and _is_int(right):
        budget.size(len(left) * max(right, 0))
    elif isinstance(right, (str, bytes, list, tuple)) and _is_int(left):
        budget.size(len(right) * max(left, 0))
    elif _is_int(left) and _is_int(right):
        if left.bit_length() + right.bit_length() > budget.limits.max_int_bits:
            raise _LimitExceeded("an integer product too large for a template")


def _check_power(base: Any, exponent: Any, budget: _Budget) -> None:
    if _is_int(base) and _is_int(exponent) and exponent > 0 and abs(base) > 1:
        if (base.bit_length() - 1) * exponent > budget.limits.max_int_bits:  # a lower bound on the result's size
            raise _LimitExceeded("a power too large for a template")


def _check_call(obj: Any, args: tuple[Any, ...], budget: _Budget) -> None:
    """Pre-checks for the str methods whose result size is a product of their inputs."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in ("center", "ljust", "rjust", "zfill") and args and _is_int(args[0]):
        budget.size(args[0], "padded string")
    elif name == "expandtabs":
        tab = args[0] if args and _is_int(args[0]) else 8
        budget.size(len(owner) + owner.count("\t") * max(tab, 0), "string")
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1], budget)


def _check_replace(value: Any, old: Any, new: Any, budget: _Budget) -> None:
    text = str(value)
    old_s, new_s = str(old), str(new)
    if len(new_s) > len(old_s):
        hits = len(text) + 1 if not old_s else text.count(old_s)
        budget.size(len(text) + hits * (len(new_s) - len(old_s)), "string")


def _filter_precheck(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], budget: _Budget) -> None:
    value = args[0] if args else None
    params = list(args[1:]) + list(kwargs.values())
    if name == "format" and isinstance(value, str):
        _check_percent_format(value, budget)
    elif name == "replace" and len(args) >= 3:
        _check_replace(value, args[1], args[2], budget)
    elif name == "indent":
        width = args[1] if len(args) > 1 else kwargs.get("width", 4)
        per_line = len(width) if isinstance(width, str) else (width if _is_int(width) else 0)
        text = str(value)
        budget.size(len(text) + (text.count("\n") + 1) * max(per_line, 0), "string")
    elif name == "center":
        width = args[1] if len(args) > 1 else kwargs.get("width", 80)
        if _is_int(width):
            budget.size(width, "padded string")
    for param in params:  # counts (slice, batch, wordwrap widths...) beyond any sane prompt
        if _is_int(param) and abs(param) > budget.limits.max_value_chars:
            budget.size(abs(param), "filter argument")


def _guard_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    # filters marked pass_context / pass_environment get that object first
    skip = 1 if getattr(fn, "jinja_pass_arg", None) is not None else 0

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        budget = _budget()
        budget.call()
        _filter_precheck(name, args[skip:], kwargs, budget)
        return budget.check_value(fn(*args, **kwargs))

    return guarded


def _rt_iter(iterable: Any) -> Any:
    budget = _budget()
    for item in iterable:
        budget.iteration()
        yield item


def _rt_emit(value: Any) -> str:
    text = str(value)
    _budget().emit(len(text))
    return text


def _rt_concat(*parts: Any) -> str:
    texts = [str(part) for part in parts]
    budget = _budget()
    budget.size(sum(len(t) for t in texts), "string")
    return "".join(texts)


class _Instrument(NodeTransformer):
    """Route loops, output and ``~`` through the budget hooks (a pure AST rewrite)."""

    @staticmethod
    def _hook(name: str, args: list[nodes.Expr], lineno: int) -> nodes.Call:
        return nodes.Call(nodes.Name(name, "load", lineno=lineno), args, [], None, None, lineno=lineno)

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = self._hook("_rt_iter", [node.iter], node.lineno)
        return node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [self._hook("_rt_emit", [child], child.lineno) for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return self._hook("_rt_concat", list(node.nodes), node.lineno)

    def _refuse(self, node: nodes.Node) -> nodes.Node:
        # Pulling in other files would bypass the template search rules and
        # read arbitrary files; one template is one file.
        raise TemplateSyntaxError("include, import and extends are not supported: a template is one file", node.lineno)

    visit_Include = visit_Import = visit_FromImport = visit_Extends = _refuse


class _GuardedEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox plus a budget on time, size, loops and calls."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})

    def __init__(self) -> None:
        super().__init__(
            undefined=StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
        )
        self.globals.pop("lipsum", None)
        self.filters["tojson"] = _to_json
        self.filters["json_args"] = _json_args
        self.filters["py_args"] = _py_args
        self.filters["param_notes"] = _param_notes
        self.filters = {name: _guard_filter(name, fn) for name, fn in self.filters.items()}
        self.globals.update(
            format_action=format_action,
            format_final=format_final,
            format_thought=format_thought,
            format_observation=format_observation,
            _rt_iter=_rt_iter,
            _rt_emit=_rt_emit,
            _rt_concat=_rt_concat,
        )

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        budget = _budget()
        budget.call()
        _check_call(__obj, args, budget)
        return budget.check_value(super().call(__context, __obj, *args, **kwargs))

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        budget = _budget()
        budget.check_time()
        if operator == "*":
            _check_repeat(left, right, budget)
        elif operator == "**":
            _check_power(left, right, budget)
        elif operator == "%" and isinstance(left, str):
            _check_percent_format(left, budget)
        elif operator == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            budget.size(len(left) + len(right))
        return budget.check_value(super().call_binop(context, operator, left, right))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapped = super().wrap_str_format(value)
        if wrapped is not None:
            _check_brace_format(value.__self__, _budget())
        return wrapped


_ENVIRONMENT: _GuardedEnvironment | None = None


def _environment() -> _GuardedEnvironment:
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        _ENVIRONMENT = _GuardedEnvironment()
    return _ENVIRONMENT


@functools.lru_cache(maxsize=64)
def _compile(source: str, path: Path) -> Any:
    """Parse, instrument and compile; cached by text, since a loop may load a template per run."""
    env = _environment()
    filename = str(path)
    # Jinja folds constant filter calls while compiling: give them a budget too.
    token = _BUDGET.set(_Budget(RenderLimits()))
    try:
        tree = env.parse(source, name=path.name, filename=filename)
        tree = _Instrument().visit(tree)
        code = env.compile(tree, name=path.name, filename=filename)
        return env.template_class.from_code(env, code, env.make_globals(None))
    except TemplateSyntaxError as exc:
        raise TemplateError(f"syntax error: {exc.message}", path, exc.lineno) from None
    except Exception as exc:  # noqa: BLE001 - any compile failure is the template's fault
        raise TemplateError(f"cannot compile: {type(exc).__name__}: {_short(exc)}", path) from None
    finally:
        _BUDGET.reset(token)


def _short(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


def _template_line(exc: BaseException, filename: str) -> int | None:
    """The template line where ``exc`` was raised (Jinja rewrites frames to template lines)."""
    if isinstance(exc, TemplateSyntaxError):
        return exc.lineno
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe_failure(exc: BaseException) -> str:
    if isinstance(exc, _LimitExceeded):
        return f"template too expensive: {exc}"
    if isinstance(exc, SecurityError):
        return f"unsafe: {_short(exc)}"
    if isinstance(exc, UndefinedError):
        return f"undefined: {_short(exc)}"
    if isinstance(exc, RecursionError):
        return "template too expensive: recursion too deep"
    if isinstance(exc, MemoryError):
        return "template too expensive: out of memory"
    return f"{type(exc).__name__}: {_short(exc)}"


def _render_guarded(compiled: Any, context: dict[str, Any], path: Path, limits: RenderLimits) -> str:
    if compiled is None:
        raise TemplateError("template was not compiled (use load_template)", path)
    token = _BUDGET.set(_Budget(limits))
    try:
        chunks: list[str] = []
        total = 0
        for chunk in compiled.generate(context):
            total += len(chunk)
            if total > limits.max_chars:
                raise _LimitExceeded(f"the prompt is over {limits.max_chars} characters")
            chunks.append(chunk)
        return "".join(chunks)
    except TemplateError:
        raise
    except Exception as exc:  # noqa: BLE001 - the template's failure, reported with its line
        raise TemplateError(_describe_failure(exc), path, _template_line(exc, str(path))) from None
    finally:
        _BUDGET.reset(token)
