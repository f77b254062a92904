"""Streaming: text reaches the caller while the model writes it, and stop sequences still hold.

The hold-back logic (``StopCutter``) is pure and checked with Hypothesis; the
agent, console and server are checked with the scripted backend (ordering
made observable) and with the real SmolLM2 through llama.cpp; the server with
the official ``openai`` client's streaming API.
"""

from __future__ import annotations

import io
import json
import re
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import openai
import pytest
from hypothesis import given, settings, strategies as st

from react_text.backends.base import complete_streaming
from react_text.backends.scripted import ScriptedBackend
from react_text.checks import ALL_CHECKS
from react_text.backends.stops import StopCutter, cut_at_stop, held_back
from react_text.cli.console import Console
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.fc.endpoint import ServerConfig
from react_text.fc.server import ShimHTTPServer, make_server
from react_text.types import Completion

STOPS = ["\nObservation:", "\nQuestion:", "\n观察"]
CALC_TURN = ' I need the calculator.\nAction: calculator\nAction Input: {"expression": "37*91+12"}'
ANSWER_TURN = " I know it now.\nFinal Answer: 3379"


# --- the hold-back, pure -------------------------------------------------------------------


def _feed(text: str, cuts: Sequence[int], stop: Sequence[str]) -> tuple[StopCutter, list[str], list[str]]:
    """Feed ``text`` split at ``cuts``; returns the cutter, the pieces out, and what was out after each feed."""
    out: list[str] = []
    seen: list[str] = []
    cutter = StopCutter(stop, out.append)
    bounds = [0, *sorted(set(c for c in cuts if 0 < c < len(text))), len(text)]
    for a, b in zip(bounds, bounds[1:]):
        done = cutter.feed(text[a:b])
        seen.append("".join(out))
        if done:
            break
    cutter.close()
    return cutter, out, seen


_alphabet = st.sampled_from(list("ab \nObservation:Question观察x"))
_texts = st.lists(_alphabet, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(_texts, st.lists(st.integers(0, 60), max_size=20), st.lists(st.sampled_from(STOPS + ["b a", "ab"]), max_size=4))
def test_stream_pieces_join_to_the_text_cut_at_the_earliest_stop(text, cuts, stop):
    cutter, out, seen = _feed(text, cuts, stop)
    expected, found = cut_at_stop(text, stop)
    assert cutter.text == expected and cutter.stopped == found
    assert "".join(out) == expected
    assert all(piece for piece in out)
    for partial in seen:  # nothing ever went out that the final text does not contain at that place
        assert expected.startswith(partial)


@settings(max_examples=200, deadline=None)
@given(_texts, st.lists(st.sampled_from(STOPS), min_size=1, max_size=3))
def test_held_back_is_exactly_the_longest_tail_that_may_grow_into_a_stop(text, stop):
    k = held_back(text, stop)
    assert 0 <= k <= len(text)
    if k:
        assert any(s.startswith(text[len(text) - k:]) and len(s) > k for s in stop)
    for longer in range(k + 1, len(text) + 1):
        assert not any(s.startswith(text[len(text) - longer:]) and len(s) > longer for s in stop)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "\n", "观", "察", "\nObservation:", "Question:", "x"]), max_size=30).map("".join),
       st.lists(st.sampled_from(STOPS + ["b a", "ab"]), min_size=1, max_size=4))
def test_a_text_fed_one_character_at_a_time_is_cut_where_the_whole_text_is(text, stop):
    """Chinese arrives a token per character: the tail where a stop may begin must survive many tiny pieces."""
    cutter, out, _ = _feed(text, list(range(len(text))), stop)
    assert (cutter.text, cutter.stopped) == cut_at_stop(text, stop) and "".join(out) == cutter.text


def test_a_made_up_observation_after_chinese_written_a_character_at_a_time_is_cut():
    text = '需要两个事实。\nAction: search\nAction Input: {"query": "村子"}\nObservation: [1] 村子是村子。'
    cutter, _, _ = _feed(text, list(range(len(text))), STOPS)
    assert cutter.stopped and cutter.text == text[:text.index("\nObservation:")]


