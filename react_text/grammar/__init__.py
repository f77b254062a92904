"""GBNF grammars that admit exactly one well-formed model turn."""
