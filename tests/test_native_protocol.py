"""The model's own tool format as a shim protocol: its chat template with tools, the reply read tolerantly,
and ``template="auto"`` choosing between it and the text protocol."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from react_text import tool_calls
from react_text.backends.http import HttpBackend
from react_text.backends.scripted import ScriptedBackend
from react_text.fc.choice import choose_template
from react_text.fc.request import ShimRequestError
from react_text.grammar.gbnf import build_grammar, grammar_matches
from react_text.prompting.native import NativeTemplateError, has_tools, native_messages, render_native

# A Hermes-style template written for these tests: tools in the system turn, calls in <tool_call>
# tags, results as role "tool" in <tool_response>; undefined names are falsy, as in real templates.
HERMES = (
    "{% if tools %}<|im_start|>system\n# Tools\n<tools>{% for t in tools %}\n{{ t | tojson }}{% endfor %}\n"
    "</tools><|im_end|>\n{% endif %}"
    "{% for m in messages %}{% if m.role == 'assistant' and m.tool_calls %}<|im_start|>assistant"
    "{% for c in m.tool_calls %}\n<tool_call>\n{\"name\": \"{{ c.function.name }}\", \"arguments\": "
    "{{ c.function.arguments | tojson }}}\n</tool_call>{% endfor %}<|im_end|>\n"
    "{% elif m.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ m.content }}\n</tool_response><|im_end|>\n"
    "{% else %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
PLAIN = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n"
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add two numbers.",
                                      "parameters": {"type": "object", "properties": {"a": {"type": "number"},
                                                                                     "b": {"type": "number"}},
                                                     "required": ["a", "b"]}}},
]
QUESTION = [{"role": "user", "content": "Weather in Paris, and 1 + 2?"}]
TWO_CALLS = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
             '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>')


def backend(turns, template=HERMES, **kw) -> ScriptedBackend:
    b = ScriptedBackend(turns, **kw)
    b.chat_template = template  # as the in-process backend reads it from the GGUF
    return b


def test_has_tools_reads_the_template_s_variables() -> None:
    assert has_tools(HERMES) and not has_tools(PLAIN) and not has_tools(None)


def test_the_conversation_is_rendered_as_the_template_lays_it_out() -> None:
    messages = [*QUESTION,
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "3"}]
    prompt = render_native(HERMES, messages, TOOLS)
    assert '"name": "get_weather"' in prompt.split("</tools>")[0]
    assert '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>' in prompt  # not quoted twice
    assert "<tool_response>\n3\n</tool_response>" in prompt and prompt.endswith("<|im_start|>assistant\n")


def test_arguments_text_becomes_an_object_and_content_text() -> None:
    got = native_messages([{"role": "assistant", "content": None, "tool_calls": [
        {"id": "x", "type": "function", "function": {"name": "f", "arguments": '{"k": 1}'}}]}])
    assert got[0]["content"] == "" and got[0]["tool_calls"][0]["function"]["arguments"] == {"k": 1}


def test_a_template_without_tools_is_a_clear_error() -> None:
    with pytest.raises(NativeTemplateError, match="no tools block"):
        render_native(PLAIN, QUESTION, TOOLS)
    with pytest.raises(ShimRequestError, match="tools block"):
        tool_calls(QUESTION, TOOLS, backend=backend([TWO_CALLS], PLAIN), template="native")


def test_a_template_bomb_is_stopped_by_the_sandbox() -> None:
    with pytest.raises(NativeTemplateError, match="failed to render"):
        render_native("{{ tools }}{% for i in range(10**9) %}x{% endfor %}", QUESTION, TOOLS)


def test_parallel_calls_come_back_as_several_tool_calls_in_order() -> None:
    b = backend([TWO_CALLS])
    out = tool_calls(QUESTION, TOOLS, backend=b, template="native")
    calls = out["message"]["tool_calls"]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("get_weather", {"city": "Paris"}), ("add", {"a": 1, "b": 2})]
    assert len({c["id"] for c in calls}) == 2 and out["finish_reason"] == "tool_calls"
    assert "# Tools" in b.prompts[0] and "<|im_end|>" in b.calls[0].stop


def test_fenced_json_the_coder_model_writes_is_read_too() -> None:
    out = tool_calls(QUESTION, TOOLS, backend=backend(['```json\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n```']),
                     template="native")
    assert out["message"]["tool_calls"][0]["function"]["name"] == "add"


def test_plain_text_is_the_answer_and_a_bad_call_is_retried_with_the_problem() -> None:
    out = tool_calls(QUESTION, TOOLS, backend=backend(["It is sunny."]), template="native")
    assert out["message"]["content"] == "It is sunny." and out["finish_reason"] == "stop"
    b = backend(['<tool_call>\n{"name": "add", "arguments": {"a": "one"}}\n</tool_call>', TWO_CALLS])
    out = tool_calls(QUESTION, TOOLS, backend=b, template="native")
    assert out["format_errors"] == ["bad_arguments"] and len(out["message"]["tool_calls"]) == 2
    assert b.prompts[1].count("<|im_start|>user") == 2  # the problem went back as a user turn


def test_the_grammar_is_the_model_s_own_call_format_with_the_tool_s_schema() -> None:
    b = backend([TWO_CALLS], supports_grammar=True)
    tool_calls(QUESTION, TOOLS, backend=b, template="native", constrain=True, tool_choice="required")
    grammar = b.calls[0].grammar
    one_call = TWO_CALLS.split("\n<tool_call>\n{\"name\": \"add")[0]
    assert grammar is not None and grammar_matches(grammar, one_call)
    assert not grammar_matches(grammar, TWO_CALLS)  # one call per constrained turn (see NativeForm)
    assert not grammar_matches(grammar, "It is sunny.")  # a call is required
    assert not grammar_matches(grammar, one_call.replace('"Paris"', "3"))  # city is a string
    assert grammar_matches(build_grammar("native", TOOLS), "It is sunny.")


def test_the_grammar_admits_the_call_in_a_json_fence_too_and_it_comes_back_as_the_call() -> None:
    """A model that writes its calls fenced (the coder 0.5B, unconstrained) found only the one-line answer
    open after ```json under the grammar, and its call ended as the text "```json"."""
    fenced = '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```'
    b = backend([fenced], supports_grammar=True)
    out = tool_calls(QUESTION, TOOLS, backend=b, template="native", constrain=True)
    grammar = b.calls[0].grammar
    assert grammar_matches(grammar, fenced) and grammar_matches(grammar, "It is sunny.")
    assert not grammar_matches(grammar, fenced.replace('"Paris"', "3"))  # the schema holds inside the fence
    assert [c["function"]["name"] for c in out["message"]["tool_calls"]] == ["get_weather"]


