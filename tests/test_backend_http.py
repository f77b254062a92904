"""HttpBackend against real sockets on 127.0.0.1.

The OpenAI path talks to a real ``python -m llama_cpp.server`` serving SmolLM2;
the llama-server path and the failure modes (HTTP 500, garbled JSON, a slow
server, a refused connection) talk to a small stdlib HTTP server that answers
like llama.cpp's ``/completion``.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from react_text.backends.base import Backend, BackendError
from react_text.backends.http import OPENAI_MAX_STOP, HttpBackend

COUNTING = "Count from one to twenty: one, two, three, four,"
SERVER_START_DEADLINE = 120.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- a real llama_cpp.server ---------------------------------------------------------------


@pytest.fixture(scope="module")
def llama_server(smollm2_path: Path) -> Iterator[str]:
    """``python -m llama_cpp.server`` on a free port; fails (never skips) if it does not come up."""
    port = _free_port()
    log = tempfile.TemporaryFile()
    # Started through the same guard as LlamaCppBackend (see plain_weight_buffers: AMX on VMs).
    launcher = ("import runpy, llama_cpp; from react_text.backends.llama_cpp.options import plain_weight_buffers\n"
                "with plain_weight_buffers(llama_cpp): runpy.run_module('llama_cpp.server', run_name='__main__')")
    command = [
        sys.executable, "-c", launcher, "--model", str(smollm2_path),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--verbose", "False",
    ]
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_DEADLINE
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{log.read().decode()[-3000:]}")
            try:
                if requests.get(f"{base}/v1/models", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"llama_cpp.server not ready after {SERVER_START_DEADLINE}s:\n{log.read().decode()[-3000:]}")
            time.sleep(0.25)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def openai_backend(llama_server: str) -> Iterator[HttpBackend]:
    backend = HttpBackend(llama_server, api="openai", timeout=120, retries=0)
    yield backend
    backend.close()


def test_openai_completion_from_real_server(openai_backend: HttpBackend):
    assert isinstance(openai_backend, Backend) and openai_backend.supports_grammar
    result = openai_backend.complete(COUNTING, max_tokens=8)
    assert result.text.strip()
    assert result.completion_tokens == 8 and result.finish_reason == "length"
    assert result.prompt_tokens > 10
    assert result.evaluated_tokens is None  # llama_cpp.server does not say what its cache reused
    assert result.extra["attempts"] == 1 and result.seconds > 0


def test_openai_stops_cut_at_the_earliest_stop_even_past_four(openai_backend: HttpBackend):
    free = openai_backend.complete(COUNTING, max_tokens=24).text
    words = [w.strip(" ,.") for w in free.split(",") if w.strip(" ,.")]
    assert len(words) >= 3, free
    earlier = words[1]
    filler = [f"<never{i}>" for i in range(OPENAI_MAX_STOP)]
    # The only stop that matches is fifth: the server never sees it, the client must cut.
    stopped = openai_backend.complete(COUNTING, max_tokens=24, stop=[*filler, earlier])
    assert stopped.text == free[: free.index(earlier)]
    assert stopped.finish_reason == "stop"
    direct = openai_backend.complete(COUNTING, max_tokens=24, stop=[earlier])
    assert direct.text == stopped.text


def test_openai_grammar_restricts_output(openai_backend: HttpBackend):
    result = openai_backend.complete("Is the sky green? Answer yes or no:", max_tokens=8, grammar='root ::= "yes" | "no"')
    assert result.text in ("yes", "no")


def test_openai_base_url_may_end_in_v1(llama_server: str):
    backend = HttpBackend(llama_server + "/v1/", api="openai")
    assert backend.url == llama_server + "/v1/completions"
    assert backend.complete(COUNTING, max_tokens=2).completion_tokens == 2


def test_openai_streaming_from_real_server_matches_the_plain_completion(openai_backend: HttpBackend):
    plain = openai_backend.complete(COUNTING, max_tokens=8)
    pieces: list[str] = []
    streamed = openai_backend.complete(COUNTING, max_tokens=8, on_token=pieces.append)
    assert openai_backend.supports_streaming
    assert len(pieces) > 2 and "".join(pieces) == streamed.text == plain.text
    assert streamed.finish_reason == "length"


def test_openai_streaming_cuts_at_a_stop_past_four_and_never_passes_it_on(openai_backend: HttpBackend):
    free = openai_backend.complete(COUNTING, max_tokens=16).text
    words = [w.strip(" ,.") for w in free.split(",") if w.strip(" ,.")]
    assert len(words) >= 3, free
    stop = [*(f"<never{i}>" for i in range(OPENAI_MAX_STOP)), words[1]]
    pieces: list[str] = []
    streamed = openai_backend.complete(COUNTING, max_tokens=16, stop=stop, on_token=pieces.append)
    assert streamed.text == free[: free.index(words[1])] == "".join(pieces)
    assert streamed.finish_reason == "stop"


# --- a stdlib stand-in for llama-server's /completion ------------------------------------------


class FakeLlamaServer(ThreadingHTTPServer):
    """Answers POST /completion from a script of behaviours; records every request."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.reply_text = "Action: calculator\nAction Input: 2+2\nObservation: made up\nFinal Answer: 4"
        self.events_sent = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeLlamaServer

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout test), which is the point

    def _stream(self, body: dict[str, Any], behaviour: str) -> None:
        """Server-Sent Events the way llama-server streams /completion: a word per event, stats at the end."""
        n = body["n_predict"]
        words = self.server.reply_text.split(" ")[:n]
        events: list[dict[str, Any]] = [
            {"content": word if i == 0 else " " + word, "stop": False} for i, word in enumerate(words)
        ]
        if behaviour == "midstream":
            events = events[:1] + [{"error": {"code": 500, "message": "slot crashed"}}]
        else:
            events.append({"content": "", "stop": True, "tokens_predicted": len(words), "tokens_evaluated": 4,
                           "stop_type": "limit" if n < len(self.server.reply_text.split(" ")) else "eos",
                           "timings": {"prompt_n": 3, "prompt_ms": 2.0, "predicted_ms": 8.0}})
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for event in events:
                self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.flush()
                self.server.events_sent += 1
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading at a stop string

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self.server.headers_seen.append(dict(self.headers))
        behaviour = self.server.script.pop(0) if self.server.script else "ok"
        if self.path != "/completion":
            self._send(404, b'{"error": "not found"}')
        elif behaviour == "500":
            self._send(500, b'{"error": {"code": 500, "message": "model crashed"}}')
        elif behaviour == "400":
            self._send(400, b'{"error": {"code": 400, "message": "bad grammar"}}')
        elif behaviour == "garbled":
            self._send(200, b"<html>proxy says hello</html>", "text/html")
        elif behaviour == "missing":
            self._send(200, json.dumps({"tokens_predicted": 3}).encode())
        elif behaviour == "slow":
            time.sleep(1.5)
            self._send(200, b'{"content": "late"}')
        elif body.get("stream"):
            self._stream(body, behaviour)
        else:
            n = body["n_predict"]
            words = self.server.reply_text.split(" ")
            text = " ".join(words[:n])
            self._send(200, json.dumps({
                "content": text,
                "tokens_predicted": min(n, len(words)),
                "tokens_evaluated": len(body["prompt"].split()),
                "tokens_cached": 2,
                "stop_type": "limit" if n < len(words) else "eos",
                "timings": {"prompt_n": 5, "prompt_ms": 12.5, "predicted_n": n, "predicted_ms": 40.0},
            }).encode())


