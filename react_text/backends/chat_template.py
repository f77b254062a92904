"""A model's own chat template (Jinja text from a GGUF), rendered safely for one user turn.

Shared by the in-process and the HTTP backend: both may wrap a ReAct prompt in
the template an instruct model was trained on.
"""

from __future__ import annotations

import json
from datetime import datetime


def render_chat_template(template: str, prompt: str, *, bos_token: str, eos_token: str) -> str:
    """``prompt`` as one user message in the model's own chat template, with the assistant turn opened.

    Rendered in Jinja's immutable sandbox: the template comes from the model
    file, which is data, not code we trust.
    """
    import jinja2  # optional and heavy: only a chat model's prompt needs it
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = lambda x, indent=None, **_: json.dumps(x, ensure_ascii=False, indent=indent)
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env.from_string(template).render(
        messages=[{"role": "user", "content": prompt}],
        add_generation_prompt=True,
        bos_token=bos_token,
        eos_token=eos_token,
    )
