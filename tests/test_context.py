"""A long run's prompt stays inside the context window, checked by token counts.

Unit tests use the scripted backend with a context size and its word
tokenizer (it raises, as llama.cpp does, when a prompt does not fit); one test
counts with SmolLM2's real tokenizer and has real llama.cpp read the last prompt.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.backends.base import context_size, estimate_tokens, token_counter
from react_text.backends.http import HttpBackend
from react_text.backends.scripted import ScriptedBackend, count_words
from react_text.prompting.context import SHORTENED_NOTE, Entry, fit_context, summary
from react_text.protocol.dialects import format_action, format_final
from react_text.agent.loop import Agent
from react_text.agent.state import Limits
from react_text.prompting.templates import load_template
from react_text.tools.spec import tool
from react_text.trace import read_trace

TURN_TOKENS = 30


def page_tool(words: int):
    @tool(max_chars=10**6)
    def page(n: int) -> str:
        """Read page n of the log."""
        return f"Page {n} begins here. " + " ".join(f"w{n}x{i}" for i in range(words))
    return page


def read_pages(count: int) -> list[str]:
    turns = [f" I read page {i}.\n" + format_action("classic", "page", {"n": i}) for i in range(1, count + 1)]
    return turns + [" I have read them all.\n" + format_final("classic", "all read")]


@pytest.fixture(scope="module")
def template():
    return load_template("classic")


def long_run(template, *, steps=30, words=150, context=700, count=count_words, trace=None):
    backend = ScriptedBackend(read_pages(steps), context_size=context, count_tokens=count)
    limits = Limits(max_steps=steps + 5, max_total_tokens=10**7, max_turn_tokens=TURN_TOKENS,
                    max_observation_chars=10**6)
    agent = Agent(backend, [page_tool(words)], template, limits=limits, trace=trace)
    return agent.run("Read every page of the log, from page 1 on."), backend


# --- the pure policy -----------------------------------------------------------------

def entries(sizes):
    return [Entry(i + 1, f"turn {i + 1}", " ".join(["word"] * size)) for i, size in enumerate(sizes)]


def words_of(entry: Entry) -> int:
    return count_words(entry.turn) + count_words(entry.observation)


def test_nothing_is_cut_while_it_fits():
    es = entries([50, 50])
    fit = fit_context(10 + 104, es, count_entry=words_of, limit=200)
    assert fit.fits and fit.cuts == () and list(fit.entries) == es


def test_a_cut_shortens_every_older_observation_and_keeps_the_last_step():
    es = entries([100, 100, 100, 5, 100])
    total = 10 + sum(words_of(e) for e in es)
    fit = fit_context(total, es, count_entry=words_of, limit=300)
    assert fit.fits and fit.tokens <= 300
    # all older ones at once (so the next cut starts late in the prompt); a short one is left as it is
    assert [c.n for c in fit.cuts] == [1, 2, 3] and all(c.kind == "shortened" for c in fit.cuts)
    assert fit.entries[0].turn == "turn 1" and fit.entries[0].observation.endswith(SHORTENED_NOTE)
    assert fit.entries[3] == es[3] and fit.entries[-1] == es[-1]
    assert fit.tokens == total - sum(c.tokens_before - c.tokens_after for c in fit.cuts)
    newest = Entry(6, "turn 6", " ".join(["word"] * 200))
    again = fit_context(fit.tokens + words_of(newest), [*fit.entries, newest], count_entry=words_of, limit=300)
    assert again.fits and [c.n for c in again.cuts] == [5]  # shortened steps are never cut twice


def test_whole_steps_are_dropped_when_shortening_is_not_enough():
    es = entries([5] * 10 + [100])
    total = 10 + sum(words_of(e) for e in es)
    fit = fit_context(total, es, count_entry=words_of, limit=130, drop_target=120)
    assert fit.fits and {c.kind for c in fit.cuts} == {"dropped"} and fit.tokens <= 120
    assert [e.n for e in fit.entries] == list(range(12 - len(fit.entries), 12))
    assert fit.entries[-1] == es[-1]


def test_it_says_so_when_even_the_last_step_cannot_fit():
    fit = fit_context(10 + 502, entries([500]), count_entry=words_of, limit=300)
    assert not fit.fits and fit.cuts == ()


def test_summary_is_one_short_line_with_the_note():
    text = summary("first line\n" + "x " * 500)
    assert "\n" not in text and text.endswith(SHORTENED_NOTE) and len(text) < 100
    assert summary("") == SHORTENED_NOTE


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 300), max_size=12), head=st.integers(0, 400), limit=st.integers(1, 1500),
       slack=st.integers(0, 500))
def test_fit_never_raises_keeps_order_and_the_last_step(sizes, head, limit, slack):
    es = entries(sizes)
    total = head + sum(words_of(e) for e in es)
    fit = fit_context(total, es, count_entry=words_of, limit=limit, drop_target=limit - slack)
    kept = [e.n for e in fit.entries]
    assert kept == sorted(kept) and set(kept) <= {e.n for e in es}
    if es:
        assert fit.entries[-1] == es[-1]
    assert fit.tokens == head + sum(words_of(e) for e in fit.entries)
    assert fit.fits == (fit.tokens <= limit)
    if fit.cuts:
        assert total > limit


# --- the loop ------------------------------------------------------------------------------

def test_a_thirty_step_run_with_big_observations_finishes_inside_the_window(template, tmp_path):
    trace = tmp_path / "run.jsonl"
    result, backend = long_run(template, trace=trace, context=1000)
    assert result.status == "answered", result.answer
    assert len(result.steps) == 31
    head = backend.prompts[0]
    for prompt in backend.prompts:
        assert count_words(prompt) + TURN_TOKENS + 8 <= 1000  # never near an overflow
        assert prompt.startswith(head)  # the few-shot head is never touched
    events = read_trace(trace)
    cuts = [e for e in events if e["event"] == "context"]
    assert cuts and all(e["tokens_after"] < e["tokens_before"] for e in cuts)
    assert all(e["tokens_after"] + e["reserve"] <= e["context"] for e in cuts)
    assert SHORTENED_NOTE in backend.prompts[-1]
    # the actions of shortened steps are still there; only their results were cut
    shortened = [c["n"] for e in cuts for c in e["cuts"] if c["kind"] == "shortened"]
    assert shortened and f"Page {shortened[0]} begins here" in backend.prompts[shortened[0]]
    # between two cuts the prompt only grows, so the prefix cache keeps all of it
    cut_turns = {e["n"] for e in cuts}
    for n in range(2, len(backend.prompts) + 1):
        if n not in cut_turns:
            assert backend.prompts[n - 1].startswith(backend.prompts[n - 2])
    # cuts are rare: each one makes room for several turns
    assert len(cuts) < len(backend.prompts) / 2
    # a cut that only shortens costs the cache little: the shortened steps and the newest one, nothing more
    turns = [e for e in events if e["event"] == "model_turn"]
    for e in cuts:
        if all(c["kind"] == "shortened" for c in e["cuts"]):
            n = e["n"]
            newest = result.steps[n - 2]
            tail = sum(c["tokens_after"] for c in e["cuts"]) + count_words(
                newest.kept + template.observation(newest.observation_text, n - 1))
            assert turns[n - 1]["evaluated_tokens"] <= tail + 8


def test_the_same_run_without_a_known_window_overflows(template):
    """The scripted backend raises like llama.cpp: without counting, this run would not finish."""
    backend = ScriptedBackend(read_pages(30), context_size=700)
    backend.context_size = None  # the loop cannot see the window...
    backend_with_limit = ScriptedBackend(read_pages(30), context_size=700)
    limits = Limits(max_steps=35, max_total_tokens=10**7, max_turn_tokens=TURN_TOKENS, max_observation_chars=10**6)

    class Hidden:
        """The same backend with its context size hidden from the loop."""
        name, supports_grammar = "hidden", False
        complete = backend_with_limit.complete
        wrap_prompt = backend_with_limit.wrap_prompt

    result = Agent(Hidden(), [page_tool(150)], template, limits=limits).run("Read every page of the log.")
    assert result.status == "backend_error" and "context window" in result.reason


def test_context_full_when_the_head_itself_does_not_fit(template):
    backend = ScriptedBackend([format_final("classic", "x")], context_size=100)
    result = Agent(backend, [page_tool(10)], template).run("Read every page of the log.")
    assert result.status == "context_full"
    assert backend.calls == [] and "context" in result.answer and result.answer.startswith("No answer (context_full)")


def test_context_full_with_the_best_partial_answer_when_one_result_is_too_big(template):
    result, backend = long_run(template, steps=3, words=1000, context=700)
    assert result.status == "context_full"
    assert len(backend.calls) == 1
    assert "Last observation: Page 1 begins here" in result.answer


def test_limits_context_tokens_overrides_the_backend(template):
    backend = ScriptedBackend(read_pages(12))  # tells nothing about its window
    limits = Limits(max_steps=20, max_total_tokens=10**7, max_turn_tokens=TURN_TOKENS, max_observation_chars=10**6,
                    context_tokens=700)
    agent = Agent(backend, [page_tool(150)], template, limits=limits)
    assert agent.run("Read every page of the log.").status == "answered"
    assert max(count_words(p) for p in backend.prompts) + TURN_TOKENS <= 700


def test_backend_context_helpers():
    assert context_size(ScriptedBackend([], context_size=512)) == 512
    assert context_size(ScriptedBackend([])) is None
    assert context_size(object()) is None
    assert token_counter(ScriptedBackend([], count_tokens=len))("abc") == 3
    assert token_counter(object()) is estimate_tokens
    assert estimate_tokens("x" * 300) > 300 / 4


# --- real tokenizer, real llama.cpp ---------------------------------------------------------

@pytest.mark.model
def test_real_token_counts_keep_every_prompt_inside_smollm2s_window(smol_backend, template):
    """Counted by SmolLM2's own tokenizer; real llama.cpp then reads the longest prompt without complaint."""
    assert smol_backend.context_size == 2048
    backend = ScriptedBackend(read_pages(10), context_size=smol_backend.context_size,
                              count_tokens=smol_backend.count_tokens)
    limits = Limits(max_steps=15, max_total_tokens=10**7, max_turn_tokens=TURN_TOKENS, max_observation_chars=10**6)
    result = Agent(backend, [page_tool(120)], template, limits=limits).run("Read every page of the log.")
    assert result.status == "answered", result.answer
    longest = max(backend.prompts, key=len)
    assert SHORTENED_NOTE in longest or SHORTENED_NOTE in backend.prompts[-1]
    for prompt in backend.prompts:
        assert smol_backend.count_tokens(prompt) + 1 + TURN_TOKENS <= 2048  # +1: the BOS token
    completion = smol_backend.complete(longest, max_tokens=1)
    assert completion.prompt_tokens + TURN_TOKENS <= 2048


