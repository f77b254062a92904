"""`years` over BFCL's right calls and over recorded replies, by the engine's own rule
(`checks.years.with_request_years`). Right calls: a string argument counts as changed when every string BFCL allows
for it would get another year. Recorded replies of the shim's default (non-live items; `eval.bfcl.replay`: `years`
reads only the calls and the request, so applying it to a recorded reply is its ablation): BFCL's verdict before and
after.

Run: python results/bfcl/years/scan.py $(cat results/bfcl/new_value/files.txt) > results/bfcl/years/scan.txt"""
import sys

from react_text.checks.years import with_request_years
from react_text.eval.bfcl.replay import report

for line in report(sys.argv[1:], lambda calls, item: with_request_years(calls, {}, item.question),
                   lambda v: isinstance(v, str) and v != "", "string arguments of right calls"):
    print(line)
