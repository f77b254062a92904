"""The text protocol: reading a model turn into a Step, and what we write back to the model.

``parser.parse`` is the entry: ``walk`` goes over the turn's lines (``lines``, ``labels``), reading
``Action:`` lines (``actions``), calls like ``Tool(args)`` / ``Tool[args]`` (``calls``), JSON action
blobs (``blobs``, ``json_calls``) and the last-resort forms (``fallback``), with one placeholder
check (``placeholders``) and one tool-name matcher (``names``). ``jsonish`` reads the JSON and
Python literals models write; ``dialects/`` holds one module per protocol style; ``feedback``
words format errors. Reading what a question or an answer says is not the parser's: ``lexicon``.
"""
