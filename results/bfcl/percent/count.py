"""Pre-build count over BFCL's possible answers: where a request writes N% and the answer passes N or N/100 to a
parameter, which one, by the parameter's type and by whether ``checks.percents.takes_fraction`` holds for it.
Non-live items; the reported ones (0-9 and 40-49) left out."""
import collections
from react_text.checks.percents import takes_fraction
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.lexicon.numbers import percentages

cats = ["simple_python", "multiple", "parallel", "parallel_multiple"]
counts = collections.Counter()
for it in load_items(cats):
    if int(it.id.rsplit("_", 1)[1]) < 10 or 40 <= int(it.id.rsplit("_", 1)[1]) < 50:
        continue
    request = " ".join(str(m.get("content")) for m in it.messages if m.get("role") == "user")
    shares, _ = percentages(request)
    props = {t["function"]["name"]: t["function"]["parameters"].get("properties", {}) for t in openai_tools(it.functions)}
    for call in it.answers:
        for fn, args in call.items():
            for name, allowed in args.items():
                numbers = [a for a in allowed if isinstance(a, (int, float)) and not isinstance(a, bool)]
                for n in shares:
                    whole = any(abs(a - n) < 1e-9 for a in numbers)
                    fraction = any(abs(a - n / 100) < 1e-9 for a in numbers)
                    if whole or fraction:
                        prop = props.get(fn, {}).get(name, {})
                        counts[(prop.get("type"), takes_fraction(name, prop), "N/100" if fraction else "N")] += 1
for key, value in sorted(counts.items(), key=str):
    print(*key, value)
