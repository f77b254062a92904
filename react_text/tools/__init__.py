"""Tools: one model of a tool, checking arguments, calling, rendering results, the built-ins.

``spec.Tool`` is the one model (``Tool.from_any`` reads functions, JSON schemas and OpenAI tool
dicts; ``schemas`` holds the one schema check, ``signature`` reads type hints). Imports point
one way: ``results``, ``schemas`` <- ``signature`` <- ``spec`` <- ``arguments`` (with
``coercion``) <- ``cache`` <- ``calling``. Built-ins: ``calculator``, ``search``, ``clock``
(``builtins.default_tools``), ``fetch``; ``functions`` loads tools from a user's Python file.
"""
