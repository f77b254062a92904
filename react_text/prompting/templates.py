"""Few-shot prompt templates: finding them, loading them, rendering them safely.

A template is one ``.j2`` file: front matter (see :mod:`react_text.prompting.front_matter`),
then the prompt up to and including the label that opens the model's first turn.
Few-shot examples are data (``prompts/examples/<set>.json``, read by
:mod:`react_text.prompting.example_sets`), written out in the template's dialect, so one
example set serves every style. Users add templates by dropping files in a folder
they name (argument ``search_paths`` or env var ``REACT_TEXT_PROMPTS``); those
folders shadow the built-in ones.

Templates are untrusted text, so they compile and render in
:mod:`react_text.prompting.sandbox`, within a :class:`RenderLimits` budget: a broken or
hostile template gets a :class:`TemplateError` naming its file and line, never a
traceback, an escape, or a hung process. What a template may call lives in
:mod:`react_text.prompting.template_env`; this module puts the parts together and
names the file in errors.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, Union

from ..protocol.dialects import dialect_named
from ..protocol.dialects.base import Dialect
from .episodes import Episode, ExampleStep, choose_episodes, question_language
from .example_sets import coerce_episodes, find_examples
from .front_matter import FrontMatter, FrontMatterError, read_front_matter
from .render_budget import RenderLimits
from .sandbox import SandboxError, compile_template, render_limited
from .template_env import environment
from .tool_views import ToolsLike, describe_tools

__all__ = [
    "Episode", "ExampleStep", "RenderLimits", "Template", "TemplateError", "as_template", "builtin_folder",
    "list_templates", "load_examples", "load_template", "template_folders",
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
    follows_question_language: bool = field(default=False, compare=False)
    """True when the source words its instructions by ``question_language`` (the built-ins do), so the
    prompt speaks the question's language rather than the template's own; read once, at load."""
    _compiled: Any = field(default=None, repr=False, compare=False)

    @property
    def style(self) -> Dialect:
        """The dialect (protocol style) the template is written in; ``dialect`` is its name."""
        return dialect_named(self.dialect)

    def turn_prefix(self, n: int = 1) -> str:
        """The label that opens the model's turn ``n`` (``Thought:``, ``Thought 2:``, ``思考：``)."""
        return self.style.thought.format(n=n)

    def observation(self, text: str, n: int) -> str:
        """The exact text appended after the model's (trimmed) turn ``n``.

        It ends with the label of turn ``n + 1``, so the next prompt is the
        previous prompt plus the turn plus this: only appends, which is what
        keeps llama.cpp's prefix cache valid. Trailing whitespace of ``text``
        is dropped (a blank line before the label would change the format).
        """
        body = self.style.write_observation(text.rstrip(), n)
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
            return tuple(coerce_episodes(examples, "<examples argument>"))
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


# --- loading a file ----------------------------------------------------------------------


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


@functools.lru_cache(maxsize=64)
def _read_examples(path: str, mtime_ns: int, size: int) -> tuple[Episode, ...]:
    text = _read_text(Path(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TemplateError(f"bad JSON in examples: {exc.msg}", path, exc.lineno) from None
    except RecursionError:
        raise TemplateError("bad JSON in examples: nested too deeply", path) from None
    try:
        return tuple(coerce_episodes(data, "examples"))
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


def _load_file(path: Path, folders: Sequence[Path]) -> Template:
    text = _read_text(path)
    try:
        front = read_front_matter(text, path.stem)
    except FrontMatterError as exc:
        raise TemplateError(exc.reason, path, exc.line) from None
    episodes, libraries = _example_sets(front, path, folders)
    return Template(
        name=front.name,
        dialect=front.dialect.name,
        language=front.language,
        stop=front.stop,
        path=path,
        description=front.description,
        examples=front.examples,
        episodes=episodes,
        libraries=libraries,
        source=text,
        follows_question_language="question_language" in text,
        _compiled=_compile(text, path),
    )


def _example_sets(
    front: FrontMatter, path: Path, folders: Sequence[Path]
) -> tuple[tuple[Episode, ...], dict[str, tuple[Episode, ...]]]:
    """The template's own episodes, and, when it uses the default set, the built-in sets by language."""
    episodes: tuple[Episode, ...] = ()
    if front.examples.lower() != _NO_EXAMPLES:
        found = find_examples(front.examples, path, folders)
        if found is None:
            raise TemplateError(
                f"no example set {front.examples!r} (looked for examples/{front.examples}.json beside the "
                f"template and in the template folders); use 'examples: none' for zero-shot",
                path,
                front.examples_line,
            )
        episodes = load_examples(found)
    libraries = {}
    if front.examples == front.language:
        for lang in _LIBRARY_LANGUAGES:
            other = find_examples(lang, path, folders)
            if other is not None:
                libraries[lang] = load_examples(other)
    return episodes, libraries


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


def as_template(template: Template | str | os.PathLike[str] | None, default: str = "classic") -> Template:
    """``template`` itself, or the template it names (a name or a path; None means ``default``): the one
    place where callers that take either turn a name into a :class:`Template`."""
    if template is None or isinstance(template, (str, os.PathLike)):
        return load_template(str(template or default))
    return template


# --- compiling and rendering in the sandbox ----------------------------------------


@functools.lru_cache(maxsize=64)
def _compile(source: str, path: Path) -> Any:
    """Parse, instrument and compile; cached by text, since a loop may load a template per run."""
    try:
        return compile_template(environment(), source, path.name, str(path))
    except SandboxError as exc:
        raise TemplateError(exc.reason, path, exc.line) from None


def _render_guarded(compiled: Any, context: dict[str, Any], path: Path, limits: RenderLimits) -> str:
    if compiled is None:
        raise TemplateError("template was not compiled (use load_template)", path)
    try:
        return render_limited(compiled, context, str(path), limits)
    except SandboxError as exc:
        raise TemplateError(exc.reason, path, exc.line) from None
