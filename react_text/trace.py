"""JSONL traces: one event per line, flushed as it happens.

A run writes ``run_start``, then per model turn ``prompt``, ``model_turn``,
``step``, ``decision`` and (when a tool runs) ``tool_call`` and
``observation``, and finally ``run_end``. Each ``tool_call`` (a call's
start) and ``observation`` (its end) carries the call's ``call_id``
(``"<step>.<index>"``), so calls that ran together can be told apart and
matched; ``cache_hit`` marks a call answered without running (``scope``
``run``: an identical earlier call, ``same_as`` says which; ``disk``: the
persistent cache); ``context`` records what was cut from older steps to keep
the prompt inside the context window (tokens before and after, each cut). Each line is flushed (and, on
request, fsync'd) before the loop goes on, so a crash or Ctrl-C loses at most
the line being written; ``read_trace`` skips such a torn last line.

The ``prompt`` events hold the full prompt text of the first turn and only the
appended text after it, so ``prompts_from_events`` rebuilds every prompt
exactly (the replay backend checks against them) without the trace growing
quadratically. A turn after older steps were cut (``context``) holds its full
prompt text again.

Traces hold what users and tools typed, so a writer masks secrets by default
(``redaction.Redactor``: key-like values, ``password: …`` pairs, URL
passwords) and keeps the file to its owner: the file is created ``0600`` and
any folder the writer creates ``0700``.
"""

from __future__ import annotations

import dataclasses
import errno
import itertools
import json
import os
import stat
import time
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

from .redaction import Redactor

TIMING_KEYS = frozenset({"t", "seconds", "model_seconds", "tool_seconds", "engine_seconds", "wall_seconds"})
"""Fields that legitimately differ between a run and its replay."""


class TraceError(ValueError):
    """A trace file that cannot be read (names the file and line)."""


def json_text(value: Any) -> str:
    """``value`` as one line of JSON that always encodes as UTF-8.

    Text from a model, a tool or a command line can hold lone surrogates
    (``\\udcff`` from undecodable bytes), which strict UTF-8 refuses. JSON
    only puts non-ASCII characters inside strings, so escaping just those code
    points as ``\\uXXXX`` keeps the line valid JSON that reads back to the very
    same string, while every other character stays readable.
    """
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples and odd objects as plain JSON data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Path):
        return str(value)
    return repr(value)


class TraceWriter:
    """Appends events to a JSONL file, one flushed line each.

    ``t`` on every event is seconds since the writer opened (from ``clock``),
    so a trace reads as a timeline without wall-clock dates in every line.
    ``redactor`` masks each event's data before it is written (the default
    fields and secret-looking values; None writes everything as it came).
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False, clock: Any = None,
                 redactor: Callable[[Any], Any] | None = Redactor()) -> None:
        self.path = Path(path)
        private_dir(self.path.parent)
        self._fsync = fsync
        self._clock = clock or time.monotonic
        self._t0 = self._clock()
        self._redactor = redactor
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_TRUNC
        self._file: IO[str] | None = os.fdopen(fd, "w", encoding="utf-8")

    @property
    def closed(self) -> bool:
        return self._file is None

    def write(self, event: str, **data: Any) -> dict[str, Any]:
        """Write one event line and flush it; returns the event as written."""
        fields = to_jsonable(data)
        if self._redactor is not None:
            fields = self._redactor(fields)
        record = {"event": event, "t": round(self._clock() - self._t0, 6), **fields}
        if self._file is None:
            raise ValueError(f"trace {self.path} is closed")
        self._file.write(json_text(record) + "\n")
        self._file.flush()
        if self._fsync:
            os.fsync(self._file.fileno())
        return record

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> "TraceWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def private_dir(folder: str | os.PathLike[str]) -> Path:
    """``folder``, created ``0700`` (with its missing parents) when absent; an existing folder is left as it is."""
    path = Path(folder)
    for level in reversed([path, *path.parents]):
        if not level.is_dir():
            level.mkdir(mode=0o700, exist_ok=True)
    return path


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """``path`` opened for reading in binary, or ``OSError`` when it is not a regular file.

    A trace folder or a path someone typed may name a FIFO, which would block
    an ordinary open for ever, or a device that never ends (``/dev/zero``).
    The open is non-blocking, so a FIFO returns at once, and the type is read
    from the opened file itself, so nothing can be swapped in between.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_trace(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All events of a trace; a torn last line (crash mid-write) is skipped.

    A broken line anywhere else means the file is not a trace (or was edited)
    and raises ``TraceError`` naming the line, rather than silently dropping
    events from the middle of a run.
    """
    p = Path(path)
    try:
        with open_regular(p) as fh:
            raw = fh.read().decode("utf-8", errors="replace")
    except OSError as exc:
        raise TraceError(f"cannot read trace {p}: {exc.strerror or exc}") from None
    lines = raw.split("\n")
    events: list[dict[str, Any]] = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            if _is_last(lines, i):
                break
            raise TraceError(f"{p}:{i}: not a JSON event ({exc.msg})") from None
        except RecursionError:
            raise TraceError(f"{p}:{i}: not a trace event (JSON nested too deeply)") from None
        if not isinstance(event, dict) or "event" not in event:
            raise TraceError(f"{p}:{i}: not a trace event (no 'event' field)")
        events.append(event)
    return events


def _is_last(lines: list[str], i: int) -> bool:
    return all(not rest.strip() for rest in lines[i:])


def prompts_from_events(events: Iterable[dict[str, Any]]) -> list[str]:
    """Every prompt a run sent, rebuilt from the full first one plus deltas."""
    prompts: list[str] = []
    for e in events:
        if e.get("event") != "prompt":
            continue
        if "text" in e:
            prompts.append(e["text"])
        elif prompts:
            prompts.append(prompts[-1] + e.get("delta", ""))
        else:
            raise TraceError("trace has a prompt delta before any full prompt")
    return prompts


def iter_events(events: Iterable[dict[str, Any]], kind: str) -> Iterator[dict[str, Any]]:
    return (e for e in events if e.get("event") == kind)


def without_timings(value: Any) -> Any:
    """The event data with timing fields removed, for comparing a replay with its recording."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def traces_dir() -> Path:
    """The user trace folder, which ``react-text traces`` lists: ``$REACT_TEXT_TRACES``, else
    ``$REACT_TEXT_HOME/traces``, else ``$XDG_CACHE_HOME/react-text/traces`` (``~/.cache`` by default)."""
    own = os.environ.get("REACT_TEXT_TRACES")
    if own:
        return Path(own).expanduser()
    home = os.environ.get("REACT_TEXT_HOME")
    if home:
        return Path(home).expanduser() / "traces"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "react-text" / "traces"


_RUNS = itertools.count(1)


def fresh_trace_path(kind: str = "run") -> Path:
    """A new trace file in the user trace folder (never the working directory, which may be a repo).

    The date, the process and a per-process count name it: two runs in the same second never share a file."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = private_dir(traces_dir())
    folder.chmod(0o700)  # ours alone: a folder an older version made 0755 is tightened
    return folder / f"{kind}-{stamp}-{os.getpid()}-{next(_RUNS)}.jsonl"