def test_a_partial_observation_label_waits_until_it_is_clear():
    out: list[str] = []
    cutter = StopCutter(STOPS, out.append)
    cutter.feed("Action Input: 2+2\nObs")
    assert "".join(out) == "Action Input: 2+2"  # "\nObs" may be the start of a made-up observation
    cutter.feed("cure")
    assert "".join(out) == "Action Input: 2+2\nObscure"  # it was not
    cutter.feed("\nObserv")
    cutter.feed("ation: 4")
    assert cutter.stopped and "".join(out) == "Action Input: 2+2\nObscure"
    cutter.close()
    assert "".join(out) == cutter.text


def test_a_backend_that_cannot_stream_hands_over_the_whole_text_once():
    class Plain:
        name = "plain"
        supports_grammar = False

        def complete(self, prompt: str, **options: Any) -> Completion:
            return Completion(text="all at once")

        def wrap_prompt(self, prompt: str) -> str:
            return prompt

    pieces: list[str] = []
    completion = complete_streaming(Plain(), "p", pieces.append, stop=[], max_tokens=4)
    assert pieces == ["all at once"] and completion.text == "all at once"


def test_scripted_backend_streams_in_pieces_and_keeps_its_text():
    pieces: list[str] = []
    turn = CALC_TURN + "\nObservation: 5\nFinal Answer: 5"
    streamed = ScriptedBackend([turn]).complete("p", stop=STOPS, on_token=pieces.append)
    plain = ScriptedBackend([turn]).complete("p", stop=STOPS)
    assert streamed.text == plain.text == CALC_TURN
    assert len(pieces) > 5 and "".join(pieces) == streamed.text


# --- the agent -----------------------------------------------------------------------------


def test_agent_streams_every_turn_between_its_prompt_and_its_model_turn_event():
    log: list[tuple[str, Any]] = []
    backend = ScriptedBackend([CALC_TURN + "\nObservation: made up", ANSWER_TURN])
    agent = Agent(backend, ["calculator"], on_event=lambda e: log.append(("event", e["event"], e.get("n"))),
                  on_token=lambda text: log.append(("token", text)))
    result = agent.run("What is 37 * 91 + 12?")
    assert result.status == "answered" and result.answer == "3379"
    for n, step in enumerate(result.steps, start=1):
        start = log.index(("event", "prompt", n))
        end = log.index(("event", "model_turn", n))
        tokens = [entry[1] for entry in log[start + 1:end]]
        assert all(entry[0] == "token" for entry in log[start + 1:end])
        assert len(tokens) > 1 and "".join(tokens) == step.text  # streamed in pieces, nothing invented or lost
    assert not any(entry[0] == "token" and "Observation" in entry[1] for entry in log)


# --- the console ---------------------------------------------------------------------------


def _transcript(turns: list[Any], *, live: bool, tools: Sequence[str] = ("calculator",)) -> str:
    out = io.StringIO()
    console = Console(out, colour=False, live=live)
    Agent(ScriptedBackend(turns), list(tools), on_event=console,
          on_token=console.token, limits=Limits(max_steps=3)).run("What is 37 * 91 + 12?")
    return re.sub(r"\d+\.\d s\]", "s]", out.getvalue())


def _screen(text: str) -> str:
    """What a terminal shows: an erased live line (``\\r`` then clear to end of screen) is gone."""
    return re.sub(r"[^\n]*\r(\x1b\[\d+A)?\x1b\[J", "", text)


def test_live_thought_settles_into_the_same_transcript_without_repeating_it(monkeypatch):
    monkeypatch.setenv("COLUMNS", "500")
    multi_line = " I need the calculator.\nIt multiplies first.\nAction: calculator\nAction Input: 37*91+12"
    turns = [CALC_TURN, multi_line, ANSWER_TURN]
    live = _transcript(turns, live=True)
    assert live.count("── turn") == 3
    assert "".join(line for line in live.splitlines(True) if not line.startswith("── turn")) == _transcript(
        turns, live=False)
    assert "\x1b" not in live and live.count("I need the calculator.") == 2  # two turns say it, once each


