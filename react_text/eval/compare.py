"""Run the same suite across templates and models, resumably, and report.

Every (model, template, task) cell result is appended to ``results.jsonl`` the
moment it finishes, so an interrupted compare picks up where it stopped and
never repeats finished work. Each task keeps its own trace for drill-down.
What to run is decided in ``planning``; each record is built and written by ``records``.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from dataclasses import asdict, replace
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Mapping, Sequence, TextIO

from ..agent.loop import Agent
from ..agent.state import Limits
from ..backends.build import build_backend
from ..backends.pool import Server, TaskQueue, WatchedBackend, parse_servers
from ..redaction import safe_url
from ..tools.cache import ToolCache
from ..tools.search import search_files
from ..trace import read_trace
from . import ablation, metrics, payoff, report
from .ablation import copies, fired_checks
from .baselines import SEARCH, baseline_record, is_baseline, run_baseline, write_trace
from .bfcl import report as bfcl_report
from .bfcl.cells import PLAIN, item_record, run_item
from .planning import (Cell, CellPlan, CompareError, CompareSpec, Prepared, plan_cells, prepare, select, task_tools,
                       template_checks)
from .progress import Progress
from .records import ResultsFile, crash_record, example_value, load_results, record_from_run


class PromptError(RuntimeError):
    """The prompt of a task could not be built: recorded as a crashed task, and the compare goes on."""


HTTP_TIMEOUT_S = 60.0
"""Longest one completion request may take, and never longer than a task's own ``timeout_s``.

With several servers a failed request is not retried on its server: the task
moves to another (``react_text.backends.pool``), which is the better retry."""


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "_"


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
    rerun on another one and recorded once, and a server that keeps failing is
    taken out of rotation for a while (``react_text.backends.pool``).
    """
    prepared = prepare(spec)
    results_path = spec.out_dir / "results.jsonl"
    plan = plan_cells(spec, prepared.tasks, load_results(results_path))
    progress = Progress(total=plan.total, done=plan.total - len(plan.todo), stream=progress_stream)
    writer = ResultsFile(results_path)
    servers = _servers(spec)
    slot_urls = [server.url for server in servers for _ in range(server.slots)]
    factory = backend_factory or _default_factory(spec, prepared, slot_urls)
    runner = _CellRunner(spec, prepared, plan, writer, progress, servers, slot_urls, factory)
    queue = TaskQueue(list(plan.todo), servers)
    try:
        runner.run_all(queue)
    finally:
        progress.close()
        writer.close()
    if queue.unrun:
        failed = ", ".join(safe_url(url) for url in sorted(queue.dead or {server.url for server in servers}))
        raise CompareError(f"every server failed ({failed}); {len(queue.unrun)} task(s) "
                           f"were not run and are not in {results_path}: run the same command again to resume")
    return plan.kept + runner.new_records


def run_ablation(spec: CompareSpec, cells: Mapping[str, Mapping[str, frozenset[str]]], **options) -> list[dict]:
    """``run_compare`` for an ablation: the base cells first (each key of ``cells``), then every other
    cell takes the base records no switched-off check fired in (``ablation.copies``; ``cells[base]`` maps
    each of its cells' labels to the checks it switches off), and only the rest run."""
    bases = tuple(label for label in spec.templates if label in cells)
    run_compare(replace(spec, templates=bases), **options)
    path = spec.out_dir / "results.jsonl"
    records = select(load_results(path), spec)
    writer = ResultsFile(path)
    try:
        for base, off in cells.items():
            for record in copies(records, base, off):
                writer.append(record)
    finally:
        writer.close()
    return run_compare(spec, **options)


