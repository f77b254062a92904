"""Rendering a compare run for people: terminal table, Markdown, JSON, SVG chart, HTML page.

Pure text in, text out; ``compare.write_report`` decides where the files go.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import asdict
from typing import Mapping, Sequence

from ..agent.results import STATUSES
from .metrics import SIGNIFICANCE, SMALL_SAMPLE, CellSummary, Disagreement, GrammarEffect, Paired, Verdict

_STATUS_ORDER = (*STATUSES, "crashed")
"""How the *ended* column orders a cell's statuses: the loop's own order, then a run that crashed."""


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _row(s: CellSummary) -> list[str]:
    return [
        s.model,
        s.name,
        f"{s.solved}/{s.tasks}",
        f"{_pct(s.success_rate)} [{_pct(s.ci_low)}–{_pct(s.ci_high)}]",
        _pct(s.format_error_rate),
        _pct(s.invalid_tool_rate),
        str(s.copied),
        f"{s.avg_steps:.1f}",
        f"{s.evaluated_tokens}/{s.completion_tokens}",
        f"{s.wall_seconds:.0f}s",
        _statuses(s.statuses),
    ]


_HEADER = ["model", "template", "solved", "success [95% CI]", "format err", "bad tool", "copied",
           "steps", "tok in/out", "wall", "ended"]


def _statuses(statuses: Mapping[str, int]) -> str:
    order = [k for k in _STATUS_ORDER if k in statuses] + sorted(k for k in statuses if k not in _STATUS_ORDER)
    return " ".join(f"{k}:{statuses[k]}" for k in order)


def terminal_table(summaries: Sequence[CellSummary]) -> str:
    rows = [_HEADER] + [_row(s) for s in summaries]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


_EFFECT_HEADER = ["model", "template", "solved", "format err", "bad tool", "solved only with / only without",
                  "tok out"]
_EFFECT_NOTE = ("Each row is the same tasks without → with the grammar. *solved only with / only without* counts "
                "the tasks whose outcome the grammar changed, in each direction.")


def _effect_row(e: GrammarEffect) -> list[str]:
    a, b = e.plain, e.constrained
    return [
        a.model,
        a.template,
        f"{a.solved} → {b.solved} of {a.tasks}",
        f"{_pct(a.format_error_rate)} → {_pct(b.format_error_rate)}",
        f"{_pct(a.invalid_tool_rate)} → {_pct(b.invalid_tool_rate)}",
        f"{e.only_constrained} / {e.only_plain}",
        f"{a.completion_tokens} → {b.completion_tokens}",
    ]


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows])


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_LEGEND = ("*success*: answer matched the task's rule; 95% Wilson interval. *format err*: model turns that "
           "did not parse. *bad tool*: tool calls naming an unknown tool or invalid arguments. *copied*: answers "
           "holding a number or name from a shown few-shot episode that neither the question nor any tool result "
           "holds. *steps*: model turns "
           "per task (as `react-text replay` counts them). *tok in/out*: prompt tokens llama.cpp evaluated / tokens "
           "generated. *+c*: the same template with grammar-constrained turns (`--constrain`).")


def _p(value: float) -> str:
    return "p < 0.001" if value < 0.001 else f"p = {value:.2f}"


def _rate(s: CellSummary) -> str:
    return f"{s.solved}/{s.tasks} ({_pct(s.success_rate)}, 95% CI {_pct(s.ci_low)}–{_pct(s.ci_high)})"


def _versus(pair: Paired) -> str:
    a, b = pair.a, pair.b
    if pair.significant:
        judgement = "a real difference"
    else:
        judgement = f"not a significant difference (McNemar needs p < {SIGNIFICANCE})"
    return (f"on the same {pair.tasks} tasks `{a.name}` solved {pair.only_a} that `{b.name}` missed and "
            f"`{b.name}` solved {pair.only_b} that `{a.name}` missed: exact McNemar {_p(pair.p_value)}, {judgement}")


def verdict_lines(v: Verdict) -> list[str]:
    """One model's recommendation as Markdown bullet lines (the HTML page converts the same lines)."""
    best = v.best
    per_task = best.wall_seconds / best.tasks if best.tasks else 0.0
    tokens = best.completion_tokens / best.tasks if best.tasks else 0.0
    lines = [f"**{v.model}: use `{best.name}`** — solves {_rate(best)}, format errors "
             f"{_pct(best.format_error_rate)}, {per_task:.1f} s and {tokens:.0f} generated tokens per task."]
    if v.small_sample:
        lines.append(f"⚠ only {best.tasks} task(s) per cell: too few to conclude anything (want at least "
                     f"{SMALL_SAMPLE}); run more tasks (`--per-group N` or the whole suite).")
    if v.runner_up is not None:
        r = v.runner_up.b
        lines.append(f"How sure: ahead of `{r.name}`, the best other template at {_rate(r)}, by "
                     f"{100 * (best.success_rate - r.success_rate):.0f} points; {_versus(v.runner_up)}.")
        if v.ties:
            lines.append("Not significantly worse, so as good a choice on this evidence: "
                         + ", ".join(f"`{t}`" for t in v.ties) + ".")
        else:
            lines.append("Every other template is significantly worse on these tasks.")
    if v.grammar is not None:
        g = v.grammar
        plain, constrained = g.a, g.b
        if g.significant:
            helps = "helps" if g.only_b > g.only_a else "hurts"
        else:
            helps = "makes no significant difference to success"
        lines.append(f"The grammar (`--constrain`) {helps}: `{plain.name}` {plain.solved}/{plain.tasks} → "
                     f"`{constrained.name}` {constrained.solved}/{constrained.tasks} ({g.only_b} gained, "
                     f"{g.only_a} lost, {_p(g.p_value)}); format errors {_pct(plain.format_error_rate)} → "
                     f"{_pct(constrained.format_error_rate)}, bad tool calls {_pct(plain.invalid_tool_rate)} → "
                     f"{_pct(constrained.invalid_tool_rate)}.")
    if v.weak_categories:
        lines.append("Where it fails: " + ", ".join(f"{c} {k}/{n}" for c, k, n in v.weak_categories)
                     + " (categories below its overall rate, worst first).")
    return lines


