"""No-agent baselines: what the same model does without the loop, as compare cells beside the templates.

A user with a small model and their own documents can skip the agent: search once with the
question, put the results in one prompt, read the answer. The loop has to beat that to be worth
its turns, so every compare can run these as "templates":

- ``rag``: the question sent to the task's ``search`` tool once (top ``k`` results), results and
  question in one prompt in the question's language; one model call; a refusal is an answer.
- ``rag+calc``: the same prompt, but the model may reply with one calculator call instead of the
  answer; the calculator computes and a second call answers with the result shown. Two calls at most.
- ``direct``: the question alone, no tools (what the model knows or invents).
- ``plain``: the task's tools as Python signatures and "reply ``[func(a=1)]``"; the calls are read
  by the tolerant parser and run, and what they return is the answer (one model call).

A baseline uses only the tools its task offers: without ``search`` the prompts hold no results
(``rag`` is then the ``direct`` prompt, ``rag+calc`` the question with its calculator pass), without
``calculator`` there is no calculator pass. Prompts are
data (``prompts/baselines.json``); replies are read by ``react_text.protocol.parser``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping, Sequence

from ..backends.base import BackendError
from ..prompting.tool_views import signatures
from ..protocol.parser import parse
from ..tools.calling import call_tool
from ..tools.spec import Tool
from ..types import Action, Completion, Step
from .suites import match_answer

BASELINES: tuple[str, ...] = ("rag", "rag+calc", "direct", "plain")
"""Names a compare accepts in ``--templates`` beside the agent's templates."""

SEARCH, CALCULATOR = "search", "calculator"
_STOP = ("\nObservation:", "\nQuestion:")


def is_baseline(name: str) -> bool:
    return name in BASELINES


def load_prompts() -> dict[str, dict[str, str]]:
    """The baselines' prompts per language (``prompts/baselines.json``)."""
    text = resources.files("react_text.prompts").joinpath("baselines.json").read_text(encoding="utf-8")
    return {lang: prompts for lang, prompts in json.loads(text).items() if not lang.startswith("_")}


@dataclass(frozen=True)
class Exchange:
    """One model call of a baseline: what was sent and what came back."""

    prompt: str
    reply: str
    prompt_tokens: int
    evaluated_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class BaselineRun:
    """How a baseline ended on one task; ``status`` uses the agent's words (``answered``, ``format_errors``...)."""

    status: str
    answer: str
    exchanges: tuple[Exchange, ...]
    actions: int = 0
    invalid_tool_calls: int = 0
    format_errors: int = 0


class _Model:
    """The backend contract, one fresh prompt per call, every exchange kept for the record."""

    def __init__(self, backend: Any, max_tokens: int, seed: int) -> None:
        self.backend, self.max_tokens, self.seed = backend, max_tokens, seed
        self.exchanges: list[Exchange] = []

    def ask(self, prompt: str) -> str:
        done: Completion = self.backend.complete(self.backend.wrap_prompt(prompt), stop=_STOP,
                                                 max_tokens=self.max_tokens, temperature=0.0, seed=self.seed)
        evaluated = done.prompt_tokens if done.evaluated_tokens is None else done.evaluated_tokens
        self.exchanges.append(Exchange(prompt, done.text, done.prompt_tokens, evaluated, done.completion_tokens))
        return done.text

    def ended(self, status: str, answer: str = "", **counts: int) -> BaselineRun:
        return BaselineRun(status, answer, tuple(self.exchanges), **counts)


def run_baseline(name: str, question: str, lang: str, tools: Sequence[Tool], backend: Any, *,
                 max_tokens: int = 192, seed: int = 0) -> BaselineRun:
    """Run baseline ``name`` on one question with the task's ``tools`` (its search already set to top-k)."""
    if not is_baseline(name):
        raise ValueError(f"unknown baseline {name!r}; baselines: {', '.join(BASELINES)}")
    prompts = load_prompts()["zh" if lang.split("-")[0] == "zh" else "en"]
    offered = {t.name: t for t in tools}
    model = _Model(backend, max_tokens, seed)
    try:
        if name == "plain":
            return _plain(prompts, question, list(tools), model)
        results = None if name == "direct" or SEARCH not in offered else call_tool(
            offered[SEARCH], {"query": question}).text
        if name == "rag+calc" and CALCULATOR in offered:
            return _rag_calc(prompts, question, results, offered[CALCULATOR], model)
        if results is None:
            return _answer(model, prompts["direct"].format(question=question))
        return _answer(model, prompts["rag"].format(results=results, question=question))
    except BackendError:
        return model.ended("backend_error")


