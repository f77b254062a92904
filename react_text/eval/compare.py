"""Run the same suite across templates and models, resumably, and report.

Every (model, template, task) cell result is appended to ``results.jsonl`` the
moment it finishes, so an interrupted compare picks up where it stopped and
never repeats finished work. Each task keeps its own trace for drill-down.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence, TextIO

from . import metrics, report
from ..backends.build import build_backend
from ..backends.pool import Server, TaskQueue, WatchedBackend, parse_servers


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


class PromptError(RuntimeError):
    """The prompt of a task could not be built: recorded as a crashed task, and the compare goes on."""


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "_"


def record_key(record: Mapping) -> tuple[str, str, bool, str]:
    return (record["model"], record["template"], bool(record.get("constrain", False)), record["task_id"])


def load_results(path: Path) -> list[dict]:
    """Read a results file, skipping a torn last line (a crash mid-write)."""
    if not path.exists():
        return []
    records = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


class ResultsFile:
    """Append-only, flushed per record, safe to share between worker threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._fh = path.open("a", encoding="utf-8")

    def append(self, record: Mapping) -> None:
        from ..trace import json_text

        line = json_text(record)  # a lone surrogate in an answer must not lose the record
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


class Progress:
    """A progress line with per-cell and overall counts and an ETA.

    Redrawn in place on a terminal; one plain line per finished task when piped,
    so logs stay readable.
    """

    def __init__(self, total: int, done: int, stream: TextIO = sys.stderr) -> None:
        self.total, self.done, self.stream = total, done, stream
        self.started = time.monotonic()
        self.ran = 0
        self.tty = stream.isatty()
        self._lock = threading.Lock()

    def eta(self) -> str:
        if not self.ran:
            return "--:--"
        remaining = (time.monotonic() - self.started) / self.ran * (self.total - self.done)
        m, s = divmod(int(remaining), 60)
        h, m = divmod(m, 60)
        return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"

    def task_done(self, cell: str, cell_done: int, cell_total: int, task_id: str, correct: bool) -> None:
        with self._lock:
            self.done += 1
            self.ran += 1
            width = 24
            filled = int(width * self.done / max(1, self.total))
            bar = "#" * filled + "." * (width - filled)
            line = (f"[{bar}] {self.done}/{self.total} ETA {self.eta()} | {cell} {cell_done}/{cell_total} "
                    f"{task_id} {'ok' if correct else 'x'}")
            if self.tty:
                self.stream.write("\r\x1b[2K" + line)
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def record_from_run(task, result, *, model: str, template: str, constrain: bool, trace: Path,
                    wall_seconds: float) -> dict:
    """Flatten a ``RunResult`` into the per-task record the metrics read."""
    from .suites import match_answer

    turns = len(result.steps)
    format_errors = sum(1 for s in result.steps if s.step is not None and s.step.error is not None)
    invalid = sum(
        1
        for s in result.steps
        if (s.step is not None and s.step.error is not None and s.step.error.code in ("unknown_tool", "bad_arguments"))
        or (s.observation is not None and s.observation.code in ("bad_arguments", "unknown_tool"))
    )
    actions = sum(len(s.step.actions) for s in result.steps if s.step is not None) + sum(
        1 for s in result.steps if s.step is not None and s.step.error is not None
        and s.step.error.code in ("unknown_tool", "bad_arguments")
    )
    answer = result.answer if result.status == "answered" else ""
    totals = result.totals
    return {
        "model": model,
        "template": template,
        "constrain": constrain,
        "task_id": task.id,
        "category": task.category,
        "lang": task.lang,
        "question": task.question,
        "expected": task.expected,
        "answer": result.answer,
        "status": result.status,
        "correct": result.status == "answered" and match_answer(task, answer),
        "steps": result.totals.steps,  # model turns, as the trace's run_end and `replay` count them
        "turns": turns,
        "format_errors": format_errors,
        "actions": actions,
        "invalid_tool_calls": invalid,
        "prompt_tokens": totals.prompt_tokens,
        "evaluated_tokens": totals.evaluated_tokens,
        "completion_tokens": totals.completion_tokens,
        "wall_seconds": round(wall_seconds, 3),
        "trace": str(trace),
    }


