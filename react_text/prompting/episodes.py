"""Few-shot episodes: what they are, which ones a question gets, and demos for tools we never saw.

Why this module exists: a small model copies its examples. Shown episodes that use
tools it was not offered make it call those tools; shown values (a year, a sum)
come back as its answers. So a prompt shows only episodes whose tools are all on
offer, in the question's language, the ones closest to the question, and for
offered tools that no written episode uses, a *call demo* synthesised from the
tool's own schema: a request, a thought and the call — no observation and no
answer, so there is no value to copy.

Pure functions over data; no I/O.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from ..lexicon import en, zh
from ..lexicon.cjk import HAN

from ..lexicon.answers import is_refusal
from ..lexicon.question import numbers_in
from .demo_values import sample_arguments

__all__ = [
    "Episode",
    "ExampleStep",
    "choose_episodes",
    "demo_episode",
    "prompt_language",
    "question_language",
]

MAX_EPISODES = 4
"""Written episodes shown at most; more cost tokens and add values to copy."""
MAX_DEMOS = 2
"""Synthesised call demos shown at most, for the offered tools closest to the question."""


@dataclass(frozen=True)
class ExampleStep:
    """One tool use inside a few-shot episode."""

    thought: str
    tool: str
    args: dict[str, Any] | str
    observation: str
    """Empty in a call demo: the template then shows no observation."""


@dataclass(frozen=True)
class Episode:
    """A worked few-shot example: question, tool steps, closing thought, answer.

    ``kind`` says what the episode teaches (``lookup``, ``multihop``, ``refusal``,
    ``in_question``, ``recovery``, ``arithmetic``, ``time``, ``demo``…); selection shows
    at most one of each kind. An empty ``answer`` marks a call demo: it ends after
    the call.
    """

    question: str
    steps: tuple[ExampleStep, ...]
    thought: str
    answer: str
    kind: str = ""

    @property
    def tools(self) -> frozenset[str]:
        return frozenset(step.tool for step in self.steps)

    @property
    def is_demo(self) -> bool:
        return not self.answer


# --- language and similarity -------------------------------------------------------

_CJK = re.compile(f"[{HAN}]")
_WORD = re.compile(r"[A-Za-z]{3,}|\d+")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def question_language(text: str) -> str:
    """``zh`` when the question is mostly Chinese, else ``en`` (the languages shipped)."""
    cjk = len(_CJK.findall(text))
    latin = len(_LATIN_WORD.findall(text))
    return "zh" if cjk and cjk >= latin else "en"


def _terms(text: str) -> frozenset[str]:
    """Lower-cased words (crudely stemmed) plus Chinese character pairs."""
    words = {w.lower().rstrip("s") for w in _WORD.findall(text) if w.lower() not in en.EPISODE_STOPWORDS}
    han = "".join(_CJK.findall(text))
    pairs = {han[i : i + 2] for i in range(len(han) - 1)} - zh.STOP_PAIRS
    return frozenset(words | pairs)


def _overlap(question: frozenset[str], text: str) -> float:
    other = _terms(text)
    if not question or not other:
        return 0.0
    return len(question & other) / (len(other) ** 0.5)


def _episode_text(episode: Episode) -> str:
    parts = [episode.question, episode.thought]
    for step in episode.steps:
        parts += [step.thought, step.tool, json.dumps(step.args, ensure_ascii=False)]
    return " ".join(parts)


def _tool_text(spec: Any) -> str:
    names = " ".join(p.name for p in getattr(spec, "parameters", ()))
    name = re.sub(r"[_\-]+|(?<=[a-z])(?=[A-Z])", " ", spec.name)
    return f"{name} {spec.description} {names}"


# --- choosing written episodes -----------------------------------------------------------

_ARITHMETIC = re.compile(
    r"\d\s*[-+*/×÷^%]\s*\d|\b(?:sum|product|times|percent|per cent|average|total|divided|multiplied|plus|minus)\b"
    r"|[加减乘除]|倍|百分之|平均|总共|一共",
    re.IGNORECASE,
)
_TIME = re.compile(r"\b(?:today|now|current (?:date|time)|weekday|this year)\b|今天|现在|星期几|今年", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“「『].{3,}[\"”」』]|'[^']{6,}'")


def _kind_hints(question: str) -> frozenset[str]:
    """Kinds of episode the question's shape asks for: numbers to combine, the clock, a quoted text."""
    kinds = set()
    if _ARITHMETIC.search(question):
        kinds.add("arithmetic")
    if _TIME.search(question):
        kinds.add("time")
    if _QUOTED.search(question):
        kinds.add("in_question")
    return frozenset(kinds)



