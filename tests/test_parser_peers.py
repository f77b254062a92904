"""The cross-check corpus: what other frameworks' own parser tests expect, read by ours.

tests/data/peer_cases.jsonl holds facts transcribed from the public unit tests
of LangChain (Python and JS), LlamaIndex, crewAI, smolagents, Haystack 1.x,
dify, Semantic Kernel, SuperAGI and modelscope-agent: the input text, the
outcome that test expects, and where it comes from (``cite``: repo, path,
test name). A case where we deliberately disagree says why in
``why_ours_better`` and pins our own outcome in ``ours``.

``python tests/test_parser_peers.py`` prints the agreement table per source.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))

from react_text import parse  # noqa: E402
from react_text.protocol.jsonish import JsonishError, read_value  # noqa: E402
from react_text.types import Step  # noqa: E402

DATA = Path(__file__).parent / "data"
PEER_FILE = DATA / "peer_cases.jsonl"
OUTCOMES = ("agree", "disagree_reviewed", "wrong_action", "wrong_final", "error_on_valid", "guessed", "json_differs")


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


PEER_CASES = load(PEER_FILE)


def _canon(x):
    return json.loads(json.dumps(x, sort_keys=True))


def _strip_quotes(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1].strip()
    return s


def args_equal(expected, got) -> bool:
    """Equal arguments: the same object, or the same text up to surrounding whitespace and quotes.

    A peer that returns a one-string input as text matches our ``{"key": text}`` only
    when the dict has that one value; a dict never matches text that is not that dict.
    """
    if isinstance(expected, (dict, list)):
        if isinstance(got, str):  # a list travels as its JSON text (Action.args is a dict or a string)
            try:
                got = json.loads(got)
            except ValueError:
                return False
        return isinstance(got, (dict, list)) and _canon(got) == _canon(expected)
    if isinstance(got, str):
        return _strip_quotes(got) == _strip_quotes(str(expected))
    if isinstance(got, dict) and len(got) == 1:
        (v,) = got.values()
        return isinstance(v, str) and _strip_quotes(v) == _strip_quotes(str(expected))
    return False


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def outcome(expect: dict, case: dict) -> str:
    """How our reading of ``case`` compares with ``expect``: one of OUTCOMES (without disagree_reviewed)."""
    kind = expect["kind"]
    if kind in ("json", "json_error"):  # the blob from the first "{", as the peers' blob finders read it
        start = case["text"].find("{")
        try:
            if start < 0:
                raise JsonishError("syntax", "no object", 0)
            got = read_value(case["text"], start).value
        except JsonishError:
            return "agree" if kind == "json_error" else "error_on_valid"
        if kind == "json_error":
            return "guessed"
        return "agree" if _canon(got) == _canon(expect["value"]) else "json_differs"
    step = parse(case["text"], tools=case.get("tools"))
    return step_outcome(expect, step)


def step_outcome(expect: dict, step: Step) -> str:
    kind = expect["kind"]
    if kind == "not_action":  # the peer returns no action (text, a thought or an error): either is fine
        return "guessed" if step.actions else "agree"
    if step.error is not None:
        return "agree" if kind == "error" else "error_on_valid"
    if step.actions:
        if kind != "action":
            return "guessed" if kind == "error" else "wrong_action"
        action = step.actions[0]
        ok = (action.tool.strip() == expect["tool"].strip() and args_equal(expect["args"], action.args)
              and len(step.actions) == expect.get("n_actions", len(step.actions)))
        return "agree" if ok else "wrong_action"
    if kind != "final":
        return "guessed" if kind == "error" else "wrong_final"
    return "agree" if _same_text(step.final_answer or "", expect["answer"]) else "wrong_final"


def verdict(case: dict) -> str:
    """``agree``, ``disagree_reviewed`` (we give exactly ``ours`` and say why), or the kind of failure."""
    got = outcome(case["expect"], case)
    if got == "agree":
        return "agree"
    if case.get("why_ours_better") and "ours" in case:
        return "disagree_reviewed" if outcome(case["ours"], case) == "agree" else got
    return got


def table(cases: list[dict]) -> str:
    by_source: dict[str, Counter] = defaultdict(Counter)
    for case in cases:
        by_source[case["source"]][verdict(case)] += 1
    total: Counter = Counter()
    head = f"| {'source':<16} | {'cases':>5} | {'agree':>5} | {'ours better':>11} | {'other':>5} | {'agree+reviewed %':>16} |"
    lines = [head, "|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|"]
    for source in sorted(by_source) + ["total"]:
        c = by_source[source] if source != "total" else total
        n = sum(c.values())
        other = n - c["agree"] - c["disagree_reviewed"]
        lines.append(f"| {source:<16} | {n:>5} | {c['agree']:>5} | {c['disagree_reviewed']:>11} | {other:>5} | "
                     f"{100 * (c['agree'] + c['disagree_reviewed']) / max(n, 1):>15.1f}% |")
        if source != "total":
            total.update(c)
    return "\n".join(lines)


# --- tests ----------------------------------------------------------------------------------

def test_corpus_cites_every_case_and_covers_every_peer() -> None:
    assert len(PEER_CASES) >= 150
    assert len({c["id"] for c in PEER_CASES}) == len(PEER_CASES)
    for case in PEER_CASES:
        assert {"repo", "path", "test"} <= set(case["cite"]), case["id"]
        assert case["expect"]["kind"] in ("action", "final", "error", "not_action", "json", "json_error"), case["id"]
        assert ("ours" in case) == ("why_ours_better" in case), case["id"]
    sources = Counter(c["source"] for c in PEER_CASES)
    for peer in ("langchain", "langchainjs", "llamaindex", "crewai", "smolagents", "haystack", "dify",
                 "semantic_kernel", "superagi", "modelscope"):
        assert sources[peer] >= 2, peer


@pytest.mark.parametrize("case", PEER_CASES, ids=[c["id"] for c in PEER_CASES])
def test_peer_case(case: dict) -> None:
    assert verdict(case) in ("agree", "disagree_reviewed"), (case["cite"], case["expect"], case.get("ours"),
                                                             parse(case["text"], tools=case.get("tools")))


def test_at_least_95_percent_agree_and_every_disagreement_is_reviewed() -> None:
    verdicts = Counter(verdict(c) for c in PEER_CASES)
    assert verdicts["agree"] + verdicts["disagree_reviewed"] == len(PEER_CASES), verdicts
    assert verdicts["agree"] >= 0.8 * len(PEER_CASES), verdicts


if __name__ == "__main__":
    cases = load(Path(sys.argv[1])) if len(sys.argv) > 1 else PEER_CASES
    print(table(cases))
    bad = [(c["id"], verdict(c)) for c in cases if verdict(c) not in ("agree", "disagree_reviewed")]
    for cid, v in bad:
        print(cid, v)