def _example_value(agent, task, result) -> str | None:
    """The number the answer copied from a shown few-shot episode, if any (see ``guards``)."""
    from ..prompting.episodes import episode_values
    from ..protocol.guards import copied_example_value

    if result.status != "answered":
        return None
    shown = agent.template.shown_episodes(list(agent.tools.values()), task.question, agent.examples)
    seen = [s.observation_text or "" for s in result.steps]
    return copied_example_value(result.answer, episode_values(shown), (task.question, *seen))


def crash_record(task, error: BaseException, *, model: str, template: str, constrain: bool,
                 wall_seconds: float) -> dict:
    return {
        "model": model, "template": template, "constrain": constrain, "task_id": task.id,
        "category": task.category, "lang": task.lang, "question": task.question, "expected": task.expected,
        "answer": "", "status": "crashed", "correct": False, "error": f"{type(error).__name__}: {error}",
        "steps": 0, "turns": 0, "format_errors": 0, "actions": 0, "invalid_tool_calls": 0,
        "prompt_tokens": 0, "evaluated_tokens": 0, "completion_tokens": 0, "wall_seconds": round(wall_seconds, 3),
    }


@dataclass(frozen=True)
class _Prepared:
    tasks: tuple
    templates: dict
    model_paths: dict
    corpus: Path | None
    functions: tuple = ()


def prepare(spec: CompareSpec) -> _Prepared:
    """Resolve every name up front: a missing model or template stops before any work."""
    from ..prompting.templates import TemplateError, load_template
    from .toolbox import TOOLBOX

    problems = []
    suite = _load_suite(spec)
    templates = {}
    for name in spec.templates:
        try:
            templates[name] = load_template(name, spec.template_dirs)
        except TemplateError as exc:
            problems.append(f"template {name!r}: {exc}")
    functions: tuple = ()
    if spec.functions:
        from ..tools.functions import FunctionsError, load_functions

        loaded = []
        for file in spec.functions:
            try:
                loaded += load_functions(file)
            except FunctionsError as exc:
                problems.append(str(exc))
        functions = tuple(loaded)
    corpus = suite.corpus_dir
    if spec.corpus:
        corpus = Path(spec.corpus).expanduser()
        if not corpus.is_dir():
            problems.append(f"--corpus {spec.corpus}: no such folder")
    model_paths: dict[str, Path | None] = {}
    if spec.backend == "llama":
        from ..catalog import resolve_model

        for name in spec.models:
            try:
                model_paths[name] = resolve_model(name)
            except Exception as exc:
                problems.append(f"model {name!r}: {exc}")
        if spec.concurrency > 1:
            problems.append("--concurrency > 1 needs --backend http: one in-process model runs one task at a time")
    else:
        if not spec.urls:
            problems.append("--backend http needs at least one --url")
        try:
            parse_servers(spec.urls, spec.concurrency)
        except ValueError as exc:
            problems.append(str(exc))
        model_paths = {name: None for name in spec.models}
    if problems:
        raise CompareError("nothing was run:\n- " + "\n- ".join(problems))
    tasks = _sample(suite, spec)
    return _Prepared(tasks=tasks, templates=templates, model_paths=model_paths, corpus=corpus, functions=functions)


def _load_suite(spec: CompareSpec):
    from .suites import BUILTIN_TOOLS, load_suite
    from .toolbox import TOOLBOX

    try:
        return load_suite(spec.suite.split(",") if "," in spec.suite else spec.suite,
                          known_tools=BUILTIN_TOOLS | {TOOLBOX})
    except Exception as exc:  # SuiteError and file errors alike: report, run nothing
        raise CompareError(f"suite {spec.suite!r}: {exc}") from exc


def _sample(suite, spec: CompareSpec) -> tuple:
    tasks = sample_tasks(suite.tasks, per_group=spec.per_group)
    return tasks[: spec.limit] if spec.limit else tasks


def planned_task_ids(spec: CompareSpec) -> list[str]:
    """The ids of the tasks ``spec`` runs, without resolving models or templates (for ``--report-only``)."""
    return [t.id for t in _sample(_load_suite(spec), spec)]


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