def _category_rows(summaries: Sequence[CellSummary]) -> tuple[list[str], list[list[str]]]:
    categories = sorted({c for s in summaries for c in s.by_category})
    rows = []
    for s in summaries:
        cells = []
        for c in categories:
            solved, total = s.by_category.get(c, (0, 0))
            cells.append(f"{solved}/{total}" if total else "–")
        rows.append([s.model, s.name, *cells])
    return ["model", "template", *categories], rows


def markdown(
    summaries: Sequence[CellSummary],
    disagreements: Sequence[Disagreement],
    *,
    title: str = "react-text compare",
    command: str | None = None,
    chart_file: str | None = None,
    effects: Sequence[GrammarEffect] = (),
    verdicts: Sequence[Verdict] = (),
) -> str:
    out = [f"# {title}", ""]
    if verdicts:
        out += ["## Which should I use?", ""]
        for v in verdicts:
            first, *rest = verdict_lines(v)
            out += [f"- {first}"] + [f"  - {line}" for line in rest]
        out += ["", f"Paired comparisons use only the tasks both cells ran; *p* is the exact McNemar test "
                f"(below {SIGNIFICANCE} counts as a real difference).", ""]
    if command:
        out += ["Made with:", "", "```sh", command, "```", ""]
    if chart_file:
        out += [f"![success rate by template and model]({chart_file})", ""]
    out += ["## All cells", ""]
    out += _md_table(_HEADER, [_row(s) for s in summaries])
    out += ["", _LEGEND, ""]
    if effects:
        out += ["## What the grammar buys (`--constrain`)", ""]
        out += _md_table(_EFFECT_HEADER, [_effect_row(e) for e in effects]) + ["", _EFFECT_NOTE, ""]
    header, rows = _category_rows(summaries)
    if len(header) > 2:
        out += ["## Success by category", ""] + _md_table(header, rows) + [""]
    if disagreements:
        out += [f"## Tasks where templates disagree ({len(disagreements)})", "",
                "| model | task | solved by | failed by |", "|---|---|---|---|"]
        for d in disagreements:
            out.append(f"| {d.model} | {d.task_id} | {', '.join(d.solved_by)} | {', '.join(d.failed_by)} |")
        out.append("")
    return "\n".join(out)


