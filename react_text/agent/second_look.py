"""A second look before a refusal: the engine searches once with the question's own words.

Why: a small model's query often drops the word that matters ("Tarnwick town" for a
population), and then it refuses the way the refusal episode does after a search. Before
such a refusal stands, the loop runs the ``search`` tool with the question itself. When a
result the model has not seen holds a sentence that plainly answers the question
(``evidence.answering_sentence``: strict on purpose), or, for a question that combines facts,
the facts it computes with (``facts.combining_facts``), the results go back as a correction
and the quote opens the next thought, as the episodes do. Anything less, and the refusal
stands: on a question the documents do not answer, nearby facts would only tempt the model
into a wrong answer. (Passages that merely name what the question names were tried too: on
two-fact questions the model then refused again or looped, so they are not shown.)

Pure functions; the loop runs the search (``Agent._second_look``).
"""

from __future__ import annotations

from typing import Any, Mapping

from ..checks import CheckName
from ..lexicon.messages import message
from ..prompting.facts import thought_lead
from ..lexicon.answers import is_refusal
from ..protocol.results import numbered, result_lines
from ..tools.search import SEARCH_TOOL
from ..types import Action
from .decisions import Retry
from .policy import fingerprint
from .state import RunState, Seen

__all__ = ["look_query", "second_look"]

CODE: CheckName = "second_look"


def look_query(state: RunState, answer: str) -> Action | None:
    """The search to run before accepting ``answer``, or None: no refusal, no ``search(query)`` offered,
    looked already, no turn left to answer in (the refusal must not turn into a stop), or the model
    already searched with exactly the question."""
    if (CODE not in state.checks or CODE in state.nudged or SEARCH_TOOL not in state.tool_names
            or state.steps + 1 >= state.limits.max_steps or not is_refusal(answer)):
        return None
    if "query" not in _properties(state.schemas.get(SEARCH_TOOL)):
        return None
    action = Action(SEARCH_TOOL, {"query": state.question.strip()})
    if any(seen.fingerprint == fingerprint(action) for seen in state.seen):
        return None
    return action


def second_look(state: RunState, action: Action, results: str, n: int) -> Retry | None:
    """The correction that shows the look's unseen, relevant results (made at turn ``n``, it then counts
    as a call seen); None lets the refusal stand."""
    earlier = "\n".join(seen.text for seen in state.seen).casefold()
    fresh = [r.line for r in result_lines(results) if r.line.casefold() not in earlier]
    if not fresh:
        return None
    shown = "\n".join(numbered(k, line) for k, line in enumerate(fresh, 1))
    lead = thought_lead(state.question, [*(seen.text for seen in state.seen), shown], state.lang,
                        state.tool_names, facts="facts" in state.checks, evidence="evidence" in state.checks)
    if lead is None:
        return None
    return Retry(message(state.lang, "second_look", shown=shown), f"guard:{CODE}", check=CODE, lead=lead, seen=Seen(fingerprint(action), shown, False, n, action.tool))


def _properties(schema: Mapping[str, Any] | None) -> Mapping[str, Any]:
    props = (schema or {}).get("properties") if isinstance(schema, Mapping) else None
    return props if isinstance(props, Mapping) else {}
