"""The cheap ablation: which checks fired in a run, why a check that did not fire cannot change the run
when switched off, and which records a check-off cell copies from its base cell."""

from __future__ import annotations

import json

import pytest

from react_text.agent.loop import Agent
from react_text.backends.scripted import ScriptedBackend
from react_text.checks import CHECKS, DEFAULT_CHECKS
from react_text.cli.compare import ablation_cells
from react_text.cli.main import main
from react_text.eval import compare
from react_text.eval.ablation import copies, effects, fired_checks, markdown
from react_text.eval.planning import CompareSpec
from react_text.prompting.templates import load_template
from react_text.protocol.dialects import format_action, format_final
from react_text.tools.calculator import calculator
from react_text.tools.spec import tool

QUESTION = "What is 7 divided by 3, to two decimal places?"
LAKE = ("[1] en/lake.txt: Lake Emmerlin is the largest lake of the region. The deepest point of Lake Emmerlin "
        "lies 143 metres below the surface.")


def final(answer: str, thought: str = "I know the answer now.") -> str:
    return f" {thought}\n{format_final('classic', answer)}"


def act(tool_name: str, args) -> str:
    return f" I use a tool.\n{format_action('classic', tool_name, args)}"


@tool
def search(query: str) -> str:
    """Search the documents."""
    return LAKE


# --- reading a trace --------------------------------------------------------------------------------

def test_fired_checks_reads_every_kind_of_intervention() -> None:
    events = [
        {"event": "run_start"},
        {"event": "decision", "decision": {"kind": "retry", "check": "rounding", "reason": "guard:rounding"}},
        {"event": "decision", "decision": {"kind": "retry", "check": None, "reason": "format_error:no_step"}},
        {"event": "decision", "decision": {"kind": "stop", "status": "copied_example"}},
        {"event": "evidence", "lead": "x", "check": "evidence"},
        {"event": "prompt", "reason": "label_left_out"},
        {"event": "prompt"},
        {"event": "second_look", "tool": "search"},
    ]
    assert fired_checks(events) == {"rounding", "copied_example", "evidence", "continuation", "second_look"}
    assert fired_checks([{"event": "evidence", "lead": "x"}]) == {"facts", "evidence"}  # an older trace
    look = {"event": "decision", "decision": {"kind": "retry", "check": "second_look"}}
    assert fired_checks([look]) == {"second_look", "facts", "evidence"}  # its correction opens with a lead
    assert fired_checks([{"event": "decision", "decision": {"kind": "run_tool"}}]) == frozenset()
    held = {"event": "decision", "decision": {"kind": "retry", "check": "tool_choice", "hold": "convert"}}
    assert fired_checks([held]) == {"tool_choice", "held_call"}


# --- why copying is sound: a check that did not fire changes nothing ----------------------------------

CASES = [
    ([calculator], QUESTION, [act("calculator", "7 / 3"), final("2.333333"), final("2.33")]),  # rounding fires
    ([calculator], QUESTION, [act("calculator", "7 / 3"), final("2.33")]),  # nothing fires
    ([calculator], QUESTION, [final("2.33"), act("calculator", "7 / 3"), final("2.33")]),  # no_observation
    ([search], "How deep is Lake Emmerlin at its deepest point, in metres?",
     [act("search", {"query": "Lake Emmerlin depth"}), final("143")]),  # the evidence lead
]


def _run(tools, question, turns, checks):
    events: list[dict] = []
    backend = ScriptedBackend(list(turns) + [final("2.33")] * 4)
    result = Agent(backend, tools, load_template("classic"), checks=checks, on_event=events.append).run(question)
    return result, events, backend.prompts


@pytest.mark.parametrize(("tools", "question", "turns"), CASES)
def test_switching_off_a_check_that_did_not_fire_leaves_every_prompt_and_the_answer_alike(tools, question, turns):
    result, events, prompts = _run(tools, question, turns, "all")
    fired = fired_checks(events)
    for check in CHECKS:
        off, _, off_prompts = _run(tools, question, turns, [c.name for c in CHECKS if c is not check])
        if check.name in fired:
            continue
        assert off_prompts == prompts and (off.status, off.answer) == (result.status, result.answer), check.name


def test_the_checks_that_fire_in_the_cases_are_the_expected_ones() -> None:
    assert [sorted(fired_checks(_run(*case, "all")[1])) for case in CASES] == [
        ["rounding"], [], ["no_observation"], ["evidence"]]


# --- which records a cell copies ---------------------------------------------------------------------

def _record(task: str, template: str, correct: bool, fired, **extra) -> dict:
    return {"model": "m", "template": template, "constrain": False, "task_id": task, "correct": correct,
            "status": "answered", "fired": fired, **extra}


