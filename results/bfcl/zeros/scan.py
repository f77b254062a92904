"""`zeros` over BFCL's right calls and over recorded replies, by the engine's own rule
(`checks.zeros.with_request_zeros`). Right calls: an argument counts as changed when every number BFCL allows for it
would be put back to another value. Recorded replies of the shim's default (non-live items; `eval.bfcl.replay`:
`zeros` reads only the calls and the request, so applying it to a recorded reply is its ablation): BFCL's verdict
before and after.

Run: python results/bfcl/zeros/scan.py $(cat results/bfcl/described_option/files.txt) > results/bfcl/zeros/scan.txt"""
import sys

from react_text.checks.zeros import with_request_zeros
from react_text.eval.bfcl.replay import report

for line in report(sys.argv[1:], lambda calls, item: with_request_zeros(calls, {}, item.question),
                   lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "number arguments of right calls"):
    print(line)
