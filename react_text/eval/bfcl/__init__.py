"""The Berkeley Function Calling Leaderboard (BFCL) as a compare suite: ``--suite bfcl:simple_python,multiple``.

``data`` reads BFCL's question, function and possible-answer files from the installed ``bfcl-eval``
package (only its data, never its modules, whose dependencies are heavy); ``checker`` judges calls by
BFCL's AST-checker rules; ``decode`` reads a reply written as Python calls; ``cells`` runs one item in
one compare cell (the function-calling shim with a template, or the one-prompt ``plain`` baseline);
``report`` writes the per-category section of the compare report.
"""
