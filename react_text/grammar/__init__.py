"""GBNF grammars that admit exactly one well-formed model turn.

``gbnf`` is the entry (``build_grammar``, ``max_bytes``, ``grammar_matches``): it builds a term
tree (``terms``) from the tools (``tool_shapes``, ``schema``), the parts every dialect shares
(``turns``) and the dialect's form (``dialect_forms``), renders it once and measures the tree
(``recognizer``); ``reader`` reads hand-written GBNF text.
"""
