"""BFCL's right string values that start or end with another argument's value of the same call, as a whole word
("Treaty of Lisbon" beside `location="Lisbon"`): what a rule cutting such a value back ("C sharp major" beside
`scale_type="major"`) would break. Prints each, then the count and the number of right string values looked at.

Run: python results/bfcl/native_values/suffix_values.py > results/bfcl/native_values/suffix_values.txt"""
import re

from react_text.eval.bfcl.data import load_items
from react_text.eval.bfcl.replay import CALL_CATEGORIES

found = looked = 0
for item in load_items(CALL_CATEGORIES):
    for answer in item.answers:
        for name, args in answer.items():
            strings = {key: [v for v in allowed if isinstance(v, str) and v] for key, allowed in args.items()}
            for key, values in strings.items():
                for value in values:
                    looked += 1
                    other = next(((k, v) for k, vs in strings.items() if k != key for v in vs if len(v) < len(value)
                                  and re.search(rf"(^|[\s,]){re.escape(v)}$|^{re.escape(v)}[\s,]", value, re.I)), None)
                    if other:
                        found += 1
                        print(item.id, key, repr(value), other[0], repr(other[1]))
print(f"{found} of {looked} right string values")
