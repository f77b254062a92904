"""several_named on and off, on the BFCL items where it can act: ``ab_on.jsonl`` holds every recorded multiple and
parallel_multiple item whose request names two tools or more alike with no clear pick (``retrieval.named_tools``,
``clear_pick``), run with the default checks (and 6 with a clear pick, run before the list was narrowed: it
cannot fire there); ``ab_off.jsonl`` the items where it fired, run again with it off (where
it does not fire, the two settings run the same turns). Counts per setting, gained and lost."""
import collections
import json
from pathlib import Path

HERE = Path(__file__).parent
on = {r["id"]: r for r in map(json.loads, (HERE / "ab_on.jsonl").read_text().splitlines())}
off = {r["id"]: r for r in map(json.loads, (HERE / "ab_off.jsonl").read_text().splitlines())}
c = collections.Counter()
for i, r in sorted(on.items()):
    fired = "guard:several_named" in r["corrections"]
    c["items run", i.rsplit("_", 1)[0]] += 1
    c["fired"] += fired
    if not fired:
        continue
    before, after = off[i]["correct"], r["correct"]
    c["fired: answered with no call, off"] += not off[i]["calls"]
    c["fired: answered with no call, on"] += not r["calls"]
    c["fired: right off"] += before
    c["fired: right on"] += after
    c["gained"] += after and not before
    c["lost"] += before and not after
    if before != after:
        print(i, "off", before, "on", after)
for key in sorted(c, key=str):
    print(key, c[key])
