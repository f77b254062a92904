"""The results file of a compare and the one record per finished task it holds.

A record is a flat dict (JSON line) so that ``metrics`` and ``report`` can read
a results file written by any version, and so that a results file stays
readable when a run is killed mid-write.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Mapping

from ..trace import json_text
from .copies import copied_value
from .suites import match_answer


def record_key(record: Mapping) -> tuple[str, str, bool, str]:
    """The cell and task a record belongs to: one record per key, which is how a compare resumes."""
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
        line = json_text(record)  # a lone surrogate in an answer must not lose the record
        with self._lock:
            self._fh.write(line + "\n")
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def record_from_run(task, result, *, model: str, template: str, constrain: bool, trace: Path,
                    wall_seconds: float) -> dict:
    """Flatten a ``RunResult`` into the per-task record the metrics read."""
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


def example_value(agent, task, result) -> str | None:
    """The number or name the answer copied from a shown few-shot episode, if any (``copies``).

    Only what tools returned counts as seen (a call's result, or the results of a refusal's second
    look), not the loop's corrections: one that names the copied value ("1074 comes from the
    examples") must not excuse the answer that copies it anyway."""
    if result.status != "answered":
        return None
    shown = agent.template.shown_episodes(list(agent.tools.values()), task.question, agent.examples)
    return copied_value(result.answer, shown, (task.question, *tool_results(result.steps)))


def tool_results(steps) -> list[str]:
    """The texts of ``steps`` that came from tools, in order: the model's calls and the engine's (a
    correction that shows a call's results, ``Retry.seen``)."""
    return [s.observation_text or "" for s in steps
            if s.action is not None or getattr(s.decision, "seen", None) is not None]


def crash_record(task, error: BaseException, *, model: str, template: str, constrain: bool,
                 wall_seconds: float) -> dict:
    """The record of a task that raised: a failure in the table, with the error kept for the report."""
    return {
        "model": model, "template": template, "constrain": constrain, "task_id": task.id,
        "category": task.category, "lang": task.lang, "question": task.question, "expected": task.expected,
        "answer": "", "status": "crashed", "correct": False, "error": f"{type(error).__name__}: {error}",
        "steps": 0, "turns": 0, "format_errors": 0, "actions": 0, "invalid_tool_calls": 0,
        "prompt_tokens": 0, "evaluated_tokens": 0, "completion_tokens": 0, "wall_seconds": round(wall_seconds, 3),
    }

