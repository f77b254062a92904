"""Whether the agent pays: the best template against the best baseline, on synthetic records."""

from __future__ import annotations

import json

from react_text.eval import compare
from react_text.eval.metrics import best_per_model, summarize
from react_text.eval.payoff import GOAL_POINTS, Cost, payoff_json, payoff_markdown, payoffs


def _records(template, outcomes, *, model="m", seconds=1.0, turns=1, category=lambda i: "lookup"):
    return [{"model": model, "template": template, "constrain": False, "task_id": f"t{i}", "category": category(i),
             "correct": ok, "status": "answered", "turns": turns, "wall_seconds": seconds,
             "evaluated_tokens": 100 * turns, "completion_tokens": 10 * turns}
            for i, ok in enumerate(outcomes)]


def _split(i):
    return "lookup" if i < 10 else "arithmetic"


def test_best_template_against_best_baseline_with_mcnemar_cost_and_categories():
    agent = _records("classic", [True] * 16 + [False] * 4, seconds=6.0, turns=3, category=_split)
    weak = _records("classic +x", [False] * 20)
    rag = _records("rag", [True] * 8 + [False] * 12, seconds=2.0, category=_split)
    direct = _records("direct", [False] * 20, category=_split)
    records = agent + weak + rag + direct
    [found] = payoffs(summarize(records), records)
    best = found.best
    assert (best.pair.a.template, best.pair.b.template) == ("classic", "rag")
    assert (best.pair.only_a, best.pair.only_b, best.pair.tasks) == (8, 0, 20)
    assert round(best.points) == 40 and best.verdict == "the agent pays" and best.pair.p_value < 0.01
    assert best.categories == (("arithmetic", 10, 6, 0), ("lookup", 10, 10, 8))
    assert [o.pair.b.template for o in found.others] == ["direct"]
    assert Cost.of(best.pair.a) == Cost(seconds=6.0, calls=3.0, tokens_in=300.0, tokens_out=30.0)
    text = "\n".join(payoff_markdown([found]))
    assert "## Does the agent pay?" in text and "the agent pays" in text and "+40 points" in text
    assert "| arithmetic | 10 | 6 | 0 | wins (+6) |" in text and f"at least {GOAL_POINTS} points" in text
    assert "3.0× the seconds" in text and ": met." in text
    data = payoff_json([found])[0]["best"]
    assert data["only_agent"] == 8 and data["cost_per_task"]["baseline"]["seconds"] == 2.0


def test_a_baseline_that_ties_or_leads_is_named_and_recommended():
    agent = _records("classic", [True, False] * 10, seconds=6.0, turns=3)
    rag = _records("rag", [True, False] * 10, seconds=2.0)
    records = agent + rag
    [found] = payoffs(summarize(records), records)
    assert found.best.verdict == "no significant difference" and found.best.points == 0
    assert "not met" in "\n".join(payoff_markdown([found]))
    assert best_per_model(summarize(records))["m"].template == "rag"  # a tie goes to the cheaper cell
    rag_ahead = _records("rag", [True] * 20)
    assert payoffs(summarize(agent + rag_ahead), agent + rag_ahead)[0].best.verdict == "the baseline is better"


def test_no_section_without_both_kinds_of_cell():
    only_agents = _records("classic", [True] * 3) + _records("json", [False] * 3)
    assert payoffs(summarize(only_agents), only_agents) == []
    assert payoff_markdown([]) == []


def test_the_written_report_holds_the_section(tmp_path):
    records = _records("classic", [True] * 12) + _records("rag", [False] * 12)
    for r in records:
        r.update(lang="en", question="q", expected=1, answer="1")
    paths = compare.write_report(records, tmp_path, split="test")
    assert "## Does the agent pay?" in paths["markdown"].read_text(encoding="utf-8")
    summary = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert summary["agent_vs_baseline"][0]["best"]["verdict"] == "the agent pays"
    assert "Does the agent pay?" in paths["html"].read_text(encoding="utf-8")
