"""The loop's pure policy: what to do with a parsed turn, when to stop, and the state after a step.

``decide(state, step)`` picks what to do with a parsed turn, ``check_limits``
says whether to stop before the next turn and ``advance`` folds a finished
step into the next ``RunState``. Plain functions over data, no I/O: the
``Agent`` (``loop``) does the backend, tools, trace and clock around them.

Several actions in one turn: by default only the first runs. The rest were
written before the model saw the first result, so their arguments may be
guesses (field notes 1); the scratchpad is cut right after the first action so
it shows exactly what ran. With ``Limits.max_parallel_tools`` above 1 every
action of the turn runs (``decide_turn``), up to that many at once, each with
a call id; tools with side effects run alone and in order, and the model sees
one observation holding every result, failures included, call by call.

An identical call (same tool, same canonical arguments) is never run twice in
a run: the model is shown the earlier result, marked "(same result as step
n)", and it still counts as no progress. A persistent cache across runs for
pure tools is ``tool_cache.ToolCache``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Sequence

from ..lexicon.messages import joined, message
from ..types import Action, FormatError, Step
from .corrections import correction, repeat_lead
from .decisions import Decision, Finish, PlannedCall, Retry, RunTool, RunTools, Stop
from .results import StepRecord
from .state import RunState, Seen

_NUDGE_PREVIEW_CHARS = 500
_EXPLAIN_PREVIEW_CHARS = 300


def fingerprint(action: Action) -> str:
    """Tool plus canonical arguments; ``"x"`` and ``{"only_key": "x"}`` are the same call."""
    args: Any = action.args
    if isinstance(args, dict) and len(args) == 1:
        (value,) = args.values()
        if isinstance(value, str):
            args = value
    if isinstance(args, str):
        canon = json.dumps(args.strip(), ensure_ascii=False)
    else:
        canon = json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    return f"{action.tool.lower()}:{canon}"


def _preview(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _format_error_decision(state: RunState, error: FormatError) -> Decision:
    if error.code == "empty" and state.empty_turns >= 1:
        return Stop("gave_up", "the model wrote nothing in two turns in a row")
    if state.format_errors + 1 >= state.limits.max_format_errors:
        return Stop("format_errors", f"{state.format_errors + 1} unusable turns in a row (the last: {error.code})")
    return Retry(error.message, f"format_error:{error.code}")


def decide(state: RunState, step: Step) -> Decision:
    """What to do with a parsed turn. Pure: same state and step, same decision."""
    if step.error is not None:
        return correction(state, step) or _format_error_decision(state, step.error)
    if step.actions:
        action = step.actions[0]
        if action.tool not in state.tool_names:
            return _format_error_decision(state, unknown_tool(action.tool, state.tool_names, state.lang))
        fp = fingerprint(action)
        earlier = next((s for s in reversed(state.seen) if s.fingerprint == fp), None)
        if earlier is not None and not earlier.rerunnable:
            if state.repeats >= 1:
                return Stop("no_progress", f"the model called {action.tool} again with the same arguments")
            return Retry(_repeat_text(action.tool, earlier, state.lang), "no_progress", same_as=earlier.step or None,
                         lead=repeat_lead(earlier, state.lang))
        return correction(state, step, action) or RunTool(action)
    if step.final_answer is not None:
        answer = step.final_answer.strip()
        if not answer:
            if state.empty_turns >= 1 or state.format_errors + 1 >= state.limits.max_format_errors:
                return Stop("gave_up", "the model's final answer was empty")
            return Retry(message(state.lang, "format.empty_answer"), "format_error:empty")
        return correction(state, step) or Finish(answer)
    return _format_error_decision(
        state, FormatError("no_action", message(state.lang, "format.no_action"))
    )


def _repeat_text(tool: str, earlier: Seen, lang: str = "en") -> str:
    """An earlier result shown again, marked as such, with the nudge to move on."""
    same_as = message(lang, "repeat.same_as", step=earlier.step) if earlier.step else ""
    return message(lang, "repeat", tool=tool, same_as=same_as, result=_preview(earlier.text, _NUDGE_PREVIEW_CHARS))


def decide_turn(state: RunState, step: Step) -> Decision:
    """``decide``, running every action of a turn when ``Limits.max_parallel_tools`` > 1. Pure.

    A turn whose calls are all repeats is no progress (nudged once, then
    stopped), as in ``decide``; one whose calls all name unknown tools is a
    format error. Otherwise the fresh calls run and the rest are answered
    call by call: an earlier identical call's result, or the error.
    """
    if state.limits.max_parallel_tools < 2 or step.error is not None or len(step.actions) < 2:
        return decide(state, step)
    calls = plan_calls(state, step.actions, state.steps + 1)
    if any(c.runs for c in calls):
        return RunTools(calls)
    if all(c.error is not None for c in calls):
        return _format_error_decision(state, unknown_tool(calls[0].action.tool, state.tool_names, state.lang))
    if state.repeats >= 1:
        return Stop("no_progress", "the model repeated calls it had already made")
    return Retry(batch_text([(c.action.tool, c.shown or "") for c in calls]), "no_progress")


def plan_calls(state: RunState, actions: Sequence[Action], n: int) -> tuple[PlannedCall, ...]:
    """How each action of turn ``n`` is answered. Pure.

    Call ids are ``n.i`` (i from 1). A repeat of an earlier step's call whose
    result still holds is answered with that result; a repeat within the turn
    runs once and is answered with the first one's result.
    """
    planned: list[PlannedCall] = []
    first_in_turn: dict[str, str] = {}
    for i, action in enumerate(actions, 1):
        call_id = f"{n}.{i}"
        if action.tool not in state.tool_names:
            planned.append(PlannedCall(call_id, action, shown=unknown_tool(action.tool, state.tool_names, state.lang).message,
                                       error="unknown_tool"))
            continue
        fp = fingerprint(action)
        earlier = next((s for s in reversed(state.seen) if s.fingerprint == fp), None)
        if earlier is not None and not earlier.rerunnable:
            mark = f"(same result as step {earlier.step}) " if earlier.step else ""
            planned.append(PlannedCall(call_id, action, same_as=f"step {earlier.step}",
                                       shown=mark + earlier.text))
        elif fp in first_in_turn:
            planned.append(PlannedCall(call_id, action, same_as=first_in_turn[fp]))
        else:
            first_in_turn[fp] = call_id
            planned.append(PlannedCall(call_id, action))
    return tuple(planned)


def batch_text(results: Sequence[tuple[str, str]]) -> str:
    """One observation for several calls: each tool's name and its result, in the order called."""
    if len(results) == 1:
        return results[0][1]
    return "\n".join(f"{tool}: {text.strip()}" for tool, text in results)


