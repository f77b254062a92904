"""Run history: a trace folder read as a list of past runs (``react-text traces``).

Every run leaves one JSONL trace, in the user trace folder or (``compare``) in
sub-folders of its ``--out`` folder; this module finds them at any depth, reads
just enough of each (the first event and the last one) to say what was asked
and how it ended, resolves the ids people type, and prunes old ones.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Sequence

from ..trace import TraceError, open_regular

from ..trace import traces_dir

__all__ = ["RunInfo", "HistoryError", "NotARunError", "traces_dir", "list_runs", "find_run", "parse_age", "prune"]

_TAIL_BYTES = 64 * 1024


class HistoryError(ValueError):
    """An id or age a person typed that names nothing; the message says what would."""


class NotARunError(TraceError):
    """A JSONL file that is no agent run (compare's results, a baseline's exchanges): left out of the list."""


@dataclass(frozen=True)
class RunInfo:
    """One past run, as the list shows it."""

    id: str
    """The path below the listed folder without ``.jsonl`` (the file name in a flat folder);
    ``traces show`` takes it (or a unique prefix)."""
    path: Path
    mtime: float
    question: str
    status: str
    """The run's status, or ``unfinished`` when the trace has no ``run_end`` (crashed or still running)."""
    model: str
    template: str
    steps: int | None


def _json_event(line: bytes) -> dict:
    """One event line read back, ``{}`` when it is not an event (a torn line); ``TraceError`` when nested too deeply."""
    try:
        event = json.loads(line)
    except ValueError:
        return {}
    except RecursionError:
        raise TraceError("an event is nested too deeply") from None
    return event if isinstance(event, dict) else {}


def _last_event(fh: BinaryIO, size: int) -> dict:
    """The last complete event, read from the file's tail (traces hold whole prompts; never read them all)."""
    fh.seek(max(0, size - _TAIL_BYTES))
    for line in reversed(fh.read().split(b"\n")):
        if line.strip():
            event = _json_event(line)  # {}: a torn last line, or the cut start of the tail
            if event:
                return event
    return {}


def _field(record: dict, key: str, kind: type, default: Any) -> Any:
    """``record[key]``, ``default`` when absent, ``TraceError`` when it has another type than ``kind``."""
    value = record.get(key)
    if value is None:
        return default
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TraceError(f"its {key!r} is a {type(value).__name__}, not a {kind.__name__}")
    return value


def read_run(path: Path, run_id: str | None = None) -> RunInfo:
    """What the list shows of one trace; ``OSError`` when it is not a regular file, ``TraceError`` when
    a field the list shows has the wrong type, ``NotARunError`` when its first record is not a run's start."""
    with open_regular(path) as fh:
        info = os.fstat(fh.fileno())
        start = _json_event(fh.readline(1_000_000))
        if start and start.get("event") != "run_start":
            raise NotARunError("its first record is not a run_start event")
        end = _last_event(fh, info.st_size)
    finished = end.get("event") == "run_end"
    if not finished:
        end = {}
    model = _field(start, "model", str, "")
    return RunInfo(
        id=run_id or path.stem,
        path=path,
        mtime=info.st_mtime,
        question=_field(start, "question", str, "?"),
        status=_field(end, "status", str, "?") if finished else "unfinished",
        model=Path(model).name if model else _field(start, "backend", str, "") or "?",
        template=_field(_field(start, "template", dict, {}), "name", str, "") or "?",
        steps=_field(_field(end, "totals", dict, {}), "steps", int, None),
    )


def _jsonl_files(folder: Path) -> list[Path]:
    """Every ``*.jsonl`` below ``folder`` at any depth (compare nests model/template/task), links to
    folders not followed."""
    return [Path(top) / name for top, _, names in os.walk(folder) for name in names if name.endswith(".jsonl")]


def list_runs(folder: Path | None = None, skipped: list[str] | None = None) -> list[RunInfo]:
    """Every run trace in ``folder`` or below it, newest first.

    A file that is not a regular file (a FIFO, a link), cannot be read or has a
    field of the wrong type is left out; when ``skipped`` is given, a note saying
    which file and why is added to it. JSONL that is no run (compare's
    ``results.jsonl``, a baseline's exchanges) is left out without a note.
    """
    folder = folder or traces_dir()
    if not folder.is_dir():
        return []
    runs = []
    for path in _jsonl_files(folder):
        run_id = path.relative_to(folder).with_suffix("").as_posix()
        try:
            if not stat.S_ISREG(path.lstat().st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            runs.append(read_run(path, run_id))
        except NotARunError:
            continue
        except (OSError, TraceError) as exc:
            if skipped is not None:
                skipped.append(f"{run_id}.jsonl: {getattr(exc, 'strerror', None) or exc}")
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
