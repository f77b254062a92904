"""Task suites for compare: loading, validating and listing them, and judging
an answer against its task.

The shipped suites and their search corpus live in the top-level ``suites/``
folder, installed as the data package ``react_text.suites``; the rule for each
match kind lives in ``react_text.eval.answers``, which knows nothing of tasks.
"""

from __future__ import annotations

import atexit
import contextlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Union

import regex

from react_text.eval.answers import MATCH_KINDS, answer_matches, parse_tolerance
from react_text.eval.splits import SPLITS
from react_text.eval.suite_tools import SUITE_TOOLS

_DATA_PACKAGE = "react_text.suites"

__all__ = [
    "BUILTIN_TOOLS", "Suite", "SuiteError", "SuiteProblem", "Task", "builtin_corpus_dir",
    "list_suites", "load_suite", "match_answer", "parse_suite",
]

BUILTIN_TOOLS: frozenset[str] = frozenset({"calculator", "search", "current_time"}) | frozenset(SUITE_TOOLS)
"""Tool names a task may list when no other set is given to ``load_suite``: the
built-in tools and the ``tools`` suite's own (``react_text.eval.suite_tools``)."""

SuiteSpec = Union[str, Path]

_ID = regex.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
_LANG = regex.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
_REQUIRED = ("id", "question", "match", "tools", "lang", "category")
_OPTIONAL = ("expected", "tolerance", "note", "check", "evidence", "absent", "calls", "split")


@dataclass(frozen=True)
class Task:
    """One question of a suite and how to judge its answer.

    ``expected`` is a number for ``number``, a string for ``exact``,
    ``contains`` and ``regex``, a tuple of strings for ``one_of`` and None for
    ``refusal``. ``check``, ``evidence`` and ``absent`` record how the expected
    value was derived, for the suite's integrity tests; the agent never sees
    them, but the number rule reads ``evidence`` to know which values an
    answer may restate. ``source`` and ``line`` say where the task was read.
    """

    id: str
    question: str
    expected: Any
    match: str
    tools: tuple[str, ...]
    lang: str
    category: str
    tolerance: float | str | None = None
    note: str | None = None
    check: str | None = None
    evidence: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    calls: tuple[tuple[str, Any], ...] | None = None
    """The tool calls a right first turn makes, as (tool, arguments) pairs; ``()``
    when no offered tool fits. Read by the function-calling benchmark."""
    split: str | None = None  # "dev" or "test" (react_text.eval.splits); None when the suite gives none
    source: str = ""
    line: int = 0


def match_answer(task: Task, answer: str | None) -> bool:
    """Whether ``answer`` is right for ``task`` under the task's match kind;
    numbers from the task's question and evidence do not decide a number."""
    return answer_matches(task.match, task.expected, answer, tolerance=task.tolerance,
                          context=(task.question, *task.evidence))


@dataclass(frozen=True)
class Suite:
    """Tasks loaded from one or more suite files, in file order.

    ``corpus_dir`` is the folder the ``search`` tool should read for these
    tasks: the shipped corpus for built-in suites, a ``corpus/`` folder beside
    a user's suite file, or None.
    """

    name: str
    tasks: tuple[Task, ...]
    sources: tuple[str, ...]
    corpus_dir: Path | None = None

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self):
        return iter(self.tasks)

    def task(self, task_id: str) -> Task:
        """The task with this id (KeyError if none)."""
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)


@dataclass(frozen=True)
class SuiteProblem:
    """One reason a suite was refused; ``line`` is 0 for file-level problems."""

    source: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.message}" if self.line else f"{self.source}: {self.message}"


class SuiteError(ValueError):
    """A suite that cannot be used; ``problems`` lists every reason found."""

    def __init__(self, problems: Iterable[SuiteProblem] | str):
        if isinstance(problems, str):
            problems = [SuiteProblem("suite", 0, problems)]
        self.problems: tuple[SuiteProblem, ...] = tuple(problems)
        count = len(self.problems)
        lines = "\n".join(f"  {p}" for p in self.problems)
        super().__init__(f"suite refused before any work started ({count} problem{'s' if count != 1 else ''}):\n{lines}")


# --- finding suites ------------------------------------------------------------

def list_suites() -> list[str]:
    """Names of the built-in suites, sorted."""
    root = resources.files(_DATA_PACKAGE)
    return sorted(entry.name[: -len(".jsonl")] for entry in root.iterdir() if entry.name.endswith(".jsonl"))


_corpus_files = contextlib.ExitStack()
atexit.register(_corpus_files.close)


def builtin_corpus_dir() -> Path:
    """Folder of the shipped corpus (``suites/corpus``) on the filesystem,
    which is where the ``search`` tool needs it even if the package is
    imported from an archive."""
    corpus = resources.files(_DATA_PACKAGE) / "corpus"
    if isinstance(corpus, Path):
        return corpus
    return Path(_corpus_files.enter_context(resources.as_file(corpus)))  # pragma: no cover - zip installs


