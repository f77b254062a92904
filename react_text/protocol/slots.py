"""The tool slot: whether what the model wrote there names a tool, a final answer, or nothing usable."""

from __future__ import annotations

from typing import Any, Optional, Union

from . import feedback
from .json_calls import answer_from_args, calls_from_json
from .names import (
    IDENT,
    NO_TOOL_WORDS,
    SENTENCE_WORDS,
    WORDS_NAME,
    clean_name,
    is_final_name,
)
from .placeholders import find_placeholder, is_placeholder_name, placeholder_error, reject_placeholder
from .turn import FINAL, Turn, TurnError


def check_name(t: Turn, name: str, end: int, args: Any = None) -> Union[str, object]:
    """Validate a tool slot: the canonical tool name, ``FINAL``, or a ``TurnError``.

    ``args``, when already read, let an ``unknown_tool`` message show the
    model its own values under a valid tool."""
    if t.ts is not None and name.strip() in t.ts.names:
        t.tried = name.strip()
        return t.tried
    reject_placeholder(t, name, end)
    cleaned = clean_name(name)
    if t.ts is not None and cleaned:
        found = t.ts.lookup(cleaned)
        if found is not None:
            t.tried = found
            return found
    if cleaned and is_final_name(cleaned):
        return FINAL
    if cleaned.casefold() in NO_TOOL_WORDS:
        raise TurnError("no_action", feedback.no_action(t.voice), end, no_tool=True)
    if is_placeholder_name(cleaned):  # "tool_name" from the prompt's format example
        raise placeholder_error(t, cleaned, end)
    written = _as_name(cleaned, args)
    if t.ts is not None:
        shown = cleaned or name
        message = feedback.unknown_tool(t.voice, shown, t.ts.suggest(shown), args)
        # the detail names the tool only for a whole call (its input read, no echoed instruction in it)
        # to a name, not to a sentence
        whole = args is not None and find_placeholder(args) is None
        raise TurnError("unknown_tool", message, end, detail=written if whole else None)
    if written is not None:
        return written
    raise TurnError("no_action", feedback.not_a_name(t.voice, name), end, detail=name)


def _as_name(cleaned: str, args: Any) -> Optional[str]:
    """``cleaned`` when it reads as a tool name without a tool list to check it against, else None."""
    if cleaned and len(cleaned) <= 100 and IDENT.fullmatch(cleaned) is not None:
        return cleaned
    if (args is not None and len(cleaned) <= 64 and WORDS_NAME.fullmatch(cleaned) is not None
            and not SENTENCE_WORDS.intersection(cleaned.casefold().split())):
        return cleaned  # a name of words, with its input: crewAI's "Ask question to coworker"
    return None


def final_text(t: Turn, args: Union[dict, str], end: int) -> str:
    """The answer a final-answer call carries (its arguments, or the whole blob's)."""
    if isinstance(args, dict):
        inner = calls_from_json(args, t.ts, labelled=False)
        if isinstance(inner, tuple):  # the whole {"action": "Final Answer", "action_input": ...} blob
            args = inner[0]
        elif inner is not None:  # a tool call written as the answer: which one was meant is a guess
            raise TurnError("no_action", feedback.no_action(t.voice), end)
    answer = answer_from_args(args)
    if not answer.strip():
        raise TurnError("missing_answer", feedback.missing_answer(t.voice), end)
    reject_placeholder(t, answer, end)
    return answer