def unknown_tool(name: str, tool_names: Sequence[str], lang: str = "en") -> FormatError:
    """The format error for a call to a tool the model was not offered, naming the ones it was."""
    if not tool_names:
        return FormatError("unknown_tool", message(lang, "unknown_tool.none", name=name), name)
    return FormatError("unknown_tool", message(lang, "unknown_tool", name=name, offered=joined(lang, tool_names)), name)


def check_limits(state: RunState, elapsed: float) -> Stop | None:
    """Whether the run must stop before the next model turn."""
    limits = state.limits
    if state.failing_tool is not None and state.tool_failures > limits.max_tool_retries:
        return Stop(
            "tool_failures",
            f"{state.failing_tool} failed {state.tool_failures} times in a row",
        )
    if elapsed >= limits.timeout_s:
        return Stop("timeout", f"the run took longer than {limits.timeout_s:g} s")
    if state.tokens >= limits.max_total_tokens:
        return Stop("max_tokens", f"{state.tokens} tokens used; the limit is {limits.max_total_tokens}")
    if state.steps >= limits.max_steps:
        return Stop("max_steps", f"no final answer after {state.steps} steps")
    return None


def advance(state: RunState, record: StepRecord) -> RunState:
    """The state after ``record``. Pure."""
    d = record.decision
    changes: dict[str, Any] = {
        "steps": state.steps + 1,
        "tokens": state.tokens + record.evaluated_tokens + record.completion_tokens,
    }
    if isinstance(d, Retry) and d.reason.startswith("format_error:"):
        changes["format_errors"] = state.format_errors + 1
        changes["empty_turns"] = state.empty_turns + 1 if d.reason == "format_error:empty" else 0
    else:
        changes["format_errors"] = 0
        changes["empty_turns"] = 0
    if isinstance(d, Retry) and d.reason == "no_progress":
        changes["repeats"] = state.repeats + 1
    if isinstance(d, Retry) and d.reason == "needs_observation":
        changes["observation_nudged"] = True
    if isinstance(d, Retry) and d.check is not None:
        changes["nudged"] = state.nudged | {d.check}
    if isinstance(d, Retry) and d.seen is not None:
        changes["seen"] = state.seen + (d.seen,)
        changes["real_observations"] = state.real_observations + 1
    if isinstance(d, RunTools):
        changes.update(_after_calls(state, record))
    if isinstance(d, RunTool) and record.observation is not None:
        obs = record.observation
        fp = fingerprint(d.action)
        if not any(s.fingerprint == fp for s in state.seen):
            changes["repeats"] = 0
        shown = record.observation_text if record.observation_text is not None else obs.text
        changes["seen"] = state.seen + (Seen(fp, shown, (not obs.ok) and obs.retryable, record.n, d.action.tool, obs.code),)
        changes["last_observation"] = shown
        if obs.ok:
            changes["real_observations"] = state.real_observations + 1
            changes["failing_tool"] = None
            changes["tool_failures"] = 0
        elif state.failing_tool == d.action.tool:
            changes["tool_failures"] = state.tool_failures + 1
        else:
            changes["failing_tool"] = d.action.tool
            changes["tool_failures"] = 1
    return replace(state, **changes)


