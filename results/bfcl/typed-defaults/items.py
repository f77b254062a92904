"""The BFCL items (non-live categories) where a schema's `default` is written in another type than its own
("false" for a boolean, "None" for a list), so that filling it in as written passed a value of the wrong type.

Run from the repository root: python results/bfcl/typed-defaults/items.py > results/bfcl/typed-defaults/ids.txt"""
from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.decode import openai_tools
from react_text.tools.coercion import Mismatch, coerce_value

found = []
for item in load_items(["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]):
    for tool in openai_tools(item.functions):
        for name, prop in tool["function"]["parameters"].get("properties", {}).items():
            if "default" not in prop:
                continue
            default = prop["default"]
            try:
                typed = coerce_value(default, prop, name, [])
            except Mismatch:
                typed = Mismatch
            if typed is Mismatch or typed != default or type(typed) is not type(default) or (
                    isinstance(default, str) and default.strip().lower() in ("none", "null")):
                found.append(item.id)
print(",".join(dict.fromkeys(found)))
