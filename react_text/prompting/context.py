"""Keeping a run's prompt inside the model's context window: which older steps to shorten or drop.

The prompt of a run is a fixed head (instructions, few-shot examples, the
question) followed by one entry per step: the model's kept turn and the
observation it was shown. When the next turn would not fit (prompt plus the
tokens a turn may write), ``fit_context`` cuts, oldest first:

1. the observations of older steps are replaced by their first few words and
   ``(older results shortened)``; the turn (thought and action) stays, so the
   model still sees what it did;
2. if that is not enough, the oldest steps are dropped whole.

The head is never touched, so the backend's prefix cache keeps it. A cut
shortens every older observation at once, not just enough of them: the
oldest one not yet shortened is then always a recent one, so each cut makes
the backend evaluate again only the tail of the prompt (a few summaries and
the newest result, which is new anyway), and the next turns append to an
unchanged prompt. Dropping steps shifts everything after the head, so it goes
further than needed (down to ``drop_target``) and happens rarely.
The most recent ``keep_last`` steps are never cut: the model needs its latest
result. When even that cannot fit, the run ends with ``context_full``.

Everything here is pure: token counts come in through ``count_entry``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

SHORTENED_NOTE = "(older results shortened)"
SUMMARY_CHARS = 60


@dataclass(frozen=True)
class Entry:
    """One step as the prompt shows it."""

    n: int
    turn: str
    """The kept text of the model's turn (after its label)."""
    observation: str
    """What the model was shown after it."""
    shortened: bool = False


@dataclass(frozen=True)
class Cut:
    """What one cut did to one step, in tokens."""

    n: int
    kind: str
    """``shortened`` (observation replaced by a summary) or ``dropped`` (the whole step)."""
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class Fit:
    entries: tuple[Entry, ...]
    cuts: tuple[Cut, ...]
    tokens: int
    """The prompt's tokens after the cuts (estimated by summing the savings)."""
    fits: bool


def summary(text: str, chars: int = SUMMARY_CHARS) -> str:
    """The start of ``text`` on one line, and the note that says it was shortened."""
    flat = " ".join(text.split())
    if len(flat) > chars:
        flat = flat[:chars].rstrip() + " …"
    return f"{flat} {SHORTENED_NOTE}" if flat else SHORTENED_NOTE


def fit_context(
    prompt_tokens: int,
    entries: Sequence[Entry],
    *,
    count_entry: Callable[[Entry], int],
    limit: int,
    drop_target: int | None = None,
    keep_last: int = 1,
) -> Fit:
    """Entries whose prompt is at most ``limit`` tokens, or the best try (``fits`` False).

    ``prompt_tokens`` is the size of the prompt as it stands (head plus
    ``entries``); ``count_entry`` gives the tokens one entry takes. Steps are
    dropped only when shortening is not enough, down to ``drop_target``
    (default ``limit``).
    """
    entries = list(entries)
    if prompt_tokens <= limit:
        return Fit(tuple(entries), (), prompt_tokens, True)
    total = prompt_tokens
    cuts: list[Cut] = []
    cuttable = max(0, len(entries) - keep_last)
    for i in range(cuttable):
        entry = entries[i]
        if entry.shortened:
            continue
        short = replace(entry, observation=summary(entry.observation), shortened=True)
        before, after = count_entry(entry), count_entry(short)
        if after >= before:
            continue
        entries[i] = short
        total -= before - after
        cuts.append(Cut(entry.n, "shortened", before, after))
    goal = limit if drop_target is None else min(drop_target, limit)
    if total > limit:
        while total > goal and cuttable > 0:
            entry = entries.pop(0)
            cuttable -= 1
            tokens = count_entry(entry)
            total -= tokens
            cuts.append(Cut(entry.n, "dropped", tokens, 0))
    return Fit(tuple(entries), tuple(cuts), total, total <= limit)