@pytest.fixture
def fake() -> Iterator[FakeLlamaServer]:
    server = FakeLlamaServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _llama(fake: FakeLlamaServer, **kw: Any) -> HttpBackend:
    options = {"api": "llama", "timeout": 5, "retries": 2, "backoff": 0.01, **kw}
    return HttpBackend(fake.base, **options)


def test_llama_api_request_and_reply(fake: FakeLlamaServer):
    backend = _llama(fake)
    result = backend.complete(
        "one two three four five six", stop=["\nObservation:"], max_tokens=50, temperature=0.3, seed=5,
        grammar='root ::= "x"',
    )
    sent = fake.requests[-1]
    assert sent == {
        "prompt": "one two three four five six", "n_predict": 50, "stop": ["\nObservation:"],
        "temperature": 0.3, "seed": 5, "cache_prompt": True, "grammar": 'root ::= "x"',
    }
    assert result.text == "Action: calculator\nAction Input: 2+2"  # cut client-side at the stop
    assert result.finish_reason == "stop"
    assert result.prompt_tokens == 6 and result.evaluated_tokens == 5
    assert result.extra["prompt_eval_ms"] == 12.5 and result.extra["model_seconds"] == pytest.approx(0.0525)


def test_llama_api_length_limit_and_all_stops_sent(fake: FakeLlamaServer):
    stops = [f"<s{i}>" for i in range(7)]
    result = _llama(fake).complete("p", max_tokens=2, stop=stops)
    assert fake.requests[-1]["stop"] == stops  # llama-server takes any number of stops
    assert "grammar" not in fake.requests[-1]
    assert result.text == "Action: calculator\nAction" and result.finish_reason == "length"


def test_server_error_is_retried_then_succeeds(fake: FakeLlamaServer):
    fake.script = ["500", "500"]
    result = _llama(fake, retries=2).complete("p", max_tokens=3)
    assert result.extra["attempts"] == 3 and len(fake.requests) == 3
    assert result.text


