"""The model as a judge of "do these results answer the question?" (issue 25; offline, not in the engine).

Reads a JSON list of {id, cat, q, expected, obs} (a task's question, its expected value, category and first
search results, taken from compare traces) and prints, per task, whether the results hold the expected value
and the model's P(yes) / (P(yes) + P(no)) for its first token, then the AUC of that score between the tasks
whose results hold the value and the unanswerable ones.

    python judge.py DATA.json MODEL.gguf
"""

import json
import math
import re
import sys

from llama_cpp import Llama

ASK = "Do the search results state the answer to this exact question? Reply yes or no."


def holds(task: dict) -> bool:
    digits = lambda s: re.sub(r"(?<=\d),(?=\d)", "", str(s)).lower()  # noqa: E731
    return task["cat"] != "unanswerable" and digits(task["expected"]) in digits(task["obs"])


def main(data_path: str, model_path: str) -> None:
    llm = Llama(model_path, n_ctx=2048, logits_all=True, verbose=False, n_threads=2, seed=0)
    scored = []
    for task in json.load(open(data_path, encoding="utf-8")):
        results = re.sub(r"^\[(\d+)\] [^:：]*[:：] ?", r"[\1] ", task["obs"], flags=re.M)
        user = f"Search results:\n{results}\n\nQuestion: {task['q']}\n\n{ASK}"
        prompt = (f"<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
                  f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n")
        top = llm.create_completion(prompt, max_tokens=1, temperature=0, logprobs=20)["choices"][0]["logprobs"]
        first = top["top_logprobs"][0]
        p = lambda words: sum(math.exp(v) for k, v in first.items() if k.strip().lower() in words)  # noqa: E731
        yes, no = p({"yes", "是"}), p({"no", "否", "不"})
        scored.append((task["cat"], holds(task), yes / (yes + no + 1e-9)))
        print(task["id"], task["cat"], scored[-1][1], round(scored[-1][2], 3), flush=True)
    pos = [s for cat, held, s in scored if cat != "unanswerable" and held]
    neg = [s for cat, _, s in scored if cat == "unanswerable"]
    auc = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg) / (len(pos) * len(neg))
    print(f"AUC {auc:.3f} over {len(pos)} answerable and {len(neg)} unanswerable")


if __name__ == "__main__":
    main(*sys.argv[1:3])
