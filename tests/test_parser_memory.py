"""A parse frees what it built as soon as it returns, by reference counting alone.

Why: garbage in a reference cycle waits for the cyclic collector, and collecting it cost
the parser about a third of the time of a turn that ends in an error (an exception held in
a local of a frame that raised it is on its own traceback: exception -> traceback -> frame
-> exception). bench/parser_bench.py shows the cost only as noise-sized drift; this shows
the cause, exactly.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

from react_text import parse

CASES_FILE = Path(__file__).parent / "data" / "parser_cases.jsonl"


def test_parsing_the_corpus_leaves_no_reference_cycles() -> None:
    with CASES_FILE.open(encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    for case in cases:  # first use fills caches (compiled patterns, toolsets): not garbage
        parse(case["text"], case["tools"])
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        left = []
        for case in cases:
            parse(case["text"], case["tools"])
            if gc.collect(0):  # what this parse allocated is all in the youngest generation
                left.append(case["id"])
    finally:
        if was_enabled:
            gc.enable()
    assert not left, f"parses that left garbage in reference cycles: {left}"