class _CellRunner:
    """Runs cells on worker threads, each cell's task on its own agent, and records every one that ends.

    Shared by the workers: the results file, the progress line and the per-cell counts (under a lock).
    """

    def __init__(self, spec: CompareSpec, prepared: Prepared, plan: CellPlan, writer: ResultsFile,
                 progress: Progress, servers: Sequence[Server], slot_urls: Sequence[str],
                 factory: Callable[[str, int], object]) -> None:
        self.spec, self.prepared, self.writer, self.progress = spec, prepared, writer, progress
        self.servers, self.slot_urls, self.factory = servers, slot_urls, factory
        self.limits = Limits(max_steps=spec.max_steps, max_turn_tokens=spec.max_turn_tokens,
                             timeout_s=spec.timeout_s, max_parallel_tools=spec.parallel_tools,
                             context_tokens=spec.context_tokens)
        self.tool_cache = ToolCache(spec.tool_cache) if spec.tool_cache else None
        self.cell_totals = plan.cell_totals
        self.cell_done = dict(plan.cell_done)
        self.new_records: list[dict] = []
        self._lock = threading.Lock()

    def run_all(self, queue: TaskQueue) -> None:
        """Every slot's worker until the queue is empty; the first Ctrl-C or crash stops them all."""
        if len(self.slot_urls) == 1:
            self.work(queue, 0)
            return
        with ThreadPoolExecutor(max_workers=len(self.slot_urls)) as pool:
            futures = [pool.submit(self.work, queue, i) for i in range(len(self.slot_urls))]
            try:
                for f in futures:
                    f.result()
            except KeyboardInterrupt:
                queue.stop()
                raise

    def work(self, queue: TaskQueue, worker: int) -> None:
        """One worker: take cells for its server until none is left for it."""
        url = self.slot_urls[worker]
        while (item := queue.take(url)) is not None:
            try:
                record = self.run_cell(item, worker, queue)
            except BaseException:
                queue.stop()
                raise
            if record is None:
                queue.failed(item, url)
            else:
                queue.finished(item, url, refused_everywhere=record.get("status") == "backend_error")

    def run_cell(self, item: Cell, worker: int, queue: TaskQueue) -> dict | None:
        """The task's record, or None when its server failed under it and another may rerun it (not recorded)."""
        model, template_name, constrain, task = item
        trace = self._fresh_trace(item)
        started = time.monotonic()
        try:
            record = self._run_agent(item, worker, trace, started, queue)
            if record is None:
                return None
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # a crashing task is a recorded failure, not a crashed compare
            record = crash_record(task, exc, model=model, template=template_name, constrain=constrain,
                                  wall_seconds=time.monotonic() - started)
        self._write(item, record)
        return record

    def _fresh_trace(self, item: Cell) -> Path:
        model, template_name, constrain, task = item
        trace = self.spec.out_dir / "traces" / _safe(model) / _safe(template_name + ("+c" if constrain else "")) / (
            _safe(task.id) + ".jsonl")
        trace.parent.mkdir(parents=True, exist_ok=True)
        if trace.exists():
            trace.unlink()  # an unfinished earlier attempt: its result was never recorded
        return trace

    def _run_agent(self, item: Cell, worker: int, trace: Path, started: float, queue: TaskQueue) -> dict | None:
        """Run the task once; its record, None when its server failed and another can rerun it.

        A server going down (a retryable error) always hands the task on, to be
        left unrun if no server is left; an error the server gave to this
        request is recorded once every server has given one.
        """
        model, template_name, constrain, task = item
        backend = WatchedBackend(self.factory(model, worker))
        if task.id in self.prepared.bfcl:
            return self._run_bfcl(item, worker, backend, trace, started, queue)
        if is_baseline(template_name):
            return self._run_baseline(item, worker, backend, trace, started, queue)
        agent = Agent(
            backend,
            task_tools(task, self.prepared.corpus, self.prepared.functions, search_ranking=self.spec.search_ranking),
            self.prepared.templates[template_name],
            limits=self.limits,
            trace=trace,
            constrain=constrain,
            tool_cache=self.tool_cache,
            tool_retrieval=self.spec.tool_retrieval,
            max_shown_tools=self.spec.max_shown_tools,
            redact=self.spec.redact,
            checks=template_checks(template_name)[1],
        )
        result = agent.run(task.question)
        if result.status == "interrupted":
            raise KeyboardInterrupt
        if self._hand_on(result.status, backend, item, worker, queue):
            return None
        if result.status == "template_error":
            raise PromptError(result.reason)
        record = record_from_run(task, result, model=model, template=template_name, constrain=constrain,
                                 trace=trace, wall_seconds=time.monotonic() - started)
        record["example_value"] = example_value(agent, task, result)
        record["fired"] = sorted(fired_checks(read_trace(trace)))  # what an ablation cell may copy (``ablation``)
        if len(self.servers) > 1:
            record["server"] = safe_url(self.slot_urls[worker])
        return record

    def _hand_on(self, status: str, backend: WatchedBackend, item: Cell, worker: int, queue: TaskQueue) -> bool:
        """Whether a backend error is the server's, so another server should rerun the task."""
        failure = backend.server_failure
        return status == "backend_error" and failure is not None and len(self.servers) > 1 and (
            failure.retryable or queue.elsewhere(item, self.slot_urls[worker]))

    def _run_baseline(self, item: Cell, worker: int, backend: WatchedBackend, trace: Path,
                      started: float, queue: TaskQueue) -> dict | None:
        """A no-agent cell (``baselines``): the task's own tools, its search showing ``top_k`` results."""
        model, name, _, task = item
        tools = [search_files(self.prepared.corpus, max_results=self.spec.top_k,
                              max_chars=max(2000, 600 * self.spec.top_k), ranking=self.spec.search_ranking)
                 if t.name == SEARCH and self.prepared.corpus is not None else t
                 for t in task_tools(task, self.prepared.corpus, self.prepared.functions,
                                     search_ranking=self.spec.search_ranking)]
        run = run_baseline(name, task.question, task.lang, tools, backend,
                           max_tokens=self.spec.max_turn_tokens, seed=self.spec.seed)
        if self._hand_on(run.status, backend, item, worker, queue):
            return None
        write_trace(trace, name, run)
        record = baseline_record(task, run, model=model, template=name, trace=str(trace),
                                 wall_seconds=time.monotonic() - started)
        if len(self.servers) > 1:
            record["server"] = safe_url(self.slot_urls[worker])
        return record

    def _run_bfcl(self, item: Cell, worker: int, backend: WatchedBackend, trace: Path, started: float,
                  queue: TaskQueue) -> dict | None:
        """A BFCL item (``react_text.eval.bfcl``): one shim request with the cell's template, or the plain prompt."""
        model, name, constrain, task = item
        template = PLAIN if name == PLAIN else self.prepared.templates[name]
        run = run_item(self.prepared.bfcl[task.id], template, backend, constrain=constrain,
                       checks=template_checks(name)[1], max_tokens=self.spec.max_turn_tokens, seed=self.spec.seed)
        if self._hand_on(run.status, backend, item, worker, queue):
            return None
        record = item_record(self.prepared.bfcl[task.id], run, model=model, template=name, constrain=constrain,
                             trace=trace, wall_seconds=time.monotonic() - started)
        if len(self.servers) > 1:
            record["server"] = safe_url(self.slot_urls[worker])
        return record

    def _write(self, item: Cell, record: dict) -> None:
        """Append the record to the results file, count it in its cell and redraw the progress line."""
        model, template_name, constrain, task = item
        self.writer.append(record)
        key = (model, template_name, constrain)
        with self._lock:
            self.cell_done[key] += 1
            n = self.cell_done[key]
            self.new_records.append(record)
        cell = f"{model}/{template_name}" + ("+c" if constrain else "")
        self.progress.task_done(cell, n, self.cell_totals[key], task.id, bool(record["correct"]))


