"""Reading an action's input: JSON (maybe fenced), a quoted string, or bare text that may run on over lines."""

from __future__ import annotations

from typing import Any, Optional, Union

from . import feedback, jsonish
from .labels import LABEL_LIKE, LABEL_WORDS, NON_SPACE, midline_stop
from .lines import first_of
from .names import IDENT, clean_name
from .placeholders import reject_placeholder
from .turn import Turn, TurnError


def after_value(t: Turn, end: int, fenced: bool) -> int:
    """Consume closing junk a person ignores: one brace too many, the closing fence."""
    text = t.text
    j = end
    while j < t.limit and text[j] in " \t":
        j += 1
    extra = j
    while extra < t.limit and text[extra] in "}]" and extra - j < 3:
        extra += 1
    if extra > j:
        t.add("extra_brace")
        end = j = extra
    if fenced:
        k = NON_SPACE.match(text, j, t.limit).end()
        if text.startswith("```", k):
            return k + 3
    return end


def read_structured(t: Turn, pos: int) -> tuple[Any, int, int]:
    """Read JSON at ``pos``, maybe inside a ``` fence: (value, value start, end).

    A fence that holds no JSON gives its body as a string.
    """
    text = t.text
    if not text.startswith("```", pos):
        got = jsonish.read_value(text, pos, boundary=t.is_boundary, stop=t.limit, budget=t.budget)
        if got.repairs:  # strict JSON (most inputs) mends nothing
            t.add(*got.repairs)
        return got.value, pos, after_value(t, got.end, False)
    le = t.line_end(pos)
    start = t.first_char(pos + 3, le)
    if start >= le or text[start] not in "{[":
        start = t.first_char(t.skip_blank_lines(t.next_line(pos)), t.limit)
    if start >= t.limit or text[start] not in "{[":
        close = text.find("```", start, t.limit)
        stop = t.limit if close < 0 else close
        end = stop + 3 if close >= 0 else t.rstrip_end(start, stop)
        return text[start:stop].strip(), start, end
    got = jsonish.read_value(text, start, boundary=t.is_boundary, stop=t.limit, budget=t.budget)
    t.add(*got.repairs)
    return got.value, start, after_value(t, got.end, True)


def json_error(t: Turn, err: jsonish.JsonishError, name: Optional[str]) -> TurnError:
    """The error for an input that is not readable JSON; ``name`` is the tool slot, when there is one."""
    written = clean_name(name) if name is not None else None
    tool = t.ts.lookup(written) if (written is not None and t.ts is not None) else None
    end = t.rstrip_end(0, min(max(err.pos, 0), t.limit))
    if err.code == "truncated":
        return TurnError("truncated", feedback.truncated(t.voice, tool), end, detail=tool or written)
    why = {"too_deep": "nested too deeply", "too_long": "too long to read"}.get(err.code, err.message)
    return TurnError("bad_arguments", feedback.bad_arguments(t.voice, tool, why), end, detail=tool or written)


def read_input(t: Turn, cstart: int) -> tuple[Union[dict, str], int]:
    """Read the content of an ``Action Input:`` label."""
    text = t.text
    le = t.line_end(cstart)
    p = t.first_char(cstart, le)
    if p < le:
        return input_value(t, p, le, None, multiline=True)
    q = t.skip_blank_lines(le + 1) if le < t.limit else t.limit
    if q >= t.limit or t.label(q) is not None:
        return "", t.rstrip_end(0, le)
    if t.starts_blob(q):
        return input_value(t, t.first_char(q, t.line_end(q)), t.line_end(q), None)
    # bare lines under the label, up to a blank line or the next label
    end = continuation(t, q, t.line_end(q))
    return bare_args(t, text[q:end].strip(), end), end


def continuation(t: Turn, p: int, le: int) -> int:
    """Where a bare input that starts at ``p`` on a line ending at ``le`` ends.

    It runs on over the following lines (an address, SQL, a question
    wrapped by the model) up to a blank line or a label line; a ``` block
    inside it is taken whole. A last line that is only the start of a label
    (``Obs``, where generation stopped) is not part of it.
    """
    text, limit = t.text, t.limit
    pos = le + 1
    stop = limit
    while pos < limit:
        stop = t.find_line(pos, fence=True, blank=True)
        if stop >= limit:
            break
        sle = t.line_end(stop)
        if not t.is_fence(stop, sle) or t.label(stop, sle) is not None:
            break
        close = text.find("```", sle, limit)  # a block inside the input: up to its closing fence
        if close < 0:
            stop = limit
            break
        pos = t.next_line(close)
        stop = limit
    m = LABEL_LIKE.search(text, le + 1, stop) if stop > le + 1 else None
    if m is not None:  # "Result: ...", "Output: ...": a label of some other protocol ends it too
        stop = m.start()
    end = t.rstrip_end(p, stop)
    if end > le and end >= t.rstrip_end(0, limit):
        last = text.rfind("\n", p, end) + 1
        word = text[last:end].strip().casefold()
        if 2 <= len(word) and any(w.startswith(word) and w != word for w in LABEL_WORDS):
            end = t.rstrip_end(p, last)  # "Obs": a label cut off by the stop sequence
    return end


