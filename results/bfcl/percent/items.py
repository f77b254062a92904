"""The items where the ``percent`` check can act: the request writes a percentage it does not also write bare,
and an offered function has a parameter that takes a fraction (``checks.percents.takes_fraction``)."""
from react_text.checks.percents import takes_fraction
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.lexicon.numbers import percentages

cats = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]
found = []
for it in load_items(cats):
    shares, bare = percentages(" ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user"))
    if set(shares) - set(bare) and any(takes_fraction(name, prop) for t in openai_tools(it.functions)
                                       for name, prop in t["function"]["parameters"].get("properties", {}).items()):
        found.append(it.id)
print(",".join(found))
