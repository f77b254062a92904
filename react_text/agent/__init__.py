"""The ReAct agent: the loop's pure policy and the Agent that runs it.

``state`` (limits, run state), ``decisions`` and ``policy`` decide without I/O;
``results`` is what a run returns; ``loop.Agent`` does the I/O with ``turn``
(the model), ``calls`` (tools), ``events`` (trace), ``window`` (context),
``shown_tools``, ``constrain`` and ``names``; the prompt a run opens with comes
from ``react_text.prompting.opening``, shared with the shim; ``api.run`` is the
one-call API.
"""
