"""Scoring and report rendering for compare: pure functions over result records."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from react_text.eval import metrics, report


def rec(model="m", template="classic", task="t1", correct=True, **kw):
    base = dict(model=model, template=template, task_id=task, correct=correct, status="answered",
                turns=2, format_errors=0, actions=1, invalid_tool_calls=0, steps=1,
                prompt_tokens=100, evaluated_tokens=60, completion_tokens=30, wall_seconds=1.5, category="arith")
    base.update(kw)
    return base


def test_wilson_matches_known_values():
    # 8/10: the textbook Wilson interval is about [0.490, 0.943]
    low, high = metrics.wilson_interval(8, 10)
    assert math.isclose(low, 0.4902, abs_tol=1e-3)
    assert math.isclose(high, 0.9433, abs_tol=1e-3)


def test_wilson_edges_stay_inside_unit_interval():
    assert metrics.wilson_interval(0, 5)[0] == 0.0
    assert metrics.wilson_interval(5, 5)[1] == 1.0
    assert metrics.wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        metrics.wilson_interval(6, 5)


@given(st.integers(min_value=1, max_value=2000), st.data())
@settings(max_examples=100, deadline=None)
def test_wilson_contains_point_estimate(n, data):
    k = data.draw(st.integers(min_value=0, max_value=n))
    low, high = metrics.wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0


def test_summarize_counts_rates_and_statuses():
    records = [
        rec(task="a", correct=True),
        rec(task="b", correct=False, status="max_steps", turns=4, format_errors=2, actions=3, invalid_tool_calls=1),
        rec(task="c", correct=False, status="gave_up", category="lookup"),
        rec(template="json", task="a", correct=True),
    ]
    cells = {(s.model, s.template): s for s in metrics.summarize(records)}
    classic = cells[("m", "classic")]
    assert (classic.tasks, classic.solved) == (3, 1)
    assert classic.format_errors == 2 and classic.turns == 8
    assert classic.format_error_rate == pytest.approx(2 / 8)
    assert classic.invalid_tool_rate == pytest.approx(1 / 5)
    assert classic.statuses == {"answered": 1, "max_steps": 1, "gave_up": 1}
    assert classic.by_category == {"arith": (1, 2), "lookup": (0, 1)}
    assert cells[("m", "json")].success_rate == 1.0


def test_disagreements_name_who_solved_what():
    records = [rec(task="a", correct=True), rec(template="json", task="a", correct=False),
               rec(task="b", correct=True), rec(template="json", task="b", correct=True)]
    found = metrics.disagreements(records)
    assert [(d.task_id, d.solved_by, d.failed_by) for d in found] == [("a", ("classic",), ("json",))]


def test_best_per_model_prefers_success_then_fewer_format_errors():
    records = [rec(task="a", template="classic", format_errors=1), rec(task="a", template="json"),
               rec(task="a", template="zh", correct=False)]
    best = metrics.best_per_model(metrics.summarize(records))
    assert best["m"].template == "json"


def test_report_renders_every_format():
    records = [rec(task="a"), rec(template="json", task="a", correct=False), rec(model="other", task="a")]
    summaries = metrics.summarize(records)
    dis = metrics.disagreements(records)
    table = report.terminal_table(summaries)
    assert "classic" in table and "json" in table and "1/1" in table
    verdicts = metrics.verdicts(summaries, records)
    md = report.markdown(summaries, dis, command="react-text compare ...", chart_file="chart.svg", verdicts=verdicts)
    assert "| m | a | classic | json |" in md
    assert "![success rate" in md and "react-text compare ..." in md
    assert "**m: use `classic`**" in md
    assert "not a significant difference" in md  # 1 task against 0: nothing to conclude
    assert "too few to conclude" in md
    parsed = json.loads(report.summary_json(summaries, dis))
    assert {c["template"] for c in parsed["cells"]} == {"classic", "json"}
    svg = report.svg_chart(summaries)
    assert svg.startswith("<svg") and svg.count("<rect") >= 4
    page = report.html_page(summaries, dis, title="t <x>")
    assert "t &lt;x&gt;" in page and "<svg" in page


def test_grammar_effects_pair_each_cell_with_its_constrained_twin():
    records = [
        rec(task="a", correct=False, format_errors=2, turns=4), rec(task="b", correct=True), rec(task="c", correct=True),
        rec(task="a", constrain=True, correct=True), rec(task="b", constrain=True, correct=True),
        rec(task="c", constrain=True, correct=False),
        rec(template="json", task="a"),  # no constrained twin: no row
    ]
    summaries = metrics.summarize(records)
    effects = metrics.grammar_effects(summaries, records)
    assert len(effects) == 1
    e = effects[0]
    assert (e.plain.template, e.plain.constrain, e.constrained.constrain) == ("classic", False, True)
    assert (e.plain.solved, e.constrained.solved) == (2, 2)
    assert (e.only_constrained, e.only_plain) == (1, 1)
    md = report.markdown(summaries, [], effects=effects)
    assert "## What the grammar buys" in md
    assert "| m | classic | 2 → 2 of 3 | 25% → 0% | 0% → 0% | 1 / 1 | 90 → 90 |" in md
    parsed = json.loads(report.summary_json(summaries, [], effects))
    assert parsed["grammar_effects"][0]["solved"] == [2, 2]
    assert "What the grammar buys" in report.html_page(summaries, [], title="t", effects=effects)
    assert "What the grammar buys" not in report.markdown(summaries, [])
