#!/usr/bin/env python3
"""Freeze what ``parse`` gives for a large, varied set of turns, so a change made for speed can be
proved to change no ``Step`` (``tests/test_parser_equivalence.py`` compares against the file).

    python bench/freeze_parser_outputs.py [--calls recorded.jsonl] [--out tests/data/parser_equivalence.jsonl.gz]

The turns: every case of the cases files under tests/data, the parse calls the parser tests make
(recorded with ``bench/parse_recorder.py``: see its docstring), the snippets of the shared field
notes, and seeded noise built from the fragments models write. Run it on the code whose
behaviour is the reference (main before the change), never to paper over a difference.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import re
import sys
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from react_text.protocol.parser import parse  # noqa: E402

OUT = ROOT / "tests" / "data" / "parser_equivalence.jsonl.gz"
CASES = ("parser_cases.jsonl", "parser_class_cases.jsonl", "peer_cases.jsonl")
FIELD_NOTES = Path("/work/shared/field-notes.md")
NOISE_TURNS = 3000  # gzipped (mtime 0, so the same turns give the same bytes): the steps repeat the turns' text
NOISE_TOOLS = ([], ["search", "calculator"], ["get_weather", "search"],
               {"calculator": {"type": "object", "properties": {"expression": {"type": "string"}},
                               "required": ["expression"]},
                "search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
               None)
# What models write, in pieces: labels, names, values, JSON, markers, echoes, noise.
FRAGMENTS = (
    "Thought: ", "Thought: I need to search.", "thought: ", "**Thought:** ", "Action: ", "action: ", "Action:",
    "**Action**: ", "Action 1: ", "Action Input: ", "Action input: ", "Action Input:", "Final Answer: ", "Answer: ",
    "Observation: ", "Observation 1: ", "Question: ", "Act: ", "Tool: ", "Tool Input: ", "思考：", "行动：",
    "行动输入：", "最终答案：", "观察：", "[ACTION]", "[FINAL ANSWER]", "<tool>", "</tool>", "<tool_input>",
    "<final_answer>", "</final_answer>", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "<|python_tag|>",
    "<function=search>", "</function>", "<|im_end|>", "search", "Search", "calculator", "calculate", "get_weather",
    "Get-Weather", "`search`", "\"search\"", "functions.search", "None", "the action to take",
    "the input to the action", "$JSON_BLOB", "<tool>(<arguments>)", "...", "Paris", "23 * 17",
    "weather in Paris", "\"population of Canada\"", "'x'", "search(query=\"x\")", "calculator(expression='2+2')",
    "search(query: \"x\")", "Search[Paris]", "Finish[42]", "Search[ x]", "{", "}", "[", "]", "(", ")", "\"", "'",
    ":", ",", "{\"query\": \"x\"}", "{\"action\": \"search\", \"action_input\": \"x\"}",
    "{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}", "{\"action\": \"Final Answer\", "
    "\"action_input\": \"42\"}", "{'query': 'x',}", "{\"query\": \"cut", "{query: x}", "```", "```json", "```\n",
    "\n", "\n", "\n", "\n\n", " ", "  ", "\t", "The final answer is 42.", "So the final answer is: 7",
    "I will multiply the numbers", "381", "é", "中文", "😀", "\\n", "\\\"", "# ", "> ", "- ", "1. ",
)


def _cases() -> Iterator[dict[str, Any]]:
    for name in CASES:
        with (ROOT / "tests" / "data" / name).open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    case = json.loads(line)
                    yield {"text": case["text"], "tools": case.get("tools"), "kw": {}}
                    yield {"text": case["text"], "tools": None, "kw": {"prose": "final"}}


def _recorded(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            yield {"text": rec["text"], "tools": rec["tools"], "kw": rec["kw"]}


def _field_notes() -> Iterator[dict[str, Any]]:
    if not FIELD_NOTES.exists():
        return
    for snippet in re.findall(r"`([^`\n]+)`", FIELD_NOTES.read_text(encoding="utf-8")):
        for tools in (["search", "calculator", "get_weather"], None):
            yield {"text": snippet, "tools": tools, "kw": {}}
            yield {"text": f"Thought: let me see\n{snippet}\nObservation: x", "tools": tools, "kw": {}}


def _noise(n: int, seed: int = 26) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for k in range(n):
        text = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 24)))
        kw: dict[str, Any] = {}
        if k % 5 == 0:
            kw["prose"] = "final"
        if k % 7 == 0:
            kw["dialect"] = rng.choice(("classic", "json", "call", "paper", "zh", "native"))
            kw["n"] = rng.randint(1, 4)
        yield {"text": text, "tools": NOISE_TOOLS[k % len(NOISE_TOOLS)], "kw": kw}


def step_record(step: Any) -> dict[str, Any]:
    """A ``Step`` as plain JSON data (its text is the input's, left out)."""
    return {
        "thought": step.thought,
        "actions": [[a.tool, a.args, list(a.span)] for a in step.actions],
        "final_answer": step.final_answer,
        "error": None if step.error is None else [step.error.code, step.error.message, step.error.detail],
        "repairs": list(step.repairs),
        "end": step.end,
    }


def outcome(item: dict[str, Any]) -> dict[str, Any]:
    """What ``parse`` gives for a frozen item: its ``Step``, or the exception it raises for bad arguments."""
    try:
        return step_record(parse(item["text"], item["tools"], **item["kw"]))
    except (TypeError, ValueError) as exc:
        return {"raises": type(exc).__name__, "message": str(exc)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=Path, help="parse calls recorded from the tests (bench/parse_recorder.py)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    sources = [_cases(), _field_notes(), _noise(NOISE_TURNS)]
    if args.calls:
        sources.insert(1, _recorded(args.calls))
    seen: set[str] = set()
    with gzip.GzipFile(args.out, "wb", mtime=0) as raw, io.TextIOWrapper(raw, encoding="utf-8") as out:
        for source in sources:
            for item in source:
                key = json.dumps(item, sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                item["step"] = outcome(item)
                out.write(json.dumps(item) + "\n")
    print(f"{len(seen)} turns frozen in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