# --- HTTP: the server's window and tokenizer ---------------------------------------------

class _FakeLlamaServer(BaseHTTPRequestHandler):
    """Answers /props and /tokenize like llama-server (one token per word), and completions by script."""

    turns: list[str] = []
    seen: list[int] = []

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _reply(self, status: int, data: dict) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/props":
            self._reply(200, {"default_generation_settings": {"n_ctx": 700}})
        else:
            self._reply(404, {"error": "not found"})

    def do_POST(self) -> None:
        data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/tokenize":
            self._reply(200, {"tokens": list(range(count_words(data["content"])))})
        elif self.path == "/completion":
            tokens = count_words(data["prompt"])
            self.seen.append(tokens)
            if tokens >= 700:
                self._reply(400, {"error": "the request exceeds the available context size"})
                return
            self._reply(200, {"content": self.turns[len(self.seen) - 1], "tokens_evaluated": tokens,
                              "tokens_predicted": 5, "stop_type": "eos"})
        else:
            self._reply(404, {"error": "not found"})


@pytest.fixture
def fake_llama_server():
    handler = type("Handler", (_FakeLlamaServer,), {"turns": read_pages(30), "seen": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def test_http_backend_asks_the_server_for_its_window_and_tokens(fake_llama_server, template):
    url, handler = fake_llama_server
    backend = HttpBackend(url, api="llama", retries=0)
    assert backend.context_size == 700
    assert backend.count_tokens("one two three") == 3
    limits = Limits(max_steps=35, max_total_tokens=10**7, max_turn_tokens=TURN_TOKENS, max_observation_chars=10**6)
    result = Agent(backend, [page_tool(150)], template, limits=limits).run("Read every page of the log.")
    assert result.status == "answered", result.answer
    assert len(handler.seen) == 31 and max(handler.seen) + TURN_TOKENS <= 700


def test_http_backend_without_props_or_tokenize_estimates(template):
    backend = HttpBackend("http://127.0.0.1:9", api="openai", retries=0, timeout=2)  # nothing listens there
    assert backend.context_size is None
    assert backend.count_tokens("x" * 30) == estimate_tokens("x" * 30)
    backend.context_size = 4096
    assert backend.context_size == 4096


def test_console_says_what_was_cut(template):
    import io

    from react_text.cli.console import Console

    out = io.StringIO()
    backend = ScriptedBackend(read_pages(6), context_size=700)
    limits = Limits(max_steps=10, max_total_tokens=10**7, max_turn_tokens=TURN_TOKENS, max_observation_chars=10**6)
    Agent(backend, [page_tool(150)], template, limits=limits, on_event=Console(out, colour=False)).run("Read.")
    lines = [line for line in out.getvalue().splitlines() if line.startswith("[context:")]
    assert lines and "shortened results of step(s) 1" in lines[0] and "of 700 tokens" in lines[0]
