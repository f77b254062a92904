"""Keeping a long run inside the backend's context window; the head of the prompt never changes."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..prompting.context import Entry, fit_context
from .decisions import Stop
from .events import Events


class ContextWindow:
    """Counts each prompt against the context window and cuts older steps when the next turn would not fit.

    What to cut is ``context.fit_context``'s (pure) decision; this holds the
    token counter (the backend's tokenizer, memoised per step text) and
    writes a ``context`` event for every cut.
    """

    def __init__(self, template: Any, count: Callable[[str], int], context_tokens: int, reserve: int) -> None:
        self.template = template
        self.context_tokens = context_tokens
        self.reserve = reserve
        self.limit = context_tokens - reserve
        self.drop_target = self.limit // 2
        self._count = count
        self._counted: dict[str, int] = {}

    def render(self, entries: Sequence[Entry]) -> str:
        return "".join(e.turn + self.template.observation(e.observation, e.n) for e in entries)

    def _count_entry(self, entry: Entry) -> int:
        text = self.render([entry])
        if text not in self._counted:
            self._counted[text] = self._count(text)
        return self._counted[text]

    def fit(self, head: str, entries: list[Entry], n: int, events: Events) -> tuple[list[Entry] | None, Stop | None]:
        """(the entries after a cut or None when nothing was cut, and a Stop when even the cut does not fit)."""
        before = tokens = self._count(head + self.render(entries))
        current, cuts = entries, []
        for _ in range(3):  # the summed estimate may be off by a few tokens: recount and cut again
            fit = fit_context(tokens, current, count_entry=self._count_entry, limit=self.limit,
                              drop_target=self.drop_target)
            if not fit.cuts:
                break
            current, cuts = list(fit.entries), cuts + list(fit.cuts)
            tokens = self._count(head + self.render(current))
            if tokens <= self.limit:
                break
        if cuts:
            events.emit("context", n=n, tokens_before=before, tokens_after=tokens, context=self.context_tokens,
                        reserve=self.reserve, cuts=cuts)
        stop = None
        if tokens > self.limit:
            stop = Stop("context_full",
                        f"the prompt takes {tokens} tokens and a turn may need {self.reserve} more, but the context "
                        f"holds {self.context_tokens}, even with older steps shortened")
        return (current if cuts else None), stop
