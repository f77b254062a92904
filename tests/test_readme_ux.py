"""README's numbers and facts come from the committed report, the catalog and the code (docs/ too)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from react_text.cli.parse import _PARSE_EXIT_CODES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_its_two_commands_then_says_why():
    assert README.index("python -m pytest -q") < README.index("## What it is, and why")
    why = README[README.index("## What it is, and why"):README.index("## Run a question")]
    assert "<!-- fig:peers.ours -->100%<!-- /fig -->" in why and "bench/peers.md" in why


def test_what_to_expect_leads_with_the_test_split_agent_beside_its_baselines():
    """The section opens with the default model's test-split figures, the agent and the no-agent baselines
    side by side (issue #29), before the tuning half's; tests/test_docs.py checks every value."""
    section = README[README.index("## What to expect"):README.index("## More")]
    test_split = section.index("<!-- fig:baselines.")
    assert "`test` split" in section[:test_split]
    for key in ("classic.solved", "classic.rate", "rag.solved", "direct.solved", "payoff", "calls", "tokens_out"):
        assert f"<!-- fig:baselines.qwen2.5-coder-0.5b.{key} -->" in section, key
    assert section.index("<!-- fig:baselines.") < section.index("<!-- fig:qwen2.5-coder-0.5b.classic.solved -->")


def test_models_table_matches_the_catalog():
    catalog = json.loads((ROOT / "models" / "catalog.json").read_text(encoding="utf-8"))
    for model in catalog["models"]:
        row = next(line for line in README.splitlines() if line.startswith(f"| `{model['name']}`"))
        assert f"{model['size']:,} B" in row
        assert model["sha256"][:12] in row and model["sha256"][-6:] in row
        version = model["source"]["packages"][0].split("==")[1]
        assert version in row


def test_parser_exit_codes_in_readme_match_the_cli_help():
    codes = re.findall(r"^  (\d)  ", _PARSE_EXIT_CODES, flags=re.M)
    assert codes == ["0", "1", "2"]
    paragraph = README[README.index("From the shell: `react-text parse"):][:500]
    for code in codes:
        assert f"**{code}**" in paragraph


def test_examples_format_in_readme_loads(tmp_path):
    from react_text.prompting.templates import load_examples

    episodes_page = (ROOT / "docs" / "templates-and-episodes.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(.+?)\n```", episodes_page, flags=re.S).group(1)
    (tmp_path / "episodes.json").write_text(block, encoding="utf-8")
    episodes = load_examples(tmp_path / "episodes.json")
    assert episodes and all(e.answer for e in episodes)


def test_run_transcript_is_a_real_run(capsys, monkeypatch):
    """The transcript is what replaying the committed trace it names prints, byte for byte."""
    from react_text.cli.main import main

    block = re.search(r"```text\n(.+?)\n```", README, flags=re.S).group(1)
    trace = re.search(r"react-text replay (results/\S+\.jsonl)", README).group(1)
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["replay", str(ROOT / trace)]) == 0
    assert capsys.readouterr().out.rstrip("\n") == block
    assert "Final Answer: 1008737" in block and block.count("1008737") == 3