def _paired_json(pair: Paired | None) -> dict | None:
    if pair is None:
        return None
    return {"a": pair.a.name, "b": pair.b.name, "tasks": pair.tasks, "only_a": pair.only_a, "only_b": pair.only_b,
            "p_value": pair.p_value}


def summary_json(summaries: Sequence[CellSummary], disagreements: Sequence[Disagreement],
                 effects: Sequence[GrammarEffect] = (), verdicts: Sequence[Verdict] = (), *,
                 split: str = "all") -> str:
    cells = []
    for s in summaries:
        item = asdict(s)
        item.update(
            success_rate=s.success_rate,
            format_error_rate=s.format_error_rate,
            invalid_tool_rate=s.invalid_tool_rate,
        )
        cells.append(item)
    return json.dumps(
        {
            "split": split,
            "recommendations": [
                {"model": v.model, "use": v.best.name, "template": v.best.template, "constrain": v.best.constrain,
                 "solved": v.best.solved, "tasks": v.best.tasks, "ci": [v.best.ci_low, v.best.ci_high],
                 "small_sample": v.small_sample, "runner_up": _paired_json(v.runner_up), "ties": list(v.ties),
                 "grammar": _paired_json(v.grammar),
                 "weak_categories": [{"category": c, "solved": k, "tasks": n} for c, k, n in v.weak_categories]}
                for v in verdicts
            ],
            "cells": cells,
            "disagreements": [asdict(d) for d in disagreements],
            "grammar_effects": [
                {"model": e.plain.model, "template": e.plain.template, "tasks": e.plain.tasks,
                 "solved": [e.plain.solved, e.constrained.solved],
                 "format_error_rate": [e.plain.format_error_rate, e.constrained.format_error_rate],
                 "invalid_tool_rate": [e.plain.invalid_tool_rate, e.constrained.invalid_tool_rate],
                 "completion_tokens": [e.plain.completion_tokens, e.constrained.completion_tokens],
                 "only_constrained": e.only_constrained, "only_plain": e.only_plain}
                for e in effects
            ],
        },
        ensure_ascii=False,
        indent=2,
    )


_PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d")


CHART_TITLE = "Success rate (95% CI) by template and model"


def _text_width(text: str, size: float) -> float:
    """A generous estimate of rendered text width (no font metrics here): wide glyphs count double."""
    return sum(1.2 if ord(ch) > 0x2E80 else 0.62 for ch in text) * size


