"""The compare report answers "which should I use?", and says how sure it is (pure, no model)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from react_text.eval import metrics, report
from react_text.eval.records import load_results, record_from_run

ROOT = Path(__file__).resolve().parent.parent


def rec(template="classic", task="t1", correct=True, constrain=False, category="arith", model="m", **kw):
    base = dict(model=model, template=template, constrain=constrain, task_id=task, correct=correct,
                status="answered", turns=2, steps=2, format_errors=0, actions=1, invalid_tool_calls=0,
                prompt_tokens=10, evaluated_tokens=5, completion_tokens=3, wall_seconds=1.0, category=category)
    base.update(kw)
    return base


def cells(n, solved_a, solved_b, *, a=("classic", False), b=("json", False), category=lambda i: "arith"):
    """Two cells on the same ``n`` tasks; ``solved_a``/``solved_b`` are the task indexes each solved."""
    out = []
    for i in range(n):
        out.append(rec(template=a[0], constrain=a[1], task=f"t{i}", correct=i in solved_a, category=category(i)))
        out.append(rec(template=b[0], constrain=b[1], task=f"t{i}", correct=i in solved_b, category=category(i)))
    return out


# --- McNemar ----------------------------------------------------------------------

def test_mcnemar_exact_matches_the_binomial_by_hand():
    # 10 discordant pairs split 1 / 9: 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * 11 / 1024
    assert metrics.mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert metrics.mcnemar_exact(9, 1) == pytest.approx(22 / 1024)
    assert metrics.mcnemar_exact(0, 0) == 1.0
    assert metrics.mcnemar_exact(3, 3) == 1.0
    assert metrics.mcnemar_exact(0, 6) == pytest.approx(2 / 64)


@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_is_a_symmetric_probability(b, c):
    p = metrics.mcnemar_exact(b, c)
    assert 0.0 < p <= 1.0
    assert p == metrics.mcnemar_exact(c, b)


# --- the verdict --------------------------------------------------------------------

def test_verdict_names_the_best_and_a_significant_win():
    records = cells(30, solved_a=set(range(20)), solved_b=set(range(5)))
    (v,) = metrics.verdicts(metrics.summarize(records), records)
    assert v.best.name == "classic"
    assert v.runner_up.only_a == 15 and v.runner_up.only_b == 0
    assert v.runner_up.significant and v.ties == ()
    md = report.markdown(metrics.summarize(records), [], verdicts=[v])
    assert md.index("## Which should I use?") < md.index("## All cells")
    assert "**m: use `classic`**" in md
    assert "a real difference" in md and "Every other template is significantly worse" in md
    assert "too few" not in md


def test_verdict_says_when_the_difference_is_noise_and_lists_the_ties():
    records = cells(30, solved_a=set(range(11)), solved_b=set(range(1, 11)))
    (v,) = metrics.verdicts(metrics.summarize(records), records)
    assert not v.runner_up.significant
    assert v.ties == ("json",)
    md = report.markdown(metrics.summarize(records), [], verdicts=[v])
    assert "not a significant difference" in md and "`json`" in md


def test_small_sample_gets_a_warning():
    records = cells(3, solved_a={0, 1}, solved_b={0})
    (v,) = metrics.verdicts(metrics.summarize(records), records)
    assert v.small_sample
    assert "too few to conclude" in report.markdown(metrics.summarize(records), [], verdicts=[v])
    records = cells(metrics.SMALL_SAMPLE, solved_a={0, 1}, solved_b={0})
    (v,) = metrics.verdicts(metrics.summarize(records), records)
    assert not v.small_sample


def test_grammar_line_compares_the_best_template_with_and_without():
    records = cells(20, solved_a=set(range(4)), solved_b=set(range(14)), b=("classic", True))
    summaries = metrics.summarize(records)
    (v,) = metrics.verdicts(summaries, records)
    assert v.best.name == "classic +c"
    assert v.runner_up is None  # one template only: nothing else to be ahead of
    assert (v.grammar.a.name, v.grammar.b.name, v.grammar.only_b, v.grammar.only_a) == ("classic", "classic +c", 10, 0)
    md = report.markdown(summaries, [], verdicts=[v])
    assert "The grammar (`--constrain`) helps" in md


def test_a_template_never_seems_to_beat_itself():
    """With --constrain both, the rival is another template, and every name keeps its +c."""
    records = (cells(20, solved_a=set(range(10)), solved_b=set(range(9)), a=("zh", False), b=("zh", True))
               + cells(20, solved_a=set(range(8)), solved_b=set(range(3)), a=("call", True), b=("call", False)))
    summaries = metrics.summarize(records)
    verdicts = metrics.verdicts(summaries, records)
    md = report.markdown(summaries, [], verdicts=verdicts)
    line = next(x for x in md.splitlines() if "How sure: ahead of" in x)
    best = re.search(r"use `([^`]+)`", md).group(1)
    rival = re.search(r"ahead of `([^`]+)`", line).group(1)
    assert best == "zh" and rival == "call +c"
    assert best.split()[0] != rival.split()[0]
    table = md[md.index("## Success by category"):]
    assert "| m | zh +c |" in table and "| m | call +c |" in table and "| m | zh |" in table


def test_where_it_fails_lists_weak_categories_worst_first():
    cat = lambda i: ["arith", "lookup", "multihop"][i % 3]  # noqa: E731
    solved = {i for i in range(30) if i % 3 == 0} | {1, 4}
    records = cells(30, solved_a=solved, solved_b=set(), category=cat)
    (v,) = metrics.verdicts(metrics.summarize(records), records)
    assert [c for c, _, _ in v.weak_categories] == ["multihop", "lookup"]
    assert "Where it fails: multihop 0/10, lookup 2/10" in report.markdown(metrics.summarize(records), [],
                                                                            verdicts=[v])


# --- steps agree with replay ------------------------------------------------------

def test_steps_count_model_turns_like_replay():
    """The committed run: a task with 3 unusable turns shows 3 steps in replay, and now in the report."""
    records = [rec(turns=3, steps=0), rec(task="t2", turns=1, steps=1)]
    (s,) = metrics.summarize(records)
    assert s.avg_steps == 2.0


def test_record_from_run_steps_equal_the_trace_run_end(tmp_path):
    from react_text.backends.scripted import ScriptedBackend
    from react_text.agent.loop import Agent
    from react_text.eval.suites import Task
    from react_text.trace import read_trace

    # the unlabelled turn is asked once to go on (policy.wants_label) and still writes no label
    backend = ScriptedBackend([" hmm, no label here", "", " ok\nFinal Answer: 4"])
    trace = tmp_path / "t.jsonl"
    result = Agent(backend, [], "classic", trace=trace).run("What is 2 + 2?")
    task = Task(id="x", question="What is 2 + 2?", expected=4, match="number", tools=(), lang="en",
                category="arith")
    record = record_from_run(task, result, model="m", template="classic", constrain=False,
                             trace=trace, wall_seconds=0.1)
    end = read_trace(trace)[-1]
    assert record["steps"] == end["totals"]["steps"] == 2


# --- HTML and chart -----------------------------------------------------------------

def test_html_has_the_verdict_a_legend_and_the_category_table():
    records = cells(12, solved_a=set(range(8)), solved_b={0})
    summaries = metrics.summarize(records)
    page = report.html_page(summaries, [], title="t", verdicts=metrics.verdicts(summaries, records))
    assert page.index("Which should I use?") < page.index("<svg")
    assert "<b>m: use <code>classic</code></b>" in page
    assert "class='legend'" in page and "<i>format err</i>" in page
    assert "Success by category" in page


@given(st.lists(st.sampled_from(["classic", "json", "a-very-long-template-name", "zh"]), min_size=1, max_size=4,
                unique=True),
       st.lists(st.sampled_from(["m", "qwen2.5-coder-0.5b-instruct-q4"]), min_size=1, max_size=2, unique=True))
def test_chart_is_wide_enough_for_its_title_legend_and_labels(templates, models):
    records = [rec(model=m, template=t) for m in models for t in templates]
    svg = report.svg_chart(metrics.summarize(records))
    width = float(re.search(r'width="(\d+)"', svg).group(1))
    assert width >= 60 + report._text_width(report.CHART_TITLE, 14)
    for x, text in re.findall(r'<text x="([\d.]+)"[^>]*>([^<]+)</text>', svg):
        anchor_middle = f'x="{x}" y=' in svg and 'text-anchor="middle">' + text in svg
        size = 14 if text == report.CHART_TITLE else 12
        extent = report._text_width(text, size) / (2 if anchor_middle else 1)
        assert float(x) + extent <= width + 1, text


# --- the committed report -----------------------------------------------------------

def test_committed_report_is_rendered_by_this_code():
    """results/compare/ was regenerated from its results.jsonl with --report-only: same text now."""
    folder = ROOT / "results" / "compare"
    records = load_results(folder / "results.jsonl")
    summaries = metrics.summarize(records)
    verdicts = metrics.verdicts(summaries, records)
    md = (folder / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# react-text compare\n\n## Which should I use?")
    for v in verdicts:
        assert report.verdict_lines(v)[0] in md
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert [r["use"] for r in summary["recommendations"]] == [v.best.name for v in verdicts]
    assert "Which should I use?" in (folder / "report.html").read_text(encoding="utf-8")


def test_answers_copied_from_the_episodes_are_counted_per_cell():
    records = [rec(task="t1", example_value="855"), rec(task="t2", example_value=None), rec(task="t3"),
               rec(template="json", task="t1", example_value="Runa Vell")]
    by_name = {s.name: s for s in metrics.summarize(records)}
    assert by_name["classic"].copied == 1 and by_name["json"].copied == 1
    md = report.markdown(metrics.summarize(records), [])
    assert "| copied |" in md.splitlines()[4] and "*copied*" in md
    assert json.loads(report.summary_json(metrics.summarize(records), []))["cells"][0]["copied"] == 1


def test_every_series_of_the_chart_has_its_own_colour():
    """The committed chart has 10 series: with 8 colours cycled, 'paper +c' was drawn like 'classic'."""
    templates = [f"t{i}" for i in range(20)]
    svg = report.svg_chart(metrics.summarize([rec(template=t) for t in templates]))
    legend = re.findall(r'width="12" height="12" fill="(#[0-9a-f]{6})"', svg)
    assert len(legend) == 20 and len(set(legend)) == 20
    assert report.series_colour(0) == report._PALETTE[0]


def test_timeouts_are_reported_per_cell_and_the_verdict_says_when_they_may_have_decided_it():
    records = cells(12, solved_a=set(range(8)), solved_b=set(range(7)))
    records = [dict(r, status="timeout") if r["template"] == "json" and r["task_id"] in ("t10", "t11") else r
               for r in records]
    summaries = metrics.summarize(records)
    (v,) = metrics.verdicts(summaries, records)
    text = "\n".join(report.verdict_lines(v))
    assert "Timed out (counted unsolved, not wrong): `json` 2 task(s)" in text
    assert "timeouts may have decided this verdict" in text and "--timeout" in text
    solved = {s.name: report._row(s)[2] for s in summaries}
    assert solved == {"classic": "8/12", "json": "7/12 (2 timed out)"}
    calm = metrics.summarize(cells(12, solved_a=set(range(8)), solved_b={0}))
    assert not any("Timed out" in line for v in metrics.verdicts(calm, cells(12, set(range(8)), {0}))
                   for line in report.verdict_lines(v))
