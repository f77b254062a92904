"""`react-text serve`: a real HTTP server on 127.0.0.1, called by the official openai client."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Iterator

import openai
import pytest
import requests

from react_text.backends.scripted import ScriptedBackend
from react_text.fc.endpoint import ServerConfig
from react_text.fc.hosts import is_loopback
from react_text.fc.server import ShimHTTPServer, make_server

MODEL = "test-model"
TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "convert_currency", "description": "Convert an amount of money between currencies.",
        "parameters": {"type": "object", "properties": {
            "amount": {"type": "number"}, "source": {"type": "string"}, "target": {"type": "string"}},
            "required": ["amount", "source", "target"]}}},
]
WEATHER_TURN = ' I need the weather first.\nAction: get_weather\nAction Input: {"city": "Paris"}'


@contextmanager
def running(backend, **config) -> Iterator[ShimHTTPServer]:
    server = make_server(backend, ServerConfig(model_name=MODEL, **config), host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def client(server: ShimHTTPServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=120)


def post(server: ShimHTTPServer, body: object, path: str = "/v1/chat/completions") -> requests.Response:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return requests.post(server.url + path, data=data, headers={"Content-Type": "application/json"}, timeout=60)


def assert_openai_error(response: requests.Response, status: int, param: str | None = None) -> dict:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert isinstance(error["message"], str) and error["message"]
    assert error["type"] in ("invalid_request_error", "rate_limit_error", "server_error")
    if param is not None:
        assert error["param"] == param
    return error


USER = [{"role": "user", "content": "What's the weather in Paris?"}]


def test_openai_client_gets_tool_calls_then_an_answer() -> None:
    backend = ScriptedBackend([WEATHER_TURN, " Got it.\nFinal Answer: Sunny and 21 C in Paris."])
    with running(backend) as server:
        api = client(server)
        first = api.chat.completions.create(model=MODEL, messages=USER, tools=TOOLS)
        assert first.object == "chat.completion" and first.id.startswith("chatcmpl-") and first.model == MODEL
        assert isinstance(first.created, int) and first.usage.total_tokens > 0
        choice = first.choices[0]
        assert choice.finish_reason == "tool_calls" and choice.message.content is None
        (call,) = choice.message.tool_calls
        assert call.type == "function" and call.function.name == "get_weather"
        assert json.loads(call.function.arguments) == {"city": "Paris"}

        messages = USER + [
            choice.message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "Sunny, 21 C"},
        ]
        second = api.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        assert second.choices[0].finish_reason == "stop"
        assert second.choices[0].message.content == "Sunny and 21 C in Paris."
        assert not second.choices[0].message.tool_calls
        assert "Observation: Sunny, 21 C" in backend.prompts[1]


def test_streaming_sends_sse_chunks_the_client_assembles() -> None:
    # The plain answer is questioned once (get_weather clearly fits the question), then stands.
    backend = ScriptedBackend([WEATHER_TURN, " Sure.\nFinal Answer: It is sunny.", " Sure.\nFinal Answer: It is sunny."])
    with running(backend) as server:
        api = client(server)
        chunks = list(api.chat.completions.create(
            model=MODEL, messages=USER, tools=TOOLS, stream=True, stream_options={"include_usage": True}))
        assert all(c.object == "chat.completion.chunk" for c in chunks)
        deltas = [d for c in chunks if c.choices for d in (c.choices[0].delta.tool_calls or [])]
        assert [d.function.name for d in deltas if d.function.name] == ["get_weather"]
        assert {d.index for d in deltas} == {0} and deltas[0].id.startswith("call_")
        assert json.loads("".join(d.function.arguments or "" for d in deltas)) == {"city": "Paris"}
        assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["tool_calls"]
        assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0

        text = "".join(c.choices[0].delta.content or "" for c in api.chat.completions.create(
            model=MODEL, messages=USER, tools=TOOLS, stream=True) if c.choices)
        assert text == "It is sunny."


def test_models_and_health() -> None:
    with running(ScriptedBackend([])) as server:
        api = client(server)
        assert [m.id for m in api.models.list()] == [MODEL]
        assert api.models.retrieve(MODEL).id == MODEL
        with pytest.raises(openai.NotFoundError):
            api.models.retrieve("gpt-4")
        health = requests.get(server.url + "/health", timeout=10)
        assert health.status_code == 200 and health.json()["status"] == "ok"


def test_malformed_requests_get_openai_shaped_errors() -> None:
    backend = ScriptedBackend([])
    with running(backend) as server:
        assert_openai_error(post(server, b'{"messages": [}'), 400)
        assert_openai_error(post(server, b"\xff\xfe"), 400)
        assert_openai_error(post(server, [1, 2]), 400)
        assert_openai_error(post(server, {"model": MODEL}), 400, "messages")
        assert_openai_error(post(server, {"messages": "hi"}), 400, "messages")
        assert_openai_error(post(server, {"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "x"}]}),
                            400, "tools[0].type")
        assert_openai_error(post(server, {"messages": USER, "max_tokens": -5}), 400, "max_tokens")
        assert_openai_error(post(server, {"messages": USER, "temperature": "hot"}), 400, "temperature")
        assert_openai_error(post(server, {"messages": USER, "n": 3}), 422, "n")
        assert_openai_error(post(server, {"messages": USER, "functions": []}), 422, "functions")
        image = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]}]
        assert_openai_error(post(server, {"messages": image}), 422, "messages[0].content")
        assert_openai_error(post(server, {"messages": USER}, path="/v1/completions"), 404)
        assert_openai_error(requests.get(server.url + "/nope", timeout=10), 404)
        wrong_method = requests.get(server.url + "/v1/chat/completions", timeout=10)
        assert_openai_error(wrong_method, 405)
        assert wrong_method.headers["Allow"] == "POST"
        assert_openai_error(requests.delete(server.url + "/v1/models", timeout=10), 405)

        # the same errors through the SDK
        with pytest.raises(openai.BadRequestError) as info:
            client(server).chat.completions.create(model=MODEL, messages=[{"role": "system", "content": "x"}])
        assert info.value.body["param"] == "messages"

        # no Content-Length
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
        conn.putrequest("POST", "/v1/chat/completions")
        conn.putheader("Content-Type", "application/json")
        conn.endheaders()
        reply = conn.getresponse()
        assert reply.status == 411 and json.loads(reply.read())["error"]["code"] == "length_required"
        conn.close()
    assert backend.calls == []  # nothing malformed reached the model


def test_oversized_body_is_refused_with_413() -> None:
    backend = ScriptedBackend([])
    with running(backend) as server:
        big = {"messages": [{"role": "user", "content": "x" * 1_100_000}]}
        error = assert_openai_error(post(server, big), 413)
        assert error["code"] == "request_too_large"
        assert "1000000" in error["message"]
        # the server still serves after refusing
        assert requests.get(server.url + "/health", timeout=10).status_code == 200
    assert backend.calls == []


def test_backend_failure_is_a_500_not_a_crash() -> None:
    with running(ScriptedBackend([])) as server:  # an empty script: the backend raises BackendError
        error = assert_openai_error(post(server, {"messages": USER, "tools": TOOLS}), 500)
        assert error["type"] == "server_error" and error["code"] == "backend_error"
        assert requests.get(server.url + "/health", timeout=10).status_code == 200


class Gate:
    """A scripted turn that blocks until released, counting how many run at once."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.active = 0
        self.most_active = 0
        self._lock = threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self._lock:
            self.active += 1
            self.most_active = max(self.most_active, self.active)
        self.entered.set()
        self.release.wait(timeout=60)
        with self._lock:
            self.active -= 1
        return WEATHER_TURN


