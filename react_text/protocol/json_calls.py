"""What a decoded JSON blob means: tool calls, a final answer, or nothing (plain data).

Pure functions over decoded values; every common key convention is read
(``action``/``action_input``, ``name``/``arguments``, ``tool_calls`` lists,
ModelScope's ``api_name``/``parameters``, Semantic Kernel's ``action_variables``).
"""

from __future__ import annotations

from typing import Any, Optional, Union

from . import jsonish
from .names import SNAKE, Toolset, clean_name, fold, is_final_name
from .turn import MAX_ACTIONS

Blob = Union[list, tuple, None]
"""What a blob means: calls ``[(name, args, thought, decoded)]``, a final answer ``(args, thought)``, or None."""

NAME_KEYS = ("action", "tool", "toolname", "name", "function", "functionname", "apiname")
ARG_KEYS = ("actioninput", "toolinput", "actionvariables", "args", "arguments", "parameters", "params",
            "input", "kwargs", "argument")
THOUGHT_KEYS = ("thought", "thoughts", "reasoning", "thinking")
LIST_KEYS = ("toolcalls", "actions", "calls", "functioncalls")
ANSWER_KEYS = ("answer", "finalanswer", "output", "text", "response", "result", "content", "value")


def answer_from_args(args: Any) -> str:
    """The answer text of a final-answer call: a string, or JSON when it is not one."""
    if isinstance(args, dict):
        folded = {fold(str(k)): v for k, v in args.items()}
        for key in ANSWER_KEYS:
            if key in folded:
                args = folded[key]
                break
        else:
            if len(args) == 1:
                args = next(iter(args.values()))
    if isinstance(args, str):
        return args
    return jsonish.dumps(args)


def args_from_json(value: Any) -> tuple[Union[dict, str], bool]:
    """A blob's arguments as a dict or string (a JSON-object string is decoded): (args, decoded)."""
    if value is None:
        return {}, False
    if isinstance(value, dict):
        return value, False
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("{") and s.endswith("}"):
            try:
                decoded = jsonish.loads(s)
            except jsonish.JsonishError:
                return value, False
            if isinstance(decoded, dict):
                return decoded, True
        return value, False
    return jsonish.dumps(value), False


def calls_from_json(value: Any, ts: Optional[Toolset], *, labelled: bool, depth: int = 0) -> Blob:
    """Map a decoded blob to calls ``[(name, args, thought, decoded)]``, a final ``(args, thought)``, or None.

    ``labelled`` (the blob follows ``Action:`` or sits in ``<tool_call>``)
    accepts more shapes than a blob found in prose, where
    ``{"name": "John", "age": 30}`` must stay prose.
    """
    if depth > 3:
        return None
    if isinstance(value, list):
        return _calls_from_list(value, ts, labelled, depth)
    if not isinstance(value, dict):
        return None
    keys = {fold(str(k)): k for k in value}
    thought = None
    if not keys.keys().isdisjoint(THOUGHT_KEYS):  # set tests first: most blobs hold no thought and no call list
        thought = next((value[keys[k]] for k in THOUGHT_KEYS if k in keys and isinstance(value[keys[k]], str)), None)
    if not keys.keys().isdisjoint(LIST_KEYS):
        for list_key in LIST_KEYS:
            if list_key in keys and isinstance(value[keys[list_key]], list):
                return with_thought(calls_from_json(value[keys[list_key]], ts, labelled=True, depth=depth + 1), thought)
    name: Any = None
    name_key = None
    for k in NAME_KEYS:
        if k not in keys:
            continue
        v = value[keys[k]]
        if isinstance(v, dict) and ("name" in v or "function" in v or "tool" in v):
            return with_thought(calls_from_json(v, ts, labelled=True, depth=depth + 1), thought)
        if isinstance(v, str):
            name, name_key = v, k
            break
    if name is None:
        return _unnamed(value, keys, ts, labelled, thought)
    return _named(value, keys, ts, labelled, thought, name, name_key)


def _calls_from_list(value: list, ts: Optional[Toolset], labelled: bool, depth: int) -> Blob:
    """A list of calls (all of them must be calls); a list of one final answer is that answer."""
    out: list = []
    for item in value[:MAX_ACTIONS + 1]:  # more than the cap are dropped (too_many_actions) unread
        got = calls_from_json(item, ts, labelled=labelled, depth=depth + 1)
        if isinstance(got, tuple) and len(value) == 1:
            return got
        if not isinstance(got, list):
            return None
        out.extend(got)
    return out or None


def _unnamed(value: dict, keys: dict, ts: Optional[Toolset], labelled: bool, thought: Optional[str]) -> Blob:
    """A blob with no name key: ``{"final_answer": ...}``, or (labelled) ``{"calculator": "2+2"}``."""
    if "finalanswer" in keys:
        return (value[keys["finalanswer"]], thought)
    if labelled and ts is not None and len(value) == 1:
        (only_key,) = value
        if ts.lookup(clean_name(str(only_key))):  # {"calculator": "2+2"}
            args, decoded = args_from_json(value[only_key])
            return [(str(only_key), args, thought, decoded)]
    return None


def _named(value: dict, keys: dict, ts: Optional[Toolset], labelled: bool, thought: Optional[str],
           name: str, name_key: str) -> Blob:
    """A blob whose ``name_key`` names ``name``: its arguments under an argument key, or its other keys."""
    arg_key = next(filter(keys.__contains__, ARG_KEYS), None)
    known = ts is not None and ts.lookup(clean_name(name)) is not None
    if arg_key is not None:
        args_source: Any = value[keys[arg_key]]
    elif not labelled and name_key == "name" and not known and not (len(value) == 1 and SNAKE.fullmatch(name)):
        return None  # {"name": "John", "age": 30} is data, not a call; {"name": "get_time"} is one
    else:  # {"action": "search", "query": "x"}: the other keys are the arguments
        args_source = {k: v for k, v in value.items()
                       if fold(str(k)) not in (name_key, "type", "id", *THOUGHT_KEYS)}
    if not known and is_final_name(clean_name(name)):
        return (args_source if args_source is not None else "", thought)
    args, decoded = args_from_json(args_source)
    return [(name, args, thought, decoded)]


def with_thought(got: Any, thought: Optional[str]):
    if thought is None or got is None:
        return got
    if isinstance(got, tuple):
        return (got[0], got[1] or thought)
    return [(n, a, t or thought, d) for n, a, t, d in got]
