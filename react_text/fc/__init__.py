"""Function calling for models without it: the shim and the OpenAI-compatible server.

``request`` reads and checks what a request asks (tools, tool_choice); ``folding`` turns the
messages into a question and past turns, ``scratchpad`` writes those back in the template's
dialect; ``shim.tool_calls`` runs the turn (``verdict`` judges it, ``reply`` is the typed
result); ``endpoint``, ``service``, ``wire``, ``sse``, ``hosts`` and ``server`` make the
HTTP endpoint.
"""
