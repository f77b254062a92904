"""Function calling in the model's own tool format: its chat template with ``tools=``, the reply read tolerantly.

This is what a user gets from ``llama-server --jinja`` or Ollama, kept as a protocol of the
shim so it can be measured beside the text protocols and chosen when it is better
(``fc.choice``). The conversation goes in whole, as the template lays it out (assistant
``tool_calls``, ``role: tool`` results); the reply is read by the one tolerant parser in the
``native`` dialect, judged under ``tool_choice`` like any turn, and an unusable turn is
retried with the problem as a user message.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..backends.base import Backend
from ..backends.build import supports_grammar
from ..grammar.gbnf import build_grammar
from ..grammar.terms import GrammarError
from ..prompting.native import NativeTemplateError, chat_template_of, has_tools, render_native
from ..protocol.dialects import DIALECTS, format_action
from ..protocol.parser import parse
from .reply import ShimResult, result_of
from .request import ShimRequestError, ToolChoice
from .verdict import Verdict, judge

__all__ = ["NATIVE", "native_turn", "own_prompt"]

NATIVE = "native"
_STOP = DIALECTS[NATIVE].stop


def native_turn(messages: Sequence[Mapping[str, Any]], offered: Sequence[Any], choice: ToolChoice, *,
                backend: Backend, constrain: bool, max_tokens: int, max_retries: int, temperature: float,
                seed: int, parallel_tool_calls: bool) -> ShimResult:
    """One assistant turn in the model's own tool format (tools already read, ``tool_choice`` checked)."""
    chat_template = chat_template_of(backend)
    if not has_tools(chat_template):
        raise ShimRequestError("template 'native' needs a model whose chat template has a tools block; this one has "
                               "none (use a text protocol such as 'classic')", "template")
    by_name = {t.name: t for t in offered}
    schemas = {t.name: t.parameters for t in offered}
    shown = [] if choice.mode == "none" else [t.to_openai() for t in offered]
    grammar = _grammar(offered, choice, backend, constrain)
    example = _example(offered, choice)
    conversation = [dict(m) for m in messages]
    errors: list[str] = []
    usage = [0, 0]
    verdict, thought = Verdict(), None
    for _attempt in range(max_retries + 1):
        try:
            prompt = render_native(chat_template, conversation, shown)
        except NativeTemplateError as exc:
            raise ShimRequestError(str(exc), "template") from exc
        completion = backend.complete(prompt, stop=_STOP, max_tokens=max_tokens, temperature=temperature,
                                      seed=seed, grammar=grammar)
        usage[0] += completion.prompt_tokens
        usage[1] += completion.completion_tokens
        step = parse(completion.text, schemas, dialect=NATIVE, prose="error" if choice.forced else "final")
        verdict, thought = judge(step, by_name, choice, example), step.thought
        if verdict.problem is None:
            break
        errors.append(verdict.code or "format")
        conversation += [{"role": "assistant", "content": completion.text[:step.end] or completion.text},
                         {"role": "user", "content": verdict.problem}]
    return result_of(verdict, thought, errors, usage, messages, parallel_tool_calls, max_retries)


def own_prompt(backend: Backend, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> str | None:
    """The prompt for ``messages`` in the model's own tool format with ``tools`` (OpenAI-typed), or None when its
    chat template has no tools block or does not render: the checks that ask in that format then leave a reply
    as it was (``own_format``, ``own_options``)."""
    try:
        return render_native(chat_template_of(backend), messages, tools)
    except NativeTemplateError:
        return None


def _example(offered: Sequence[Any], choice: ToolChoice) -> str:
    if not offered:
        return "<your answer>"
    tool = next((t for t in offered if t.name == choice.name), offered[0])
    params = tool.parameters if isinstance(tool.parameters, Mapping) else {}
    keys = params.get("required") or list(params.get("properties", {}))[:1]
    return format_action(NATIVE, tool.name, {k: "..." for k in keys})


def _grammar(offered: Sequence[Any], choice: ToolChoice, backend: Backend, constrain: bool) -> str | None:
    """The model's own call format with the tools' schemas (GBNF), when asked for or when a call is forced."""
    if not (constrain or choice.forced) or not supports_grammar(backend):
        if constrain:
            raise ValueError(f"backend {getattr(backend, 'name', backend)!r} does not support grammars; drop constrain")
        return None
    tools = [] if choice.mode == "none" else [t for t in offered if choice.mode != "named" or t.name == choice.name]
    try:
        return build_grammar(NATIVE, tools, allow_final=not choice.forced)
    except GrammarError as exc:
        raise ShimRequestError(f"cannot constrain this request: {exc}", "tools") from exc