def _after_calls(state: RunState, record: StepRecord) -> dict[str, Any]:
    """What a turn of several calls changes: every call it ran is seen; any success resets the failure count."""
    ran = [c for c in record.calls if c.observation is not None]
    changes: dict[str, Any] = {}
    if not ran:
        return changes
    known = {s.fingerprint for s in state.seen}
    fresh = [Seen(fingerprint(c.action), c.shown, (not c.observation.ok) and c.observation.retryable, record.n,
                  c.action.tool, c.observation.code)
             for c in ran if c.observation is not None]
    if any(s.fingerprint not in known for s in fresh):
        changes["repeats"] = 0
    changes["seen"] = state.seen + tuple(fresh)
    changes["last_observation"] = record.observation_text
    succeeded = sum(1 for c in ran if c.observation is not None and c.observation.ok)
    if succeeded:
        changes["real_observations"] = state.real_observations + succeeded
        changes["failing_tool"] = None
        changes["tool_failures"] = 0
    else:
        tool = ran[0].action.tool
        if state.failing_tool == tool:
            changes["tool_failures"] = state.tool_failures + 1
        else:
            changes["failing_tool"] = tool
            changes["tool_failures"] = 1
    return changes


def explain(status: str, reason: str, state: RunState) -> str:
    """The answer of a run that did not answer: why, and what it last saw."""
    text = f"No answer ({status}): {reason}."
    if state.last_observation:
        text += f" Last observation: {_preview(state.last_observation, _EXPLAIN_PREVIEW_CHARS)}"
    return text


def kept_text(step: Step, prefix_len: int, all_actions: bool = False) -> str:
    """The trusted part of a turn, without its label and trailing whitespace.

    With several actions it ends after the first, unless ``all_actions`` (they all ran).
    """
    end = step.end if step.end > 0 else len(step.text)
    if not all_actions and len(step.actions) > 1 and step.actions[0].span[1] > 0:
        end = min(end, step.actions[0].span[1])
    return step.text[prefix_len:max(end, prefix_len)].rstrip()


def wants_label(step: Step, finish_reason: str) -> bool:
    """A turn that stopped after a whole thought and wrote neither an action nor an answer.

    Small models often end the turn right after the thought, even when the thought is the
    answer ("The number of days is 77."); asked to go on after a line break, they mostly
    write the ``Action:`` or ``Final Answer:`` line they left out, which costs a few tokens
    instead of a round of feedback.
    """
    return (finish_reason == "stop" and step.error is not None and step.error.code == "no_action"
            and not step.actions and step.final_answer is None and bool((step.thought or "").strip()))


def flag_truncation(step: Step, finish_reason: str, max_tokens: int) -> Step:
    """An action that runs into the token limit may be cut short: refuse it.

    The parser catches a cut-off JSON string; a bare ``Action Input: 37*9``
    that stopped at the limit looks complete, so the loop checks the
    backend's finish reason too.
    """
    if finish_reason != "length" or step.error is not None or not step.actions:
        return step
    first = step.actions[0]
    end = first.span[1] if first.span[1] > 0 else step.end
    if end < len(step.text.rstrip()):
        return step
    return replace(
        step,
        actions=(),
        error=FormatError(
            "truncated",
            f"Your turn was cut off at the {max_tokens}-token limit before the action was complete. "
            "Keep the thought short and write the whole action.",
        ),
    )