def svg_chart(summaries: Sequence[CellSummary]) -> str:
    """Grouped bars: success rate per template, one group per model, with CI whiskers.

    The canvas is sized from its contents (bars, model names, legend, title),
    so nothing is clipped however few cells there are.
    """
    models = list(dict.fromkeys(s.model for s in summaries))
    labels = list(dict.fromkeys(s.name for s in summaries))
    colour = {t: _PALETTE[i % len(_PALETTE)] for i, t in enumerate(labels)}
    bar, gap, left, top, height = 26, 36, 60, 30, 240
    group_width = max(len(labels) * bar, max((_text_width(m, 12) for m in models), default=0))
    legend_width = 30 + max((_text_width(label, 12) for label in labels), default=0)
    plot_right = left + len(models) * (group_width + gap) + 20
    width = int(max(plot_right + legend_width + 10, left + _text_width(CHART_TITLE, 14) + 20))
    legend_x = width - legend_width
    total_height = int(max(top + height + 70, top + 10 + len(labels) * 18 + 10))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_height}" '
        f'viewBox="0 0 {width} {total_height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{total_height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="14" font-weight="bold">{CHART_TITLE}</text>',
    ]
    for tick in range(0, 101, 25):
        y = top + height - tick / 100 * height
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{plot_right:.0f}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>')
    for gi, model in enumerate(models):
        x0 = left + 10 + gi * (group_width + gap)
        for s in (s for s in summaries if s.model == model):
            x = x0 + labels.index(s.name) * bar
            h = s.success_rate * height
            y = top + height - h
            tip = html.escape(f"{s.label}: {s.solved}/{s.tasks} [{_pct(s.ci_low)}–{_pct(s.ci_high)}]")
            parts.append(
                f'<rect x="{x + 2}" y="{y:.1f}" width="{bar - 4}" height="{h:.1f}" fill="{colour[s.name]}">'
                f"<title>{tip}</title></rect>"
            )
            y_lo, y_hi = top + height - s.ci_low * height, top + height - s.ci_high * height
            cx = x + bar / 2
            parts.append(f'<line x1="{cx}" y1="{y_lo:.1f}" x2="{cx}" y2="{y_hi:.1f}" stroke="#333"/>')
            for yy in (y_lo, y_hi):
                parts.append(f'<line x1="{cx - 4}" y1="{yy:.1f}" x2="{cx + 4}" y2="{yy:.1f}" stroke="#333"/>')
        parts.append(
            f'<text x="{x0 + group_width / 2}" y="{top + height + 18}" text-anchor="middle">{html.escape(model)}</text>'
        )
    for i, label in enumerate(labels):
        y = top + 10 + i * 18
        parts.append(f'<rect x="{legend_x:.0f}" y="{y - 10}" width="12" height="12" fill="{colour[label]}"/>')
        parts.append(f'<text x="{legend_x + 18:.0f}" y="{y}">{html.escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _md_inline_to_html(line: str) -> str:
    """The little Markdown the verdict lines use (``code``, **bold**) as HTML."""
    text = html.escape(line, quote=False)
    text = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    text = re.sub(r"`(.+?)`", r"<code>\1</code>", text)
    return re.sub(r"\*(.+?)\*", r"<i>\1</i>", text)


def html_page(summaries: Sequence[CellSummary], disagreements: Sequence[Disagreement], *, title: str,
              command: str | None = None, effects: Sequence[GrammarEffect] = (),
              verdicts: Sequence[Verdict] = ()) -> str:
    """One self-contained page, in the Markdown report's order: verdict, chart, tables, legend."""
    parts = [f"<h1>{html.escape(title)}</h1>"]
    if verdicts:
        parts.append("<h2>Which should I use?</h2><ul>")
        for v in verdicts:
            first, *rest = verdict_lines(v)
            items = "".join(f"<li>{_md_inline_to_html(line)}</li>" for line in rest)
            parts.append(f"<li>{_md_inline_to_html(first)}<ul>{items}</ul></li>")
        parts.append(f"</ul><p>Paired comparisons use only the tasks both cells ran; <i>p</i> is the exact McNemar "
                     f"test (below {SIGNIFICANCE} counts as a real difference).</p>")
    if command:
        parts.append(f"<p>Made with:</p><pre>{html.escape(command)}</pre>")
    parts.append(f"<figure>{svg_chart(summaries)}</figure>")
    parts.append("<h2>All cells</h2>" + _html_table(_HEADER, [_row(s) for s in summaries]))
    parts.append(f"<p class='legend'>{_md_inline_to_html(_LEGEND)}</p>")
    if effects:
        parts.append("<h2>What the grammar buys (--constrain)</h2>"
                     + _html_table(_EFFECT_HEADER, [_effect_row(e) for e in effects])
                     + f"<p class='legend'>{_md_inline_to_html(_EFFECT_NOTE)}</p>")
    header, rows = _category_rows(summaries)
    if len(header) > 2:
        parts.append("<h2>Success by category</h2>" + _html_table(header, rows))
    dis = _html_table(["model", "task", "solved by", "failed by"],
                      [[d.model, d.task_id, ", ".join(d.solved_by), ", ".join(d.failed_by)] for d in disagreements])
    parts.append(f"<h2>Tasks where templates disagree ({len(disagreements)})</h2>{dis}")
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>body{{font-family:sans-serif;margin:2em;max-width:80em}}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "figure{margin:1em 0;overflow-x:auto}svg{max-width:100%;height:auto}.legend{color:#444;font-size:90%}"
        "li{margin:0.3em 0}</style></head><body>"
        + "".join(parts) + "</body></html>"
    )