def test_a_live_line_the_parser_reads_otherwise_is_erased_and_the_parsed_step_printed(monkeypatch):
    monkeypatch.setenv("COLUMNS", "500")
    turns = [' {"action": "calculator", "action_input": {"expression": "37*91+12"}}', ANSWER_TURN]
    live = _transcript(turns, live=True)
    assert "\r\x1b[J" in live
    assert "".join(line for line in _screen(live).splitlines(True) if not line.startswith("── turn")) == _transcript(
        turns, live=False)


def test_a_turn_cut_short_leaves_its_live_line_and_the_ending_on_its_own_line():
    out = io.StringIO()
    console = Console(out, colour=False, live=True)

    class Breaks(ScriptedBackend):
        def complete(self, prompt: str, **options: Any) -> Completion:
            options["on_token"](" I need to think")
            raise KeyboardInterrupt

    Agent(Breaks([]), ["calculator"], on_event=console, on_token=console.token).run("q")
    lines = out.getvalue().splitlines()
    assert "Thought 1: I need to think" in lines
    assert any(line.startswith("No answer (interrupted)") for line in lines)


def test_each_turn_opens_with_its_separator_before_its_tokens_show(monkeypatch):
    monkeypatch.setenv("COLUMNS", "500")
    out = io.StringIO()
    seen: list[str] = []  # the screen when each turn's first piece arrives

    class Watched(ScriptedBackend):
        def complete(self, prompt: str, **options: Any) -> Completion:
            seen.append(out.getvalue())
            return super().complete(prompt, **options)

    console = Console(out, colour=False, live=True)
    Agent(Watched([CALC_TURN + "\nObservation: made up", ANSWER_TURN]), ["calculator"], on_event=console,
          on_token=console.token).run("What is 37 * 91 + 12?")
    assert seen[0].splitlines()[-1] == "── turn 1 ──"
    assert seen[1].splitlines()[-1] == "── turn 2 ──" and "Thought 2" not in seen[1]
    lines = out.getvalue().splitlines()
    assert lines.index("── turn 1 ──") < next(i for i, line in enumerate(lines) if line.startswith("Thought 1:"))
    assert lines.index("── turn 2 ──") == next(i for i, line in enumerate(lines) if line.startswith("Thought 2:")) - 1
    assert sum(line.startswith("── turn") for line in lines) == 2


def test_a_turn_joined_after_a_left_out_label_keeps_one_separator():
    out = io.StringIO()
    console = Console(out, colour=False, live=True)
    for event in ({"event": "run_start", "question": "q"}, {"event": "prompt", "n": 1},
                  {"event": "prompt", "n": 1, "reason": "label_left_out"}, {"event": "prompt", "n": 2}):
        console(event)
    assert [line for line in out.getvalue().splitlines() if "──" in line] == ["── turn 1 ──", "── turn 2 ──"]


def test_separators_speak_the_runs_language_and_stay_out_of_a_transcript_printed_after_the_fact():
    out = io.StringIO()
    console = Console(out, colour=False, live=True)
    console({"event": "run_start", "question": "q", "template": {"language": "zh"}})
    console({"event": "prompt", "n": 3})
    assert out.getvalue().splitlines()[-1] == "── 第 3 轮 ──"
    replayed = io.StringIO()
    Console(replayed, colour=False)({"event": "prompt", "n": 3})
    assert replayed.getvalue() == ""


# --- the server, with the official client ----------------------------------------------------

MODEL = "test-model"
WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
USER = [{"role": "user", "content": "What's the weather in Paris?"}]


@contextmanager
def running(backend: Any, **config: Any) -> Iterator[ShimHTTPServer]:
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


class GatedBackend(ScriptedBackend):
    """Plays ``turns``; the last one writes ``first``, then waits until the test has seen it at the client.

    If the server held the reply back until the turn ended, the client would
    never see the first part while the model is still writing: the gate times
    out and ``streamed`` stays False.
    """

    def __init__(self, turns: list[str], first: str, rest: str) -> None:
        super().__init__([*turns, first + rest])
        self.first, self.rest = first, rest
        self.gate = threading.Event()
        self.streamed: bool | None = None

    def complete(self, prompt: str, **options: Any) -> Completion:
        on_token: Callable[[str], None] | None = options.pop("on_token", None)
        whole = super().complete(prompt, **options)
        if on_token is None or self.remaining:
            if on_token is not None:
                on_token(whole.text)
            return whole
        on_token(self.first)
        self.streamed = self.gate.wait(timeout=30)
        on_token(self.rest)
        return whole