def test_persistent_server_error_gives_up_with_url_and_status(fake: FakeLlamaServer):
    fake.script = ["500"] * 5
    with pytest.raises(BackendError) as err:
        _llama(fake, retries=2).complete("p", max_tokens=3)
    message = str(err.value)
    assert f"{fake.base}/completion" in message and "HTTP 500" in message and "model crashed" in message
    assert "after 3 attempts" in message and err.value.retryable
    assert len(fake.requests) == 3


def test_client_error_is_not_retried(fake: FakeLlamaServer):
    fake.script = ["400"]
    with pytest.raises(BackendError, match="HTTP 400.*bad grammar") as err:
        _llama(fake, retries=3).complete("p", max_tokens=3)
    assert not err.value.retryable and len(fake.requests) == 1


def test_garbled_reply_is_a_clear_error(fake: FakeLlamaServer):
    fake.script = ["garbled"]
    with pytest.raises(BackendError, match="HTTP 200 but the reply is not JSON: <html>proxy says hello"):
        _llama(fake).complete("p", max_tokens=3)
    assert len(fake.requests) == 1


def test_reply_without_content_names_the_missing_field(fake: FakeLlamaServer):
    fake.script = ["missing"]
    with pytest.raises(BackendError, match="no 'content' string"):
        _llama(fake).complete("p", max_tokens=3)


def test_slow_server_times_out_and_is_retried(fake: FakeLlamaServer):
    fake.script = ["slow", "slow"]
    with pytest.raises(BackendError, match="no answer within 0.3s") as err:
        _llama(fake, timeout=0.3, retries=1).complete("p", max_tokens=3)
    assert err.value.retryable and len(fake.requests) == 2


def test_connection_refused_on_a_closed_port():
    port = _free_port()  # bound and released: nothing listens there
    backend = HttpBackend(f"http://127.0.0.1:{port}", api="llama", retries=1, backoff=0.01, timeout=5)
    with pytest.raises(BackendError) as err:
        backend.complete("p", max_tokens=3)
    message = str(err.value)
    assert f"127.0.0.1:{port}/completion" in message and "connection refused" in message
    assert "after 2 attempts" in message and err.value.retryable


def test_api_key_and_chat_template(fake: FakeLlamaServer):
    template = "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}[assistant] "
    backend = _llama(fake, api_key="sk-test", chat_template=template)
    assert backend.wrap_prompt("Hi") == "[user] Hi\n[assistant] "
    backend.complete("p", max_tokens=1)
    assert fake.headers_seen[-1]["Authorization"] == "Bearer sk-test"
    assert _llama(fake).wrap_prompt("Hi") == "Hi"


def test_bad_configuration_is_refused():
    with pytest.raises(ValueError, match="api must be"):
        HttpBackend("http://127.0.0.1:1", api="grpc")
    with pytest.raises(ValueError, match="http://"):
        HttpBackend("127.0.0.1:8080")
    with pytest.raises(BackendError, match="max_tokens"):
        HttpBackend("http://127.0.0.1:1").complete("p", max_tokens=0)



def test_llama_api_streams_pieces_and_stops_reading_at_a_stop(fake: FakeLlamaServer):
    pieces: list[str] = []
    result = _llama(fake).complete("p", max_tokens=50, stop=["\nObservation:"], on_token=pieces.append)
    assert fake.requests[-1]["stream"] is True
    assert result.text == "Action: calculator\nAction Input: 2+2" == "".join(pieces)
    assert len(pieces) > 2 and result.finish_reason == "stop"


def test_llama_api_stream_reads_the_last_event_for_limits_and_counts(fake: FakeLlamaServer):
    pieces: list[str] = []
    result = _llama(fake).complete("p", max_tokens=2, on_token=pieces.append)
    assert result.text == "Action: calculator\nAction" == "".join(pieces)
    assert result.finish_reason == "length" and result.completion_tokens == 2
    assert result.prompt_tokens == 4 and result.evaluated_tokens == 3 and result.extra["eval_ms"] == 8.0


def test_stream_opening_is_retried_but_a_broken_stream_is_an_error(fake: FakeLlamaServer):
    fake.script = ["500"]
    assert _llama(fake).complete("p", max_tokens=3, on_token=lambda _: None).extra["attempts"] == 2
    fake.script = ["midstream"]
    pieces: list[str] = []
    with pytest.raises(BackendError, match="mid-stream.*slot crashed"):
        _llama(fake, retries=3).complete("p", max_tokens=3, on_token=pieces.append)
    assert pieces == ["Action:"] and len(fake.requests) == 3  # the broken stream was not sent again
