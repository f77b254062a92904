"""A turn that reaches for a tool nobody offered: how a small model says that no offered tool fits.

Why: asked to send an email with only room-booking tools at hand, a small model
does not say "I cannot"; it writes a call to ``send_email``. Told only that the
tool does not exist and shown an offered one, it copies the offered one (a wrong
call) or loops on the same name until the run stops. The name it reached for is
the signal: when it is not a misspelling of an offered tool and not a tool the
few-shot examples use, the question needs something the user did not give, and
the model should answer without a tool. The shim takes such a turn as a decline;
the loop corrects it once (``no_fit_nudge``) and starts the model's next thought
with ``no_fit_lead``.

Pure functions over a parsed ``Step``.
"""

from __future__ import annotations

from typing import Sequence

from ..types import Step
from ..lexicon.messages import joined, message
from .reading import Nudge
from ..protocol.names import suggest_tool

__all__ = ["no_fit_lead", "no_fit_nudge", "reached_for", "reaches_elsewhere", "unfit_nudge"]


def reached_for(step: Step, offered: Sequence[str], copied: frozenset[str]) -> str | None:
    """The tool name the turn wrote when it is offered nowhere: not a near miss of an offered tool
    (``get_wether``, ``weather``) and not one the shown examples use (``copied``: a model copying the
    examples' ``calculator`` should be told to use the offered tools, not be taken to decline)."""
    if step.error is None or step.error.code != "unknown_tool" or step.error.detail is None:
        return None
    name = step.error.detail
    if not isinstance(name, str) or name in copied or suggest_tool(name, list(offered)) is not None:
        return None
    return name


def reaches_elsewhere(step: Step, offered: Sequence[str], copied: frozenset[str]) -> str | None:
    """The turn's thought (as it followed the label: with a leading space, or empty) when it reaches
    for a tool offered nowhere (``reached_for``); otherwise None."""
    if reached_for(step, offered, copied) is None:
        return None
    return f" {step.thought}" if step.thought else ""


def no_fit_nudge(name: str, offered: Sequence[str], lang: str) -> Nudge:
    """The one correction for a call to a tool offered nowhere: none of the offered tools is to be
    forced onto the question; answer without one. Names the tools, shows no call to copy."""
    return Nudge("no_fit", message(lang, "no_fit.elsewhere", name=name, offered=joined(lang, offered)))


def unfit_nudge(name: str, offered: Sequence[str], lang: str) -> Nudge:
    """The one correction for a first call when the question shares no word with any offered tool
    (``retrieval.fits_nothing``): either the call is right (a request in other words: "Ring my
    mother" for ``phone_call``), and the model calls it again, or no tool does it, and it answers."""
    return Nudge("no_fit", message(lang, "no_fit.unfit", name=name))


def no_fit_lead(lang: str) -> str:
    """The words the model's next thought starts with after ``no_fit_nudge``: with the correction alone,
    a small model writes the same call again. The sentence is left open for the model to finish (it
    answers from what it knows, or says it cannot); a whole sentence it copies as its answer."""
    return message(lang, "no_fit.lead")