def _stream_content(backend: GatedBackend, **request: Any) -> list[Any]:
    with running(backend) as server:
        chunks = []
        for chunk in client(server).chat.completions.create(model=MODEL, messages=USER, tools=WEATHER, stream=True,
                                                             **request):
            chunks.append(chunk)
            if chunk.choices and chunk.choices[0].delta.content:
                backend.gate.set()
    return chunks


@pytest.mark.parametrize("turns,first,rest,request_options", [
    # tool_choice "none": the turn's own answer streams as the model writes it.
    ([], " I know this.\nFinal Answer: It is sunny", " and 21 C in Paris today.", {"tool_choice": "none"}),
    # "auto", a bare thought: the answer asked for under its label streams.
    ([" It is sunny and warm there, no tool is needed."], " It is sunny", " and 21 C in Paris today.", {}),
])
def test_serve_streams_a_plain_answer_while_the_model_is_still_writing(turns, first, rest, request_options):
    backend = GatedBackend(turns, first, rest)
    chunks = _stream_content(backend, **request_options)
    assert backend.streamed is True
    content = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(content) >= 2 and "".join(content) == "It is sunny and 21 C in Paris today."
    assert chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices[0].finish_reason] == ["stop"]
    assert all(not (c.choices[0].delta.tool_calls) for c in chunks)


def test_serve_streams_an_auto_answer_as_written_when_no_check_can_refuse_it():
    backend = GatedBackend([], " I know this.\nFinal Answer: It is sunny", " and 21 C in Paris today.")
    with running(backend, checks=frozenset({"ungrounded", "facts"})) as server:  # no answer or tool-choice check
        content = []
        for chunk in client(server).chat.completions.create(model=MODEL, messages=USER, tools=WEATHER, stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                content.append(chunk.choices[0].delta.content)
                backend.gate.set()
    assert backend.streamed is True and len(content) >= 2
    assert "".join(content) == "It is sunny and 21 C in Paris today."


def test_serve_holds_an_auto_answer_until_the_answer_checks_accept_it():
    # An unevaluated expression is refused once (guards); what was written first must never reach the client.
    backend = ScriptedBackend([" Easy.\nFinal Answer: 37 * 91 + 12", " Worked out.\nFinal Answer: 3379"])
    with running(backend, checks=ALL_CHECKS) as server:  # the expression check is off by default
        chunks = list(client(server).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "What is 37 * 91 + 12?"}], tools=WEATHER, stream=True))
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert content == "3379" and len(backend.calls) == 2


def test_serve_streams_tool_calls_the_official_client_assembles():
    turn = ' I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\nObservation: made up'
    with running(ScriptedBackend([turn, turn])) as server:
        api = client(server)
        with api.chat.completions.stream(model=MODEL, messages=USER, tools=WEATHER,
                                         stream_options={"include_usage": True}) as stream:
            events = list(stream)
            final = stream.get_final_completion()
        choice = final.choices[0]
        assert choice.finish_reason == "tool_calls" and not choice.message.content
        (call,) = choice.message.tool_calls
        assert call.id.startswith("call_") and call.function.name == "get_weather"
        assert json.loads(call.function.arguments) == {"city": "Paris"}
        assert final.usage is not None and final.usage.total_tokens > 0
        assert not [e for e in events if e.type == "content.delta"]

        raw = list(api.chat.completions.create(model=MODEL, messages=USER, tools=WEATHER, stream=True))
    deltas = [d for c in raw if c.choices for d in (c.choices[0].delta.tool_calls or [])]
    assert deltas[0].id == call.id and deltas[0].type == "function"
    assert deltas[0].function.name == "get_weather" and deltas[0].function.arguments == ""
    assert "".join(d.function.arguments or "" for d in deltas) == call.function.arguments
    assert raw[-1].choices[0].finish_reason == "tool_calls"


