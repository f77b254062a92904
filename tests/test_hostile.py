"""Hostile inputs (issue 11): each test reproduces one weakness an audit found, against real parts.

Servers are real sockets on 127.0.0.1 started by the test; every loop that
waits on one is bounded by a count, never by a timed assertion.
"""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import openai
import pytest
import requests
import urllib3
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.cli import main as cli_main
from react_text.protocol.parser import parse
from react_text.tools.arguments import ArgumentError, bind_args
from react_text.backends.base import BackendError
from react_text.backends.http import HttpBackend
from react_text.backends.scripted import ScriptedBackend
from react_text.backends.stops import StopCutter
from react_text.cli.console import Console, clean_text
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.catalog import ChecksumMismatch, ModelError, ModelStore, is_verified, parse_catalog, verify_file
from react_text.redaction import Redactor
from react_text.prompting.render_budget import RenderLimits
from react_text.prompting.sandbox import GuardedEnvironment, SandboxError, compile_template, render_limited
from react_text.fc.endpoint import ServerConfig
from react_text.fc.server import ShimHTTPServer, make_server
from react_text.prompting.templates import TemplateError, builtin_folder, load_template
from react_text.tools.spec import tool
from react_text.trace import TraceWriter, json_text, read_trace

ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()))
"""Every code point, lone surrogates and controls included."""

LONE = "\udcff"  # what os.fsdecode makes of the byte 0xff: a lone surrogate
MODEL = "hostile-model"
USER = [{"role": "user", "content": "What's the weather in Paris?"}]
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def act(name: str, args: Any) -> str:
    return f" I will use {name}.\n{format_action('classic', name, args)}"


def final(answer: str) -> str:
    return f" Done.\n{format_final('classic', answer)}"


@pytest.fixture(scope="module")
def classic():
    return load_template("classic")


@contextmanager
def running(backend: Any = None, *, allow_remote: bool = False, **config: Any) -> Iterator[ShimHTTPServer]:
    server = make_server(backend or ScriptedBackend([]), ServerConfig(model_name=MODEL, **config),
                         host="127.0.0.1", port=0, allow_remote=allow_remote)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def post(server: ShimHTTPServer, body: Any, headers: dict[str, str] | None = None) -> requests.Response:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return requests.post(server.url + "/v1/chat/completions", data=data, timeout=60,
                         headers={"Content-Type": "application/json", **(headers or {})})


def openai_error(response: requests.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text[:500]
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["message"]
    return error


def raw_exchange(server: ShimHTTPServer, request: bytes) -> bytes:
    """Send ``request`` as is and read the whole reply (the server closes: HTTP/1.0)."""
    with socket.create_connection(server.server_address[:2], timeout=30) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


# --- 1. lone surrogates and odd bytes -----------------------------------------------------------


def test_trace_writer_keeps_lone_surrogates_as_valid_utf8(tmp_path: Path):
    path = tmp_path / "t.jsonl"
    with TraceWriter(path) as writer:
        writer.write("observation", text=f"bytes{LONE} and a half pair \ud83d, 中文")
    path.read_bytes().decode("utf-8")  # strict: the file is valid UTF-8
    (event,) = read_trace(path)
    assert event["text"] == f"bytes{LONE} and a half pair \ud83d, 中文"  # read back exactly


def test_a_run_full_of_lone_surrogates_answers_and_ends_with_run_end(tmp_path: Path, classic):
    @tool
    def echo(text: str) -> str:
        """Echo text."""
        return f"echo {text}{LONE}"

    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    backend = ScriptedBackend([act("echo", {"text": f"x{LONE}"}), final(f"done{LONE}")])
    agent = Agent(backend, [echo], classic, trace=tmp_path / "run.jsonl", on_event=Console(stream, colour=False))
    result = agent.run(f"question{LONE}")
    assert result.status == "answered" and result.answer == f"done{LONE}"
    events = read_trace(tmp_path / "run.jsonl")
    assert events[-1]["event"] == "run_end" and events[-1]["answer"] == f"done{LONE}"
    stream.flush()
    assert "\ufffd" in stream.buffer.getvalue().decode("utf-8")  # printed, shown as a replacement character


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_json_text_is_valid_utf8_and_reads_back_exactly(text: str):
    line = json_text({"k" + text: [text]})
    line.encode("utf-8")
    assert json.loads(line) == {"k" + text: [text]}


def test_run_end_is_written_even_when_an_unexpected_error_escapes(tmp_path: Path, classic):
    def on_event(event: dict) -> None:
        if event["event"] == "decision":
            raise RuntimeError("a broken printer")

    agent = Agent(ScriptedBackend([final("4")]), [], classic, trace=tmp_path / "run.jsonl", on_event=on_event)
    with pytest.raises(RuntimeError, match="broken printer"):
        agent.run("2+2?")
    end = read_trace(tmp_path / "run.jsonl")[-1]
    assert end["event"] == "run_end" and end["status"] == "error" and "broken printer" in end["reason"]


def test_serve_answers_lone_surrogates_in_and_out_without_a_500():
    backend = ScriptedBackend([final(f"sunny{LONE}"), final(f"sunny{LONE}")])
    with running(backend) as server:
        body = {"messages": [{"role": "user", "content": "weather \\ud800 in Paris?"}], "tools": TOOLS}
        reply = post(server, json.dumps(body).replace("\\\\ud800", "\\ud800"))
        assert reply.status_code == 200, reply.text
        reply.content.decode("utf-8")  # strict: valid UTF-8 on the wire
        assert reply.json()["choices"][0]["message"]["content"] == f"sunny{LONE}"
        assert "\ufffd" in backend.prompts[0]  # the lone surrogate reached the model as U+FFFD

        data = json.dumps({**body, "stream": True}).replace("\\\\ud800", "\\ud800").encode()
        raw = raw_exchange(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                   b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(data), data))
    assert raw.count(b"HTTP/1.") == 1, raw[:1000]  # one status line: no error appended to the stream
    assert raw.rstrip().endswith(b"data: [DONE]")


# --- 2. RecursionError where JSON is read --------------------------------------------------------


@tool
def take_list(items: list) -> str:
    """Count items."""
    return str(len(items))


@tool
def take_object(options: dict, label: str = "") -> str:
    """Count options."""
    return str(len(options))


