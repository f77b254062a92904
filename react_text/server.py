"""``react-text serve``: an OpenAI-compatible chat endpoint with ``tools`` for any backend.

Existing OpenAI-SDK clients get tool calling from a local model that never had
it: each ``POST /v1/chat/completions`` runs one ``react_text.shim.tool_calls``
turn. Also ``GET /v1/models``, ``GET /v1/models/{id}`` and ``GET /health``.

Choices, and why:

* stdlib ``ThreadingHTTPServer``: no new dependency, and one model process
  cannot use more than a handful of connections anyway.
* One model call at a time (a lock): llama.cpp in process is not thread-safe
  and shares one KV cache. At most ``max_pending`` requests are admitted
  (running + waiting); more get 429 at once, and a request that waits longer
  than ``queue_timeout_s`` for the model gets 503. Bodies over
  ``max_body_bytes`` get 413 without being read.
* Loopback only unless ``allow_remote``: the endpoint has no authentication.
* ``stream: true`` is served as Server-Sent Events, but the reply is computed
  whole first (a tool call must be parsed and validated before any of it can
  be sent) and then sent as one role chunk, one content or tool_calls chunk and
  a finish chunk, so clients that always stream still work.
* Status codes: 400 malformed request (bad JSON, missing or ill-typed fields),
  404 unknown route or model, 405 wrong method, 411 no Content-Length,
  413 body too large, 422 a well-formed request for something this server does
  not do (``n`` > 1, legacy ``functions``, ``logprobs``, non-text content),
  429 queue full, 500 model or server failure, 503 model busy past the queue
  timeout or temporarily unavailable. Every error body is OpenAI-shaped:
  ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, Mapping

from .backends.base import Backend, BackendError
from .shim import ShimRequestError, fold_messages, read_tool_choice, read_tools, tool_calls

__all__ = ["ServerConfig", "ApiError", "ChatService", "ShimHTTPServer", "make_server", "serve", "is_loopback"]


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
        from .templates import load_template

        self.backend = backend
        self.config = config
        self.template = load_template(config.template) if isinstance(config.template, str) else config.template
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

    def chat(self, request: ChatRequest) -> dict[str, Any]:
        """One chat completion (``object: chat.completion``), or ``ApiError``."""
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
                result = self._run(request)
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

    def _run(self, request: ChatRequest) -> dict[str, Any]:
        if self.config.functions and not request.tools:
            return self._run_with_functions(request)
        return self._turn(request, request.messages, request.tools)

    def _run_with_functions(self, request: ChatRequest) -> dict[str, Any]:
        """Offer the server's own tools, run the calls the model makes, and return its text answer."""
        from .calling import call_tool

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

    def _turn(self, request: ChatRequest, messages: list, tools: list | None) -> dict[str, Any]:
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
            )
        except ShimRequestError as exc:
            raise _bad(exc.message, exc.param) from exc
        except BackendError as exc:
            status = 503 if exc.retryable else 500
            raise ApiError(status, f"The model backend failed: {exc}", type="server_error", code="backend_error") from exc


def stream_chunks(response: Mapping[str, Any], include_usage: bool = False) -> Iterator[dict[str, Any]]:
    """A finished chat completion as ``chat.completion.chunk`` objects (role, body, finish)."""
    choice = response["choices"][0]
    message = choice["message"]
    base = {"id": response["id"], "object": "chat.completion.chunk", "created": response["created"], "model": response["model"]}

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}

    yield chunk({"role": "assistant", "content": ""}, None)
    if message.get("tool_calls"):
        calls = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
        yield chunk({"tool_calls": calls}, None)
    elif message.get("content"):
        yield chunk({"content": message["content"]}, None)
    yield chunk({}, choice["finish_reason"])
    if include_usage:
        yield {**base, "choices": [], "usage": response["usage"]}


_DISCARD_CAP = 16 * 1024 * 1024
"""Largest refused body still read (and dropped) so the 413 reaches the client."""

_ROUTES = {"/v1/chat/completions": ("POST",), "/v1/models": ("GET",), "/health": ("GET",)}


class _Handler(BaseHTTPRequestHandler):
    """HTTP plumbing only: read, route, write. Decisions live in ``ChatService``."""

    server: "ShimHTTPServer"
    protocol_version = "HTTP/1.0"
    server_version = "react-text"

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.service.config.read_timeout_s)

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
            response = service.chat(request)
            if request.stream:
                return self._send_stream(stream_chunks(response, request.include_usage))
            return self._send_json(200, response)
        except ApiError as exc:
            self._send_json(exc.status, exc.body(), allow=_ROUTES.get(path) if exc.status == 405 else None)
        except (ConnectionError, socket.timeout):
            self.close_connection = True
        except Exception as exc:  # a bug must not kill the server or leak a traceback to the client
            traceback.print_exc(file=sys.stderr)
            self._send_json(500, ApiError(500, f"Internal server error ({type(exc).__name__}).", type="server_error").body())

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
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ApiError(400, f"We could not parse the JSON body of your request: {exc}.", code="invalid_json") from None

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

    def _send_json(self, status: int, body: Any, allow: tuple[str, ...] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status, HTTPStatus(status).phrase)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if allow:
                self.send_header("Allow", ", ".join(allow))
            self.end_headers()
            self.wfile.write(data)
        except (ConnectionError, socket.timeout):
            self.close_connection = True

    def _send_stream(self, chunks: Iterator[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(b"data: " + json.dumps(chunk, ensure_ascii=False).encode("utf-8") + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


class ShimHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that carries its ``ChatService``."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], service: ChatService, *, verbose: bool = False) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.service = service
        self.verbose = verbose
        super().__init__(address, _Handler)

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

    Refuses a non-loopback ``host`` unless ``allow_remote``: the endpoint has no
    authentication and runs a model on request.
    """
    if not allow_remote and not is_loopback(host):
        raise ValueError(
            f"refusing to listen on {host!r}: not a loopback address and the endpoint has no authentication; "
            "pass --allow-remote to do it anyway"
        )
    return ShimHTTPServer((host, port), ChatService(backend, config), verbose=verbose)


def serve(server: ShimHTTPServer) -> None:
    """Serve until Ctrl-C, then close the socket."""
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
