"""What ``react-text serve`` accepts: its configuration, its error shape, and the checked chat request.

Reading a request is pure (a decoded JSON body in, a ``ChatRequest`` or an
``ApiError`` naming the field out), so every refusal is decided before the
request takes a queue slot or touches the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..checks import DEFAULT_CHECKS, CheckName
from .folding import fold_messages
from .request import ShimRequestError, read_tool_choice, read_tools

__all__ = ["ServerConfig", "ApiError", "bad_request", "ChatRequest", "read_chat_request"]


@dataclass(frozen=True)
class ServerConfig:
    """Everything the endpoint decides that is not in a request."""

    model_name: str
    template: Any = "auto"
    constrain: bool | None = None
    """Grammar-constrained turns: None uses them when the backend takes grammars (as ``tool_calls``)."""
    max_body_bytes: int = 1_000_000
    max_pending: int = 4
    queue_timeout_s: float = 300.0
    default_max_tokens: int = 256
    max_tokens_limit: int = 1024
    max_retries: int = 2
    read_timeout_s: float = 30.0
    """The whole request (line, headers, body) must arrive within this; also each write's timeout."""
    api_key: str | None = None
    """When set, every request needs ``Authorization: Bearer <api_key>``."""
    max_connections: int = 32
    max_header_bytes: int = 32 * 1024
    listen_backlog: int = 64
    max_tools: int = 128
    examples: tuple[Any, ...] | None = None
    """Few-shot episodes for the template; None keeps the template's own."""
    functions: tuple[Any, ...] = ()
    """Tools this server runs itself (``serve --functions``) for requests that bring no ``tools``:
    the model's calls to them are executed here and fed back until it answers in text."""
    max_tool_rounds: int = 6
    request_timeout_s: float = 120.0
    """The longest one request running ``functions`` may hold the model, its tool calls included: each call
    gets at most what is left (504 past it), so one request cannot keep every other waiting for
    rounds x calls x timeouts."""
    function_timeout_s: float = 30.0
    """A ``functions`` tool's time limit when it declares none (``timeout=None``); a tool's own limit is kept."""
    checks: frozenset[CheckName] = DEFAULT_CHECKS
    """The checks every turn gets (``checks.registry``; ``serve --checks``)."""
    keepalive_s: float = 10.0
    """With ``stream: true``, an SSE comment goes out this often while the model works, so a client's
    read timeout (often 60 s) never fires on a slow turn; the first waits this long, so a quick refusal
    is still a plain HTTP error. 0 sends none (``serve --keepalive 0``)."""


class ApiError(Exception):
    """An error reply: HTTP status plus the OpenAI error object fields."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


def bad_request(message: str, param: str | None = None, status: int = 400, code: str | None = None) -> ApiError:
    """An ``invalid_request_error`` (400 unless told otherwise)."""
    return ApiError(status, message, param=param, code=code)


@dataclass(frozen=True)
class ChatRequest:
    """The fields of a chat request this server honours, checked."""

    messages: list
    tools: list | None
    tool_choice: Any
    max_tokens: int
    temperature: float
    seed: int
    stream: bool
    include_usage: bool
    parallel_tool_calls: bool


def read_chat_request(body: Any, config: ServerConfig) -> ChatRequest:
    """Pure: a decoded JSON body → ``ChatRequest``, or ``ApiError`` naming the field.

    Unknown fields (``user``, ``stop``, penalties, ...) are ignored, as most
    OpenAI-compatible servers do; fields that would change the reply's shape in
    ways this server cannot honour are refused with 422.
    """
    if not isinstance(body, Mapping):
        raise bad_request("The request body must be a JSON object.")
    if "messages" not in body:
        raise bad_request("Missing required parameter: 'messages'.", "messages", code="missing_required_parameter")
    if "model" in body and not isinstance(body["model"], str):
        raise bad_request("'model' must be a string.", "model")
    _refuse_unsupported(body)
    max_tokens, temperature, seed = _read_sampling(body, config)
    stream, include_usage, parallel = _read_switches(body)
    _check_conversation(body, config)
    tools = body.get("tools")
    return ChatRequest(
        messages=list(body["messages"]),
        tools=list(tools) if tools else None,
        tool_choice=body.get("tool_choice"),
        max_tokens=min(max_tokens, config.max_tokens_limit),
        temperature=float(temperature),
        seed=seed,
        stream=stream,
        include_usage=include_usage,
        parallel_tool_calls=parallel,
    )


def _refuse_unsupported(body: Mapping[str, Any]) -> None:
    """422 for well-formed fields that would change the reply's shape in ways this server cannot honour."""
    for legacy in ("functions", "function_call"):
        if legacy in body:
            raise bad_request(f"'{legacy}' is not supported; use 'tools' and 'tool_choice'.", legacy, 422,
                              "unsupported_parameter")
    n = body.get("n", 1)
    if n not in (None, 1):
        raise bad_request("Only n=1 is supported.", "n", 422, "unsupported_value")
    if body.get("logprobs"):
        raise bad_request("'logprobs' is not supported.", "logprobs", 422, "unsupported_parameter")


def _read_sampling(body: Mapping[str, Any], config: ServerConfig) -> tuple[int, float, int]:
    """``max_tokens`` (before the server's limit), ``temperature`` and ``seed``; null means the default."""
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is None:
        max_tokens = config.default_max_tokens
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise bad_request("'max_tokens' must be a positive integer.", "max_tokens")
    temperature = body.get("temperature", 0.0)
    if temperature is None:
        temperature = 0.0
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not 0 <= temperature <= 2:
        raise bad_request("'temperature' must be a number between 0 and 2.", "temperature")
    seed = body.get("seed", 0)
    if seed is None:
        seed = 0
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise bad_request("'seed' must be an integer.", "seed")
    return max_tokens, temperature, seed


def _read_switches(body: Mapping[str, Any]) -> tuple[bool, bool, bool]:
    """``stream``, ``stream_options.include_usage`` and ``parallel_tool_calls``."""
    stream = body.get("stream", False)
    if not isinstance(stream, bool) and stream is not None:
        raise bad_request("'stream' must be a boolean.", "stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, Mapping):
        raise bad_request("'stream_options' must be an object.", "stream_options")
    parallel = body.get("parallel_tool_calls", True)
    if not isinstance(parallel, bool) and parallel is not None:
        raise bad_request("'parallel_tool_calls' must be a boolean.", "parallel_tool_calls")
    return bool(stream), bool(options.get("include_usage", False)), parallel is not False


def _check_conversation(body: Mapping[str, Any], config: ServerConfig) -> None:
    """The tools, ``tool_choice`` and messages as the shim will read them, before the request takes a queue slot."""
    messages, tools = body["messages"], body.get("tools")
    if isinstance(tools, list) and len(tools) > config.max_tools:
        raise bad_request(f"{len(tools)} tools is too many; this server takes at most {config.max_tools}.", "tools",
                          code="too_many_tools")
    try:
        offered = read_tools(tools)
        read_tool_choice(body.get("tool_choice"), offered)
        fold_messages(messages)
    except ShimRequestError as exc:
        raise bad_request(exc.message, exc.param, 422 if exc.unsupported else 400) from exc
