"""The walk over a turn's lines: actions in order, or a final answer, and where trust ends."""

from __future__ import annotations

from typing import Optional, Union

from . import feedback
from .actions import read_action
from .blobs import bare_blob, same_line_calls
from .labels import NON_SPACE, TERMINATORS, strip_thought_labels
from .placeholders import is_placeholder, placeholder_error, reject_placeholder
from .turn import MAX_ACTIONS, Call, Reading, Turn, TurnError
from .values import read_input

MAX_ECHOES = 8  # echoed blocks (and bare-paper candidates) looked past before a turn counts as hostile


def read(t: Turn) -> Reading:
    """The walk's reading of the turn; a turn that is only an echoed format example is that error."""
    got = walk(t)
    if not got.calls and got.final is None and t.placeholder_err is not None:
        try:
            raise t.placeholder_err  # only the echoed format example: say so
        finally:
            t.placeholder_err = None  # off the turn, which the traceback's frames hold: no reference cycle
    return got


def walk(t: Turn) -> Reading:
    """Read the picked lines in order: the actions written back to back, or a final answer.

    An ``Action:`` line (most picked lines) is read here, others by ``_labelled_line`` or
    ``_unlabelled_line``. An echoed format example (a ``placeholder`` error before any
    action) is looked past, as a real step may follow it."""
    calls: list[Call] = []
    i = 0
    text, limit = t.text, t.limit
    for start in t.lines_from(0, blobs=True):
        if start < i:
            continue  # inside something already read
        if calls and start != i:
            return stop(t, calls, i)
        i = start
        le = text.find("\n", i, limit)  # t.line_end(i), inlined
        if le < 0:
            le = limit
        try:
            lab = t.label(i, le)
            if lab is None:
                got = _unlabelled_line(t, calls, i, le)
            elif lab[0] == "action" and len(calls) < MAX_ACTIONS:  # the usual line: read here
                if t.first_start is None:
                    t.first_start = i
                try:
                    got = read_action(t, i, lab[1], le)
                except TurnError as err:
                    got = _action_error(t, calls, err, i, le)
                    if got is None:
                        raise
            else:
                got = _labelled_line(t, calls, i, le, lab)
        except TurnError as err:
            nxt = _past_example(t, calls, err, i, le)
            if nxt is None:
                raise  # not an echoed example: the turn's error
            i = nxt
            continue
        if type(got) is not list:
            if type(got) is int:  # nothing here: go on from there
                i = got
                continue
            if type(got) is Reading:
                return got
            return stop(t, calls, i) if calls else Reading((), got, t.final_end)  # a final answer as an action
        room = MAX_ACTIONS - len(calls)
        if len(got) > room:
            t.add("too_many_actions")
            calls.extend(got[:room])
            return stop(t, calls, calls[-1].end)
        calls.extend(got)
        same_line_calls(t, calls)  # more calls written right after them on their line
        nxt = after_action(t, calls[-1].end)
        if nxt is None:
            break
        i = nxt
    if calls:
        return Reading(tuple(calls), None, calls[-1].end)
    return Reading((), None, t.rstrip_end(0, t.limit if t.stopped_at is None else t.stopped_at))


def _labelled_line(t: Turn, calls: list[Call], i: int, le: int,
                   lab: tuple[str, int]) -> Union[Reading, int, list, str]:
    """What the labelled line at ``i`` holds: the end of the walk (a ``Reading``), the
    offset to go on from, or what was read there (calls, or a final answer)."""
    kind, cstart = lab
    if kind in TERMINATORS and not calls:
        skip = echo_skip(t, i, kind, cstart, le)
        if skip is not None:
            return skip
    if kind in TERMINATORS or (calls and kind != "action"):
        return stop(t, calls, i)
    if kind == "thought":
        b = t.blob_start(cstart, le) if i >= t.blob_floor else -1
        got = bare_blob(t, cstart, b, le) if b >= 0 else None  # "Thought: {"action": ...}"
        if got is None:
            return max(le + 1, t.resume)
        t.first_start = b
        return got
    if kind == "input":
        inferred = None if calls else _inferred_call(t, i, cstart)
        if inferred is not None:
            return inferred
        t.stray_input = True
        return le + 1
    if len(calls) >= MAX_ACTIONS:
        t.add("too_many_actions")
        return stop(t, calls, i)
    if t.first_start is None:
        t.first_start = i
    if kind == "final":
        answer, end = read_final(t, cstart)
        return Reading((), answer, end)
    try:
        return read_action(t, i, cstart, le)
    except TurnError as err:
        got = _action_error(t, calls, err, i, le)
        if got is None:
            raise
        return got


def _inferred_call(t: Turn, i: int, cstart: int) -> Optional[list[Call]]:
    """An ``Action Input:`` with no ``Action:`` above it, whose keys only one declared tool takes
    (``{"expression": ...}`` with a calculator and a search): that tool's call (repair
    ``inferred_tool``). A small model skips the name line most often right after a correction
    that named the tool. None when the keys fit no tool or several, or the input is unreadable."""
    if t.ts is None or not t.ts.schemas:
        return None
    try:
        args, end = read_input(t, cstart)
    except TurnError:
        return None
    tool = t.ts.owner_of(list(args)) if isinstance(args, dict) and args else None
    if tool is None:
        return None
    t.add("inferred_tool")
    if t.first_start is None:
        t.first_start = i
    return [Call(tool, args, i, end, tool=tool)]


