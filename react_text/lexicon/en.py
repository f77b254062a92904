"""English words the engine reads text by, one list per concept."""

from __future__ import annotations

__all__ = ["ANSWER_WORDS", "COMBINING_WORDS", "EPISODE_STOPWORDS", "NUMBER_WORDS", "REFUSALS", "SCALE_WORDS",
           "STOPWORDS", "SUFFIXES", "TOOL_NEUTRAL_WORDS", "NAME_VERBS", "FLAG_WORDS", "NEGATIONS", "PERCENT_WORDS",
           "FRACTION_WORDS", "MONTHS"]

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
MONTHS: tuple[str, ...] = tuple("january february march april may june july august september october november "
                                "december".split())
"""The months in order; a date may write each by its first three letters ("Jun. 17, 1915")."""
SCALE_WORDS: dict[str, float] = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
"""Words that multiply the number written before them ("1.267 billion")."""
NUMBER_WORDS: dict[str, float] = (
    {w: float(i) for i, w in enumerate(_UNITS)}
    | {w: float(10 * i) for i, w in enumerate(_TENS, 2)}
    | {"hundred": 100.0, "dozen": 12.0} | SCALE_WORDS
)
"""Number words and their values ("seventy-two" is read as its two words)."""

STOPWORDS = frozenset(
    "a an and are as at be by can could did do does for from had has have how i in is it its me my of on "
    "or our please should so than that the their them then there these they this to us was we were what "
    "when where which who whom whose why will with would you your find search tell about".split())
"""Words of a query that say nothing about its topic (the search tool's, and the base of the others)."""

SUFFIXES: dict[str, int] = {"ing": 3, "ed": 3, "ion": 5, "or": 5, "er": 5, "ly": 4}
"""Endings the search strips so forms of a word meet ("founded"/"founding", "director"/"directs",
"population"/"populated", "monthly"/"month"), each with the shortest stem it leaves; the stem of a
plural is taken first."""

# The lists below each say what a question's words do not tell one reader. They grew apart from
# ``STOPWORDS`` (two are written in the search tool's stemmed form: "doe", "plu", "minu"); each is kept
# as its reader has it until merging them is measured.
EPISODE_STOPWORDS = frozenset(
    "the and for with what which who whom how many much was were are has have had that this from into "
    "does did its their there than then they them will would can could should about when where why "
    "answer question tool tools use using".split()
)
"""Words that say nothing about which few-shot episode a question is like (``prompting.episodes``)."""
ANSWER_WORDS = frozenset(
    "many much long deep tall high far old big wide heavy answer number give round nearest do doe did".split())
"""Words (stemmed) that say how to answer, not what about, beyond ``STOPWORDS`` (``prompting.evidence``)."""
COMBINING_WORDS = frozenset(
    "combined together total sum difference more fewer less earlier later older younger after before between per "
    "average percentage percent ratio double doubled triple tripled twice half time grow plu minu passed year "
    "grew increase increased rise rose halved quadrupled apart elapsed "
    "decimal place whole round rounded nearest density her his one into once using use figure people live what if "
    "would".split())
"""Words (stemmed) that say how a question combines facts, not which facts (``prompting.facts``)."""
TOOL_NEUTRAL_WORDS = frozenset({"many", "much", "give", "use", "using", "value", "long"})
"""Words of a question that say nothing about a tool, beyond ``STOPWORDS`` (``prompting.retrieval``)."""
NAME_VERBS = frozenset({"get", "set", "find", "fetch", "calc", "calculate", "compute", "check", "search", "retrieve",
                        "lookup", "look", "list", "show", "make", "create", "update", "run", "perform", "do"})
"""The verbs function names open with (``get_movie``, ``calculate_interest``): a request that says "get" or
"find" asks for no tool in particular (``fc.call_list``)."""
FLAG_WORDS = frozenset({"include", "return", "is", "has", "have", "with", "use", "enable", "enabled", "allow",
                        "consider", "want", "as", "flag", "option", "optional", "only"})
"""Words a boolean parameter's name holds that say only that it is a switch (``include_history``,
``is_detailed``), not what it switches (``checks.stated_flags``)."""
NEGATIONS = frozenset({"not", "no", "without", "don't", "doesn't", "never", "exclude", "excluding", "except",
                       "nor", "neither", "omit", "skip", "dont"})
"""Words by which a request may ask for something off rather than on (``checks.stated_flags``; it also reads
any word ending in "n't")."""

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

PERCENT_WORDS: tuple[str, ...] = ("percent", "per cent", "percentage")
"""Words that write a number as a percentage ("5 percent"), beside the sign; in a parameter's description they
say it takes one (``checks.percents``)."""
FRACTION_WORDS: tuple[str, ...] = ("decimal", "fraction", "proportion")
"""Words by which a parameter's description says it takes a share as a fraction ("as a decimal": 0.05)."""

LIST_JOINERS: tuple[str, ...] = ("and", "or", "as well as", "&")
"""Words that join the items of one list ("Oslo and Bergen"), beside the comma (``checks.request_lists``)."""
RESPECTIVE_WORDS: tuple[str, ...] = ("respectively",)
"""Words that pair two lists off item by item rather than asking for every combination (``checks.request_lists``)."""
RANGE_WORDS: tuple[str, ...] = ("between",)
"""Words before two values joined like a list ("between 1 and 1000") that make them a range's ends, not a list."""

NAME_JOINERS = frozenset("of de la le du da di del von van der".split())
"""Lower-case words that join the capitalised parts of one name ("Treaty of Paris", "Ludwig van Beethoven")."""