def test_auto_picks_native_for_a_template_with_tools_else_classic_and_says_why() -> None:
    out = tool_calls(QUESTION, TOOLS, backend=backend([TWO_CALLS]))
    assert out["template"]["name"] == "native" and "tools block" in out["template"]["why"]
    b = backend(['Thought: I add.\nAction: add\nAction Input: {"a": 1, "b": 2}'], PLAIN)
    out = tool_calls([{"role": "user", "content": "Add 1 and 2."}], TOOLS, backend=b)
    assert out["template"]["name"] == "classic" and "no tools block" in out["template"]["why"]
    assert out["message"]["tool_calls"][0]["function"]["name"] == "add"
    assert "template" not in tool_calls(QUESTION, TOOLS, backend=backend([TWO_CALLS]), template="native")


def test_the_shipped_measurements_are_read_for_the_default_model() -> None:
    b = backend([])
    b.model_path = "/somewhere/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    chosen = choose_template(b)
    assert chosen.name == "classic" and "36/45" in chosen.why  # measured, though its template has tools


def test_auto_follows_the_measurement_for_a_measured_model() -> None:
    b = backend([])
    b.model_path = "/models/some-model-q4.gguf"
    measured = {"some-model-q4.gguf": {"template": "classic", "why": "tools suite 40/45 vs native 30/45"}}
    chosen = choose_template(b, measured)
    assert chosen.name == "classic" and "40/45" in chosen.why and "some-model-q4.gguf" in chosen.why


class _Props(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        body = json.dumps({"chat_template": HERMES, "default_generation_settings": {"n_ctx": 2048}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_an_http_backend_gets_the_template_from_the_server_s_props() -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Props)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        b = HttpBackend(f"http://127.0.0.1:{httpd.server_address[1]}", api="llama", timeout=5)
        assert b.native_chat_template() == HERMES and b.context_size == 2048
        assert choose_template(b).name == "native"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_serve_with_auto_answers_in_the_model_s_own_format_and_says_why() -> None:
    import requests

    from react_text.fc.endpoint import ServerConfig
    from react_text.fc.server import make_server

    server = make_server(backend([TWO_CALLS]), ServerConfig(model_name="m"), host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        body = {"model": "m", "messages": QUESTION, "tools": TOOLS}
        reply = requests.post(server.url + "/v1/chat/completions", json=body, timeout=30).json()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    calls = reply["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "add"]
    assert reply["template"]["name"] == "native" and "tools block" in reply["template"]["why"]


def test_qwen_calls_in_its_own_format_with_and_without_the_grammar(qwen_backend) -> None:
    """The real template from the GGUF: the coder model answers in fenced JSON unconstrained, in <tool_call>
    under the grammar; both come back as the call."""
    question = [{"role": "user", "content": "Add 17 and 25."}]
    for constrain in (False, True):
        out = tool_calls(question, TOOLS, backend=qwen_backend, template="native", constrain=constrain, max_tokens=96)
        (call,) = out["message"]["tool_calls"]
        assert call["function"]["name"] == "add" and json.loads(call["function"]["arguments"]) == {"a": 17, "b": 25}
    assert choose_template(qwen_backend).name in ("native", "classic")