def choose_episodes(
    library: Sequence[Episode],
    tools: Sequence[Any],
    question: str,
    *,
    max_episodes: int = MAX_EPISODES,
    max_demos: int = MAX_DEMOS,
) -> tuple[Episode, ...]:
    """The episodes to show for ``question`` with these tools (``ToolSpec``-like objects).

    Written episodes whose tools are all offered, at most one per kind, the
    closest to the question first; a refusal episode whenever one fits, since
    nothing else teaches the model that "the documents do not say" is an answer.
    Episodes that use no tool are shown beside tools only when the question's shape
    asks for one (see ``_kind_hints``).
    Offered tools that no written episode uses (tools the library was not written
    for) get call demos, the closest to the question first. The refusal is shown first and the
    closest episode last (nearest the question, which a small model copies most), then the demos.
    """
    names = frozenset(t.name for t in tools)
    wanted = _terms(question)
    hinted = _kind_hints(question)
    fitting = [ep for ep in library if ep.tools <= names and not ep.is_demo]
    if any(ep.steps for ep in fitting) or names:
        # An episode without tool use teaches "no tool needed"; shown beside tools only when the
        # question looks like one (it quotes its own answer), or a model rambles about its text.
        fitting = [ep for ep in fitting if ep.steps or ep.kind in hinted]
    scored = sorted(fitting, key=lambda ep: -(_overlap(wanted, _episode_text(ep)) + (1.0 if ep.kind in hinted else 0.0)))
    chosen: list[Episode] = []
    kinds: set[str] = set()

    def take(ep: Episode) -> None:
        if ep not in chosen and len(chosen) < max_episodes and (not ep.kind or ep.kind not in kinds):
            chosen.append(ep)
            kinds.add(ep.kind)

    tool_users = [ep for ep in scored if ep.steps]
    if tool_users:
        take(tool_users[0])
    for ep in scored:
        if ep.kind == "refusal":
            take(ep)
            break
    for ep in scored:
        take(ep)
    # Nearest the question is what a small model copies most: the refusal goes first, then
    # the others from least to most like the question.
    ordered = sorted(chosen, key=lambda ep: (ep.kind != "refusal", -scored.index(ep)))
    covered = frozenset(t for ep in fitting for t in ep.tools)
    foreign = [t for t in tools if t.name not in covered]
    foreign.sort(key=lambda t: -_overlap(wanted, _tool_text(t)))
    lang = question_language(question)
    demos = [demo_episode(t, lang, i) for i, t in enumerate(foreign[:max_demos])]
    return tuple(ordered + demos)


# --- call demos for tools no episode was written for ------------------------------------

def _purpose(spec: Any, lang: str) -> str:
    text = (spec.description or "").strip().split("\n")[0]
    text = re.split(r"(?<=[.!?。！？])\s", text)[0].rstrip(".。 ")
    if not text:
        return spec.name.replace("_", " ")
    return text[0].lower() + text[1:] if not zh.is_chinese(lang) and not text[:2].isupper() else text


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


_EN_THOUGHTS = (
    "This asks for {purpose}; {tool} does that, with the values from the request.",
    "{tool} is the tool for {purpose}. I pass it what the request gives.",
)
_ZH_THOUGHTS = (
    "这要用 {tool}（{purpose}），参数取自请求。",
    "{tool} 正好做这件事（{purpose}），我把请求里的值传给它。",
)


def demo_episode(spec: Any, lang: str = "en", salt: int = 0) -> Episode:
    """A call demo for one tool, written from its schema: a request that names
    concrete values, a thought that ties the request to the tool, and the call."""
    args = sample_arguments(getattr(spec, "schema", None), lang, salt)
    purpose = _purpose(spec, lang)
    values = [f"{k.replace('_', ' ')} = {_value_text(v)}" for k, v in args.items()]
    if zh.is_chinese(lang):
        question = purpose + (f"（{'，'.join(values)}）" if values else "") + "？"
        thought = _ZH_THOUGHTS[salt % len(_ZH_THOUGHTS)].format(purpose=purpose, tool=spec.name)
    else:
        question = purpose[0].upper() + purpose[1:] + (f", for {', '.join(values)}" if values else "") + "?"
        thought = _EN_THOUGHTS[salt % len(_EN_THOUGHTS)].format(purpose=purpose, tool=spec.name)
    step = ExampleStep(thought=thought, tool=spec.name, args=args, observation="")
    return Episode(question=question, steps=(step,), thought="", answer="", kind="demo")


def episode_values(episodes: Iterable[Episode]) -> frozenset[str]:
    """Every number written in the episodes' observations and answers, as digits only
    (``1,240`` → ``1240``), and every answer that holds no number and refuses nothing (a name:
    ``Runa Vell``): what a run's answer must not hold unless it saw it itself."""
    found: set[str] = set()
    for ep in episodes:
        for text in [ep.answer] + [s.observation for s in ep.steps]:
            found |= numbers_in(text)
        if ep.answer and not numbers_in(ep.answer) and not is_refusal(ep.answer):
            found.add(ep.answer.strip())
    return frozenset(found)


def episode_arguments(episodes: Iterable[Episode]) -> tuple[str, ...]:
    """The arguments of every call in the episodes, as JSON text: what a copying model would pass
    (``checks.grounding`` reports a call value that echoes them and not the question)."""
    return tuple(json.dumps(step.args, ensure_ascii=False) for ep in episodes for step in ep.steps)


def episode_tools(episodes: Iterable[Episode], offered: Iterable[str]) -> frozenset[str]:
    """The tools the episodes call that are not ``offered``: a call to one is copied from the examples
    (``checks.declines``), not a reach for a tool the question needs."""
    return frozenset(step.tool for ep in episodes for step in ep.steps) - frozenset(offered)


def prompt_language(template: Any, question: str) -> str:
    """The language a prompt rendered from ``template`` speaks for ``question``: the question's when
    the template words its instructions by ``question_language`` (the built-ins do; a loaded
    ``Template`` says so in ``follows_question_language``), else the template's own. Corrections
    are written in it, so a Chinese question under ``classic`` gets Chinese corrections, as its
    Chinese instructions and episodes."""
    if getattr(template, "follows_question_language", False):
        return question_language(question)
    return getattr(template, "language", None) or "en"