def _answer(model: _Model, prompt: str) -> BaselineRun:
    return _final(model, parse(model.ask(prompt), [], prose="final"))


def _final(model: _Model, step: Step) -> BaselineRun:
    """The run ended by a reply read as an answer; one that holds none is a format error."""
    if step.final_answer is None or not step.final_answer.strip():
        return model.ended("format_errors", format_errors=1)
    return model.ended("answered", step.final_answer.strip())


def _rag_calc(prompts: Mapping[str, str], question: str, results: str | None, calculator: Tool,
              model: _Model) -> BaselineRun:
    """Answer, or one calculator call and then the answer; without a search tool the prompts hold no results."""
    first, then = ("rag+calc", "calc_result") if results is not None else ("calc", "calc_answer")
    step = parse(model.ask(prompts[first].format(results=results, question=question)), [CALCULATOR],
                 prose="final")
    if not step.actions:
        return _final(model, step)
    action = step.actions[0]
    expression = action.args.get("expression", "") if isinstance(action.args, dict) else str(action.args)
    seen = call_tool(calculator, action.args)
    run = _answer(model, prompts[then].format(results=results, expression=expression, value=seen.text,
                                              question=question))
    return BaselineRun(run.status, run.answer, run.exchanges, actions=1,
                       invalid_tool_calls=0 if seen.ok else 1, format_errors=run.format_errors)


def _plain(prompts: Mapping[str, str], question: str, tools: list[Tool], model: _Model) -> BaselineRun:
    reply = model.ask(prompts["plain"].format(functions=signatures(tools), question=question))
    schemas = {t.name: t.parameters for t in tools}
    calls = read_calls(reply, schemas)
    if calls is None:
        return _final(model, parse(reply, schemas, prose="final"))
    by_name = {t.name: t for t in tools}
    seen = [call_tool(by_name[a.tool], a.args) for a in calls]
    failed = sum(1 for s in seen if not s.ok)
    if failed:
        return model.ended("tool_failures", actions=len(calls), invalid_tool_calls=failed)
    return model.ended("answered", "\n".join(s.text for s in seen), actions=len(calls))


def read_calls(reply: str, tools: Mapping[str, Any]) -> tuple[Action, ...] | None:
    """The calls of a ``[f(a=1), g(b=2)]`` reply (or one call written without brackets), each read by the
    tolerant parser; None when the reply holds no call of an offered tool (it is then an answer)."""
    inner = reply.strip()
    if "[" in inner and "]" in inner:
        inner = inner[inner.index("[") + 1: inner.rindex("]")]
    actions: list[Action] = []
    for piece in _top_level(inner):
        step = parse("Action: " + piece, tools)
        if step.actions:
            actions.extend(step.actions)
    return tuple(actions) or None


def _top_level(text: str) -> list[str]:
    """``text`` cut at commas outside brackets and quotes: one piece per call."""
    pieces, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def baseline_record(task: Any, run: BaselineRun, *, model: str, template: str, trace: str,
                    wall_seconds: float) -> dict:
    """The compare record of a baseline run: the agent's fields, so judging and reports read both alike
    (``turns`` and ``steps`` are its model calls)."""
    calls = len(run.exchanges)
    return {
        "model": model, "template": template, "constrain": False, "task_id": task.id,
        "category": task.category, "lang": task.lang, "question": task.question, "expected": task.expected,
        "answer": run.answer, "status": run.status,
        "correct": run.status == "answered" and match_answer(task, run.answer),
        "steps": calls, "turns": calls, "format_errors": run.format_errors, "actions": run.actions,
        "invalid_tool_calls": run.invalid_tool_calls,
        "prompt_tokens": sum(e.prompt_tokens for e in run.exchanges),
        "evaluated_tokens": sum(e.evaluated_tokens for e in run.exchanges),
        "completion_tokens": sum(e.completion_tokens for e in run.exchanges),
        "wall_seconds": round(wall_seconds, 3), "trace": trace, "example_value": None,
    }


def write_trace(path: Any, name: str, run: BaselineRun) -> None:
    """Each exchange as one JSON line: the baseline's whole story (two calls at most)."""
    with open(path, "w", encoding="utf-8") as fh:
        for e in run.exchanges:
            fh.write(json.dumps({"baseline": name, "prompt": e.prompt, "reply": e.reply,
                                 "prompt_tokens": e.prompt_tokens, "completion_tokens": e.completion_tokens},
                                ensure_ascii=False) + "\n")
        fh.write(json.dumps({"baseline": name, "status": run.status, "answer": run.answer}, ensure_ascii=False) + "\n")