def load_suite(
    name_or_path: SuiteSpec | Iterable[SuiteSpec],
    *,
    known_tools: Iterable[str] | None = BUILTIN_TOOLS,
) -> Suite:
    """Load built-in suites by name (``"lookup"``), ``"all"``, suite files by
    path, or several of these at once (a list), as one Suite.

    Every problem in every file is collected first; if there is any, nothing
    is returned and SuiteError lists them all. ``known_tools`` is the set of
    tool names a task may list (None accepts any name).
    """
    specs = [name_or_path] if isinstance(name_or_path, (str, Path)) else list(name_or_path)
    if not specs:
        raise SuiteError("no suite given; built-in suites: " + ", ".join(list_suites()))
    builtin = set(list_suites())
    sources: list[tuple[str, str, Path | None]] = []  # (label, text, corpus dir)
    problems: list[SuiteProblem] = []
    seen: set[str] = set()
    for spec in specs:
        for label, read, corpus in _resolve(spec, builtin, problems):
            if label in seen:
                continue
            seen.add(label)
            try:
                sources.append((label, read(), corpus))
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(SuiteProblem(label, 0, f"cannot read the file: {exc}"))
    tasks: list[Task] = []
    for label, text, _ in sources:
        parsed, found = _parse(text, label, known_tools)
        tasks.extend(parsed)
        problems.extend(found)
    problems.extend(_duplicate_ids(tasks))
    corpora = {corpus for _, _, corpus in sources if corpus is not None}
    if len(corpora) > 1:
        problems.append(SuiteProblem("suite", 0, "the files use different corpus folders ("
                                     + ", ".join(sorted(map(str, corpora))) + "); load them separately"))
    if problems:
        raise SuiteError(problems)
    name = "+".join(str(s) if not isinstance(s, Path) else s.stem for s in specs)
    return Suite(name, tuple(tasks), tuple(label for label, _, _ in sources), next(iter(corpora), None))


def parse_suite(text: str, source: str = "<suite>", *, known_tools: Iterable[str] | None = BUILTIN_TOOLS) -> Suite:
    """A Suite from JSONL text (no corpus); SuiteError lists every bad line."""
    tasks, problems = _parse(text, source, known_tools)
    problems.extend(_duplicate_ids(tasks))
    if problems:
        raise SuiteError(problems)
    return Suite(source, tuple(tasks), (source,))


def _resolve(spec: SuiteSpec, builtin: set[str], problems: list[SuiteProblem]):
    """(label, reader, corpus dir) for each file a spec names; a spec that
    names nothing adds a problem instead."""
    root = resources.files(_DATA_PACKAGE)
    if isinstance(spec, str) and spec in builtin | {"all"} | {f"{n}.jsonl" for n in builtin}:
        names = sorted(builtin) if spec == "all" else [spec.removesuffix(".jsonl")]
        corpus = builtin_corpus_dir()
        return [(name, (root / f"{name}.jsonl").read_text, corpus) for name in names]
    path = Path(spec).expanduser()
    if path.is_file():
        beside = path.parent / "corpus"
        return [(str(path), lambda: path.read_text(encoding="utf-8"), beside if beside.is_dir() else None)]
    if path.is_dir():
        problems.append(SuiteProblem(str(spec), 0, "is a folder; name a .jsonl suite file"))
    elif isinstance(spec, str) and "/" not in spec and "\\" not in spec and not spec.endswith(".jsonl"):
        problems.append(SuiteProblem(spec, 0, "no built-in suite or file of that name; built-in suites: "
                                     + ", ".join(sorted(builtin)) + ", all"))
    else:
        problems.append(SuiteProblem(str(spec), 0, "no such file"))
    return []


# --- validating lines ------------------------------------------------------------