def _task_tools(task, corpus: Path | None, functions: Sequence = ()):
    """The tools a task lists (``toolbox`` stands for every tool of ``react_text.eval.toolbox``), then the
    user's ``--functions`` (a same-named one replaces a built-in)."""
    from ..tools.builtins import default_tools
    from .toolbox import TOOLBOX, toolbox_tools

    from .suite_tools import SUITE_TOOLS

    available = {**SUITE_TOOLS, **{t.name: t for t in default_tools(corpus_dir=corpus)}}
    own = {t.name for t in functions}
    tools = {}
    for name in task.tools:
        for t in toolbox_tools() if name == TOOLBOX else [available.get(name)]:
            if t is not None and t.name not in own:
                tools.setdefault(t.name, t)
    return list(tools.values()) + list(functions)


def run_compare(
    spec: CompareSpec,
    *,
    backend_factory: Callable[[str, int], object] | None = None,
    progress_stream: TextIO = sys.stderr,
) -> list[dict]:
    """Run every missing cell of ``spec``; return all records (old and new).

    ``backend_factory(model, worker_index)`` makes a backend; by default an
    in-process llama.cpp model (loaded once per model) or an HTTP client per
    worker. Over HTTP each URL gets its own workers (``URL#N``, else
    ``spec.concurrency``) pulling from one queue; a task whose server dies is
    rerun on another one and recorded once (``react_text.backends.pool``).
    """
    from ..agent.loop import Agent
    from ..agent.state import Limits

    prepared = prepare(spec)
    results_path = spec.out_dir / "results.jsonl"
    existing = load_results(results_path)
    done_keys = {record_key(r) for r in existing}
    plan = [
        (model, template, constrain, task)
        for model in spec.models
        for template in spec.templates
        for constrain in spec.constrain
        for task in prepared.tasks
        if (model, template, constrain, task.id) not in done_keys
    ]
    task_ids = {t.id for t in prepared.tasks}
    total = len(plan) + len(select(existing, spec, task_ids))
    progress = Progress(total=total, done=total - len(plan), stream=progress_stream)
    writer = ResultsFile(results_path)
    limits = Limits(max_steps=spec.max_steps, max_turn_tokens=spec.max_turn_tokens, timeout_s=spec.timeout_s,
                    max_parallel_tools=spec.parallel_tools, context_tokens=spec.context_tokens)
    tool_cache = None
    if spec.tool_cache:
        from ..tools.cache import ToolCache

        tool_cache = ToolCache(spec.tool_cache)
    cell_totals = {(m, t, c): len(prepared.tasks) for m in spec.models for t in spec.templates for c in spec.constrain}
    cell_done = {k: sum(1 for r in existing if r["task_id"] in task_ids
                        and (r["model"], r["template"], bool(r.get("constrain"))) == k)
                 for k in cell_totals}
    counter_lock = threading.Lock()
    servers = _servers(spec)
    slot_urls = [server.url for server in servers for _ in range(server.slots)]
    factory = backend_factory or _default_factory(spec, prepared, slot_urls)
    new_records: list[dict] = []

    def run_one(item, worker: int) -> dict | None:
        """The task's record, or None when its server died under it (the task is not recorded)."""
        model, template_name, constrain, task = item
        trace = spec.out_dir / "traces" / _safe(model) / _safe(template_name + ("+c" if constrain else "")) / (
            _safe(task.id) + ".jsonl")
        trace.parent.mkdir(parents=True, exist_ok=True)
        if trace.exists():
            trace.unlink()  # an unfinished earlier attempt: its result was never recorded
        started = time.monotonic()
        backend = None
        try:
            backend = WatchedBackend(factory(model, worker))
            agent = Agent(
                backend,
                _task_tools(task, prepared.corpus, prepared.functions),
                prepared.templates[template_name],
                limits=limits,
                trace=trace,
                constrain=constrain,
                tool_cache=tool_cache,
                tool_retrieval=spec.tool_retrieval,
                max_shown_tools=spec.max_shown_tools,
            )
            result = agent.run(task.question)
            if result.status == "interrupted":
                raise KeyboardInterrupt
            if result.status == "backend_error" and backend.server_failure is not None and len(servers) > 1:
                return None
            if result.status == "template_error":
                raise PromptError(result.reason)
            record = record_from_run(task, result, model=model, template=template_name, constrain=constrain,
                                     trace=trace, wall_seconds=time.monotonic() - started)
            record["example_value"] = _example_value(agent, task, result)
            if len(servers) > 1:
                record["server"] = slot_urls[worker]
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a crashing task is a recorded failure, not a crashed compare
            record = crash_record(task, exc, model=model, template=template_name, constrain=constrain,
                                  wall_seconds=time.monotonic() - started)
        writer.append(record)
        key = (model, template_name, constrain)
        with counter_lock:
            cell_done[key] += 1
            n = cell_done[key]
            new_records.append(record)
        cell = f"{model}/{template_name}" + ("+c" if constrain else "")
        progress.task_done(cell, n, cell_totals[key], task.id, bool(record["correct"]))
        return record

    queue = TaskQueue(plan, servers)

    def worker_loop(worker: int) -> None:
        url = slot_urls[worker]
        while (item := queue.take(url)) is not None:
            try:
                record = run_one(item, worker)
            except BaseException:
                queue.stop()
                raise
            if record is None:
                queue.failed(item, url)
                return
            queue.finished(item)

    try:
        if len(slot_urls) == 1:
            worker_loop(0)
        else:
            with ThreadPoolExecutor(max_workers=len(slot_urls)) as pool:
                futures = [pool.submit(worker_loop, i) for i in range(len(slot_urls))]
                try:
                    for f in futures:
                        f.result()
                except KeyboardInterrupt:
                    queue.stop()
                    raise
    finally:
        progress.close()
        writer.close()
    if queue.unrun:
        raise CompareError(f"every server failed ({', '.join(sorted(queue.dead))}); {len(queue.unrun)} task(s) "
                           f"were not run and are not in {results_path}: run the same command again to resume")
    return select(existing, spec, task_ids) + new_records


