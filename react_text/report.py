"""Rendering a compare run for people: terminal table, Markdown, JSON, SVG chart, HTML page.

Pure text in, text out; ``compare.write_report`` decides where the files go.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict
from typing import Mapping, Sequence

from .metrics import CellSummary, Disagreement, GrammarEffect, best_per_model

_STATUS_ORDER = ("answered", "gave_up", "max_steps", "max_tokens", "timeout", "no_progress",
                 "format_errors", "tool_failures", "backend_error", "interrupted", "crashed")


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _row(s: CellSummary) -> list[str]:
    return [
        s.model,
        s.template + (" +c" if s.constrain else ""),
        f"{s.solved}/{s.tasks}",
        f"{_pct(s.success_rate)} [{_pct(s.ci_low)}–{_pct(s.ci_high)}]",
        _pct(s.format_error_rate),
        _pct(s.invalid_tool_rate),
        f"{s.avg_steps:.1f}",
        f"{s.evaluated_tokens}/{s.completion_tokens}",
        f"{s.wall_seconds:.0f}s",
        _statuses(s.statuses),
    ]


_HEADER = ["model", "template", "solved", "success [95% CI]", "format err", "bad tool",
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


def markdown(
    summaries: Sequence[CellSummary],
    disagreements: Sequence[Disagreement],
    *,
    title: str = "react-text compare",
    command: str | None = None,
    chart_file: str | None = None,
    effects: Sequence[GrammarEffect] = (),
) -> str:
    out = [f"# {title}", ""]
    if command:
        out += ["Made with:", "", "```sh", command, "```", ""]
    if chart_file:
        out += [f"![success rate by template and model]({chart_file})", ""]
    out += _md_table(_HEADER, [_row(s) for s in summaries])
    out += ["", "*success*: answer matched the task's rule; 95% Wilson interval. *format err*: model turns that "
            "did not parse. *bad tool*: tool calls naming an unknown tool or invalid arguments. *tok in/out*: "
            "prompt tokens llama.cpp evaluated / tokens generated.", ""]
    best = best_per_model(summaries)
    if best:
        out += ["## Best template per model", ""]
        for model, s in best.items():
            others = [o for o in summaries if o.model == model and o is not s]
            runner = max(others, key=lambda o: o.success_rate, default=None)
            margin = ""
            if runner:
                margin = (f", ahead of {runner.template} ({_pct(runner.success_rate)}) by "
                          f"{100 * (s.success_rate - runner.success_rate):.0f} points")
                if runner.ci_high >= s.ci_low:
                    margin += " — within the confidence intervals, so not a clear win"
            out.append(f"- **{model}**: `{s.template}` solves {s.solved}/{s.tasks} ({_pct(s.success_rate)}){margin}.")
        out.append("")
    if effects:
        out += ["## What the grammar buys (`--constrain`)", ""]
        out += _md_table(_EFFECT_HEADER, [_effect_row(e) for e in effects]) + ["", _EFFECT_NOTE, ""]
    categories = sorted({c for s in summaries for c in s.by_category})
    if categories:
        out += ["## Success by category", "", "| model | template | " + " | ".join(categories) + " |",
                "|" + "---|" * (len(categories) + 2)]
        for s in summaries:
            cells = []
            for c in categories:
                solved, total = s.by_category.get(c, (0, 0))
                cells.append(f"{solved}/{total}" if total else "–")
            out.append(f"| {s.model} | {s.template} | " + " | ".join(cells) + " |")
        out.append("")
    if disagreements:
        out += [f"## Tasks where templates disagree ({len(disagreements)})", "",
                "| model | task | solved by | failed by |", "|---|---|---|---|"]
        for d in disagreements:
            out.append(f"| {d.model} | {d.task_id} | {', '.join(d.solved_by)} | {', '.join(d.failed_by)} |")
        out.append("")
    return "\n".join(out)


def summary_json(summaries: Sequence[CellSummary], disagreements: Sequence[Disagreement],
                 effects: Sequence[GrammarEffect] = ()) -> str:
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


def svg_chart(summaries: Sequence[CellSummary]) -> str:
    """Grouped bars: success rate per template, one group per model, with CI whiskers."""
    models = list(dict.fromkeys(s.model for s in summaries))
    labels = list(dict.fromkeys(s.template + (" +c" if s.constrain else "") for s in summaries))
    colour = {t: _PALETTE[i % len(_PALETTE)] for i, t in enumerate(labels)}
    bar, gap, left, top, height = 26, 36, 60, 30, 240
    group_width = len(labels) * bar
    width = left + len(models) * (group_width + gap) + 20 + 150
    total_height = top + height + 70
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{total_height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{total_height}" fill="white"/>',
        f'<text x="{left}" y="18" font-size="14" font-weight="bold">Success rate (95% CI) by template and model</text>',
    ]
    for tick in range(0, 101, 25):
        y = top + height - tick / 100 * height
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 160}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>')
    for gi, model in enumerate(models):
        x0 = left + 10 + gi * (group_width + gap)
        for s in (s for s in summaries if s.model == model):
            label = s.template + (" +c" if s.constrain else "")
            x = x0 + labels.index(label) * bar
            h = s.success_rate * height
            y = top + height - h
            tip = html.escape(f"{s.label}: {s.solved}/{s.tasks} [{_pct(s.ci_low)}–{_pct(s.ci_high)}]")
            parts.append(
                f'<rect x="{x + 2}" y="{y:.1f}" width="{bar - 4}" height="{h:.1f}" fill="{colour[label]}">'
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
    lx = width - 150
    for i, label in enumerate(labels):
        y = top + 10 + i * 18
        parts.append(f'<rect x="{lx}" y="{y - 10}" width="12" height="12" fill="{colour[label]}"/>')
        parts.append(f'<text x="{lx + 18}" y="{y}">{html.escape(label)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def html_page(summaries: Sequence[CellSummary], disagreements: Sequence[Disagreement], *, title: str,
              command: str | None = None, effects: Sequence[GrammarEffect] = ()) -> str:
    """One self-contained page: the chart inline, the table, the grammar's effect, the disagreements."""
    table = _html_table(_HEADER, [_row(s) for s in summaries])
    dis = _html_table(["model", "task", "solved by", "failed by"],
                      [[d.model, d.task_id, ", ".join(d.solved_by), ", ".join(d.failed_by)] for d in disagreements])
    grammar = ""
    if effects:
        grammar = (f"<h2>What the grammar buys (--constrain)</h2>"
                   f"{_html_table(_EFFECT_HEADER, [_effect_row(e) for e in effects])}"
                   f"<p>{html.escape(_EFFECT_NOTE.replace('*', ''))}</p>")
    cmd = f"<pre>{html.escape(command)}</pre>" if command else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}"
        "</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{cmd}{svg_chart(summaries)}{table}{grammar}"
        f"<h2>Tasks where templates disagree ({len(disagreements)})</h2>{dis}</body></html>"
    )
