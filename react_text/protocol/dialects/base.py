"""What every protocol style (dialect) has: its labels, its stops, its default language, and how it
writes the model's side of a turn.

A dialect is one module beside this one that defines ``DIALECT``, an instance of a
:class:`Dialect` subclass. The registry in the package finds it; templates, feedback
messages key on ``name``; the grammar builder frames a constrained turn by the dialect's
``shape`` and labels, so a dialect of a known shape needs no grammar code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...types import Args
from ..jsonish import dumps

EN_STOPS = (
    "\nObservation:",
    "\nObservation ",
    "\nObservation：",
    "\nObs:",
    "\n**Observation",
    "\nQuestion:",
    "\n观察",
)
"""Stops of the English-labelled dialects: every way a model starts its own observation or question."""

INDENTED = json.JSONEncoder(ensure_ascii=False, indent=2)
"""Built once, like :func:`react_text.protocol.jsonish.dumps`'s encoder, for fenced JSON blocks."""


@dataclass(frozen=True)
class Dialect:
    """One protocol style: the labels it writes and how it renders actions and answers.

    Subclasses write ``write_action`` and ``write_final``; thoughts and observations
    are the label followed by the text, the same in every dialect.
    """

    name: str
    """The key templates (``dialect:`` in the front matter) and the grammar builder use."""
    thought: str
    """Label that opens a turn, e.g. ``Thought:``; ``{n}`` is the step number."""
    observation: str
    """Label in front of a tool result; ``{n}`` is the step number."""
    stop: tuple[str, ...]
    """Every label the model could use to start writing its own observation
    or a new question; generation must stop at each of them."""
    language: str = "en"
    """The language its labels are in: feedback messages default to it."""
    shape: str = "labelled"
    """How the grammar frames a constrained turn in this dialect: ``labelled``, ``call``, ``json`` or
    ``paper`` (``react_text/grammar/dialect_forms.py``). A new dialect of an existing shape needs no
    grammar code."""
    action_label: str = "Action: "
    """Label of the line that names the tool (``labelled`` and ``call`` shapes)."""
    input_label: str = "Action Input: "
    """Label of the line that holds the arguments (``labelled`` shape)."""
    final_label: str = "Final Answer: "
    """Label in front of the final answer (``labelled`` and ``call`` shapes)."""

    def write_action(self, tool: str, args: Args, n: int = 1) -> str:
        """The canonical text of one action (without the thought)."""
        raise NotImplementedError

    def write_final(self, answer: str, n: int = 1) -> str:
        """The canonical text of a final answer."""
        raise NotImplementedError

    def write_thought(self, thought: str, n: int = 1) -> str:
        return labelled(self.thought.format(n=n), thought)

    def write_observation(self, text: str, n: int = 1) -> str:
        return labelled(self.observation.format(n=n), text)


def labelled(label: str, text: str) -> str:
    """A label and its text; a full-width colon takes no space after it."""
    return f"{label}{text}" if label.endswith("：") else f"{label} {text}"


def json_text(value: object) -> str:
    """Compact JSON, non-ASCII kept as written (what a model reads and copies)."""
    return dumps(value)
