"""What a compare runs: its spec, every name resolved before any work, and the
cells a results folder still lacks.

Everything here is decided before the first model turn, so a missing model,
template, suite or corpus stops the compare while nothing has run, and a
resumed compare knows which (model, template, constrain, task) cells are done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ..backends.pool import parse_servers
from ..catalog import resolve_model
from ..prompting.templates import Template, TemplateError, load_template
from ..tools.builtins import default_tools
from ..tools.search import RANKINGS
from ..tools.functions import FunctionsError, load_functions
from ..tools.spec import Tool
from .baselines import is_baseline
from .bfcl.cells import PLAIN
from .bfcl.data import BfclItem
from .bfcl.suite import bfcl_suite, is_bfcl
from .records import record_key
from .splits import in_selection
from .suite_tools import SUITE_TOOLS
from .suites import BUILTIN_TOOLS, Suite, Task, load_suite
from .toolbox import TOOLBOX, toolbox_tools


class CompareError(RuntimeError):
    """The compare cannot start (missing model, template or suite); nothing was run."""


@dataclass(frozen=True)
class CompareSpec:
    """What to run. Names are resolved before any work starts."""

    templates: tuple[str, ...]
    models: tuple[str, ...]
    suite: str
    out_dir: Path
    constrain: tuple[bool, ...] = (False,)
    backend: str = "llama"  # "llama" (in process) or "http"
    urls: tuple[str, ...] = ()
    api: str = "openai"
    concurrency: int = 1
    max_steps: int = 6
    max_turn_tokens: int = 192
    timeout_s: float = 120.0
    seed: int = 0
    limit: int | None = None
    """Run only the first ``limit`` tasks of the suite (for quick checks)."""
    per_group: int | None = None
    """Run only the first ``per_group`` tasks of each (category, language)
    group: a stratified sample that keeps every kind of task in the report
    when the whole suite would take too long. Resuming with a larger value (or
    none) adds the missing tasks and keeps what was run."""
    split: str = "all"
    """Run only the tasks of this split (``dev``, ``test``) or every task (``all``); see ``splits``."""
    command: str | None = None
    extra: dict = field(default_factory=dict)
    parallel_tools: int = 1
    """Run every action of a turn, this many at once (1: only the first action runs)."""
    tool_cache: str | None = None
    """Folder of the persistent cache for cacheable tools (None: no cache across runs)."""
    context_tokens: int | None = None
    """The context window each prompt must fit (None: the backend's, when it tells)."""
    tool_retrieval: bool = False
    """Show each task only its best-matching tools plus ``list_tools`` (``Agent(tool_retrieval=True)``)."""
    max_shown_tools: int = 8
    functions: tuple[str, ...] = ()
    """Python files whose tools (see ``react_text.tools.functions``) every task is offered besides its own."""
    corpus: str | None = None
    """A folder the search tool reads instead of the suite's own corpus."""
    template_dirs: tuple[str, ...] = ()
    """Folders searched for templates before ``$REACT_TEXT_PROMPTS`` and the built-ins."""
    redact: tuple[str, ...] | bool | None = None
    """What the traces mask, as ``Agent(redact=...)``: None the default secrets, False nothing, names more."""
    top_k: int = 3
    """Search results the ``rag`` baselines put in their prompt (``react_text.eval.baselines``)."""
    search_ranking: str = RANKINGS[0]
    """How the search tool ranks passages (``react_text.tools.passages.RANKINGS``; ``baseline`` is the old one)."""


@dataclass(frozen=True)
class Prepared:
    """The spec's names resolved: tasks to run, loaded templates, model files, corpus and user tools."""

    tasks: tuple[Task, ...]
    templates: dict[str, Template | str]
    model_paths: dict[str, Path | None]
    corpus: Path | None
    functions: tuple[Tool, ...] = ()
    bfcl: Mapping[str, BfclItem] = field(default_factory=dict)
    """BFCL's items by task id, when the suite is ``bfcl:...`` (``react_text.eval.bfcl``)."""


def prepare(spec: CompareSpec) -> Prepared:
    """Resolve every name up front: a missing model or template stops before any work."""
    problems: list[str] = []
    suite, bfcl = _load_suite(spec)
    if bfcl:
        problems += [f"template {name!r}: a BFCL compare runs templates and the {PLAIN!r} baseline only"
                     for name in spec.templates if is_baseline(name) and name != PLAIN]
    templates = {}
    for name in (t for t in spec.templates if not is_baseline(t)):
        try:
            base = template_checks(name)[0]
            # "native": the model's own chat template with tools, found per model when the run starts
            templates[name] = base if base == "native" else load_template(base, spec.template_dirs)
        except TemplateError as exc:
            problems.append(f"template {name!r}: {exc}")
    functions = _load_functions(spec, problems)
    corpus = suite.corpus_dir
    if spec.corpus:
        corpus = Path(spec.corpus).expanduser()
        if not corpus.is_dir():
            problems.append(f"--corpus {spec.corpus}: no such folder")
    model_paths = _model_paths(spec, problems)
    tasks = _sample(suite, spec)
    searching = [t.id for t in tasks if "search" in t.tools]
    if corpus is None and searching and not any(f.name == "search" for f in functions):
        problems.append(f"{len(searching)} task(s) ({searching[0]}, …) use the search tool, which needs documents: "
                        "put a corpus/ folder beside the suite file or pass --corpus DIR")
    if problems:
        raise CompareError("nothing was run:\n- " + "\n- ".join(problems))
    return Prepared(tasks=tasks, templates=templates, model_paths=model_paths, corpus=corpus, functions=functions,
                    bfcl=bfcl)


CHECKS_LABEL = " checks="
"""How a cell's label names the checks it runs with: ``classic checks=-facts``; a bare template name runs
with the default checks (``Agent``'s). Labels are relative to the defaults of the code that ran them:
before the defaults were measured a bare name meant all 22 (``results/checks/`` was made then)."""


def template_checks(label: str) -> tuple[str, str]:
    """(template, checks spec) of a cell label: ``("classic", "-rounding")``, ``("classic", "default")``."""
    name, _, checks = label.partition(CHECKS_LABEL)
    return name, checks or "default"


def _load_functions(spec: CompareSpec, problems: list[str]) -> tuple[Tool, ...]:
    loaded: list[Tool] = []
    for file in spec.functions:
        try:
            loaded += load_functions(file)
        except FunctionsError as exc:
            problems.append(str(exc))
    return tuple(loaded)


def _model_paths(spec: CompareSpec, problems: list[str]) -> dict[str, Path | None]:
    """Each model's GGUF file (in process), or None per model name (over HTTP, the server has it)."""
    model_paths: dict[str, Path | None] = {}
    if spec.backend == "llama":
        for name in spec.models:
            try:
                model_paths[name] = resolve_model(name)
            except Exception as exc:
                problems.append(f"model {name!r}: {exc}")
        if spec.concurrency > 1:
            problems.append("--concurrency > 1 needs --backend http: one in-process model runs one task at a time")
        return model_paths
    if not spec.urls:
        problems.append("--backend http needs at least one --url")
    try:
        parse_servers(spec.urls, spec.concurrency)
    except ValueError as exc:
        problems.append(str(exc))
    return {name: None for name in spec.models}


def _load_suite(spec: CompareSpec) -> tuple[Suite, Mapping[str, BfclItem]]:
    """The suite's tasks, and BFCL's items by task id when the suite is ``bfcl:...`` (else none)."""
    try:
        if is_bfcl(spec.suite):
            return bfcl_suite(spec.suite)
        return load_suite(spec.suite.split(",") if "," in spec.suite else spec.suite,
                          known_tools=BUILTIN_TOOLS | {TOOLBOX}), {}
    except Exception as exc:  # SuiteError and file errors alike: report, run nothing
        raise CompareError(f"suite {spec.suite!r}: {exc}") from exc


def _sample(suite: Suite, spec: CompareSpec) -> tuple[Task, ...]:
    try:
        chosen = [t for t in suite.tasks if in_selection(t.split, spec.split)]
    except ValueError as exc:
        raise CompareError(str(exc)) from exc
    if not chosen:
        raise CompareError(f"suite {spec.suite!r} has no task in the {spec.split!r} split "
                           "(a task's \"split\" field says which; use --split all for a suite without one)")
    tasks = sample_tasks(chosen, per_group=spec.per_group)
    return tasks[: spec.limit] if spec.limit else tasks


def planned_task_ids(spec: CompareSpec) -> list[str]:
    """The ids of the tasks ``spec`` runs, without resolving models or templates (for ``--report-only``)."""
    return [t.id for t in _sample(_load_suite(spec)[0], spec)]


def sample_tasks(tasks: Sequence, *, per_group: int | None) -> tuple:
    """The first ``per_group`` tasks of every (category, language) group, in suite order."""
    if not per_group:
        return tuple(tasks)
    taken: dict[tuple[str, str], int] = {}
    kept = []
    for task in tasks:
        group = (task.category, task.lang)
        if taken.get(group, 0) < per_group:
            taken[group] = taken.get(group, 0) + 1
            kept.append(task)
    return tuple(kept)


def task_tools(task: Task, corpus: Path | None, functions: Sequence[Tool] = (), *,
               search_ranking: str = RANKINGS[0]) -> list[Tool]:
    """The tools a task lists (``toolbox`` stands for every tool of ``react_text.eval.toolbox``), then the
    user's ``--functions`` (a same-named one replaces a built-in)."""
    available = {**SUITE_TOOLS, **{t.name: t for t in default_tools(corpus_dir=corpus, search_ranking=search_ranking)}}
    own = {t.name for t in functions}
    tools: dict[str, Tool] = {}
    for name in task.tools:
        for t in toolbox_tools() if name == TOOLBOX else [available.get(name)]:
            if t is not None and t.name not in own:
                tools.setdefault(t.name, t)
    return list(tools.values()) + list(functions)


def select(records: Iterable[Mapping], spec: CompareSpec, task_ids: Iterable[str] | None = None) -> list[Mapping]:
    """The records of ``spec``'s cells (and tasks) only: a results folder may hold more."""
    wanted = set(task_ids) if task_ids is not None else None
    return [
        r for r in records
        if r["model"] in spec.models and r["template"] in spec.templates
        and bool(r.get("constrain")) in modes(spec, r["template"])
        and (wanted is None or r["task_id"] in wanted)
    ]


def modes(spec: CompareSpec, template: str) -> tuple[bool, ...]:
    """The grammar settings ``template`` runs under: a baseline's one call per step takes no grammar."""
    return (False,) if is_baseline(template) else spec.constrain


Cell = tuple[str, str, bool, Task]
"""(model, template name, constrain, task): one task of one table cell."""


@dataclass(frozen=True)
class CellPlan:
    """Where a compare resumes: the cells still to run and what the results file already holds."""

    todo: tuple[Cell, ...]
    """Cells with no record yet, model by model (one in-process model is loaded at a time)."""
    kept: list[Mapping]
    """The finished records of the spec's cells and tasks, returned with the new ones."""
    cell_totals: dict[tuple[str, str, bool], int]
    """Tasks per (model, template, constrain)."""
    cell_done: dict[tuple[str, str, bool], int]
    """Tasks already recorded per (model, template, constrain): where each cell's count starts."""

    @property
    def total(self) -> int:
        return len(self.todo) + len(self.kept)


def plan_cells(spec: CompareSpec, tasks: Sequence, existing: Sequence[Mapping]) -> CellPlan:
    """The cells of ``spec`` over ``tasks`` that ``existing`` (the results file's records) lacks."""
    done_keys = {record_key(r) for r in existing}
    todo = tuple(
        (model, template, constrain, task)
        for model in spec.models
        for template in spec.templates
        for constrain in modes(spec, template)
        for task in tasks
        if (model, template, constrain, task.id) not in done_keys
    )
    task_ids = {t.id for t in tasks}
    cell_totals = {(m, t, c): len(tasks) for m in spec.models for t in spec.templates for c in modes(spec, t)}
    cell_done = {k: sum(1 for r in existing if r["task_id"] in task_ids
                        and (r["model"], r["template"], bool(r.get("constrain"))) == k)
                 for k in cell_totals}
    return CellPlan(todo=todo, kept=select(existing, spec, task_ids), cell_totals=cell_totals, cell_done=cell_done)
