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
the template's dialect with :mod:`react_text.protocol.dialects`, so one example set serves
every style. Users add templates by dropping files in a folder they name (argument
``search_paths`` or env var ``REACT_TEXT_PROMPTS``); those folders shadow the
built-in ones.

Templates are untrusted text, so they compile and render in
:mod:`react_text.prompting.sandbox`, within a :class:`RenderLimits` budget: a broken or
hostile template gets a :class:`TemplateError` naming its file and line, never a
traceback, an escape, or a hung process. This module only chooses what a template
may see (the filters and dialect helpers below) and names the file in errors.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

from ..protocol.dialects import DIALECTS, format_action, format_final, format_observation, format_thought
from ..tools.spec import Tool
from .episodes import Episode, ExampleStep, choose_episodes, question_language
from .sandbox import GuardedEnvironment, RenderLimits, SandboxError, compile_template, render_limited

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
    "template_folders",
]

ENV_VAR = "REACT_TEXT_PROMPTS"
"""os.pathsep-separated folders searched for templates before the built-in ones."""

MAX_FILE_BYTES = 256 * 1024
"""A template or example file larger than this is refused before it is read in full."""

_NO_EXAMPLES = "none"
_LIBRARY_LANGUAGES = ("en", "zh")
"""Example sets a template with the default set also draws on, by the question's language."""


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
    libraries: Mapping[str, tuple[Episode, ...]] = field(default_factory=dict, compare=False, repr=False)
    """Built-in episode sets by language, for questions not in the template's language."""
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

    def library(self, lang: str) -> tuple[Episode, ...]:
        """The written episodes for questions in ``lang``: the template's own set when it
        names one, else the built-in set of that language, else its own language's."""
        if self.examples and self.examples != self.language:
            return self.episodes
        return self.libraries.get(lang) or self.episodes

    def shown_episodes(self, tools: ToolsLike, question: str = "", examples: ExamplesLike = None) -> tuple[Episode, ...]:
        """The few-shot episodes ``render`` shows for this question and these tools.

        ``examples=None`` chooses from the library (see :func:`choose_episodes`): only
        episodes whose tools are all offered, in the question's language, closest to the
        question, plus call demos for offered tools no episode uses. A list shows exactly
        those episodes, ``[]`` none.
        """
        if examples is not None:
            return tuple(_coerce_episodes(examples, "<examples argument>"))
        specs = describe_tools(tools)
        return choose_episodes(self.library(question_language(question)), specs, question)

    def render(
        self,
        question: str,
        tools: ToolsLike = (),
        examples: ExamplesLike = None,
        *,
        limits: RenderLimits | None = None,
    ) -> str:
        """The prompt up to and including the label that opens the model's first turn.

        Episodes are chosen by :meth:`shown_episodes`. The template sees
        ``question_language`` (``en``/``zh``) to word its instructions in the
        question's language.
        """
        if not isinstance(question, str):
            raise TypeError(f"question must be str, not {type(question).__name__}")
        specs = describe_tools(tools)
        shown = self.shown_episodes(specs, question, examples)
        context = {
            "question": question.strip(),
            "question_language": question_language(question),
            "tools": specs,
            "tool_names": tuple(spec.name for spec in specs),
            "examples": shown,
            "examples_use_other_tools": False,
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


def describe_tools(tools: ToolsLike) -> tuple[ToolSpec, ...]:
    """Read tools in any accepted shape into the views a template sees.

    Accepts ``Tool`` objects (anything with ``name``, ``description``,
    ``parameters``), OpenAI-style dicts (``{"type": "function", "function": ...}``
    or bare ``{"name", "description", "parameters"}``), plain functions, bare
    names, or a mapping of name to parameters schema (the shape ``parse``
    takes). Each is read by ``Tool.from_any``, so a template is offered exactly
    the tools the agent and the shim accept.
    """
    if tools is None:
        return ()
    if isinstance(tools, Mapping):
        read = [Tool.from_any(schema or {}, name=str(name)) for name, schema in tools.items()]
    else:
        read = [item if isinstance(item, ToolSpec) else Tool.from_any(item) for item in tools]
    specs = [item if isinstance(item, ToolSpec) else
             ToolSpec(item.name, item.description.strip(), _param_specs(item.parameters, item.name),
                      dict(item.parameters))
             for item in read]
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


def format_episode(dialect: str, episode: Episode) -> str:
    """An episode's turns in ``dialect``, after its question line: each thought, action and
    observation, then the closing thought and final answer. A call demo stops after its call."""
    lines: list[str] = []
    for n, step in enumerate(episode.steps, 1):
        lines.append(format_thought(dialect, step.thought, n))
        lines.append(format_action(dialect, step.tool, step.args, n))
        if step.observation or not episode.is_demo:
            lines.append(format_observation(dialect, step.observation, n))
    if not episode.is_demo:
        n = len(episode.steps) + 1
        lines.append(format_thought(dialect, episode.thought, n))
        lines.append(format_final(dialect, episode.answer, n))
    return "\n".join(lines)


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
        kind=str(entry.get("kind") or ""),
    )


def _coerce_episodes(entries: Any, where: str) -> list[Episode]:
    if isinstance(entries, Mapping):
        entries = entries.get("episodes")
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"{where}: expected a list of episodes (or an object with 'episodes')")
    return [_coerce_episode(entry, f"{where} episode {i}") for i, entry in enumerate(entries, 1)]


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
    libraries = {}
    if examples_name == language:
        for lang in _LIBRARY_LANGUAGES:
            other = _find_examples(lang, path, folders)
            if other is not None:
                libraries[lang] = load_examples(other)
    return Template(
        name=name,
        dialect=dialect,
        language=language,
        stop=stop,
        path=path,
        description=_meta_str(meta, "description", "", path),
        examples=examples_name,
        episodes=episodes,
        libraries=libraries,
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


# --- compiling and rendering in the sandbox ----------------------------------------


@functools.cache
def _environment() -> GuardedEnvironment:
    """The one sandbox every template shares: what a prompt template may call, besides Jinja's own."""
    return GuardedEnvironment(
        filters={"tojson": _to_json, "json_args": _json_args, "py_args": _py_args, "param_notes": _param_notes},
        template_globals={
            "format_action": format_action,
            "format_final": format_final,
            "format_thought": format_thought,
            "format_observation": format_observation,
            "format_episode": format_episode,
        },
    )


@functools.lru_cache(maxsize=64)
def _compile(source: str, path: Path) -> Any:
    """Parse, instrument and compile; cached by text, since a loop may load a template per run."""
    try:
        return compile_template(_environment(), source, path.name, str(path))
    except SandboxError as exc:
        raise TemplateError(exc.reason, path, exc.line) from None


def _render_guarded(compiled: Any, context: dict[str, Any], path: Path, limits: RenderLimits) -> str:
    if compiled is None:
        raise TemplateError("template was not compiled (use load_template)", path)
    try:
        return render_limited(compiled, context, str(path), limits)
    except SandboxError as exc:
        raise TemplateError(exc.reason, path, exc.line) from None