def test_serve_stream_that_fails_before_any_chunk_is_an_ordinary_http_error():
    with running(ScriptedBackend([])) as server:
        with pytest.raises(openai.APIStatusError) as info:
            list(client(server).chat.completions.create(model=MODEL, messages=USER, tools=WEATHER, stream=True))
    assert info.value.status_code == 500


# --- the real model ----------------------------------------------------------------------------


@pytest.mark.model
def test_real_model_tokens_arrive_before_the_turn_ends(smol_backend):
    log: list[tuple[str, Any]] = []
    agent = Agent(smol_backend, ["calculator"], limits=Limits(max_steps=1, max_turn_tokens=24),
                  on_event=lambda e: log.append(("event", e["event"])), on_token=lambda t: log.append(("token", t)))
    result = agent.run("What is 37 * 91 + 12?")
    kinds = [entry[0] if entry[0] == "token" else entry[1] for entry in log]
    first_token, turn_done = kinds.index("token"), kinds.index("model_turn")
    assert kinds.index("prompt") < first_token < turn_done
    tokens = [entry[1] for entry in log if entry[0] == "token"]
    assert len(tokens) >= 3 and "".join(tokens) == result.steps[0].text


@pytest.mark.model
def test_real_model_streamed_and_plain_completions_agree_and_the_stop_holds(smol_backend):
    prompt = "Count from one to twenty: one, two, three, four,"
    plain = smol_backend.complete(prompt, max_tokens=16, stop=[" eight"])
    pieces: list[str] = []
    streamed = smol_backend.complete(prompt, max_tokens=16, stop=[" eight"], on_token=pieces.append)
    assert streamed.text == plain.text and streamed.finish_reason == plain.finish_reason
    assert len(pieces) > 2 and "".join(pieces) == streamed.text and " eight" not in streamed.text


@pytest.mark.model
def test_real_model_behind_serve_streams_tool_calls(smol_backend):
    with running(smol_backend, default_max_tokens=96, max_retries=1) as server:
        raw = list(client(server).chat.completions.create(
            model=MODEL, messages=USER, tools=WEATHER, tool_choice="required", stream=True))
    deltas = [d for c in raw if c.choices for d in (c.choices[0].delta.tool_calls or [])]
    assert deltas and deltas[0].function.name == "get_weather"
    assert isinstance(json.loads("".join(d.function.arguments or "" for d in deltas if d.index == 0)), dict)
    assert raw[-1].choices[0].finish_reason == "tool_calls"


# --- keep-alive while the model works ---------------------------------------------------------


class HeldBackend(ScriptedBackend):
    """Plays one turn only once ``gate`` is set: a model still at work until the test lets it finish."""

    def __init__(self, turns: list[str]) -> None:
        super().__init__(turns)
        self.gate = threading.Event()
        self.released: bool | None = None

    def complete(self, prompt: str, **options: Any) -> Completion:
        self.released = self.gate.wait(timeout=30)
        return super().complete(prompt, **options)


def test_serve_sends_keep_alive_comments_before_the_model_finishes_the_turn():
    import http.client

    backend = HeldBackend([" I know this.\nFinal Answer: It is sunny in Paris."])
    with running(backend, keepalive_s=0.05) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
        body = json.dumps({"model": MODEL, "messages": USER, "tools": WEATHER, "stream": True})
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("Content-Type") == "text/event-stream"
        first = response.fp.readline()
        backend.gate.set()
        rest = response.read().decode()
        connection.close()
    assert first == b": keep-alive\n" and backend.released is True
    events = [json.loads(line[len("data: "):]) for line in rest.splitlines()
              if line.startswith("data: ") and line != "data: [DONE]"]
    assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events) == "It is sunny in Paris."
    assert rest.rstrip().endswith("data: [DONE]")