def _action_error(t: Turn, calls: list[Call], err: TurnError, i: int, le: int) -> Union[Reading, int, None]:
    """Where the walk goes after the action line at ``i`` failed with ``err``: a truncated
    later action is dropped, ``Action: None`` is read past; None for any other error, which
    the caller raises again.

    The caller raises it, not this function: a frame that raises an exception it holds in a
    local is on that exception's traceback, a reference cycle that only the cyclic garbage
    collector frees (it cost a parse that ends in an error about a third of its time)."""
    if calls and err.code == "truncated":
        t.add("dropped_truncated_action")
        return stop(t, calls, i)
    if err.no_tool and not calls:
        # "Action: None" (and its input): no tool meant; read on, a final answer may follow
        t.first_start = None
        return skip_no_tool(t, le)
    return None


def _unlabelled_line(t: Turn, calls: list[Call], i: int, le: int) -> Union[Reading, int, list, str]:
    """What the line at ``i``, which has no label, holds: a JSON action, or prose (as ``_labelled_line``)."""
    b = t.blob_start(i, le) if i >= t.blob_floor else -1
    got = None
    if b >= 0:
        if len(calls) >= MAX_ACTIONS:
            t.add("too_many_actions")
            return stop(t, calls, i)
        got = bare_blob(t, i, b, le)
    if got is None:
        if calls:
            return stop(t, calls, i)  # something else after the actions: not trusted
        return max(le + 1, t.resume)
    if t.first_start is None:
        t.first_start = t.blob_line
    return got


def _past_example(t: Turn, calls: list[Call], err: TurnError, i: int, le: int) -> Optional[int]:
    """Where the walk goes on after an echoed format example ("Action: the action to take",
    {"action": "tool_name", ...}) on the line at ``i``; None for any other error, which the
    caller raises again (as ``_action_error``, to keep ``err`` out of a reference cycle).

    The first such error is remembered: it is the turn's error unless a real step follows."""
    if err.code != "placeholder" or calls or t.echoes >= MAX_ECHOES:
        return None
    t.echoes += 1
    if t.placeholder_err is None:  # kept without its traceback, whose frames hold ``t``: no reference cycle
        t.placeholder_err = err.with_traceback(None)
    t.first_start = None
    t.thought_labels.append((i, max(le, min(err.end or le, t.limit))))
    return t.next_line(max(le, err.end or le))


def echo_skip(t: Turn, i: int, kind: str, cstart: int, le: int) -> Optional[int]:
    """Where reading resumes past an echoed block before any action, or None to stop here.

    A turn may open with the model repeating the last ``Observation:``
    (skipped up to the next label line), and an echoed format example may
    hold ``Observation: the result of the action`` or ``Question: the
    input question``; neither ends the turn. Any other terminator does.
    """
    text = t.text
    if t.echoes >= MAX_ECHOES:
        return None
    t.echoes += 1
    if kind == "observation" and t.first_start is None and not text[t.skip_floor:i].strip():
        end = t.find_line(t.next_line(i))
        t.thought_labels.append((i, end))
        t.skip_floor = end
        if t.stopped_at is None:
            t.stopped_at = i
        return end
    content = text[cstart:le]
    if (t.placeholder_err is not None or t.first_start is None) and is_placeholder(content):
        if t.placeholder_err is None:
            t.placeholder_err = placeholder_error(t, content.strip(), t.rstrip_end(0, le))
        t.thought_labels.append((i, le))
        return t.next_line(le)
    return None


def skip_no_tool(t: Turn, le: int) -> int:
    """The line after ``Action: None`` and the ``Action Input:`` line that may follow it."""
    q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
    lab = t.label(q)
    if lab is not None and lab[0] == "input":
        return t.line_end(q) + 1
    return le + 1


def stop(t: Turn, calls: list[Call], at: int) -> Reading:
    """End the walk at ``at``: keep the calls so far, trust nothing after."""
    t.stopped_at = at
    if calls:
        return Reading(tuple(calls), None, calls[-1].end)
    return Reading((), None, t.rstrip_end(0, at))


def after_action(t: Turn, end: int) -> Optional[int]:
    """Line start of the next candidate right after an action, or None when the actions are over."""
    if end >= t.limit:  # the action ends the turn (often)
        return None
    text = t.text
    le = t.line_end(end)
    if text[end:le].strip():
        return None
    q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
    if q >= t.limit:
        return None
    qe = t.line_end(q)
    if t.label(q, qe) is None and t.blob_start(q, qe) < 0:
        return None
    opener = text[q:qe].strip()
    if opener == "<tool_call>" or (opener.startswith("```") and (not opener[3:] or opener[3:].isidentifier())):
        return t.next_line(q)  # a call's opener alone on its line: the walk picks the line below it
    return q


def read_final(t: Turn, cstart: int) -> tuple[str, int]:
    """The answer after a final-answer label, up to the next label line: (answer, end)."""
    text = t.text
    nl = t.next_line(cstart)
    stop = t.find_line(nl)
    p = NON_SPACE.match(text, cstart, stop).end()
    end = t.rstrip_end(p, stop)
    answer = text[p:end]
    if not answer:
        raise TurnError("missing_answer", feedback.missing_answer(t.voice), t.rstrip_end(0, stop))
    reject_placeholder(t, answer, end)
    return answer, end


def thought_before(t: Turn, stop: int) -> Optional[str]:
    """The prose before ``stop``: skipped spans (echoes) cut out, ``Thought:`` labels removed."""
    if not t.thought_labels:  # nothing skipped (the usual case): one slice
        if stop <= 0:  # a blob at the very start
            return None
        return strip_thought_labels(t.text[:stop]).strip() or None
    pieces = []
    prev = 0
    for start, end in sorted(t.thought_labels):
        if start >= stop:
            break
        if start > prev:
            pieces.append(t.text[prev:start])
        prev = max(prev, end)
    if prev < stop:
        pieces.append(t.text[prev:stop])
    joined = strip_thought_labels("".join(pieces)).strip()
    return joined or None
