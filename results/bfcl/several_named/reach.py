"""Where several_named can act: BFCL items whose request names two tools or more alike and none clearly
(``retrieval.named_tools`` without a ``clear_pick``), per category, non-live and live (counts only: held out).
Where answering is right (irrelevance), an item counted here is one it could cost."""
import collections

from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.fc.request import read_tools
from react_text.prompting.retrieval import clear_pick, named_tools

CATS = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple", "live_multiple",
        "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance")
c = collections.Counter()
for it in load_items(CATS):
    tools = read_tools(openai_tools(it.functions))
    c[it.category, "items"] += 1
    c[it.category, "can act"] += bool(named_tools(tools, it.question)) and clear_pick(tools, it.question) is None
for cat in CATS:
    print(f"{cat:24} {c[cat, 'can act']:4} of {c[cat, 'items']}")
