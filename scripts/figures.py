"""The figures README and docs/ state, read from the committed results: write them in, or check them.

A figure in the Markdown is written between markers, ``<!-- fig:KEY -->44/60<!-- /fig -->``
(the comments do not show on the repository page). ``python scripts/figures.py`` rewrites every
marked figure from ``results/compare/summary.json``, the split runs in ``SPLIT_RUNS``
(``results/baselines/``: the test split, agent against the no-agent baselines; the default checks; the
``native`` loop; the ``dev`` split), ``results/checks/summary.json`` (the check ablation),
``bench/peers.md`` and ``suites/``;
``python scripts/figures.py --check`` (and tests/test_docs.py) fails when one is out of date or a
marker names no figure. After a new compare run is committed, run it without ``--check``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!-- fig:([\w.+-]+) -->(.*?)<!-- /fig -->", re.S)
DEFAULT_MODEL = "qwen2.5-coder-0.5b"
SPLIT_RUNS = {"baselines": "baselines", "defaults": "checks/defaults", "native": "native-loop", "dev": "dev"}
"""Committed runs on one split, by the prefix their figures take (``defaults.qwen2.5-coder-0.5b.classic.solved``)."""


def _pct(x: float) -> str:
    return f"{round(100 * x)}%"


def _cell_figures(cell: dict) -> dict[str, str]:
    key = f"{cell['model']}.{cell['template']}{' +c' if cell['constrain'] else ''}".replace(" ", "")
    out = {
        f"{key}.solved": f"{cell['solved']}/{cell['tasks']}",
        f"{key}.rate": f"{_pct(cell['solved'] / cell['tasks'])}, 95% CI {_pct(cell['ci_low'])}–{_pct(cell['ci_high'])}",
        f"{key}.seconds": f"{cell['wall_seconds'] / cell['tasks']:.1f} s",
        f"{key}.format_errors": _pct(cell["format_error_rate"]),
    }
    for category, (solved, tasks) in cell["by_category"].items():
        out[f"{key}.{category}"] = f"{solved}/{tasks}"
    return out


def compare_figures(summary: dict) -> dict[str, str]:
    """Per cell (``qwen2.5-coder-0.5b.classic+c.solved``…) and per model's recommendation."""
    out: dict[str, str] = {}
    for cell in summary["cells"]:
        out.update(_cell_figures(cell))
    for rec in summary["recommendations"]:
        model = rec["model"]
        out[f"{model}.use"] = rec["use"]
        out[f"{model}.tasks"] = str(rec["tasks"])
        if rec.get("runner_up"):
            out[f"{model}.runner_up.p"] = f"p = {rec['runner_up']['p_value']:.2f}"
        if rec.get("grammar"):
            g = rec["grammar"]
            out[f"{model}.grammar"] = f"{g['only_b']} gained, {g['only_a']} lost, p = {g['p_value']:.2f}"
    return out


def peer_figures(peers: str) -> dict[str, str]:
    """The headline of bench/peers.md: our score and the best peer's on the recorded turns."""
    head = re.search(r"On our (\d+) cases .*?(\d+) failure modes.*?react_text scores (\d+) %.*?scores (\d+) %", peers)
    slowest = re.search(r"returns in [\d.]+-([\d.]+) s wall", peers)
    if head is None or slowest is None:
        raise SystemExit("bench/peers.md: its headline changed; update scripts/figures.py")
    cases, modes, ours, best = head.groups()
    return {"peers.cases": cases, "peers.modes": modes, "peers.ours": f"{ours}%", "peers.best": f"{best}%",
            "peers.hostile_max": f"{slowest.group(1)} s"}