def _servers(spec: CompareSpec) -> tuple[Server, ...]:
    """Where tasks run: each ``--url`` with its parallel slots, or the one in-process model."""
    if spec.backend == "http" and spec.urls:
        return parse_servers(spec.urls, spec.concurrency)
    return (Server("local", spec.concurrency),)


def _default_factory(spec: CompareSpec, prepared: _Prepared, slot_urls: list[str]) -> Callable[[str, int], object]:
    if spec.backend == "http":
        clients: dict[tuple[str, int], object] = {}

        def http_factory(model: str, worker: int):
            key = (model, worker)
            if key not in clients:
                clients[key] = build_backend("http", url=slot_urls[worker], api=spec.api, model=model)
            return clients[key]

        return http_factory

    loaded: dict[str, object] = {}

    def llama_factory(model: str, worker: int):
        if model not in loaded:
            loaded.clear()  # one model in memory at a time; the plan runs model by model
            loaded[model] = build_backend("llama", model=prepared.model_paths[model], seed=spec.seed,
                                          context_size=spec.context_tokens)
        return loaded[model]

    return llama_factory


def write_report(records: Sequence[Mapping], out_dir: Path, *, command: str | None = None,
                 title: str = "react-text compare") -> dict[str, Path]:
    """Write report.md, summary.json, chart.svg and report.html; return their paths."""
    summaries = metrics.summarize(records)
    disagreements = metrics.disagreements(records)
    effects = metrics.grammar_effects(summaries, records)
    verdicts = metrics.verdicts(summaries, records)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "markdown": out_dir / "report.md",
        "json": out_dir / "summary.json",
        "chart": out_dir / "chart.svg",
        "html": out_dir / "report.html",
    }
    paths["chart"].write_text(report.svg_chart(summaries), encoding="utf-8")
    paths["markdown"].write_text(
        report.markdown(summaries, disagreements, title=title, command=command, chart_file="chart.svg",
                        effects=effects, verdicts=verdicts),
        encoding="utf-8",
    )
    paths["json"].write_text(report.summary_json(summaries, disagreements, effects, verdicts), encoding="utf-8")
    paths["html"].write_text(
        report.html_page(summaries, disagreements, title=title, command=command, effects=effects,
                         verdicts=verdicts),
        encoding="utf-8",
    )
    return paths


def select(records: Iterable[Mapping], spec: CompareSpec, task_ids: Iterable[str] | None = None) -> list[Mapping]:
    """The records of ``spec``'s cells (and tasks) only: a results folder may hold more."""
    wanted = set(task_ids) if task_ids is not None else None
    return [
        r for r in records
        if r["model"] in spec.models and r["template"] in spec.templates
        and bool(r.get("constrain")) in spec.constrain
        and (wanted is None or r["task_id"] in wanted)
    ]