def _parse(text: str, source: str, known_tools: Iterable[str] | None) -> tuple[list[Task], list[SuiteProblem]]:
    known = None if known_tools is None else frozenset(known_tools)
    tasks: list[Task] = []
    problems: list[SuiteProblem] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(SuiteProblem(source, number, f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        reasons = _check_record(record, known)
        if reasons:
            problems.extend(SuiteProblem(source, number, reason) for reason in reasons)
        else:
            tasks.append(_task(record, source, number))
    if not tasks and not problems:
        problems.append(SuiteProblem(source, 0, "holds no tasks"))
    return tasks, problems


def _check_record(record: Any, known_tools: frozenset[str] | None) -> list[str]:
    """Every reason this JSON value is not a valid task (empty when valid)."""
    if not isinstance(record, dict):
        return [f"a task must be a JSON object, not {type(record).__name__}"]
    reasons = [f"missing field {key!r}" for key in _REQUIRED if key not in record]
    unknown = sorted(set(record) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        reasons.append(f"unknown field(s) {', '.join(map(repr, unknown))}; allowed: "
                       + ", ".join(_REQUIRED + _OPTIONAL))
    if "id" in record and not (isinstance(record["id"], str) and _ID.fullmatch(record["id"])):
        reasons.append("'id' must be a string of letters, digits, '_', '.', ':' or '-'")
    for key in ("question", "category"):
        if key in record and not _nonempty_str(record[key]):
            reasons.append(f"{key!r} must be a non-empty string")
    if "lang" in record and not (isinstance(record["lang"], str) and _LANG.fullmatch(record["lang"])):
        reasons.append("'lang' must be a language tag such as \"en\" or \"zh\"")
    if "tools" in record:
        reasons.extend(_check_tools(record["tools"], known_tools))
    for key in ("note", "check"):
        if record.get(key) is not None and not _nonempty_str(record[key]):
            reasons.append(f"{key!r} must be a non-empty string when given")
    for key in ("evidence", "absent"):
        if key in record and not (isinstance(record[key], list) and all(_nonempty_str(s) for s in record[key])):
            reasons.append(f"{key!r} must be a list of non-empty strings")
    if "match" in record:
        reasons.extend(_check_expected(record))
    if "split" in record and record["split"] not in SPLITS:
        reasons.append(f"'split' must be one of {', '.join(map(repr, SPLITS))}")
    if "calls" in record and not _valid_calls(record["calls"]):
        reasons.append("'calls' must be a list of {\"tool\": name, \"args\": {...}} objects")
    return reasons


def _valid_calls(calls: Any) -> bool:
    return isinstance(calls, list) and all(
        isinstance(c, dict) and _nonempty_str(c.get("tool")) and isinstance(c.get("args", {}), dict)
        and set(c) <= {"tool", "args"}
        for c in calls
    )


def _check_tools(tools: Any, known_tools: frozenset[str] | None) -> list[str]:
    if not isinstance(tools, list) or not all(_nonempty_str(t) for t in tools):
        return ["'tools' must be a list of tool names"]
    if known_tools is None:
        return []
    unknown = [t for t in tools if t not in known_tools]
    if unknown:
        return [f"unknown tool(s) {', '.join(map(repr, unknown))}; known tools: {', '.join(sorted(known_tools))}"]
    return []


def _check_expected(record: dict) -> list[str]:
    kind, expected = record["match"], record.get("expected")
    if kind not in MATCH_KINDS:
        return [f"'match' is {kind!r}; expected one of {', '.join(MATCH_KINDS)}"]
    reasons = []
    if "tolerance" in record and kind != "number":
        reasons.append("'tolerance' only applies to match \"number\"")
    if kind == "refusal":
        if expected is not None:
            reasons.append("match \"refusal\" takes no 'expected' (any answer that says it cannot be known passes)")
        return reasons
    if "expected" not in record:
        return reasons + [f"missing field 'expected' (required for match {kind!r})"]
    if kind == "number":
        if not _is_number(expected):
            reasons.append(f"match \"number\" needs a numeric 'expected', got {expected!r}")
        if "tolerance" in record:
            try:
                parse_tolerance(record["tolerance"])
            except ValueError as exc:
                reasons.append(str(exc))
    elif kind == "one_of":
        if not (isinstance(expected, list) and expected and all(_nonempty_str(e) for e in expected)):
            reasons.append("match \"one_of\" needs 'expected' to be a non-empty list of non-empty strings")
    elif not _nonempty_str(expected):
        reasons.append(f"match {kind!r} needs 'expected' to be a non-empty string")
    elif kind == "regex":
        try:
            regex.compile(expected)
        except regex.error as exc:
            reasons.append(f"'expected' is not a valid regular expression: {exc}")
    return reasons


def _duplicate_ids(tasks: list[Task]) -> list[SuiteProblem]:
    first: dict[str, Task] = {}
    problems = []
    for task in tasks:
        if task.id in first:
            earlier = first[task.id]
            problems.append(SuiteProblem(task.source, task.line,
                                         f"duplicate id {task.id!r} (first used at {earlier.source}:{earlier.line})"))
        else:
            first[task.id] = task
    return problems


def _task(record: dict, source: str, line: int) -> Task:
    expected = record.get("expected")
    if record["match"] == "one_of":
        expected = tuple(expected)
    elif record["match"] == "number" and isinstance(expected, str):
        expected = float(expected.replace(",", ""))
    return Task(
        id=record["id"],
        question=record["question"],
        expected=expected,
        match=record["match"],
        tools=tuple(record["tools"]),
        lang=record["lang"],
        category=record["category"],
        tolerance=record.get("tolerance"),
        note=record.get("note"),
        check=record.get("check"),
        evidence=tuple(record.get("evidence", ())),
        absent=tuple(record.get("absent", ())),
        calls=None if "calls" not in record else tuple((c["tool"], c.get("args", {})) for c in record["calls"]),
        split=record.get("split"),
        source=source,
        line=line,
    )


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return value == value and abs(value) != float("inf")
    if isinstance(value, str):
        try:
            number = float(value.replace(",", ""))
        except ValueError:
            return False
        return number == number and abs(number) != float("inf")
    return False