def _servers(spec: CompareSpec) -> tuple[Server, ...]:
    """Where tasks run: each ``--url`` with its parallel slots, or the one in-process model."""
    if spec.backend == "http" and spec.urls:
        return parse_servers(spec.urls, spec.concurrency)
    return (Server("local", spec.concurrency),)


def _default_factory(spec: CompareSpec, prepared: Prepared, slot_urls: list[str]) -> Callable[[str, int], object]:
    if spec.backend == "http":
        clients: dict[tuple[str, int], object] = {}

        def http_factory(model: str, worker: int):
            key = (model, worker)
            if key not in clients:
                clients[key] = build_backend("http", url=slot_urls[worker], api=spec.api, model=model,
                                             timeout=min(spec.timeout_s, HTTP_TIMEOUT_S),
                                             retries=0 if len(set(slot_urls)) > 1 else None)
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
                 title: str = "react-text compare", split: str = "all") -> dict[str, Path]:
    """Write report.md, summary.json, chart.svg and report.html; return their paths.

    ``split`` is the part of the suite the records ran on: the title names it, so a figure is never
    quoted without saying whether it came from the tasks the engine was built on."""
    if split != "all":
        title = f"{title}: {split} split"
    summaries = metrics.summarize(records)
    disagreements = metrics.disagreements(records)
    effects = metrics.grammar_effects(summaries, records)
    verdicts = metrics.verdicts(summaries, records)
    pays = payoff.payoffs(summaries, records)
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
                        effects=effects, verdicts=verdicts, payoffs=pays)
        + bfcl_report.markdown([r for r in records if r.get("bfcl")]),
        encoding="utf-8",
    )
    paths["json"].write_text(report.summary_json(summaries, disagreements, effects, verdicts, split=split,
                                                 payoffs=pays),
                             encoding="utf-8")
    paths["html"].write_text(
        report.html_page(summaries, disagreements, title=title, command=command, effects=effects,
                         verdicts=verdicts, payoffs=pays),
        encoding="utf-8",
    )
    return paths


def write_ablation(records: Sequence[Mapping], out_dir: Path, cells: Mapping[str, Mapping[str, frozenset[str]]]) -> None:
    """Add the ablation (``ablation.effects`` per base cell) to report.md and summary.json ("ablation")."""
    found = {base: ablation.effects(records, base, list(off)) for base, off in cells.items()}
    with (out_dir / "report.md").open("a", encoding="utf-8") as fh:
        for base, cell_effects in found.items():
            fh.write("\n" + ablation.markdown(cell_effects, base))
    summary_path = out_dir / "summary.json"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    summary["ablation"] = [{**asdict(e), "base": base, "off": sorted(cells[base][e.label]), "p_value": e.p_value}
                           for base, cell_effects in found.items() for e in cell_effects]
    summary_path.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
