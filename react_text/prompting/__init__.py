"""Prompts: templates, few-shot episodes and their choice, the Jinja sandbox.

``templates`` finds and renders templates (``front_matter``, ``template_env``,
``example_sets``, ``tool_views``), ``sandbox`` and ``render_budget`` keep untrusted Jinja
safe, ``episodes`` chooses the few-shot episodes, ``opening`` opens a turn the same way for
the agent and the shim, ``evidence`` quotes the search result that answers, ``context``
keeps a prompt inside the window and ``retrieval`` chooses which of many tools a question
sees.
"""
