"""``react-text serve``: an OpenAI-compatible chat endpoint with ``tools`` for any backend.

Existing OpenAI-SDK clients get tool calling from a local model that never had
it: each ``POST /v1/chat/completions`` runs one ``react_text.fc.shim.tool_calls``
turn. Also ``GET /v1/models``, ``GET /v1/models/{id}`` and ``GET /health``.

Choices, and why:

* stdlib ``ThreadingHTTPServer``: no new dependency, and one model process
  cannot use more than a handful of connections anyway.
* One model call at a time (a lock): llama.cpp in process is not thread-safe
  and shares one KV cache. At most ``max_pending`` requests are admitted
  (running + waiting); more get 429 at once, and a request that waits longer
  than ``queue_timeout_s`` for the model gets 503. Bodies over
  ``max_body_bytes`` get 413 without being read.
* Loopback only unless ``allow_remote``, and then only with an ``api_key``
  (``Authorization: Bearer``, compared in constant time, 401 otherwise).
* A web page must not be able to drive a loopback server: the ``Host`` header
  must name a loopback address (DNS rebinding), a browser's ``Origin`` must be
  loopback or the server itself, and a POST must be ``application/json`` (415),
  which a page cannot send cross-origin without a preflight this server never
  grants.
* Slow or hostile clients: the request line, headers and body must all arrive
  within ``read_timeout_s`` in total; headers are capped at ``max_header_bytes``
  (431); at most ``max_connections`` connections are served at once (more get
  503 at once, without a thread); the listen backlog is ``listen_backlog``.
* ``stream: true`` is served as Server-Sent Events as the model writes: a plain
  answer goes out in ``content`` deltas while it is generated (once the turn
  is clearly an answer; see ``shim._AnswerStream``); tool calls go out as
  ``tool_calls`` deltas in OpenAI's shape (id, type and name first, then the
  arguments) as soon as the turn is parsed and its arguments checked, which
  cannot happen earlier. Nothing is sent before the first piece is ready, so a
  request that fails before that still gets a plain HTTP error; a failure
  after it ends the stream with an ``error`` event.
* Status codes: 400 malformed request (bad JSON, missing or ill-typed fields),
  401 a missing or wrong API key, 403 a foreign ``Host`` or ``Origin``,
  404 unknown route or model, 405 wrong method, 411 no Content-Length,
  413 body too large, 415 not JSON, 431 headers too large, 422 a well-formed
  request for something this server does not do (``n`` > 1, legacy
  ``functions``, ``logprobs``, non-text content),
  429 queue full, 500 model or server failure, 503 model busy past the queue
  timeout or temporarily unavailable. Every error body is OpenAI-shaped:
  ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import hmac
import http.client
import io
import ipaddress
import json
import re
import socket
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping

from ..backends.base import Backend, BackendError
from .shim import ShimRequestError, fold_messages, read_tool_choice, read_tools, tool_calls
from ..prompting.templates import TemplateError, as_template
from ..trace import json_text

__all__ = ["ServerConfig", "ApiError", "ChatService", "ChunkStream", "ShimHTTPServer", "make_server", "serve",
           "is_loopback"]


@dataclass(frozen=True)
class ServerConfig:
    """Everything the endpoint decides that is not in a request."""

    model_name: str
    template: Any = "classic"
    constrain: bool = False
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


def _bad(message: str, param: str | None = None, status: int = 400, code: str | None = None) -> ApiError:
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
        raise _bad("The request body must be a JSON object.")
    if "messages" not in body:
        raise _bad("Missing required parameter: 'messages'.", "messages", code="missing_required_parameter")
    if "model" in body and not isinstance(body["model"], str):
        raise _bad("'model' must be a string.", "model")
    for legacy in ("functions", "function_call"):
        if legacy in body:
            raise _bad(f"'{legacy}' is not supported; use 'tools' and 'tool_choice'.", legacy, 422, "unsupported_parameter")
    n = body.get("n", 1)
    if n not in (None, 1):
        raise _bad("Only n=1 is supported.", "n", 422, "unsupported_value")
    if body.get("logprobs"):
        raise _bad("'logprobs' is not supported.", "logprobs", 422, "unsupported_parameter")

    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is None:
        max_tokens = config.default_max_tokens
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
        raise _bad("'max_tokens' must be a positive integer.", "max_tokens")
    temperature = body.get("temperature", 0.0)
    if temperature is None:
        temperature = 0.0
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not 0 <= temperature <= 2:
        raise _bad("'temperature' must be a number between 0 and 2.", "temperature")
    seed = body.get("seed", 0)
    if seed is None:
        seed = 0
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise _bad("'seed' must be an integer.", "seed")
    stream = body.get("stream", False)
    if not isinstance(stream, bool) and stream is not None:
        raise _bad("'stream' must be a boolean.", "stream")
    options = body.get("stream_options") or {}
    if not isinstance(options, Mapping):
        raise _bad("'stream_options' must be an object.", "stream_options")
    parallel = body.get("parallel_tool_calls", True)
    if not isinstance(parallel, bool) and parallel is not None:
        raise _bad("'parallel_tool_calls' must be a boolean.", "parallel_tool_calls")

    messages, tools = body["messages"], body.get("tools")
    if isinstance(tools, list) and len(tools) > config.max_tools:
        raise _bad(f"{len(tools)} tools is too many; this server takes at most {config.max_tools}.", "tools",
                   code="too_many_tools")
    try:  # check the conversation before it takes a queue slot
        offered = read_tools(tools)
        read_tool_choice(body.get("tool_choice"), offered)
        fold_messages(messages)
    except ShimRequestError as exc:
        raise _bad(exc.message, exc.param, 422 if exc.unsupported else 400) from exc
    return ChatRequest(
        messages=list(messages),
        tools=list(tools) if tools else None,
        tool_choice=body.get("tool_choice"),
        max_tokens=min(max_tokens, config.max_tokens_limit),
        temperature=float(temperature),
        seed=seed,
        stream=bool(stream),
        include_usage=bool(options.get("include_usage", False)),
        parallel_tool_calls=parallel is not False,
    )


class ChatService:
    """The endpoint without HTTP: request dicts in, response dicts out.

    Owns the two bounds: admission (``max_pending`` requests in the building)
    and the model lock (one model call at a time).
    """

    def __init__(self, backend: Backend, config: ServerConfig) -> None:
        self.backend = backend
        self.config = config
        self.template = as_template(config.template)
        if config.constrain and not getattr(backend, "supports_grammar", False):
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
            try:
                result = self._run(request, on_content)
            finally:
                self._model_lock.release()
        finally:
            with self._count_lock:
                self._pending -= 1
            self._admission.release()
        return {
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
        from ..tools.calling import call_tool

        by_name = {t.name: t for t in self.config.functions}
        offered = [t.to_openai() for t in self.config.functions]
        messages = list(request.messages)
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        for _ in range(self.config.max_tool_rounds):
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
                except ValueError:
                    args = call["function"]["arguments"]
                seen = call_tool(by_name[call["function"]["name"]], args, timeout=30.0)
                text = seen.text if seen.ok else f"Error ({seen.code}): {seen.text}"
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
        message = {"role": "assistant", "content": f"No answer after {self.config.max_tool_rounds} tool rounds."}
        return {"message": message, "finish_reason": "stop", "usage": usage}

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
            )
        except ShimRequestError as exc:
            raise _bad(exc.message, exc.param) from exc
        except TemplateError as exc:
            if "too expensive" in exc.reason:  # the request's tools and messages make a prompt past the limits
                raise _bad(f"The request makes a prompt too large for this server ({exc.reason}).", "messages",
                           code="context_length_exceeded") from exc
            raise ApiError(500, f"The server's template failed: {exc.reason}", type="server_error",
                           code="template_error") from exc
        except BackendError as exc:
            status = 503 if exc.retryable else 500
            raise ApiError(status, f"The model backend failed: {exc}", type="server_error", code="backend_error") from exc


class ChunkStream:
    """One streamed chat completion, as ``chat.completion.chunk`` objects handed to ``send``.

    The role chunk goes first, sent with the first piece of the reply (not
    before: until then a failure can still be a plain HTTP error). ``content``
    is fed live; ``finish`` sends whatever the finished reply adds: the rest of
    the content, or the tool calls, the finish reason and the usage.
    """

    def __init__(self, model: str, send: Callable[[dict[str, Any]], None], include_usage: bool = False) -> None:
        self.id = "chatcmpl-" + uuid.uuid4().hex[:24]
        self.created = int(time.time())
        self.model = model
        self.started = False
        self.content_sent = ""
        self._send = send
        self._include_usage = include_usage

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> None:
        if not self.started:  # OpenAI opens a text reply with content "" and a tool-call reply with null
            self.started = True
            self._chunk({"role": "assistant", "content": "" if "content" in delta else None})
        self._send({"id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]})

    def content(self, text: str) -> None:
        if text:
            self._chunk({"content": text})
            self.content_sent += text

    def finish(self, response: Mapping[str, Any]) -> None:
        choice = response["choices"][0]
        message = choice["message"]
        for index, call in enumerate(message.get("tool_calls") or ()):
            function = call["function"]
            self._chunk({"tool_calls": [{"index": index, "id": call["id"], "type": call.get("type", "function"),
                                         "function": {"name": function["name"], "arguments": ""}}]})
            self._chunk({"tool_calls": [{"index": index, "function": {"arguments": function["arguments"]}}]})
        content = message.get("content") or ""
        if content.startswith(self.content_sent):  # otherwise the parse moved under the stream: keep what went out
            self.content(content[len(self.content_sent):])
        self._chunk({}, choice["finish_reason"])
        if self._include_usage:
            self._send({"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                        "model": self.model, "choices": [], "usage": response["usage"]})


_DISCARD_CAP = 16 * 1024 * 1024
"""Largest refused body still read (and dropped) so the 413 reaches the client."""

_ROUTES = {"/v1/chat/completions": ("POST",), "/v1/models": ("GET",), "/health": ("GET",)}


class _Handler(BaseHTTPRequestHandler):
    """HTTP plumbing only: read, route, write. Decisions live in ``ChatService``."""

    server: "ShimHTTPServer"
    protocol_version = "HTTP/1.0"
    server_version = "react-text"

    def setup(self) -> None:
        config = self.server.service.config
        self.connection = self.request
        self.connection.settimeout(config.read_timeout_s)
        self._reader = _RequestReader(self.connection, time.monotonic() + config.read_timeout_s, _REQUEST_LINE_LIMIT)
        self.rfile = io.BufferedReader(self._reader)
        self.wfile = socket.SocketIO(self.connection, "wb")  # unbuffered, as StreamRequestHandler's default
        self._responded = False

    def parse_request(self) -> bool:
        self._reader.header_budget = self.server.service.config.max_header_bytes  # the request line is in
        return super().parse_request()

    def send_response(self, code: int, message: str | None = None) -> None:
        self._responded = True
        self.connection.settimeout(self.server.service.config.read_timeout_s)  # not what the deadline left
        super().send_response(code, message)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors http.server raises itself (bad request line, headers too large...) in the OpenAI shape."""
        self.close_connection = True
        if code == 431:
            text = f"The request headers are too large (limit {self.server.service.config.max_header_bytes} bytes)."
        else:
            text = explain or message or HTTPStatus(code).phrase
        self._send_json(code, ApiError(code, text, code=HTTPStatus(code).phrase.lower().replace(" ", "_")).body())

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        service = self.server.service
        try:
            self._reader.header_budget = None  # the headers are in: the body has its own limit
            self._check_caller(method)
            if path.startswith("/v1/models/") and method == "GET":
                name = path[len("/v1/models/"):]
                if name != service.config.model_name:
                    raise ApiError(404, f"The model {name!r} does not exist; this server serves {service.config.model_name!r}.",
                                   param="model", code="model_not_found")
                return self._send_json(200, service.model_card())
            allowed = _ROUTES.get(path)
            if allowed is None:
                raise ApiError(404, f"Unknown route: {method} {path}. Routes: {', '.join(_ROUTES)}.", code="unknown_url")
            if method not in allowed:
                raise ApiError(405, f"Method {method} is not allowed on {path}; use {', '.join(allowed)}.",
                               code="method_not_allowed")
            if path == "/health":
                return self._send_json(200, service.health())
            if path == "/v1/models":
                return self._send_json(200, service.models())
            request = service.read(self._read_json())
            if request.stream:
                return self._stream_chat(request)
            response = service.chat(request)
            return self._send_json(200, response)
        except ApiError as exc:
            if self._responded:  # a reply (an SSE stream) has begun: a second status line would corrupt it
                self.close_connection = True
                return
            headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else {}
            if exc.status == 405:
                headers["Allow"] = ", ".join(_ROUTES.get(path, ()))
            self._send_json(exc.status, exc.body(), headers)
        except (ConnectionError, socket.timeout):
            self.close_connection = True
        except Exception as exc:  # a bug must not kill the server or leak a traceback to the client
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            if not self._responded:
                self._send_json(500, ApiError(500, f"Internal server error ({type(exc).__name__}).",
                                              type="server_error").body())

    def _check_caller(self, method: str) -> None:
        """Who may call: the API key, then the Host and Origin a browser would send, then the body's type."""
        config = self.server.service.config
        if config.api_key is not None:
            sent = self.headers.get("Authorization", "")
            scheme, _, token = sent.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), config.api_key.encode()):
                raise ApiError(401, "Incorrect or missing API key: send 'Authorization: Bearer <key>'.",
                               code="invalid_api_key")
        host = self.headers.get("Host")
        if host is not None and not self.server.accepts_host(host):
            raise ApiError(403, f"Host {host[:100]!r} is not this server; only loopback names are accepted.",
                           code="forbidden_host")
        origin = self.headers.get("Origin")
        if origin is not None and not self.server.accepts_origin(origin, host):
            raise ApiError(403, f"Requests from web pages at {origin[:100]!r} are not accepted.",
                           code="forbidden_origin")
        if method == "POST":
            kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                self.close_connection = True
                raise ApiError(415, f"Content-Type must be application/json, not {kind[:60] or 'missing'!r}.",
                               code="unsupported_media_type")

    def _read_json(self) -> Any:
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            self.close_connection = True
            raise ApiError(411, "A Content-Length header is required.", code="length_required")
        try:
            length = int(length_text)
        except ValueError:
            self.close_connection = True
            raise ApiError(400, f"Invalid Content-Length: {length_text!r}.") from None
        limit = self.server.service.config.max_body_bytes
        if length > limit:
            self.close_connection = True
            self._discard(length)
            raise ApiError(413, f"Request body is {length} bytes; the limit is {limit}.", code="request_too_large")
        raw = self.rfile.read(length) if length > 0 else b""
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ApiError(400, f"We could not parse the JSON body of your request: {exc}.", code="invalid_json") from None
        except RecursionError:
            raise ApiError(400, "The JSON body of your request is nested too deeply.", code="invalid_json") from None
        try:
            return _without_lone_surrogates(body) if _SURROGATE_ESCAPE.search(raw) else body
        except RecursionError:
            raise ApiError(400, "The JSON body of your request is nested too deeply.", code="invalid_json") from None

    def _discard(self, length: int) -> None:
        """Read and drop a refused body (up to a cap) so the client gets the 413.

        Closing a socket with unread data makes TCP reset the connection, and the
        client would see "connection reset" instead of the error reply.
        """
        left = min(length, _DISCARD_CAP)
        while left > 0:
            chunk = self.rfile.read(min(left, 65536))
            if not chunk:
                break
            left -= len(chunk)

    def _send_json(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json_text(body).encode("utf-8")
        try:
            self.send_response(status, HTTPStatus(status).phrase)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (ConnectionError, socket.timeout):
            self.close_connection = True

    def _stream_chat(self, request: ChatRequest) -> None:
        """Serve ``stream: true``: SSE chunks as the reply is generated, then ``data: [DONE]``."""
        service = self.server.service
        stream = ChunkStream(service.config.model_name, self._send_event, request.include_usage)
        try:
            response = service.chat(request, on_content=stream.content)
        except ApiError as exc:
            if not stream.started:
                raise  # nothing sent yet: an ordinary error reply
            self._send_event(exc.body())
            self.close_connection = True
            return
        stream.finish(response)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def _send_event(self, data: Mapping[str, Any]) -> None:
        """One SSE ``data:`` event, flushed; the headers go out with the first."""
        if not getattr(self, "_events_started", False):
            self._events_started = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
        self.wfile.write(b"data: " + json_text(data).encode("utf-8") + b"\n\n")
        self.wfile.flush()


_REQUEST_LINE_LIMIT = 65537 + 8192
"""http.server's own cap on the request line, plus one read-ahead buffer."""

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.", "ip6-localhost"})


class _HeadersTooLarge(http.client.HTTPException):
    """Raised while reading headers; http.server answers it with 431 (see ``send_error``)."""


class _RequestReader(io.RawIOBase):
    """The socket as a raw stream that enforces a whole-request deadline and a header byte budget.

    A socket timeout bounds each wait, so a client trickling a byte at a
    time would hold a thread for ever; here every read gets only what is left
    of one deadline for the whole request.
    """

    def __init__(self, sock: socket.socket, deadline: float, header_budget: int) -> None:
        self._sock = sock
        self.deadline = deadline
        self.header_budget: int | None = header_budget

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout("the request took too long to arrive")
        if self.header_budget is not None and self.header_budget <= 0:
            raise _HeadersTooLarge("request headers too large")
        self._sock.settimeout(left)
        n = self._sock.recv_into(buffer)
        if self.header_budget is not None:
            self.header_budget -= n
        return n


def _without_lone_surrogates(value: Any) -> Any:
    """Request text with unpaired surrogates (``"\\ud800"``) replaced by U+FFFD: no model can read them."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


def _host_name(authority: str) -> str:
    """``host`` from ``host:port`` / ``[v6]:port``, lowercased."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1:].split("]", 1)[0]
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def _is_loopback_name(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_BUSY_REPLY = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
               b"Retry-After: 1\r\n\r\n" + json.dumps(ApiError(
                   503, "Too many open connections; retry later.", type="server_error",
                   code="too_many_connections").body()).encode())


class ShimHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that carries its ``ChatService`` and bounds its connections."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], service: ChatService, *, verbose: bool = False) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.service = service
        self.verbose = verbose
        self.request_queue_size = service.config.listen_backlog
        self._connections = threading.BoundedSemaphore(service.config.max_connections)
        super().__init__(address, _Handler)
        self.loopback = is_loopback(str(self.server_address[0]))

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread per connection, up to ``max_connections``; past that a 503 at once, from this thread."""
        if not self._connections.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(_BUSY_REPLY)
                request.setblocking(False)
                request.recv(65536)  # drop what already arrived, so closing does not reset the reply away
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._connections.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()

    def accepts_host(self, host: str) -> bool:
        """A loopback server answers only to loopback names: a DNS-rebound name reaches it with a foreign Host."""
        return not self.loopback or _is_loopback_name(_host_name(host))

    def accepts_origin(self, origin: str, host: str | None) -> bool:
        """A browser page may call only from a loopback page or from this server's own origin."""
        scheme, _, authority = origin.strip().lower().partition("://")
        if scheme not in ("http", "https") or not authority:
            return False  # "null" (sandboxed frames, file: pages) and the like
        return _is_loopback_name(_host_name(authority)) or (host is not None and authority == host.strip().lower())

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}"


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def make_server(
    backend: Backend,
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    allow_remote: bool = False,
    verbose: bool = False,
) -> ShimHTTPServer:
    """A bound (not yet serving) server; ``port=0`` picks a free port.

    Refuses a non-loopback ``host`` unless ``allow_remote``, and ``allow_remote``
    without ``config.api_key``: anyone who can reach the port could run the model.
    """
    if not allow_remote and not is_loopback(host):
        raise ValueError(
            f"refusing to listen on {host!r}: not a loopback address; pass --allow-remote with --api-key to do it"
        )
    if allow_remote and not config.api_key:
        raise ValueError("--allow-remote needs --api-key (or REACT_TEXT_API_KEY): a remote endpoint must not be open")
    return ShimHTTPServer((host, port), ChatService(backend, config), verbose=verbose)


def serve(server: ShimHTTPServer) -> None:
    """Serve until Ctrl-C, then close the socket."""
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