def test_copies_take_only_the_tasks_no_switched_off_check_fired_in() -> None:
    records = [
        _record("t1", "classic", True, ["rounding"]),
        _record("t2", "classic", True, []),
        _record("t3", "classic", False, ["evidence", "rounding"]),
        _record("t4", "classic", True, None),  # no trace read: never copied
        {**_record("t5", "classic", False, []), "status": "crashed"},  # a crash says nothing: rerun
        _record("t2", "classic checks=-echo", False, []),  # already run: kept as it is
    ]
    off = {"classic checks=-rounding": frozenset({"rounding"}), "classic checks=-echo": frozenset({"echo"}),
           "classic checks=none": frozenset({"rounding", "echo", "evidence"})}
    made = copies(records, "classic", off)
    assert sorted((r["template"], r["task_id"]) for r in made) == [
        ("classic checks=-echo", "t1"), ("classic checks=-echo", "t3"),
        ("classic checks=-rounding", "t2"), ("classic checks=none", "t2")]
    assert all(r["copied_from"] == "classic" for r in made)
    assert not copies([*records, *made], "classic", off)  # a second pass adds nothing


def test_effects_count_gained_lost_copied_and_the_exact_p() -> None:
    base = [_record(f"t{i}", "classic", i < 6, []) for i in range(8)]
    cell = [_record(f"t{i}", "classic checks=-echo", i in (0, 6), [], **({"copied_from": "classic"} if i > 4 else {}))
            for i in range(8)]
    (found,) = effects([*base, *cell], "classic", ["classic checks=-echo"])
    assert (found.tasks, found.solved, found.base_solved, found.gained, found.lost) == (8, 2, 6, 1, 5)
    assert (found.rerun, found.copied) == (5, 3) and found.p_value == pytest.approx(0.21875)
    assert "| m | `classic checks=-echo` | 2/8 | 6 | 1 | 5 | 0.219 | 5 | 3 |" in markdown([found], "classic")


# --- compare --ablate ----------------------------------------------------------------------------------

def test_an_ablation_reruns_only_the_tasks_a_switched_off_check_fired_in(tmp_path) -> None:
    suite = tmp_path / "mini.jsonl"
    tasks = [{"id": "fires", "question": QUESTION, "expected": 2.33, "match": "number", "tools": ["calculator"],
              "lang": "en", "category": "arithmetic"},
             {"id": "quiet", "question": "What is 7 divided by 3?", "expected": 2.33, "match": "number",
              "tools": ["calculator"], "lang": "en", "category": "arithmetic"}]
    suite.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    cells = ablation_cells(["classic"], DEFAULT_CHECKS)
    spec = CompareSpec(templates=tuple(["classic", *cells["classic"]]), models=("fake",), suite=str(suite),
                       out_dir=tmp_path / "out", backend="http", urls=("http://127.0.0.1:9",))
    turns = {QUESTION: [final("2.34"), act("calculator", "7 / 3"), final("2.33")],  # no_observation fires
             "What is 7 divided by 3?": [act("calculator", "7 / 3"), final("2.33")]}
    ran: list[str] = []

    def reply(i: int, prompt: str) -> str:
        question = next(q for q in turns if q in prompt.rsplit("Question:", 1)[-1])
        if i == 0:
            ran.append(question)
        return [*turns[question], *[final("2.33")] * 4][i]

    def backend(model: str, worker: int) -> ScriptedBackend:
        return ScriptedBackend([lambda prompt, i=i: reply(i, prompt) for i in range(6)])

    records = compare.run_ablation(spec, cells, backend_factory=backend,
                                   progress_stream=open("/dev/null", "w"))
    assert len(records) == 2 * (2 + len(DEFAULT_CHECKS))
    # the base cell runs both tasks; only the cells switching no_observation off run the task it fired in
    assert sorted(ran) == sorted([QUESTION, "What is 7 divided by 3?", QUESTION, QUESTION])
    by = {(r["template"], r["task_id"]): r for r in records}
    assert by[("classic checks=-no_observation", "fires")]["answer"] == "2.34"
    assert by[("classic checks=-no_observation", "fires")].get("copied_from") is None
    assert by[("classic checks=-facts", "fires")]["copied_from"] == "classic"
    assert main(["compare", "--report-only", "--ablate", "--suite", str(suite), "--models", "fake", "--templates",
                 "classic", "--backend", "http", "--url", "http://127.0.0.1:9", "--out", str(spec.out_dir)]) == 0
    summary = json.loads((spec.out_dir / "summary.json").read_text())
    off = next(e for e in summary["ablation"] if e["label"] == "classic checks=-no_observation")
    assert (off["lost"], off["rerun"], off["copied"], off["off"]) == (1, 1, 1, ["no_observation"])
    assert "## Ablation against `classic`" in (spec.out_dir / "report.md").read_text()
