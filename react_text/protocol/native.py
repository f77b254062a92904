"""The tool-call forms chat templates teach, read as one run of calls.

Chat templates mark a call with a token the line walk does not see as a label:
Mistral's ``[TOOL_CALLS] [{...}, ...]`` (and v11's ``[TOOL_CALLS]name[ARGS]{...}``),
Llama 3.x's ``<|python_tag|>{...}; {...}`` and ``<function=name>{...}</function>``,
and Qwen/Hermes ``<tool_call>`` tags written back to back on one line. Each marker
opens a run of calls; the run goes on over whitespace, ``;`` and ``,`` and stops at
the first thing that is not a call. Reading is one pass from the first marker.
"""

from __future__ import annotations

from typing import Optional

from . import jsonish
from .blobs import close_tag, finish_blob
from .json_calls import calls_from_json
from .labels import NON_SPACE
from .names import IDENT
from .turn import MAX_ACTIONS, Call, Reading, Turn

TOOL_CALL = "<tool_call>"
MISTRAL = "[TOOL_CALLS]"
PYTHON_TAG = "<|python_tag|>"
FUNCTION = "<function="
MARKERS = (MISTRAL, PYTHON_TAG, FUNCTION, TOOL_CALL)
"""What opens a run of native calls, in the order they are looked for."""
_SEPARATORS = " \t\r\n;,"


def has_marker(text: str) -> bool:
    """Whether ``text`` may hold a native call the walk does not read (cheap substring tests)."""
    if "<" not in text and "[" not in text:  # every marker opens with one of them (most turns hold neither)
        return False
    return MISTRAL in text or PYTHON_TAG in text or FUNCTION in text or text.count(TOOL_CALL) > 1


def read_native(t: Turn) -> Optional[Reading]:
    """The run of native calls that opens at the turn's first marker, or None when there is none.

    The prose before the marker is the thought; nothing after the run is trusted."""
    text, limit = t.text, t.limit
    first = min((k for k in (text.find(m, 0, limit) for m in MARKERS) if k >= 0), default=-1)
    if first < 0:
        return None
    calls: list[Call] = []
    p = first
    while p < limit and len(calls) < MAX_ACTIONS:
        got = _one(t, p, limit, bool(calls))
        if got is None:
            break
        more, p = got
        if isinstance(more, str):  # a final answer in a call's place
            if calls:
                break
            t.first_start = first
            return Reading((), more, t.final_end)
        calls.extend(more[:MAX_ACTIONS - len(calls)])
        while p < limit and text[p] in _SEPARATORS:
            p += 1
    if not calls:
        return None
    if len(calls) >= MAX_ACTIONS and p < limit and text[p] in "{[<":
        t.add("too_many_actions")
    t.first_start = first
    return Reading(tuple(calls), None, calls[-1].end)


def _one(t: Turn, p: int, limit: int, after_call: bool):
    """What the item at ``p`` holds: (calls or a final answer, where the next item may start), or None."""
    text = t.text
    start = p
    name: Optional[str] = None
    tagged = False
    if text.startswith(TOOL_CALL, p):
        p += len(TOOL_CALL)
        tagged = True
    elif text.startswith(MISTRAL, p):
        p = NON_SPACE.match(text, p + len(MISTRAL), limit).end()
        m = IDENT.match(text, p, limit)
        if m is not None and text.startswith("[ARGS]", m.end()):
            name, p = m.group(0), m.end() + len("[ARGS]")
    elif text.startswith(PYTHON_TAG, p):
        p += len(PYTHON_TAG)
    elif text.startswith(FUNCTION, p):
        close = text.find(">", p, min(limit, p + 200))
        if close < 0:
            return None
        name, p = text[p + len(FUNCTION):close].strip(), close + 1
    elif not after_call or text[p] not in "{[":
        return None
    p = NON_SPACE.match(text, p, limit).end()
    if p >= limit or text[p] not in "{[":
        return None
    try:
        got = jsonish.read_value(text, p, boundary=t.is_boundary, stop=limit, budget=t.budget)
    except jsonish.JsonishError:
        return None
    end = got.end
    if tagged:
        end = close_tag(t, end)
    elif name is not None and text.startswith("</function>", end):
        end += len("</function>")
    value = {"name": name, "arguments": got.value} if name is not None else got.value
    calls = calls_from_json(value, t.ts, labelled=True)
    if calls is None:
        return None
    t.add(*got.repairs)
    return finish_blob(t, calls, start, end), end