def input_value(t: Turn, p: int, le: int, name: Optional[str], *, multiline: bool = False) -> tuple[Union[dict, str], int]:
    """The input written at ``p`` (on a line ending at ``le``): JSON, a quoted string or bare text.

    ``multiline``: a bare input may run on over the following lines.
    """
    text = t.text
    c = text[p]
    if c in "*_":  # "** {...}", "*"x"*": markdown emphasis in front of the value
        q = t.first_char(p + len(text[p:min(le, p + 4)]) - len(text[p:min(le, p + 4)].lstrip("*_")), le)
        if q < le and text[q] in "{[\"'“":
            t.add("emphasis")
            p, c = q, text[q]
    elif c.isalpha():
        got = call_wrapper(t, p, le)
        if got is not None:
            return got
    if c in "{[" or text.startswith("```", p):
        try:
            value, vstart, end = read_structured(t, p)
        except jsonish.JsonishError as err:
            if c == "[" and err.code != "truncated":
                return bare_line(t, p, le)
            if c == "{" and err.code == "syntax" and err.pos < le and first_of(text, ":：\"'{[", p + 1, le) < 0:
                return bare_line(t, p, le)  # "{temperature in SF}": braces around text, not an object
            raise json_error(t, err, name) from None
        return args_from_value(t, value, vstart, end), end
    if c in "\"'“":
        return quoted(t, p, le)
    return bare_line(t, p, le, multiline=multiline)


def call_wrapper(t: Turn, p: int, le: int) -> Optional[tuple[Union[dict, str], int]]:
    """``QueryEngineTool({"a": 1})``: a made-up call around a JSON object; the object is the input."""
    text = t.text
    if text.find("(", p, le) < 0:
        return None
    m = IDENT.match(text, p, le)
    if m is None or not text.startswith("(", m.end()):
        return None
    q = NON_SPACE.match(text, m.end() + 1, t.limit).end()
    if q >= t.limit or text[q] not in "{[":
        return None
    try:
        value, vstart, end = read_structured(t, q)
    except jsonish.JsonishError:
        return None
    close = NON_SPACE.match(text, end, t.limit).end()
    if not isinstance(value, dict) or not text.startswith(")", close):
        return None
    t.add("call_wrapper")
    return args_from_value(t, value, vstart, close + 1), close + 1


def quoted(t: Turn, p: int, le: int) -> tuple[Union[dict, str], int]:
    """A quoted input is the string when the quote closes at the end of the line, else bare text."""
    try:
        got = jsonish.read_value(t.text, p, stop=le, budget=t.budget)
    except jsonish.JsonishError as err:
        if err.code == "truncated" and le >= t.limit:
            raise TurnError("truncated", feedback.truncated(t.voice, None), t.rstrip_end(0, le)) from None
        return bare_line(t, p, le)
    if isinstance(got.value, str) and t.text[got.end:le].strip() in ("", ".", ","):
        reject_placeholder(t, got.value, got.end)
        return got.value, got.end
    return bare_line(t, p, le)


def bare_line(t: Turn, p: int, le: int, *, multiline: bool = False) -> tuple[Union[dict, str], int]:
    """Bare text to the end of the line, cut where a label was written mid-line;
    with ``multiline``, the lines that continue it too."""
    stop = midline_stop(t.text, p, le)
    if multiline and stop == le and le < t.limit:
        end = continuation(t, p, le)
        if end > le:
            return bare_args(t, t.text[p:end], end), end
    end = t.rstrip_end(p, stop)
    body = t.text[p:end]
    if len(body) >= 2 and body[0] == "`" and body[-1] == "`" and body.count("`") == 2:
        body = body[1:-1].strip()  # markdown inline code around the input
    elif len(body) >= 3 and body[0] in "*_" and body[-1] == body[0]:
        inner = body.strip("*_").strip()
        if inner and len(body) - len(body.lstrip(body[0])) == len(body) - len(body.rstrip(body[0])):
            t.add("emphasis")
            body = inner  # **Paris**: markdown emphasis around the input
    return bare_args(t, body, end), end


def bare_args(t: Turn, body: str, end: int) -> str:
    """Bare input text is the argument as written (``x = 2 + 3`` stays text)."""
    reject_placeholder(t, body, end)
    return body


def args_from_value(t: Turn, value: Any, vstart: int, end: int) -> Union[dict, str]:
    """Arguments from a JSON input: a dict or string as is, anything else as the text written."""
    if isinstance(value, (dict, str)):
        reject_placeholder(t, value, end)
        return value
    return t.text[vstart:end].strip().strip("`").strip()


def object_or_text(raw: str) -> Union[dict, str]:
    """``raw`` read as a JSON object when it is one (leniently), else the text itself: a call's
    arguments written either way."""
    if raw.startswith("{"):
        try:
            value = jsonish.loads(raw)
        except jsonish.JsonishError:
            return raw
        if isinstance(value, dict):
            return value
    return raw