def payoff_figures(summary: dict, prefix: str) -> dict[str, str]:
    """Cells of a split run (``test.qwen2.5-coder-0.5b.rag.solved``…) and its agent-versus-baseline verdict
    (``test.qwen2.5-coder-0.5b.payoff``: points ahead, won/lost and p)."""
    out = {f"{prefix}.{k}": v for k, v in compare_figures(summary).items()}
    for entry in summary.get("agent_vs_baseline", []):
        best = entry["best"]
        cost = best["cost_per_task"]
        key = f"{prefix}.{entry['model']}"
        out[f"{key}.payoff"] = (f"{best['points']:+.0f} points, {best['only_agent']} won / {best['only_baseline']} lost, "
                                f"p = {best['p_value']:.3f}")
        out[f"{key}.calls"] = f"{cost['agent']['calls']:.1f} vs {cost['baseline']['calls']:.1f}"
        out[f"{key}.tokens_out"] = f"{cost['agent']['tokens_out']:.0f} vs {cost['baseline']['tokens_out']:.0f}"
    return out


def ablation_figures(summary: dict) -> dict[str, str]:
    """The check ablation (``checks.qwen2.5-coder-0.5b.none``: solved, and lost/gained against all checks on)."""
    out: dict[str, str] = {}
    for row in summary.get("ablation", []):
        key = f"checks.{row['model']}{'+c' if row['constrain'] else ''}"
        out[f"{key}.all"] = f"{row['base_solved']}/{row['tasks']}"
        name = "none" if len(row["off"]) > 1 else row["off"][0]
        out[f"{key}.{name}"] = (f"{row['solved']}/{row['tasks']} ({row['lost']} lost, {row['gained']} gained, "
                                f"p = {row['p_value']:.2g})")
    return out


def figures(root: Path = ROOT) -> dict[str, str]:
    summary = json.loads((root / "results" / "compare" / "summary.json").read_text(encoding="utf-8"))
    out = compare_figures(summary)
    for prefix, folder in SPLIT_RUNS.items():
        summary_file = root / "results" / folder / "summary.json"
        if summary_file.exists():
            out.update(payoff_figures(json.loads(summary_file.read_text(encoding="utf-8")), prefix))
    out.update(ablation_figures(json.loads((root / "results" / "checks" / "summary.json").read_text(encoding="utf-8"))))
    out.update(peer_figures((root / "bench" / "peers.md").read_text(encoding="utf-8")))
    out.update(suite_figures(root / "suites"))
    return out


def suite_figures(folder: Path) -> dict[str, str]:
    """How many suites ship and their tasks, in all and per language (``suites.tools.en``…)."""
    out = {}
    langs: dict[str, int] = {}
    suites = sorted(folder.glob("*.jsonl"))
    for suite in suites:
        tasks = [json.loads(line) for line in suite.read_text(encoding="utf-8").splitlines() if line.strip()]
        for lang in ("en", "zh"):
            n = sum(1 for t in tasks if t.get("lang") == lang)
            out[f"suites.{suite.stem}.{lang}"] = str(n)
            langs[lang] = langs.get(lang, 0) + n
    out["suites.count"] = str(len(suites))
    out["suites.tasks"] = str(sum(langs.values()))
    out.update({f"suites.{lang}": str(n) for lang, n in langs.items()})
    return out


def documents(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md")), root / "suites" / "README.md"]


def rewrite(text: str, known: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) not in known:
            raise KeyError(m.group(1))
        return f"<!-- fig:{m.group(1)} -->{known[m.group(1)]}<!-- /fig -->"

    return MARKER.sub(one, text)


def main(argv: list[str]) -> int:
    known = figures()
    stale = []
    for path in documents():
        text = path.read_text(encoding="utf-8")
        try:
            new = rewrite(text, known)
        except KeyError as exc:
            print(f"{path.relative_to(ROOT)}: no figure named {exc.args[0]!r}", file=sys.stderr)
            return 1
        if new != text:
            stale.append(path)
            if "--check" not in argv:
                path.write_text(new, encoding="utf-8")
    if stale and "--check" in argv:
        print("out of date: " + ", ".join(str(p.relative_to(ROOT)) for p in stale)
              + "; run python scripts/figures.py", file=sys.stderr)
        return 1
    for path in stale:
        print(f"updated {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
