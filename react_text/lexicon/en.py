"""English words the engine reads text by, one list per concept."""

from __future__ import annotations

__all__ = ["NUMBER_WORDS", "REFUSALS", "STOPWORDS"]

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS: dict[str, float] = (
    {w: float(i) for i, w in enumerate(_UNITS)}
    | {w: float(10 * i) for i, w in enumerate(_TENS, 2)}
    | {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "dozen": 12.0}
)
"""Number words and their values ("seventy-two" is read as its two words)."""

STOPWORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i in is it its me my of on "
    "or our please should so than that the their them then there these they this to us was we were what "
    "when where which who whom whose why will with would you your find search tell about".split())
"""Words of a query that say nothing about its topic (the search tool's, and the base of the others)."""

REFUSALS: tuple[str, ...] = (
    r"can ?not", r"can't", r"couldn't", r"could not", r"unable to", r"not able to",
    r"(?:don't|do not|doesn't|does not|didn't|did not) (?:know|have|say|mention|contain|include|provide)",
    r"no way (?:to|of) (?:know|tell|determin)\w*", r"impossible",
    r"not (?:be )?(?:known|knowable|possible|available|found|mentioned|provided|specified|stated|listed|given|recorded|included|public)",
    r"(?:isn't|aren't|wasn't) (?:known|available|mentioned|listed|recorded|public)",
    r"unknown", r"unanswerable", r"insufficient", r"not enough information",
    r"no (?:information|info|data|record|records|results?|mention|answer|details|access)",
    r"(?:i'm|i am) not sure", r"not certain", r"cannot be determined", r"can't be determined",
    r"(?:i|we) (?:don't|do not) have",
)
"""Phrases that decline to answer, as regex fragments matched between word boundaries."""
