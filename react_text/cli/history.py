"""Run history: the trace folder read as a list of past runs (``react-text traces``).

Every ``react-text run`` leaves one JSONL trace in the cache; this module finds
them, reads just enough of each (the first event and the last one) to say what
was asked and how it ended, resolves the ids people type, and prunes old ones.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..trace import traces_dir

__all__ = ["RunInfo", "HistoryError", "traces_dir", "list_runs", "find_run", "parse_age", "prune"]

_TAIL_BYTES = 64 * 1024


class HistoryError(ValueError):
    """An id or age a person typed that names nothing; the message says what would."""


@dataclass(frozen=True)
class RunInfo:
    """One past run, as the list shows it."""

    id: str
    """The file name without ``.jsonl``; ``traces show`` takes it (or a unique prefix)."""
    path: Path
    mtime: float
    question: str
    status: str
    """The run's status, or ``unfinished`` when the trace has no ``run_end`` (crashed or still running)."""
    model: str
    template: str
    steps: int | None


def _first_line(path: Path) -> dict:
    with path.open("rb") as fh:
        line = fh.readline(1_000_000)
    try:
        event = json.loads(line)
    except ValueError:
        return {}
    return event if isinstance(event, dict) else {}


def _last_event(path: Path) -> dict:
    """The last complete event, read from the file's tail (traces hold whole prompts; never read them all)."""
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - _TAIL_BYTES))
        tail = fh.read()
    for line in reversed(tail.split(b"\n")):
        if line.strip():
            try:
                event = json.loads(line)
            except ValueError:
                continue  # a torn last line, or the cut start of the tail
            if isinstance(event, dict):
                return event
    return {}


def _model_name(start: dict) -> str:
    model = str(start.get("model") or "")
    return Path(model).name if model else str(start.get("backend") or "?")


def read_run(path: Path) -> RunInfo:
    start = _first_line(path)
    end = _last_event(path)
    finished = end.get("event") == "run_end"
    template = start.get("template") or {}
    totals = end.get("totals") or {}
    return RunInfo(
        id=path.stem,
        path=path,
        mtime=path.stat().st_mtime,
        question=str(start.get("question", "?")),
        status=str(end.get("status")) if finished else "unfinished",
        model=_model_name(start),
        template=str(template.get("name") or "?") if isinstance(template, dict) else "?",
        steps=totals.get("steps") if finished else None,
    )


def list_runs(folder: Path | None = None) -> list[RunInfo]:
    """Every trace in ``folder``, newest first; unreadable files are skipped."""
    folder = folder or traces_dir()
    if not folder.is_dir():
        return []
    runs = []
    for path in folder.glob("*.jsonl"):
        try:
            runs.append(read_run(path))
        except OSError:
            continue
    return sorted(runs, key=lambda r: (r.mtime, r.id), reverse=True)


def find_run(ref: str, runs: Sequence[RunInfo]) -> RunInfo:
    """A run by list number (1 = newest), id, unique id prefix, or a trace file path."""
    if ref.isdigit() and not any(r.id == ref for r in runs):
        index = int(ref)
        if 1 <= index <= len(runs):
            return runs[index - 1]
        raise HistoryError(f"no run number {index}: there are {len(runs)} (1 is the newest)")
    exact = [r for r in runs if r.id == ref or r.id == ref.removesuffix(".jsonl")]
    if exact:
        return exact[0]
    matches = [r for r in runs if r.id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise HistoryError(f"{ref!r} matches {len(matches)} runs: " + ", ".join(r.id for r in matches[:5]))
    path = Path(ref).expanduser()
    if path.is_file():
        return read_run(path)
    raise HistoryError(f"no run {ref!r}: give a number or an id from `react-text traces`")


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``2w``, ``45s`` as seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text)
    if not match:
        raise HistoryError(f"age {text!r} is not a number with a unit s, m, h, d or w (like 30d)")
    return float(match.group(1)) * _UNITS[match.group(2)]


def prune(runs: Sequence[RunInfo], older_than_s: float, *, now: float | None = None,
          dry_run: bool = False) -> list[RunInfo]:
    """Delete (unless ``dry_run``) the traces last written more than ``older_than_s`` ago; return them."""
    now = time.time() if now is None else now
    old = [r for r in runs if now - r.mtime > older_than_s]
    if not dry_run:
        for run in old:
            run.path.unlink(missing_ok=True)
    return old