def _wait_for(condition, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


def test_concurrency_is_bounded_and_the_model_runs_one_request_at_a_time() -> None:
    gate = Gate()
    backend = ScriptedBackend([gate, gate])
    with running(backend, max_pending=2) as server:
        results: list[requests.Response] = []
        body = {"messages": USER, "tools": TOOLS}
        threads = [threading.Thread(target=lambda: results.append(post(server, body))) for _ in range(2)]
        threads[0].start()
        assert gate.entered.wait(timeout=30)
        threads[1].start()
        _wait_for(lambda: server.service.pending == 2)  # one running, one waiting for the model
        error = assert_openai_error(post(server, body), 429)
        assert error["type"] == "rate_limit_error"
        gate.release.set()
        for t in threads:
            t.join(timeout=60)
        assert [r.status_code for r in results] == [200, 200]
        assert gate.most_active == 1
        assert server.service.pending == 0
        # the bound frees up again
        assert post(server, {"messages": USER}).status_code == 500  # script exhausted: reached the model


def test_waiting_past_the_queue_timeout_gives_503() -> None:
    gate = Gate()
    with running(ScriptedBackend([gate]), max_pending=2, queue_timeout_s=0.2) as server:
        holder = threading.Thread(target=post, args=(server, {"messages": USER}))
        holder.start()
        assert gate.entered.wait(timeout=30)
        error = assert_openai_error(post(server, {"messages": USER}), 503)
        assert error["code"] == "model_busy"
        gate.release.set()
        holder.join(timeout=60)


def test_loopback_only_unless_allowed() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.1.2.3") and not is_loopback("192.168.0.1")
    with pytest.raises(ValueError, match="allow-remote"):
        make_server(ScriptedBackend([]), ServerConfig(model_name=MODEL), host="0.0.0.0", port=0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_serve_runs_and_refuses_remote_hosts() -> None:
    refused = subprocess.run([sys.executable, "-m", "react_text.cli", "serve", "--host", "0.0.0.0", "--backend",
                              "http", "--url", "http://127.0.0.1:9"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "allow-remote" in refused.stderr
    missing = subprocess.run([sys.executable, "-m", "react_text.cli", "serve", "--examples", "/nonexistent.json",
                              "--backend", "http", "--url", "http://127.0.0.1:9"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "nonexistent.json" in missing.stderr

    # an HTTP backend pointing at a closed port: the server starts, and the failure is an OpenAI error
    port, dead = _free_port(), _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "react_text.cli", "serve", "--port", str(port), "--model", "remote-model",
         "--backend", "http", "--url", f"http://127.0.0.1:{dead}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                return requests.get(url + "/health", timeout=2).status_code == 200
            except requests.ConnectionError:
                return False

        _wait_for(up, 60)
        api = openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=120)
        assert [m.id for m in api.models.list()] == ["remote-model"]
        with pytest.raises(openai.APIStatusError) as info:
            api.chat.completions.create(model="remote-model", messages=USER, tools=TOOLS)
        assert info.value.status_code in (500, 503)
        assert info.value.body["code"] == "backend_error"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


@pytest.mark.model
def test_real_smollm2_behind_the_server_answers_the_openai_client(smol_backend) -> None:
    with running(smol_backend, default_max_tokens=128, max_retries=1) as server:
        api = client(server)
        reply = api.chat.completions.create(model=MODEL, messages=USER, tools=TOOLS, tool_choice="required")
        choice = reply.choices[0]
        assert choice.finish_reason == "tool_calls"
        for call in choice.message.tool_calls:
            assert call.function.name in ("get_weather", "convert_currency")
            assert isinstance(json.loads(call.function.arguments), dict)
            assert call.id.startswith("call_")
        assert reply.usage.prompt_tokens > 100


def test_every_request_leaves_a_trace_that_react_text_traces_lists(tmp_path, monkeypatch, capsys) -> None:
    from react_text.cli.main import main

    monkeypatch.setenv("REACT_TEXT_TRACES", str(tmp_path))
    backend = ScriptedBackend([WEATHER_TURN])
    with running(backend) as server:
        client(server).chat.completions.create(model=MODEL, messages=USER, tools=TOOLS)
    (trace,) = tmp_path.glob("serve-*.jsonl")
    assert main(["traces"]) == 0
    out = capsys.readouterr().out
    assert "What's the weather in Paris?" in out and "tool_calls" in out
    from react_text.trace import read_trace

    assert read_trace(trace)[-1]["answer"] == 'get_weather({"city": "Paris"})'
