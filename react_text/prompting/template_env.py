"""What a prompt template may call besides Jinja's own: the tool-notation filters and the
dialect helpers that write few-shot turns, in the one sandbox every template shares.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..protocol.dialects import DialectLike, dialect_named, format_action, format_final, format_observation, format_thought
from .episodes import Episode
from .sandbox import GuardedEnvironment
from .tool_views import json_args, param_lines, param_notes, py_args


def format_episode(dialect: DialectLike, episode: Episode) -> str:
    """An episode's turns in ``dialect``, after its question line: each thought, action and
    observation, then the closing thought and final answer. A call demo stops after its call."""
    d = dialect_named(dialect)
    lines: list[str] = []
    for n, step in enumerate(episode.steps, 1):
        lines.append(d.write_thought(step.thought, n))
        lines.append(d.write_action(step.tool, step.args, n))
        if step.observation or not episode.is_demo:
            lines.append(d.write_observation(step.observation, n))
    if not episode.is_demo:
        n = len(episode.steps) + 1
        lines.append(d.write_thought(episode.thought, n))
        lines.append(d.write_final(episode.answer, n))
    return "\n".join(lines)


def _to_json(value: Any) -> str:
    """Plain JSON (Jinja's own ``tojson`` HTML-escapes, wrong for a text prompt)."""
    return json.dumps(value, ensure_ascii=False)


@functools.cache
def environment() -> GuardedEnvironment:
    """The one sandbox every template shares: what a prompt template may call, besides Jinja's own."""
    return GuardedEnvironment(
        filters={"tojson": _to_json, "json_args": json_args, "py_args": py_args, "param_notes": param_notes,
                 "param_lines": param_lines},
        template_globals={
            "format_action": format_action,
            "format_final": format_final,
            "format_thought": format_thought,
            "format_observation": format_observation,
            "format_episode": format_episode,
        },
    )
