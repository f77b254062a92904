"""The search tool on a large folder: load time, memory and time per query, per ranking.

Writes a synthetic corpus (``--mb`` megabytes of English-like paragraphs over ``--files`` files, a
tenth of them Chinese) to a temporary folder, then for each ranking, in a fresh process, times the
first call (which reads the folder), ten further queries, and reports the process's peak memory.

    python bench/search_scale.py --mb 20
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from react_text.tools.search import RANKINGS, search_files

QUERIES = ["When was the harbour bridge opened?", "How many workers does the mill employ?",
           "river valley population census", "Who directs the northern observatory?", "山区最大的湖泊有多深？",
           "founding year of the old library", "ferry crossing minutes", "tea company employees 2023",
           "What is the diameter of the outer planet?", "village council head"]


def write_corpus(folder: Path, megabytes: float, files: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    words = ("harbour bridge opened mill workers employ river valley population census observatory northern "
             "founded library ferry crossing minutes company employees village council head planet diameter "
             "lake shore town market railway station museum school teachers students mountain peak").split()
    words += [f"name{n}" for n in range(3000)]
    zh = "山区最大的湖泊有多深茶业公司员工人口统计学校教师学生镇长村长海拔公里年建成位于东侧北面"
    per_file = int(megabytes * 1_000_000 / files)
    for n in range(files):
        paragraphs, size = [], 0
        while size < per_file:
            if n % 10 == 0:
                text = "".join(rng.choice(zh) for _ in range(120)) + "。"
            else:
                text = " ".join(rng.choice(words) for _ in range(60)).capitalize() + f" in {rng.randint(1500, 2024)}."
            paragraphs.append(text)
            size += len(text.encode("utf-8"))
        (folder / f"doc{n:05d}.txt").write_text(f"Document {n}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")


def one_ranking(folder: str, ranking: str) -> dict:
    tool = search_files(folder, ranking=ranking)
    started = time.perf_counter()
    tool(QUERIES[0])
    first = time.perf_counter() - started
    started = time.perf_counter()
    for query in QUERIES:
        tool(query)
    per_query = (time.perf_counter() - started) / len(QUERIES)
    return {"ranking": ranking, "first_call_s": round(first, 2), "query_s": round(per_query, 3),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=float, default=20.0)
    p.add_argument("--files", type=int, default=2000)
    p.add_argument("--child", nargs=2, metavar=("FOLDER", "RANKING"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(one_ranking(*args.child)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write_corpus(Path(tmp), args.mb, args.files)
        print(f"{args.mb} MB in {args.files} files\n\n| ranking | first call (reads the folder), s | per query, s "
              "| peak memory, MB |\n|---|---|---|---|")
        for ranking in RANKINGS:
            out = subprocess.run([sys.executable, __file__, "--child", tmp, ranking], capture_output=True,
                                 text=True, check=True).stdout
            row = json.loads(out)
            print(f"| {ranking} | {row['first_call_s']} | {row['query_s']} | {row['peak_rss_mb']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