def test_keep_alive_outlasts_a_client_read_timeout_shorter_than_the_turn():
    # The turn takes 2 s; the client gives up after 1 s without a byte. Beats every 0.1 s keep it reading.
    backend = HeldBackend([" I know this.\nFinal Answer: It is sunny in Paris."])
    threading.Timer(2.0, backend.gate.set).start()
    with running(backend, keepalive_s=0.1) as server:
        api = openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=1.0)
        chunks = list(api.chat.completions.create(model=MODEL, messages=USER, tools=WEATHER, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "It is sunny in Paris."


def test_with_answer_checks_on_only_keep_alives_precede_the_accepted_answer_which_goes_out_in_one_delta():
    """docs/serving.md: a refused answer never reaches the client; the accepted one is a single delta."""
    import http.client

    backend = HeldBackend([" Easy.\nFinal Answer: 37 * 91 + 12", " Worked out.\nFinal Answer: 3379"])
    threading.Timer(0.5, backend.gate.set).start()
    with running(backend, keepalive_s=0.1, checks=ALL_CHECKS) as server:  # the expression check is off by default
        connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=30)
        body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "What is 37 * 91 + 12?"}],
                           "tools": WEATHER, "stream": True})
        connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        lines = [line for line in connection.getresponse().read().decode().splitlines() if line]
        connection.close()
    beats = lines.index(next(line for line in lines if line.startswith("data: ")))
    assert beats >= 1 and set(lines[:beats]) == {": keep-alive"}
    deltas = [json.loads(line[len("data: "):])["choices"][0] for line in lines[beats:-1]]
    assert [d["delta"] for d in deltas] == [{"role": "assistant", "content": ""}, {"content": "3379"}, {}]
    assert [d["finish_reason"] for d in deltas] == [None, None, "stop"] and lines[-1] == "data: [DONE]"


def test_a_failure_after_a_keep_alive_ends_the_stream_with_an_error_event():
    backend = HeldBackend([])  # the script is empty: the backend fails once released
    with running(backend, keepalive_s=0.05) as server:
        api = client(server)
        stream = api.chat.completions.create(model=MODEL, messages=USER, tools=WEATHER, stream=True)
        threading.Timer(0.5, backend.gate.set).start()
        with pytest.raises(openai.APIError) as info:
            list(stream)
    assert "backend" in str(info.value).lower()


CALCULATOR = [{"type": "function", "function": {
    "name": "calculator", "description": "Evaluate an arithmetic expression.",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}]


@contextmanager
def serve_command(*flags: str) -> Iterator[str]:
    """``react-text serve`` as a user starts it, on a loopback port, over a completion server that takes 1 s
    a turn; yields the base URL it prints."""
    import subprocess
    import sys

    from react_text.backends.fake_server import FakeCompletionServer

    with FakeCompletionServer(latency_s=1.0) as upstream:
        proc = subprocess.Popen([sys.executable, "-m", "react_text.cli", "serve", "--backend", "http", "--url",
                                 upstream.url, "--port", "0", *flags], stderr=subprocess.PIPE, text=True)
        try:
            line = ""
            while "serving" not in line:
                line = proc.stderr.readline()
                assert line, "serve exited before serving"
            yield re.search(r"(http://\S+)/v1", line).group(1)
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def streamed_lines(url: str) -> list[bytes]:
    import http.client

    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "What is 6 * 7?"}],
                       "tools": CALCULATOR, "stream": True})
    connection.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 200
    lines = response.read().splitlines()
    connection.close()
    return lines


@pytest.mark.parametrize(("flag", "beats"), [("0.1", True), ("0", False)])
def test_serve_keepalive_flag_sets_the_comment_interval_and_0_turns_it_off(flag, beats):
    with serve_command("--keepalive", flag) as url:
        lines = streamed_lines(url)
    assert (b": keep-alive" in lines) is beats, lines
    assert b"data: [DONE]" in lines and any(b'"calculator"' in line for line in lines)


@pytest.mark.parametrize("value", ["-1", "nan", "soon"])
def test_serve_keepalive_refuses_what_is_not_zero_or_more_seconds(value, capsys):
    from react_text.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--keepalive", value])
    assert exit_info.value.code == 2 and "--keepalive" in capsys.readouterr().err
