"""A stand-in completion server for load tests: llama-server's and OpenAI's completion APIs, no model.

It answers ``POST /completion`` (llama.cpp) and ``POST /v1/completions``
(OpenAI) with a scripted ReAct turn after a fixed latency, processing at most
``slots`` requests at once (like ``llama-server --parallel N``), so the
harness's own throughput and failover can be measured on 127.0.0.1 without a
model. The turn calls the calculator once, then answers, in the classic dialect.
``die_after`` makes it drop every connection from that request on, as a
crashed server would. Standard library only.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["FakeCompletionServer"]

ACTION_TURN = ' I will compute it.\nAction: calculator\nAction Input: {"expression": "6 * 7"}'
ANSWER_TURN = " The calculator gave the result.\nFinal Answer: 42"


def scripted_turn(prompt: str) -> str:
    """An action until the scratchpad of the current question holds an observation, then an answer."""
    current = prompt[prompt.rfind("Question:"):]
    return ANSWER_TURN if "Observation" in current else ACTION_TURN


class FakeCompletionServer:
    """``with FakeCompletionServer(latency_s=0.2, slots=4) as fake: fake.url``."""

    def __init__(self, *, latency_s: float = 0.1, slots: int = 4, die_after: int | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.latency_s = latency_s
        self.die_after = die_after
        self.requests = 0
        self.answered = 0
        self.in_flight = 0
        self.max_in_flight = 0
        """Most requests being processed at once (never more than ``slots``)."""
        self.dead = threading.Event()
        self._slots = threading.BoundedSemaphore(slots)
        self._count_lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeCompletionServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True, name="fake-completion")
        self._thread.start()
        return self

    def kill(self) -> None:
        """Stop answering and close the listening socket: new connections are refused."""
        if not self.dead.is_set():
            self.dead.set()
            threading.Thread(target=self._close, daemon=True).start()

    def _close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def close(self) -> None:
        self.dead.set()
        if self._thread is not None and self._thread.is_alive():
            self._close()

    def __enter__(self) -> "FakeCompletionServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                with fake._count_lock:
                    fake.requests += 1
                    number = fake.requests
                if fake.die_after is not None and number > fake.die_after:
                    fake.kill()
                if fake.dead.is_set():
                    self.close_connection = True
                    self.connection.close()  # no reply at all: the client sees the connection drop
                    return
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                prompt = str(body.get("prompt", ""))
                with fake._slots:
                    with fake._count_lock:
                        fake.in_flight += 1
                        fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                    time.sleep(fake.latency_s)
                    with fake._count_lock:
                        fake.in_flight -= 1
                if fake.dead.is_set():  # died while this request was in flight
                    self.close_connection = True
                    self.connection.close()
                    return
                text = scripted_turn(prompt)
                words, generated = len(prompt.split()), len(text.split())
                if self.path.rstrip("/") == "/completion":
                    reply = {"content": text, "tokens_evaluated": words, "tokens_predicted": generated,
                             "stop_type": "word", "timings": {"prompt_n": words}}
                elif self.path.rstrip("/") == "/v1/completions":
                    reply = {"choices": [{"text": text, "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": words, "completion_tokens": generated}}
                else:
                    self.send_error(404)
                    return
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                with fake._count_lock:
                    fake.answered += 1

        return Handler
