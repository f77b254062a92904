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
  With ``functions`` (tools this server runs) an ``api_key`` is needed even
  on loopback, where any local user can connect, unless explicitly waived;
  one such request holds the model for at most ``request_timeout_s``, tool
  calls included (504 past it), and each tool keeps its own time limit.
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
  is clearly an answer; see ``fc.answer_stream``); tool calls go out as
  ``tool_calls`` deltas in OpenAI's shape (id, type and name first, then the
  arguments) as soon as the turn is parsed and its arguments checked, which
  cannot happen earlier. While the model works, a ``: keep-alive`` comment
  goes out every ``keepalive_s`` (the first after that long; 0: none), so a slow turn
  never trips a client's read timeout. Nothing is sent before the first piece
  or keep-alive, so a request that fails sooner still gets a plain HTTP error;
  a failure after it ends the stream with an ``error`` event.
* Status codes: 400 malformed request (bad JSON, missing or ill-typed fields),
  401 a missing or wrong API key, 403 a foreign ``Host`` or ``Origin``,
  404 unknown route or model, 405 wrong method, 411 no Content-Length,
  413 body too large, 415 not JSON, 431 headers too large, 422 a well-formed
  request for something this server does not do (``n`` > 1, legacy
  ``functions``, ``logprobs``, non-text content),
  429 queue full, 500 model or server failure, 503 model busy past the queue
  timeout or temporarily unavailable, 504 a ``functions`` request past
  ``request_timeout_s``. Every error body is OpenAI-shaped:
  ``{"error": {"message", "type", "param", "code"}}``.
"""

from __future__ import annotations

import hmac
import io
import json
import socket
import sys
import threading
import time
import traceback
from contextlib import nullcontext
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Mapping

from ..backends.base import Backend
from ..trace import json_text
from .endpoint import ApiError, ChatRequest, ServerConfig
from .hosts import host_name, is_loopback, is_loopback_name
from .service import ChatService
from .sse import KEEP_ALIVE, ChunkStream, Heartbeat
from .wire import DISCARD_CAP, REQUEST_LINE_LIMIT, RequestReader, decode_json_body

__all__ = ["ShimHTTPServer", "make_server", "serve"]

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
        self._reader = RequestReader(self.connection, time.monotonic() + config.read_timeout_s, REQUEST_LINE_LIMIT)
        self.rfile = io.BufferedReader(self._reader)
        self.wfile = socket.SocketIO(self.connection, "wb")  # unbuffered, as StreamRequestHandler's default
        self._responded = False
        self._events_started = False
        self._write_lock = threading.Lock()  # the heartbeat thread writes between the reply's events

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
        try:
            self._reader.header_budget = None  # the headers are in: the body has its own limit
            self._check_caller(method)
            self._route(method, path)
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

    def _route(self, method: str, path: str) -> None:
        """Answer ``method path``, or raise ``ApiError`` (404, 405, or whatever the service refuses)."""
        service = self.server.service
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
        return decode_json_body(self.rfile.read(length) if length > 0 else b"")

    def _discard(self, length: int) -> None:
        """Read and drop a refused body (up to a cap) so the client gets the 413.

        Closing a socket with unread data makes TCP reset the connection, and the
        client would see "connection reset" instead of the error reply.
        """
        left = min(length, DISCARD_CAP)
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
        """Serve ``stream: true``: SSE chunks as the reply is generated, keep-alive comments while the
        model works, then ``data: [DONE]``."""
        service = self.server.service
        stream = ChunkStream(service.config.model_name, self._send_event, request.include_usage)
        try:
            beats = service.config.keepalive_s
            with Heartbeat(beats, lambda: self._write_event(KEEP_ALIVE)) if beats > 0 else nullcontext():
                response = service.chat(request, on_content=stream.content)
        except ApiError as exc:
            if not self._events_started:
                raise  # nothing sent yet: an ordinary error reply
            self._send_event(exc.body())
            self.close_connection = True
            return
        stream.finish(response)
        self._write_event(b"data: [DONE]\n\n")
        self.close_connection = True

    def _send_event(self, data: Mapping[str, Any]) -> None:
        """One SSE ``data:`` event."""
        self._write_event(b"data: " + json_text(data).encode("utf-8") + b"\n\n")

    def _write_event(self, event: bytes) -> None:
        """Write one SSE event, flushed, one writer at a time; the headers go out with the first."""
        with self._write_lock:
            if not self._events_started:
                self._events_started = True
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
            self.wfile.write(event)
            self.wfile.flush()


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
        return not self.loopback or is_loopback_name(host_name(host))

    def accepts_origin(self, origin: str, host: str | None) -> bool:
        """A browser page may call only from a loopback page or from this server's own origin."""
        scheme, _, authority = origin.strip().lower().partition("://")
        if scheme not in ("http", "https") or not authority:
            return False  # "null" (sandboxed frames, file: pages) and the like
        return is_loopback_name(host_name(authority)) or (host is not None and authority == host.strip().lower())

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else host
        return f"http://{host}:{port}"



def make_server(
    backend: Backend,
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    allow_remote: bool = False,
    allow_unauthenticated_functions: bool = False,
    verbose: bool = False,
) -> ShimHTTPServer:
    """A bound (not yet serving) server; ``port=0`` picks a free port.

    Refuses a non-loopback ``host`` unless ``allow_remote``, and ``allow_remote``
    without ``config.api_key``: anyone who can reach the port could run the model.
    Refuses ``config.functions`` without ``config.api_key`` even on loopback unless
    ``allow_unauthenticated_functions``: every local user could run those tools as this user.
    """
    if not allow_remote and not is_loopback(host):
        raise ValueError(
            f"refusing to listen on {host!r}: not a loopback address; pass --allow-remote with --api-key to do it"
        )
    if allow_remote and not config.api_key:
        raise ValueError("--allow-remote needs --api-key (or REACT_TEXT_API_KEY): a remote endpoint must not be open")
    if config.functions and not config.api_key and not allow_unauthenticated_functions:
        raise ValueError("--functions needs --api-key (or REACT_TEXT_API_KEY): the server runs those tools for "
                         "whoever calls it, and any local user can reach a loopback port; "
                         "--allow-unauthenticated-functions to accept that")
    return ShimHTTPServer((host, port), ChatService(backend, config), verbose=verbose)


def serve(server: ShimHTTPServer) -> None:
    """Serve until Ctrl-C, then close the socket."""
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()