@pytest.mark.parametrize("tool_, args", [
    (take_list, "[" * 1000),
    (take_list, {"items": "[" * 100_000 + "]" * 100_000}),
    (take_object, '{"options": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    (take_object, {"options": "{" + '"a":{' * 50_000 + "}" * 50_001}),
])
def test_bind_args_on_deeply_nested_text_never_raises_recursion_error(tool_, args):
    try:
        bind_args(tool_, args)
    except ArgumentError as exc:
        assert "Invalid input" in str(exc)


NESTED = st.builds(lambda n, opener, tail: opener * n + tail, st.integers(0, 3000),
                   st.sampled_from(["[", "{", '{"a":', '["', "[{", '{"items": [']), ANY_TEXT)


@settings(max_examples=200, deadline=None)
@given(st.one_of(ANY_TEXT, NESTED, st.dictionaries(ANY_TEXT, st.one_of(ANY_TEXT, NESTED), max_size=3)))
def test_bind_args_only_ever_raises_argument_error(args):
    for tool_ in (take_list, take_object):
        try:
            bind_args(tool_, args)
        except ArgumentError:
            pass


class _Reply(BaseHTTPRequestHandler):
    """A tiny server: ``server.reply(handler)`` writes whatever the test wants."""

    protocol_version = "HTTP/1.0"
    server: Any

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.posts += 1
        try:
            self.server.reply(self)
        except (BrokenPipeError, ConnectionResetError):
            self.server.client_left.set()


@contextmanager
def tiny_server(reply: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Reply)
    server.daemon_threads = True
    server.reply, server.posts, server.client_left = reply, 0, threading.Event()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    for name, value in {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def test_http_backend_on_a_deeply_nested_reply_is_a_backend_error():
    deep = b'{"content": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with tiny_server(lambda h: send(h, 200, deep)) as server:
        backend = HttpBackend(f"http://127.0.0.1:{server.server_address[1]}", api="llama", retries=0)
        with pytest.raises(BackendError, match="not JSON"):
            backend.complete("p", max_tokens=3)


def test_serve_answers_a_deeply_nested_body_with_400():
    with running() as server:
        error = openai_error(post(server, b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"), 400)
        assert "nested too deeply" in error["message"]
        assert requests.get(server.url + "/health", timeout=10).status_code == 200


def test_replay_of_a_deeply_nested_trace_is_a_clean_error(tmp_path: Path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"event": "run_start", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n" + '{"event": "x"}\n')
    assert cli_main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


DEEP = "[" * 100_000 + "]" * 100_000


def test_a_deeply_nested_user_template_breaks_only_itself_and_names_its_file(tmp_path: Path, capsys):
    source = (builtin_folder() / "classic.j2").read_text()
    (tmp_path / "front.j2").write_text(source.replace("name: classic", "name: front").replace(
        "description: ", f"description: {DEEP}\nnote: ", 1))
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "deep.json").write_text(DEEP)
    (tmp_path / "shots.j2").write_text(source.replace("name: classic", "name: shots\nexamples: deep"))
    assert load_template("classic", [tmp_path]).name == "classic"  # the neighbours still load
    with pytest.raises(TemplateError, match=r"front\.j2:6: bad JSON for 'description': nested too deeply"):
        load_template("front", [tmp_path])
    with pytest.raises(TemplateError, match=r"deep\.json: bad JSON in examples: nested too deeply"):
        load_template("shots", [tmp_path])
    assert cli_main(["templates", "--templates-dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "front.j2:6" in err and "deep.json" in err and "Traceback" not in err


# --- 3. sandbox limits checked before building ------------------------------------------------------


def render(source: str, limits: RenderLimits = RenderLimits()) -> str:
    env = GuardedEnvironment()
    return render_limited(compile_template(env, source, "t", "t.j2"), {}, "t.j2", limits)


BIG = "{% set a = 'x' * 100000 %}{% set many = [a] * 100000 %}"


@pytest.mark.parametrize("body", [
    "{{ many|join }}",
    "{{ many|string|length }}",
    "{{ many|upper|length }}",
    "{{ many|tojson|length }}",
    "{{ many|pprint|length }}",
    "{{ many }}",
    "{{ many ~ 'x' }}",
    "{{ '%s' % (many,) }}",
    "{{ ''.join(many)|length }}",
    "{{ '{}'.format(many)|length }}",
    "{{ many|unique|list|length }}",
    "{{ many|sort|length }}",
    "{{ many|map('upper')|list|length }}",
    "{{ ('a' * 100000).translate({97: a})|length }}",
])
def test_sandbox_refuses_a_value_before_building_it(body: str):
    with pytest.raises(SandboxError, match="too expensive") as info:
        render(BIG + body)
    assert "out of memory" not in info.value.reason and "took longer" not in info.value.reason


@pytest.mark.parametrize("body", [
    "{{ (('%(a)200000s' * 18000) % {'a': 1})|length }}",
    "{{ ('{0:200000}' * 1000).format(1)|length }}",
    "{{ ('%.100000f' * 30)|format(1.0)|length }}",
    "{% set a = 'x' * 100000 %}{{ (('%(a)s' * 1000) % {'a': a})|length }}",
    "{% set a = 'x' * 100000 %}{{ ('{0}' * 1000).format(a)|length }}",
    "{% set a = 'x' * 100000 %}{{ ('{a}' * 1000).format_map({'a': a})|length }}",
    "{% set n = namespace(a='x' * 100000) %}{{ ('{0.a}' * 1000).format(n)|length }}",
])
def test_sandbox_sums_a_formats_widths_and_repeated_fields_before_building_it(body: str):
    with pytest.raises(SandboxError, match="too expensive: format widths, precisions and fields add up"):
        render(body)
    assert render("{{ '%5.2f|%(b)3s' % {'b': 1} if false else '%5.2f|%3s' % (3.14159, 1) }}") == " 3.14|  1"
    assert render("{{ '{:>4}{x!r}{0.real}'.format(7, x='y') }}|{{ '%d%%'|format(5) }}") == "   7'y'7|5%"


def test_sandbox_refuses_quadratic_sum_of_lists():
    with pytest.raises(SandboxError, match="sum only adds numbers"):
        render("{% set l = [[0] * 10] * 19999 %}{{ l|sum(start=[])|length }}")
    assert render("{{ [1, 2, 3]|sum }}") == "6"


def test_sandbox_bounds_everything_built_in_one_render():
    with pytest.raises(SandboxError, match="built in all"):
        render("{% for i in range(200) %}{% set s = 'x' * 150000 %}{% endfor %}")


def test_sandbox_checks_the_time_inside_a_long_filter_chain(monkeypatch):
    ticks = iter(range(10**9))
    monkeypatch.setattr("react_text.prompting.render_budget._now", lambda: next(ticks) * 0.001)  # each look: +1 ms
    with pytest.raises(SandboxError, match="took longer than 1 s"):
        render("{{ range(100000)|map('string')|select|list|length }}", RenderLimits(seconds=1))


def test_ordinary_templates_still_render(classic):
    prompt = classic.render("What is 2+2?", [take_list, take_object], None)
    assert "take_list" in prompt and prompt.rstrip().endswith("Thought:")


# --- 4. the server: auth, Host/Origin, content type, slow clients, limits ---------------------------


def test_allow_remote_needs_an_api_key():
    with pytest.raises(ValueError, match="api-key"):
        make_server(ScriptedBackend([]), ServerConfig(model_name=MODEL), host="127.0.0.1", port=0, allow_remote=True)


def test_api_key_is_required_and_checked():
    with running(ScriptedBackend([final("ok")]), allow_remote=True, api_key="s3cret-key") as server:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic s3cret-key"}):
            reply = post(server, {"messages": USER}, headers)
            error = openai_error(reply, 401)
            assert error["code"] == "invalid_api_key" and reply.headers["WWW-Authenticate"] == "Bearer"
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=server.url + "/v1", api_key="nope", max_retries=0).models.list()
        api = openai.OpenAI(base_url=server.url + "/v1", api_key="s3cret-key", max_retries=0, timeout=60)
        assert [m.id for m in api.models.list()] == [MODEL]
        assert api.chat.completions.create(model=MODEL, messages=USER).choices[0].message.content == "ok"


def test_cli_serve_takes_the_api_key_and_requires_it_for_remote():
    base = [sys.executable, "-m", "react_text.cli", "serve", "--backend", "http", "--url", "http://127.0.0.1:9"]
    env = {k: v for k, v in os.environ.items() if k != "REACT_TEXT_API_KEY"}
    refused = subprocess.run(base + ["--allow-remote"], capture_output=True, text=True, timeout=60, env=env)
    assert refused.returncode == 2 and "--api-key" in refused.stderr

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(base + ["--port", str(port), "--model", "m"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**env, "REACT_TEXT_API_KEY": "k-123"})
    try:
        url = f"http://127.0.0.1:{port}/v1/models"
        for _ in range(300):  # wait for the port, at most 300 tries
            assert proc.poll() is None
            try:
                status = requests.get(url, timeout=2).status_code
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        assert status == 401
        assert requests.get(url, headers={"Authorization": "Bearer k-123"}, timeout=10).status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


@pytest.mark.parametrize("headers, status, code", [
    ({"Host": "evil.example:8080"}, 403, "forbidden_host"),                # DNS rebinding
    ({"Origin": "https://evil.example"}, 403, "forbidden_origin"),          # a web page's fetch()
    ({"Origin": "null"}, 403, "forbidden_origin"),                          # a sandboxed frame, a file: page
    ({"Content-Type": "text/plain"}, 415, "unsupported_media_type"),        # a form post needs no preflight
    ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"),
])
def test_browser_requests_to_a_loopback_server_are_refused(headers, status, code):
    backend = ScriptedBackend([])
    with running(backend) as server:
        assert openai_error(post(server, {"messages": USER}, headers), status)["code"] == code
    assert backend.calls == []


def test_loopback_names_and_origins_are_accepted():
    with running(ScriptedBackend([final("a"), final("b")])) as server:
        port = server.server_address[1]
        for headers in ({"Host": f"localhost:{port}"}, {"Origin": "http://localhost:3000"}):
            assert post(server, {"messages": USER}, headers).status_code == 200


def test_a_trickling_client_is_cut_off_at_the_whole_request_deadline():
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: 40\r\n\r\n" + b'{"messages": [{"role":"user","content":""}]}'[:40])
    with running(read_timeout_s=0.5) as server:
        with socket.create_connection(server.server_address[:2], timeout=10) as sock:
            sent_all = True
            for byte in request:  # one byte each 50 ms: each wait is short, the whole request is not
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    sent_all = False
                    break
                time.sleep(0.05)
                if _closed(sock):
                    sent_all = False
                    break
            assert not sent_all, "the server waited for the whole trickled request"


def _readable(sock: socket.socket) -> bool:
    import select

    return bool(select.select([sock], [], [], 0)[0])


def _closed(sock: socket.socket) -> bool:
    if not _readable(sock):
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def test_idle_connections_cannot_hold_more_than_the_cap_of_threads():
    with running(max_connections=4, read_timeout_s=30) as server:
        before = threading.active_count()
        idle = [socket.create_connection(server.server_address[:2], timeout=10) for _ in range(12)]
        try:
            import select

            waiting, refused = list(idle), 0
            for _ in range(200):  # the held four never answer (30 s deadline); the other eight get a 503 at once
                if refused == 8:
                    break
                for sock in select.select(waiting, [], [], 0.1)[0]:
                    reply = sock.recv(4096)
                    assert reply.startswith(b"HTTP/1.0 503")
                    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "too_many_connections"
                    waiting.remove(sock)
                    refused += 1
            assert refused == 8 and len(waiting) == 4
            assert threading.active_count() - before <= 4
        finally:
            for sock in idle:
                sock.close()
        assert server.request_queue_size >= 64  # a sane listen backlog (socketserver's default is 5)


def test_oversized_headers_get_an_openai_shaped_431():
    with running() as server:
        reply = requests.get(server.url + "/health", headers={"X-Big": "y" * 60_000}, timeout=30)
        assert openai_error(reply, 431)["message"].startswith("The request headers are too large")
        many = {f"X-H{i}": "v" for i in range(120)}  # http.server's own limit is 100 headers
        openai_error(requests.get(server.url + "/health", headers=many, timeout=30), 431)
        assert requests.get(server.url + "/health", timeout=10).status_code == 200


def test_three_thousand_tools_are_a_400_not_a_500():
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "d" * 50, "parameters": {
        "type": "object", "properties": {"x": {"type": "string"}}}}} for i in range(3000)]
    backend = ScriptedBackend([])
    with running(backend) as server:
        assert openai_error(post(server, {"messages": USER, "tools": tools}), 400)["param"] == "tools"
        big = [{**t, "function": {**t["function"], "description": "d" * 3000}} for t in tools[:100]]
        assert openai_error(post(server, {"messages": USER, "tools": big}), 400)["code"] == "context_length_exceeded"
    assert backend.calls == []


# --- 5. bounded reads ------------------------------------------------------------------------------


def test_search_reads_at_most_its_cap_of_a_huge_file(tmp_path: Path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "small.txt").write_text("The lighthouse opens at nine.")
    with open(corpus / "huge.txt", "wb") as fh:
        fh.truncate(3 << 30)  # sparse: 3 GiB on paper, nothing on disk
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from react_text.tools.search import search_files\n"
        f"print(search_files({str(corpus)!r}).fn('lighthouse'))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "small.txt" in done.stdout


def test_http_backend_gives_up_on_a_trickling_server():
    def trickle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()
        for _ in range(400):  # 400 bytes, one each 50 ms: 20 s if nobody stops it
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.05)
        handler.wfile.write(b'{"content": "late"}')
        handler.server.finished = True

    with tiny_server(trickle) as server:
        server.finished = False
        backend = HttpBackend(f"http://127.0.0.1:{server.server_address[1]}", api="llama", retries=0, timeout=1)
        with pytest.raises(BackendError, match="no answer within 1s") as info:
            backend.complete("p", max_tokens=3)
        assert info.value.retryable and not server.finished


def test_http_backend_stops_reading_an_oversized_reply():
    def flood(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()  # no Content-Length: the reply ends when the server closes
        handler.wfile.write(b'{"content": "')
        for _ in range(2000):  # 128 MB if read to the end
            handler.wfile.write(b"x" * 65536)
        handler.wfile.write(b'"}')
        handler.server.finished = True

    with tiny_server(flood) as server:
        server.finished = False
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with pytest.raises(BackendError, match="over 1000000 bytes"):
            HttpBackend(url, api="llama", retries=0, max_reply_bytes=1_000_000).complete("p", max_tokens=3)
        assert server.client_left.wait(timeout=30) and not server.finished


def test_http_backend_refuses_a_declared_oversized_reply_unread():
    with tiny_server(lambda h: send(h, 200, b'{"content": "' + b"x" * 2_000_000 + b'"}')) as server:
        backend = HttpBackend(f"http://127.0.0.1:{server.server_address[1]}", api="llama", retries=2,
                              max_reply_bytes=1_000_000)
        with pytest.raises(BackendError, match="over 1000000 bytes") as info:
            backend.complete("p", max_tokens=3)
        assert not info.value.retryable and server.posts == 1


def test_http_backend_retries_429():
    replies = iter([(429, b'{"error": "slow down"}'), (200, b'{"content": "fine"}')])

    def reply(handler: BaseHTTPRequestHandler) -> None:
        status, body = next(replies)
        send(handler, status, body, **({"Retry-After": "0"} if status == 429 else {}))

    with tiny_server(reply) as server:
        backend = HttpBackend(f"http://127.0.0.1:{server.server_address[1]}", api="llama", retries=1, backoff=0.01)
        result = backend.complete("p", max_tokens=3)
        assert result.text == "fine" and result.extra["attempts"] == 2


# --- 6. secrets and terminals ------------------------------------------------------------------------


def test_agent_redacts_secrets_in_trace_and_console(tmp_path: Path, classic):
    @tool
    def login(user: str, password: str) -> dict:
        """Log in and return the session."""
        return {"user": user, "session_token": "tok-123456789", "note": "key sk-abcdefghijklmnopqrstuvwx0123"}

    out = io.StringIO()
    backend = ScriptedBackend([act("login", {"user": "ann", "password": "hunter2-secret"}), final("logged in")])
    agent = Agent(backend, [login], classic, trace=tmp_path / "run.jsonl", on_event=Console(out, colour=False),
                  redact=["session_token"])
    result = agent.run("Log in as ann")
    assert result.status == "answered"
    trace = (tmp_path / "run.jsonl").read_text()
    for secret in ("hunter2-secret", "tok-123456789", "sk-abcdefghijklmnopqrstuvwx0123"):
        assert secret not in trace and secret not in out.getvalue()
    assert "[redacted]" in trace and "ann" in trace
    assert "tok-123456789" not in backend.prompts[1]  # a named field is hidden from the model too


def test_redact_false_keeps_the_trace_exact(tmp_path: Path, classic):
    backend = ScriptedBackend([final("the key is sk-abcdefghijklmnopqrstuvwx0123")])
    Agent(backend, [], classic, trace=tmp_path / "run.jsonl", redact=False).run("key?")
    assert "sk-abcdefghijklmnopqrstuvwx0123" in (tmp_path / "run.jsonl").read_text()


def test_redactor_masks_pairs_and_secret_looking_values():
    r = Redactor.with_fields(["pin"])
    text = r.text('{"password": "hunter2", "q": 1} api_key=abc123 Authorization: Bearer abcdefghijkl pin=1234 '
                  "max_tokens: 5 ghp_0123456789abcdefghijABCDEFGHIJ")
    assert "hunter2" not in text and "abc123" not in text and "abcdefghijkl" not in text and "1234" not in text
    assert "ghp_0123" not in text and "max_tokens: 5" in text and '"q": 1' in text
    assert r({"Api-Key": "x", "n": 1, "nested": [{"PIN": 7}]}) == {"Api-Key": "[redacted]", "n": 1,
                                                                    "nested": [{"PIN": "[redacted]"}]}


def test_console_strips_terminal_escapes_from_model_tool_and_replayed_text():
    out = io.StringIO()
    console = Console(out, colour=False, raw=True)
    evil = "a\x1b]0;pwned\x07b\x1b[2J\x1b[31mc\x9b1Ad\x07\x08\re\tf\ng"
    console({"event": "model_turn", "n": 1, "text": evil})
    console({"event": "step", "n": 1, "step": {"thought": evil, "actions": [{"tool": evil, "args": {"q": evil}}]}})
    console({"event": "observation", "n": 1, "observation": {"ok": True}, "shown": evil})
    printed = out.getvalue()
    assert not any(ch in printed for ch in "\x1b\x07\x08\r\x9b")
    assert "abcde\tf\ng" in printed
    assert clean_text("x\x1b[?1049hy\x1bPq#0;1;2\x1b\\z") == "xyz"


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_clean_text_leaves_no_control_characters(text: str):
    cleaned = clean_text(text)
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or 0xD800 <= ord(c) <= 0xDFFF
                   for c in cleaned)
    assert clean_text(cleaned) == cleaned


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_redaction_never_raises_and_is_stable(text: str):
    r = Redactor.with_fields(["pin"])
    once = r({"pin": text, "x": [text, {"note": "password: " + text}]})
    assert once["pin"] in ("[redacted]", "") and r(once) == once


def test_replay_of_a_malformed_trace_is_one_clean_line(tmp_path: Path, capsys):
    cases = {
        "step.jsonl": '{"event": "run_start", "question": "q"}\n{"event": "step", "n": 1, "step": "oops"}\n',
        "tools.jsonl": '{"event": "run_start", "tools": 5}\n',
        "binary.jsonl": "\x00\x01garbage\n{\n",
        "list.jsonl": "[1, 2]\n{}\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code = cli_main(["replay", str(path)])
        err = capsys.readouterr().err
        assert code == 2, name
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and err.startswith("react-text replay:")
    assert cli_main(["replay", str(tmp_path)]) == 2  # a folder
    assert "Traceback" not in capsys.readouterr().err


EVIL = "a\x1b]0;pwned\x07b\x1b[2Jc\rd\x9b1Ae\u202egnp.exe\u2066f\x00"
"""A window retitle, a screen wipe, a carriage return, an 8-bit CSI and a bidi override."""


def trace_lines(*events: dict) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


@pytest.fixture
def traces_home(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.delenv("REACT_TEXT_TRACES", raising=False)  # the session's folder (conftest) would come first
    monkeypatch.setenv("REACT_TEXT_HOME", str(tmp_path))
    (tmp_path / "traces").mkdir()
    return tmp_path / "traces"


def test_traces_list_and_show_escape_control_and_bidi_characters(traces_home: Path, capsys):
    (traces_home / "run\x1b[31m.jsonl").write_text(trace_lines(
        {"event": "run_start", "question": EVIL, "model": EVIL, "template": {"name": EVIL}},
        {"event": "run_end", "status": EVIL, "answer": EVIL, "totals": {"steps": 1}}))
    for argv in (["traces"], ["traces", "--json"], ["traces", "show", "1"], ["traces", "show", "nothing\x1b[2J"]):
        cli_main(argv)
        printed = "".join(capsys.readouterr())
        assert not any(ch in printed for ch in "\x1b\x07\r\x9b\u202e\u2066\x00"), argv
        assert "gnp.exe" in printed or argv[-1].startswith("nothing")
    cli_main(["traces", "--json"])
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["question"] == EVIL and "\\u001b" in line  # still JSON, same text


def test_traces_skip_wrong_typed_and_deeply_nested_records_with_a_note(traces_home: Path, capsys):
    good = {"event": "run_start", "question": "fine?", "template": {"name": "classic"}}
    end = {"event": "run_end", "status": "answered", "totals": {"steps": 1}}
    records = {
        "good": (good, end),
        "totals": (good, {**end, "totals": [1]}),
        "steps": (good, {**end, "totals": {"steps": "1"}}),
        "question": ({**good, "question": {"q": 1}}, end),
        "template": ({**good, "template": "classic"}, end),
        "model": ({**good, "model": 5}, end),
    }
    for name, events in records.items():
        (traces_home / f"{name}.jsonl").write_text(trace_lines(*events))
    (traces_home / "deep.jsonl").write_text('{"event": "run_start", "question": ' + DEEP + "}\n")
    deep_end = "[" * 20_000 + "]" * 20_000  # within the tail the list reads
    (traces_home / "deep-end.jsonl").write_text(trace_lines(good) + '{"event": "run_end", "totals": ' + deep_end + "}\n")
    assert cli_main(["traces"]) == 0
    out, err = capsys.readouterr()
    assert "fine?" in out and out.count("fine?") == 1
    for name in [*records][1:] + ["deep", "deep-end"]:
        assert f"skipped {name}.jsonl: " in err, name
    assert "nested too deeply" in err and "Traceback" not in err


def test_traces_never_open_a_fifo(traces_home: Path, tmp_path: Path):
    os.mkfifo(traces_home / "pipe.jsonl")
    (traces_home / "good.jsonl").write_text(trace_lines({"event": "run_start", "question": "fine?"}))
    env = {**os.environ, "REACT_TEXT_HOME": str(tmp_path), "REACT_TEXT_TRACES": ""}
    for argv in (["traces"], ["traces", "show", "pipe"], ["replay", str(traces_home / "pipe.jsonl")]):
        done = subprocess.run([sys.executable, "-m", "react_text.cli", *argv], env=env, capture_output=True,
                              text=True, timeout=60)
        assert "not a regular file" in done.stderr and "Traceback" not in done.stderr, argv
    assert "fine?" in done.stdout or argv[0] == "replay"


# --- 9. the parser on floods of quotes and escapes ------------------------------------------------------


PARSER_FLOODS: dict[str, Callable[[int], str]] = {
    "single quotes": lambda size: "Action: search\nAction Input: " + "'" * size,
    "escaped lone surrogates": lambda size: '{"action":"search","action_input":{"query":"' + "\\ud800" * (size // 6) + '"}}',
    "escaped quotes, never closed": lambda size: '{"query": "' + '\\"' * (size // 2),
}


def python_calls(run: Callable[[], Any]) -> int:
    """How many Python and C functions ``run`` calls: a count, so no clock and no flaky bound."""
    calls = 0

    def count(frame: Any, event: str, arg: Any) -> None:
        nonlocal calls
        calls += event in ("call", "c_call")

    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("shape", PARSER_FLOODS)
def test_the_parser_reads_a_flood_without_a_python_step_per_character(shape: str):
    """Each of these took a Python loop turn per quote or escape (0.3 to 0.8 s per MB); ten times
    the text must not mean ten times the calls, and the parse still gives a step."""
    small, big = PARSER_FLOODS[shape](100_000), PARSER_FLOODS[shape](1_000_000)
    steps = []
    counts = [python_calls(lambda text=text: steps.append(parse(text, ["search", "calculator"]))) for text in (small, big)]
    assert counts[1] < 2 * counts[0] + 50, counts
    assert [bool(step.actions) for step in steps] == [shape != "escaped quotes, never closed"] * 2


# --- 8. the model cache -------------------------------------------------------------------------------


def _entry(name: str, **source: Any) -> dict[str, Any]:
    return {"name": "m", "kind": "base", "file": name, "sha256": "0" * 64,
            "source": {"packages": ["p==1"], **(source or {"file": "pkg/m.gguf"})}}


@pytest.mark.parametrize("raw", [
    _entry("../../outside.gguf"),
    _entry("/etc/passwd"),
    _entry(".."),
    _entry("sub/m.gguf"),
    _entry("m.gguf", file="../../etc/passwd"),
    _entry("m.gguf", chunks=["pkg/a.bin", "/abs/b.bin"]),
    _entry("m.gguf", chunks=["pkg/../../b.bin"]),
])
def test_catalog_paths_may_not_leave_their_folders(raw):
    with pytest.raises(ModelError, match="must be"):
        parse_catalog({"models": [raw]})


def test_a_file_changed_after_verification_is_caught(tmp_path: Path):
    import hashlib

    data = b"GGUF" + bytes(range(256)) * 64
    path = tmp_path / "pkg" / "m.gguf"
    path.parent.mkdir()
    path.write_bytes(data)
    (entry,) = parse_catalog({"models": [{**_entry("m.gguf"), "sha256": hashlib.sha256(data).hexdigest(),
                                          "size": len(data)}]})
    store = ModelStore(catalog=(entry,), cache_dir=tmp_path / "cache", package_dirs=(tmp_path,))
    verify_file(path, entry, store)
    assert is_verified(path, entry.sha256, store)
    stamp = next((tmp_path / "cache" / "verified").iterdir())
    assert json.loads(stamp.read_text())["sha256"] == entry.sha256  # the stamp holds the hash it checked

    before = path.stat()
    with open(path, "r+b") as fh:  # same size, same mtime: a tampered file that looks untouched
        fh.seek(100)
        fh.write(b"\x00\x01\x02")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert not is_verified(path, entry.sha256, store)
    with pytest.raises(ChecksumMismatch):
        verify_file(path, entry, store)


def test_compare_results_keep_a_record_whose_answer_holds_a_lone_surrogate(tmp_path):
    from react_text.eval.records import ResultsFile, load_results

    results = ResultsFile(tmp_path / "results.jsonl")
    results.append({"task_id": "t1", "answer": "bad \udcff byte"})
    results.close()
    (record,) = load_results(tmp_path / "results.jsonl")
    assert record["answer"] == "bad \udcff byte"


# --- issue 26: deadlines, streams, side reads ------------------------------------------------------

def ends_within(seconds: float, call: Callable[[], Any]) -> BaseException | Any:
    """What ``call()`` raised or returned; fails the test if it is still running after ``seconds`` (a hang guard)."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds} s"
    return outcome[0]


def trickle_bytes(handler: BaseHTTPRequestHandler, head: bytes, each: bytes, every_s: float, times: int) -> None:
    handler.wfile.write(head)
    for _ in range(times):
        handler.wfile.flush()
        time.sleep(every_s)
        handler.wfile.write(each)
    handler.server.finished = True


def url_of(server: Any) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_the_deadline_covers_a_server_that_trickles_its_headers():
    """Issue 26.2: a status line, then a header byte every 0.5 s, held a timeout=2 completion past 30 s."""
    with tiny_server(lambda h: trickle_bytes(h, b"HTTP/1.1 200 OK\r\n", b"X", 0.5, 120)) as server:
        server.finished = False
        backend = HttpBackend(url_of(server), api="llama", timeout=2, retries=0)
        error = ends_within(10, lambda: backend.complete("x", max_tokens=3))
        assert isinstance(error, BackendError) and "no answer within 2s" in str(error) and error.retryable
        assert not server.finished


SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"


def test_the_deadline_covers_a_stream_that_trickles_its_events():
    """Issue 26.2: one ``data:`` event every 1.5 s kept a timeout=2 stream going past 30 s."""
    event = b'data: {"content": "a"}\n\n'
    with tiny_server(lambda h: trickle_bytes(h, SSE_HEAD, event, 1.5, 40)) as server:
        server.finished = False
        backend = HttpBackend(url_of(server), api="llama", timeout=2, retries=0)
        error = ends_within(10, lambda: backend.complete("x", max_tokens=3, on_token=lambda text: None))
        assert isinstance(error, BackendError) and "no answer within 2s" in str(error)
        assert not server.finished


def test_a_stream_line_without_an_end_is_read_once_not_rescanned():
    """Issue 26.2: a 4 MB line with no newline cost 72 s of CPU (``iter_lines`` in 128-byte chunks)."""
    line = b'data: {"content": "' + b"x" * (4 * 1024 * 1024)
    with tiny_server(lambda h: h.wfile.write(SSE_HEAD + line)) as server:
        backend = HttpBackend(url_of(server), api="llama", timeout=60, retries=0)
        error = ends_within(30, lambda: backend.complete("x", max_tokens=3, on_token=lambda text: None))
        assert isinstance(error, BackendError) and "a streamed event is not JSON" in str(error)


def test_a_stream_is_cut_at_the_byte_budget():
    def endless(handler: BaseHTTPRequestHandler) -> None:
        trickle_bytes(handler, SSE_HEAD + b'data: {"content": "', b"x" * 65536, 0, 2000)  # 128 MB

    with tiny_server(endless) as server:
        server.finished = False
        backend = HttpBackend(url_of(server), api="llama", retries=0, max_reply_bytes=1_000_000)
        error = ends_within(30, lambda: backend.complete("x", max_tokens=3, on_token=lambda text: None))
        assert isinstance(error, BackendError) and "passed 1000000 bytes" in str(error)
        assert server.client_left.wait(timeout=30) and not server.finished


def test_a_deeply_nested_streamed_event_is_a_backend_error():
    """Issue 26.7: ``RecursionError`` escaped the streamed reply's JSON reader."""
    with tiny_server(lambda h: h.wfile.write(SSE_HEAD + b"data: " + DEEP.encode() + b"\n\n")) as server:
        backend = HttpBackend(url_of(server), api="llama", retries=0)
        with pytest.raises(BackendError, match="a streamed event is not JSON"):
            backend.complete("x", max_tokens=3, on_token=lambda text: None)


class _Get(_Reply):
    do_GET = _Reply.do_POST


@contextmanager
def side_server(reply: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[Any]:
    """A server answering GET ``/props`` and POST ``/tokenize`` with ``reply``."""
    with tiny_server(reply) as server:
        server.RequestHandlerClass = _Get
        yield server


def test_deeply_nested_props_and_tokenize_replies_mean_unknown():
    """Issue 26.7: a deep ``/props`` reply crashed ``react-text run`` with a RecursionError traceback."""
    with side_server(lambda h: send(h, 200, b'{"n_ctx": ' + DEEP.encode() + b"}")) as server:
        backend = HttpBackend(url_of(server), api="llama", retries=0)
        assert backend.context_size is None
        assert backend.count_tokens("one two three four") > 0  # the estimate


def test_react_text_run_on_a_server_with_deeply_nested_props_answers(tmp_path: Path, capsys):
    def reply(handler: BaseHTTPRequestHandler) -> None:
        if handler.command == "GET" or handler.path == "/tokenize":
            send(handler, 200, b'{"n_ctx": ' + DEEP.encode() + b"}")
        else:
            send(handler, 200, b'{"content": " I know it.\\nFinal Answer: 4", "stop_type": "word"}')

    with side_server(reply) as server:
        code = cli_main(["run", "What is 2+2?", "--backend", "http", "--api", "llama", "--url", url_of(server),
                         "--trace", str(tmp_path / "t.jsonl")])
    assert code == 0 and "Final Answer: 4" in capsys.readouterr().out


def test_a_huge_props_reply_is_not_read_to_the_end():
    """Issue 26.10: a 300 MB ``/props`` reply cost 937 MB of memory."""
    def flood(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()  # no Content-Length
        trickle_bytes(handler, b'{"n_ctx": 4096, "x": "', b"x" * 65536, 0, 1000)  # 64 MB

    with side_server(flood) as server:
        server.finished = False
        backend = HttpBackend(url_of(server), api="llama", retries=0)
        assert ends_within(60, lambda: backend.context_size) is None
        assert server.client_left.wait(timeout=30) and not server.finished


def test_the_live_console_looks_at_each_streamed_character_once(monkeypatch):
    """Issue 26.2: the live line re-scanned the whole turn per token (a 400 kB turn: 47 s)."""
    import react_text.cli.console as console_module

    looked = []
    printable = console_module._printable
    monkeypatch.setattr(console_module, "_printable", lambda text: looked.append(len(text)) or printable(text))
    console = Console(io.StringIO(), colour=False, live=True, max_chars=10**6)
    console({"event": "prompt", "n": 1})
    turn = "  " + "word " * 4_000 + "\nAction: calculator\n" + "x" * 10_000
    for i in range(0, len(turn), 3):
        console.token(turn[i:i + 3])
    assert sum(looked) <= len(turn)
    assert console.stream.getvalue() == "── turn 1 ──\nThought 1: " + ("word " * 4_000).rstrip()


def test_a_long_stream_of_small_pieces_is_cut_in_linear_time():
    """Issue 26.2: each streamed piece copied the whole text so far (800 000 pieces: over 300 s of CPU)."""
    out: list[str] = []
    cutter = StopCutter(["\nObservation:", "\nQuestion:"], out.append)

    def feed() -> bool:
        for _ in range(800_000):
            cutter.feed("abc\n")
        return cutter.feed("\nObservation: made up")

    assert ends_within(60, feed) is True
    assert cutter.text == "abc\n" * 800_000 and "".join(out) == cutter.text


def compare_spec(tmp_path: Path, urls: list[str], *, limit: int, timeout_s: float = 60) -> Any:
    from react_text.eval.planning import CompareSpec

    return CompareSpec(templates=("classic",), models=("fake",), suite="arithmetic", out_dir=tmp_path / "out",
                       backend="http", urls=tuple(urls), api="llama", concurrency=1, limit=limit, max_steps=3,
                       timeout_s=timeout_s)


def test_a_server_that_fails_fast_is_taken_out_of_rotation(tmp_path: Path):
    """Issue 26.9: a server failing every request at once took 10 of 12 tasks, all recorded as backend_error."""
    from react_text.backends.fake_server import FakeCompletionServer
    from react_text.eval.compare import run_compare

    with tiny_server(lambda h: send(h, 400, b'{"error": "no"}')) as failing, \
            FakeCompletionServer(latency_s=0.05, slots=1) as healthy:
        spec = compare_spec(tmp_path, [url_of(failing), healthy.url], limit=12)
        records = ends_within(120, lambda: run_compare(spec, progress_stream=io.StringIO()))
    assert isinstance(records, list) and len(records) == 12
    assert [r["status"] for r in records if r["status"] != "answered"] == []
    assert {r["server"] for r in records} == {healthy.url}
    assert failing.posts <= 2  # then out of rotation for longer than the whole compare took


def test_a_request_every_server_refuses_is_recorded_and_trips_no_server(tmp_path: Path):
    from react_text.eval.compare import run_compare

    refuse = lambda h: send(h, 400, b'{"error": "prompt too long"}')  # noqa: E731
    with tiny_server(refuse) as a, tiny_server(refuse) as b:
        spec = compare_spec(tmp_path, [url_of(a), url_of(b)], limit=8)
        records = ends_within(60, lambda: run_compare(spec, progress_stream=io.StringIO()))
    assert isinstance(records, list) and [r["status"] for r in records] == ["backend_error"] * 8


def test_compare_with_a_trickling_server_ends_and_records_every_task(tmp_path: Path):
    """Issue 26.2: ``compare --timeout 20`` with a healthy and a trickling server was killed at 90 s, 5 of 6 done."""
    from react_text.backends.fake_server import FakeCompletionServer
    from react_text.eval.compare import run_compare

    with tiny_server(lambda h: trickle_bytes(h, b"HTTP/1.1 200 OK\r\n", b"X", 0.5, 240)) as trickling, \
            FakeCompletionServer(latency_s=0.05, slots=1) as healthy:
        spec = compare_spec(tmp_path, [url_of(trickling), healthy.url], limit=6, timeout_s=2)
        records = ends_within(60, lambda: run_compare(spec, progress_stream=io.StringIO()))
    assert isinstance(records, list) and sorted(r["status"] for r in records) == ["answered"] * 6


def test_an_attempt_cut_at_its_deadline_is_retried_on_a_fresh_connection():
    replies = iter(["trickle", "fine"])

    def reply(handler: BaseHTTPRequestHandler) -> None:
        if next(replies) == "trickle":
            trickle_bytes(handler, b"HTTP/1.1 200 OK\r\n", b"X", 0.5, 60)
        else:
            send(handler, 200, b'{"content": "fine"}')

    with tiny_server(reply) as server:
        backend = HttpBackend(url_of(server), api="llama", timeout=1, retries=1, backoff=0.01)
        result = ends_within(20, lambda: backend.complete("x", max_tokens=3))
        assert result.text == "fine" and result.extra["attempts"] == 2


def test_the_shared_deadline_bounds_a_plain_get_too():
    """What ``fetch`` can use: a watched session and a ``Deadline`` around the request and the reading."""
    from react_text.http_deadline import Deadline, watched_session

    def get() -> Any:
        session = watched_session(requests)
        with Deadline(1.5) as deadline:
            try:
                with deadline.applies():
                    response = session.get(url, timeout=deadline.remaining(), stream=True)
                response.raw.read()
            except (requests.RequestException, OSError, urllib3.exceptions.HTTPError):
                pass  # the deadline closing the socket mid-read surfaces as any of these, by timing
            return deadline.expired

    def get_by_hand() -> Any:  # an http.client connection of one's own, watched before it connects
        import http.client

        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=1.5)
        with Deadline(1.5) as deadline:
            deadline.watch(connection)
            try:
                connection.request("GET", "/page")
                connection.getresponse().read()
            except (OSError, http.client.HTTPException):
                pass
            return deadline.expired

    with side_server(lambda h: trickle_bytes(h, b"HTTP/1.1 200 OK\r\n", b"X", 0.5, 120)) as server:
        url = url_of(server) + "/page"
        assert ends_within(10, get) is True
        assert ends_within(10, get_by_hand) is True


# --- 12. secrets on disk and on the wire (issue 26, item 4) -------------------------------------------

API_KEY = "sk-live-0123456789abcdefABCDEF"
PROSE_SECRETS = {
    "my api_key=" + API_KEY: API_KEY,
    "the login is password: hunter2-secret": "hunter2-secret",
    "use http://admin:S3cretPassw0rd@127.0.0.1:9/v1": "S3cretPassw0rd",
    "Authorization: Basic YWRtaW46aHVudGVyMg==": "YWRtaW46aHVudGVyMg==",
    "X-Api-Key: kx-98765-secret": "kx-98765-secret",
    "pass=opensesame42": "opensesame42",
}


@pytest.mark.parametrize("text, secret", PROSE_SECRETS.items())
def test_default_redactor_masks_prose_userinfo_basic_x_api_key_and_pass(text: str, secret: str):
    masked = Redactor().text(text)
    assert secret not in masked and "[redacted]" in masked
    assert Redactor()({"X-Api-Key": secret, "pass": secret, "url": text}) == Redactor()(
        {"X-Api-Key": "x", "pass": "y", "url": text}) | {"X-Api-Key": "[redacted]", "pass": "[redacted]"}


def test_agent_traces_are_redacted_by_default(tmp_path: Path, classic):
    @tool
    def lookup(city: str, api_key: str = "") -> dict:
        """Look up a city."""
        return {"city": city, "password": "hunter2-secret", "note": "X-Api-Key: kx-98765-secret"}

    steps = [act("lookup", {"city": f"Paris{i}", "api_key": API_KEY}) for i in range(6)] + [final("done")]
    question = " ".join(PROSE_SECRETS)
    agent = Agent(ScriptedBackend(steps), [lookup], classic, trace=tmp_path / "run.jsonl",
                  limits=Limits(max_steps=8))
    assert agent.run(question).status == "answered"
    trace = (tmp_path / "run.jsonl").read_text()
    for secret in {*PROSE_SECRETS.values(), "hunter2-secret"}:
        assert trace.count(secret) == 0, secret
    assert "Paris5" in trace


def test_trace_files_are_private_in_a_private_folder(tmp_path: Path):
    path = tmp_path / "made" / "here" / "run.jsonl"
    path.parent.parent.parent.chmod(0o755)
    with TraceWriter(path) as writer:
        writer.write("run_start", question="q")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700 and path.parent.parent.stat().st_mode & 0o777 == 0o700
    old = tmp_path / "old.jsonl"
    old.write_text("")
    old.chmod(0o644)
    TraceWriter(old).close()
    assert old.stat().st_mode & 0o777 == 0o600


def test_http_backend_keeps_the_url_password_out_of_its_name_and_errors():
    backend = HttpBackend("http://admin:S3cretPassw0rd@127.0.0.1:9", retries=0, timeout=5)
    assert "S3cretPassw0rd" not in backend.name and "S3cretPassw0rd" not in backend.url
    with pytest.raises(BackendError) as caught:
        backend.complete("p", max_tokens=3)
    assert "S3cretPassw0rd" not in str(caught.value)


def test_serve_never_sends_the_backend_url_password_to_a_client():
    backend = HttpBackend("http://admin:S3cretPassw0rd@127.0.0.1:9", retries=0, timeout=5)
    with running(backend) as server:
        response = post(server, {"messages": USER})
    error = openai_error(response, 503)
    assert "S3cretPassw0rd" not in response.text and "127.0.0.1:9" in error["message"]


def _cli_run_trace(tmp_path: Path, *options: str) -> str:
    from react_text.backends.fake_server import FakeCompletionServer

    trace = tmp_path / "run.jsonl"
    with FakeCompletionServer(latency_s=0.0, slots=1) as fake:
        url = fake.url.replace("http://", "http://admin:S3cretPassw0rd@")
        cli_main(["run", f"What is 6*7? my pin: 4321 and api_key={API_KEY}", "--max-steps", "3", "--backend", "http",
                  "--url", url, "--api", "llama", "--json", "--trace", str(trace), *options])
    return trace.read_text()


def _has_pin(trace: str) -> bool:
    """The pin as a number of its own: a timing in the trace ("0.04321223...") may hold its digits."""
    return re.search(r"(?<![\d.])4321(?!\.?\d)", trace) is not None


def test_cli_run_redacts_by_default_and_takes_redact_and_no_redact(tmp_path: Path, capsys):
    default = _cli_run_trace(tmp_path)
    assert API_KEY not in default and "S3cretPassw0rd" not in default and _has_pin(default)
    assert not _has_pin(_cli_run_trace(tmp_path, "--redact", "pin"))
    exact = _cli_run_trace(tmp_path, "--no-redact")
    assert API_KEY in exact and _has_pin(exact)
    assert "S3cretPassw0rd" not in exact  # the backend never names its password at all


# --- 13. the tool cache isolates, verifies and applies each run's limits (issue 26, item 5) --------------


def _lookup_tools() -> tuple[Any, Any]:
    """Two different cacheable tools that are both called ``lookup``, at the same version."""
    def first(word: str) -> str:
        return f"first says {word}"

    def second(word: str) -> str:
        return f"second says {word}"

    return (tool(first, name="lookup", description="Look up.", cacheable=True, version="1"),
            tool(second, name="lookup", description="Look up.", cacheable=True, version="1"))


def _cached_run(tmp_path: Path, classic, tools: list, args: Any, **agent: Any) -> tuple[Any, bool]:
    """A run that makes one call through the cache in ``tmp_path``: its result, and whether the cache answered."""
    from react_text.tools.cache import ToolCache

    hits: list[dict] = []
    backend = ScriptedBackend([act(tools[0].name, args), final("done")])
    result = Agent(backend, tools, classic, tool_cache=ToolCache(tmp_path / "cache"),
                   on_event=lambda e: hits.append(e) if e["event"] == "cache_hit" else None,
                   **agent).run(f"{tools[0].name} {' '.join(args.values())}?")
    return result, bool(hits)


def test_cache_entries_are_bound_to_the_tool_not_its_name(tmp_path: Path, classic):
    first, second = _lookup_tools()
    assert _cached_run(tmp_path, classic, [first], {"word": "x"})[0].steps[0].observation_text == "first says x"
    result, cached = _cached_run(tmp_path, classic, [second], {"word": "x"})
    assert result.steps[0].observation_text == "second says x" and not cached


def test_a_cache_hit_is_redacted_and_limited_like_a_fresh_result(tmp_path: Path, classic):
    @tool(cacheable=True, version="1")
    def profile(user: str) -> dict:
        """A user's profile."""
        return {"user": user, "session": "SESSION-abc123-SECRET", "bio": "x" * 50_000}

    _cached_run(tmp_path, classic, [profile], {"user": "ann"})
    hit, cached = _cached_run(tmp_path, classic, [profile], {"user": "ann"}, redact=["session"],
                              limits=Limits(max_observation_chars=200))
    assert cached
    assert "SESSION-abc123-SECRET" not in hit.steps[0].observation_text
    assert len(hit.steps[0].observation_text) <= 400


def test_cache_entries_hold_no_raw_arguments_and_no_secrets(tmp_path: Path, classic):
    @tool(cacheable=True, version="1")
    def count(word: str) -> int:
        """Count letters."""
        return len(word)

    @tool(cacheable=True, version="1")
    def issue(user: str) -> dict:
        """Issue a token."""
        return {"user": user, "token": "tok-0123456789"}

    _cached_run(tmp_path, classic, [count], {"word": "my-private-query"})
    _cached_run(tmp_path, classic, [issue], {"user": "bob"})
    entries = list((tmp_path / "cache").rglob("*.json"))
    assert len(entries) == 1 and entries[0].stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700
    assert "my-private-query" not in entries[0].read_text() and "tok-0123456789" not in entries[0].read_text()


@pytest.mark.parametrize("damage", [
    lambda text: text.replace("first says x", "forged text!"),
    lambda text: "[" * 200_000 + "]" * 200_000,
    lambda text: '{"payload": "' + "x" * 2_000_000 + '"}',
])
def test_a_tampered_deep_or_huge_cache_entry_is_a_miss_never_a_crash(tmp_path: Path, classic, damage):
    first, _ = _lookup_tools()
    _cached_run(tmp_path, classic, [first], {"word": "x"})
    (entry,) = (tmp_path / "cache").rglob("*.json")
    entry.write_text(damage(entry.read_text()))
    result, cached = _cached_run(tmp_path, classic, [first], {"word": "x"})
    assert result.status == "answered" and result.steps[0].observation_text == "first says x" and not cached


# --- 14. serve: deep past calls and the server's own functions (issue 26, items 7 and 12) ----------------


@pytest.mark.parametrize("arguments", ["[" * 100_000 + "]" * 100_000, "{\"a\": " * 50_000 + "1" + "}" * 50_000])
def test_serve_answers_deeply_nested_past_call_arguments_with_400(arguments: str):
    messages = USER + [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]
    with running(ScriptedBackend([final("sunny")])) as server:
        error = openai_error(post(server, {"messages": messages, "tools": TOOLS}), 400)
    assert "nested too deeply" in error["message"] and error["param"].endswith("function.arguments")


@contextmanager
def functions_server(tools: tuple, turns: list[str], **config: Any) -> Iterator[ShimHTTPServer]:
    with running(ScriptedBackend(turns), functions=tools, api_key="k", **config) as server:
        yield server


def test_serve_functions_keep_each_tools_own_timeout():
    release = threading.Event()

    @tool(timeout=0.2)
    def slow_weather(city: str) -> str:
        """Current weather for a city."""
        release.wait(10)
        return "sunny"

    try:
        with functions_server((slow_weather,), [act("slow_weather", {"city": "Paris"}), final("unknown")]) as server:
            reply = post(server, {"messages": USER}, {"Authorization": "Bearer k"})
            assert reply.status_code == 200
            prompts = server.service.backend.prompts
    finally:
        release.set()
    assert "did not finish within 0.2 seconds" in prompts[1]


def test_one_functions_request_holds_the_model_no_longer_than_its_deadline():
    release = threading.Event()
    calls: list[str] = []

    @tool(timeout=None)
    def stuck_weather(city: str) -> str:
        """Current weather for a city."""
        calls.append(city)
        release.wait(10)
        return "sunny"

    turns = [act("stuck_weather", {"city": f"Paris{i}"}) for i in range(6)]
    try:
        with functions_server((stuck_weather,), turns, request_timeout_s=0.3) as server:
            error = openai_error(post(server, {"messages": USER}, {"Authorization": "Bearer k"}), 504)
    finally:
        release.set()
    assert error["code"] == "request_timeout" and calls == ["Paris0"]


def test_serve_functions_need_an_api_key_even_on_loopback(tmp_path: Path, capsys):
    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return "sunny"

    with pytest.raises(ValueError, match="--functions needs --api-key"):
        make_server(ScriptedBackend([]), ServerConfig(model_name=MODEL, functions=(get_weather,)),
                    host="127.0.0.1", port=0)
    waived = make_server(ScriptedBackend([]), ServerConfig(model_name=MODEL, functions=(get_weather,)),
                         host="127.0.0.1", port=0, allow_unauthenticated_functions=True)
    waived.server_close()
    with functions_server((get_weather,), [final("sunny")]) as server:
        openai_error(post(server, {"messages": USER}), 401)
    functions = tmp_path / "f.py"
    functions.write_text("def get_weather(city: str) -> str:\n    'Weather.'\n    return 'sunny'\n")
    code = cli_main(["serve", "--functions", str(functions), "--backend", "http", "--url", "http://127.0.0.1:9",
                     "--port", "0"])
    assert code == 2 and "--functions needs --api-key" in capsys.readouterr().err


def test_compare_keeps_a_server_password_out_of_results_and_traces(tmp_path: Path):
    from react_text.backends.fake_server import FakeCompletionServer
    from react_text.eval.compare import run_compare
    from react_text.eval.planning import CompareSpec

    suite = Path(__file__).resolve().parents[1] / "suites" / "arithmetic.jsonl"
    with FakeCompletionServer(latency_s=0.0, slots=1) as a, FakeCompletionServer(latency_s=0.0, slots=1) as b, \
            open(os.devnull, "w") as quiet:
        urls = tuple(f.url.replace("http://", "http://admin:S3cretPassw0rd@") for f in (a, b))
        spec = CompareSpec(templates=("classic",), models=("fake",), suite=str(suite), out_dir=tmp_path / "out",
                           backend="http", urls=urls, api="llama", limit=2, max_steps=2)
        records = run_compare(spec, progress_stream=quiet)
    written = [p.read_text() for p in (tmp_path / "out").rglob("*.jsonl")]
    assert len(written) == 3 and not any("S3cretPassw0rd" in text for text in written)
    assert {r["server"] for r in records} <= {a.url, b.url}
