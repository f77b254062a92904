"""The chat endpoint without HTTP: a checked request in, an OpenAI ``chat.completion`` out.

It owns the two bounds that protect the one model: admission (at most
``max_pending`` requests running or waiting, 429 past that) and the model
lock (one model call at a time: llama.cpp in process is not thread-safe and
shares one KV cache; 503 after ``queue_timeout_s`` of waiting).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any, Callable

from ..backends.base import Backend, BackendError
from ..backends.build import supports_grammar
from ..prompting.templates import TemplateError, as_template
from ..tools.calling import call_tool
from .endpoint import ApiError, ChatRequest, ServerConfig, bad_request, read_chat_request
from .choice import AUTO
from .native import NATIVE
from .request import ShimRequestError
from .request_trace import write_request_trace
from .shim import tool_calls

__all__ = ["ChatService"]


class ChatService:
    """The endpoint without HTTP: request dicts in, response dicts out.

    Owns the two bounds: admission (``max_pending`` requests in the building)
    and the model lock (one model call at a time).
    """

    def __init__(self, backend: Backend, config: ServerConfig, *, trace: bool = True) -> None:
        self.backend = backend
        self.trace = trace
        """Each request leaves a trace in the user trace folder (``fc.request_trace``)."""
        self.config = config
        # "auto" and "native" are protocols of the shim, not text templates: passed on as they are
        self.template = config.template if config.template in (AUTO, NATIVE) else as_template(config.template)
        if config.constrain and not supports_grammar(backend):
            raise ValueError(f"backend {getattr(backend, 'name', backend)!r} does not support grammars; drop --constrain")
        self._admission = threading.BoundedSemaphore(config.max_pending)
        self._model_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._pending = 0
        self.created = int(time.time())

    @property
    def pending(self) -> int:
        """Requests admitted and not finished (running + waiting for the model)."""
        return self._pending

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "model": self.config.model_name, "pending": self._pending}

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [self.model_card()]}

    def model_card(self) -> dict[str, Any]:
        return {"id": self.config.model_name, "object": "model", "created": self.created, "owned_by": "react-text"}

    def read(self, body: Any) -> ChatRequest:
        return read_chat_request(body, self.config)

    def chat(self, request: ChatRequest, on_content: Callable[[str], None] | None = None) -> dict[str, Any]:
        """One chat completion (``object: chat.completion``), or ``ApiError``.

        ``on_content`` receives a plain answer's text as it is generated (``shim.tool_calls``).
        """
        if not self._admission.acquire(blocking=False):
            raise ApiError(
                429,
                f"Too many requests: {self.config.max_pending} already running or queued for the one model; retry later.",
                type="rate_limit_error",
                code="queue_full",
            )
        try:
            with self._count_lock:
                self._pending += 1
            if not self._model_lock.acquire(timeout=self.config.queue_timeout_s):
                raise ApiError(
                    503,
                    f"The model stayed busy for {self.config.queue_timeout_s:g} s; retry later.",
                    type="server_error",
                    code="model_busy",
                )
            result = None
            try:
                result = self._run(request, on_content)
            finally:
                self._model_lock.release()
                if self.trace:
                    write_request_trace(request.messages, request.tools, model=self.config.model_name,
                                        template=(result or {}).get("template", {}).get("name")
                                        or getattr(self.template, "name", self.template), result=result,
                                        error=None if result is not None else "the request failed")
        finally:
            with self._count_lock:
                self._pending -= 1
            self._admission.release()
        return self._completion(result)

    def _completion(self, result: dict[str, Any]) -> dict[str, Any]:
        """A shim result in the ``chat.completion`` envelope; ``template`` says which protocol ``auto`` chose and why."""
        return {
            **({"template": result["template"]} if "template" in result else {}),
            "id": "chatcmpl-" + uuid.uuid4().hex[:24],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.config.model_name,
            "choices": [
                {"index": 0, "message": result["message"], "finish_reason": result["finish_reason"], "logprobs": None}
            ],
            "usage": result["usage"],
            "system_fingerprint": None,
        }

    def _run(self, request: ChatRequest, on_content: Callable[[str], None] | None = None) -> dict[str, Any]:
        if self.config.functions and not request.tools:
            return self._run_with_functions(request)
        return self._turn(request, request.messages, request.tools, on_content)

    def _run_with_functions(self, request: ChatRequest) -> dict[str, Any]:
        """Offer the server's own tools, run the calls the model makes, and return its text answer."""
        by_name = {t.name: t for t in self.config.functions}
        offered = [t.to_openai() for t in self.config.functions]
        messages = list(request.messages)
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        deadline = time.monotonic() + self.config.request_timeout_s
        for _ in range(self.config.max_tool_rounds):
            self._check_deadline(deadline)
            result = self._turn(request, messages, offered)
            for key in usage:
                usage[key] += int(result["usage"].get(key, 0))
            calls = [c for c in result["message"].get("tool_calls") or [] if c["function"]["name"] in by_name]
            if not calls:
                return {**result, "usage": usage}
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
            for call in calls:
                try:
                    args = json.loads(call["function"]["arguments"] or "{}")
                except (ValueError, RecursionError):
                    args = call["function"]["arguments"]
                self._check_deadline(deadline)
                tool = by_name[call["function"]["name"]]
                own = tool.timeout if tool.timeout is not None else self.config.function_timeout_s
                seen = call_tool(tool, args, timeout=max(0.01, min(own, deadline - time.monotonic())))
                text = seen.text if seen.ok else f"Error ({seen.code}): {seen.text}"
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        message = {"role": "assistant", "content": f"No answer after {self.config.max_tool_rounds} tool rounds."}
        return {"message": message, "finish_reason": "stop", "usage": usage}

    def _check_deadline(self, deadline: float) -> None:
        if time.monotonic() >= deadline:
            raise ApiError(504, f"The request ran past its limit of {self.config.request_timeout_s:g} s "
                                "(model turns and tool calls together); ask for less.",
                           type="server_error", code="request_timeout")

    def _turn(self, request: ChatRequest, messages: list, tools: list | None,
              on_content: Callable[[str], None] | None = None) -> dict[str, Any]:
        try:
            return tool_calls(
                messages,
                tools,
                backend=self.backend,
                template=self.template,
                tool_choice=request.tool_choice,
                constrain=self.config.constrain,
                max_tokens=request.max_tokens,
                max_retries=self.config.max_retries,
                temperature=request.temperature,
                seed=request.seed,
                parallel_tool_calls=request.parallel_tool_calls,
                examples=self.config.examples,
                on_content=on_content,
                checks=self.config.checks,
            )
        except ShimRequestError as exc:
            raise bad_request(exc.message, exc.param) from exc
        except TemplateError as exc:
            if "too expensive" in exc.reason:  # the request's tools and messages make a prompt past the limits
                raise bad_request(f"The request makes a prompt too large for this server ({exc.reason}).", "messages",
                                  code="context_length_exceeded") from exc
            raise ApiError(500, f"The server's template failed: {exc.reason}", type="server_error",
                           code="template_error") from exc
        except BackendError as exc:
            status = 503 if exc.retryable else 500
            raise ApiError(status, f"The model backend failed: {exc}", type="server_error", code="backend_error") from exc
