"""The values a request spells out for calls, and which of them the calls so far have used.

Why: asked for the next of several calls, a small model copies its first call (``Paris`` again for
"the weather in Paris and in Oslo") and that ends the turn; or it goes on past the request with values
of its own (``Lisbon``). Both show in the values: the arguments a call took from the request, and the
request's other values of the same kind that no call has used yet (``Oslo``). This module reads them;
``fc.next_calls`` holds a repeated step to the unused values (``other_values``) and ends the turn at a
step call that swaps a value from the request for one from nowhere (``kept_values``).

The kinds are those a request marks by their form, so a lone sentence of prose yields none: numbers
(compared as numbers, with their sign), quoted spans, codes (a token with a digit in it: ``XY1234``) and names (runs of
capitalised words, ``Los Angeles County Court``, ``Treaty of Paris`` (``lexicon.en.NAME_JOINERS``); a lone capitalised word opening a
sentence or clause, a single letter, a capitalised word right after a number (a unit such as ``A.D``)
and a lone one right before a number (``May 3rd``) are not names). Lower-case words are no kind: every
request has many, so they tell nothing.
Pure functions over text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping, Sequence

import regex

from ..lexicon.en import NAME_JOINERS, NEGATIONS
from ..lexicon.zh import NEGATION_CHARS
from ..lexicon.numbers import NUMBER, digits_value

__all__ = ["Kind", "RequestValues", "adds_nothing", "all_from_request", "held_values", "holds_values",
           "in_request_order", "invented", "negates", "read_request", "taken_from"]

Kind = Literal["number", "quoted", "code", "name"]

_QUOTED = regex.compile(r"""['"‘“「]([^'"’”」\n]{1,80})['"’”」]""")
_TOKEN = regex.compile(r"[\p{L}\p{N}](?:[\p{L}\p{N}.&'’-]*[\p{L}\p{N}.])?")
_CODE = regex.compile(r"\p{L}*\d[\p{L}\p{N}-]*")
_SIGNED = regex.compile(rf"(?:(?<![\p{{L}}\p{{N}}])[-−])?{NUMBER.pattern}")
"""A number with its sign: ``b=-3`` is -3, but ``10-20`` is 10 and 20 and a date's ``-05`` is 5."""
_NEGATION = regex.compile(r"(?<!\p{L})(?:" + "|".join(regex.escape(w) for w in sorted(NEGATIONS)) + r"|\p{L}+n['’]t)(?!\p{L})"
            + f"|[{NEGATION_CHARS}]", regex.IGNORECASE)
"""A negation: "not", "without", any "…n't", or a negating Chinese character."""
_NUMBER_NEXT = regex.compile(r"\s+\d")
_SEPARATORS = regex.compile(r"[_\-]+")
_OPENS_CLAUSE = regex.compile(r"(?:^|[.?!,;:]\s*)$")


@dataclass(frozen=True)
class RequestValues:
    """A request's candidate values by kind, in the order they are written, each once."""

    numbers: tuple[float, ...]
    quoted: tuple[str, ...]
    codes: tuple[str, ...]
    names: tuple[str, ...]  # every name run and each part of one that starts and ends capitalised

    def of(self, kind: Kind) -> tuple[Any, ...]:
        return {"number": self.numbers, "quoted": self.quoted, "code": self.codes, "name": self.names}[kind]


def read_request(text: str) -> RequestValues:
    """The candidate values ``text`` spells out."""
    numbers = [digits_value(m[0]) for m in _SIGNED.finditer(text)]
    quoted = [m[1].strip() for m in _QUOTED.finditer(text) if m[1].strip()]
    tokens = list(_TOKEN.finditer(text))
    codes = [_word(t[0]) for t in tokens if _CODE.fullmatch(_word(t[0]))]
    return RequestValues(tuple(dict.fromkeys(n for n in numbers if n is not None)), _once(quoted), _once(codes),
                         _once(_names(text, tokens)))


def holds_values(text: str) -> bool:
    """Whether ``text`` writes a value a call could take: a number, a quoted span, a code, or a name within a
    sentence (the capitalised words that open one, "Should I …", are no value)."""
    values = read_request(text)
    return bool(values.numbers or values.quoted or values.codes) or any(
        not _OPENS_CLAUSE.search(text[:m.start()])
        for name in values.names if len(name) > 1
        for m in regex.finditer(rf"(?<![\p{{L}}\p{{N}}]){regex.escape(name)}(?![\p{{L}}\p{{N}}])", text))


def negates(request: str) -> bool:
    """Whether ``request`` says "not", "without", any "…n't" or a negating Chinese character: it may then ask
    for a thing to be off or left out, and a fill must not read it as asked for."""
    return _NEGATION.search(request) is not None


def taken_from(value: Any, text: str) -> bool:
    """Whether a call's value is spelled in ``text``: a number among its numbers, a string (two characters
    or more) inside it, letter case aside."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return float(value) in read_request(text).numbers
    return isinstance(value, str) and len(_fold(value)) >= 2 and _fold(value) in _fold(text)


def _fold(text: str) -> str:
    """``text`` as values are compared: letter case aside, ``_`` and ``-`` read as spaces ("trial_date")."""
    return " ".join(_SEPARATORS.sub(" ", text).casefold().split())


def kind_of(value: Any, values: RequestValues) -> Kind | None:
    """The kind a call's value taken from the request has there (None: a value of no kind)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, (int, float)):
        return "number" if float(value) in values.numbers else None
    folded = _fold(value)
    for kind in ("quoted", "code", "name"):
        if any(folded == _fold(v) for v in values.of(kind)):  # type: ignore[arg-type]
            return kind  # type: ignore[return-value]
    return None


def held_values(calls: Sequence[tuple[str, Mapping[str, Any]]], tool: str, schema: Mapping[str, Any],
                text: str) -> dict[str, list[Any]] | None:
    """For a step that wrote a call of ``tool`` again: the values each argument the tool's calls took from
    the request may take in the next call, or None when the request holds no value of those arguments'
    kinds that ``calls`` left unused (the repeat then means the request is covered). Used by any call,
    not only by ``tool``'s: "invest $2000 in Google and withdraw $1000 from Apple" is covered by one call
    of each tool, not asking for a second investment in Apple.

    Only the arguments of a kind with a value no call used are held, each to its kind's values that no
    call of ``tool`` passed to it (a flight's next departure may be the first one's destination); the rest
    stay free, so a value every call shares ("the same company") is kept. Every call of ``tool`` passed
    each held argument another value, so the held call is new."""
    values = read_request(text)
    own = [args for name, args in calls if name == tool]
    properties = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    kinds = {}
    for key in properties:
        found = {kind_of(args[key], values) for args in own if key in args} - {None}
        if len(found) == 1:
            kinds[key] = found.pop()
    used = [v for _, args in calls for v in _leaves(args)]
    open_kinds = {kind for kind in set(kinds.values()) if any(_unused(c, used) for c in values.of(kind))}
    held = {}
    for key, kind in kinds.items():
        if kind not in open_kinds:
            continue
        passed = [args[key] for args in own if key in args]
        allowed = [v for v in values.of(kind) if _unused(v, passed)]
        allowed = _typed(allowed, properties[key]) if kind == "number" else allowed
        if allowed:
            held[key] = allowed
    return held or None


def invented(call: Mapping[str, Any], before: Sequence[Mapping[str, Any]], text: str) -> bool:
    """Whether ``call`` passes a value from nowhere to an argument that a call before it (of the same
    tool) took from the request: the model has gone on past what the request asks."""
    for key, value in call.items():
        if any(key in args and taken_from(args[key], text) for args in before) and not taken_from(value, text):
            return True
    return False


def adds_nothing(call: Mapping[str, Any], before: Sequence[Mapping[str, Any]], text: str) -> bool:
    """Whether ``call`` passes no value from the request that none of the calls ``before`` it (their
    arguments, any tool) passed: a variation of a call made (another flag, a value reworded, the same values
    swapped or merged) or a call of another tool the request does not ask about, not one more thing it
    asks for. The price: a request whose calls recombine the same values ("status and trial date of two
    cases": the fourth call's case and detail were both used) or pass one value to two tools ("the
    birthdate and the discovery of Nikola Tesla") ends early."""
    used = [leaf for args in before for leaf in _leaves(args)]
    for leaf in _leaves(call):
        if isinstance(leaf, bool) or not taken_from(leaf, text):
            continue
        if _unused(float(leaf) if isinstance(leaf, (int, float)) else leaf, used):
            return False
    return True


def all_from_request(call: Mapping[str, Any], text: str) -> bool:
    """Whether every value ``call`` passes (flags aside) is spelled in the request (``taken_from``), and it
    passes one at least: nothing in it is the model's own."""
    leaves = [leaf for leaf in _leaves(call) if not isinstance(leaf, bool)]
    return bool(leaves) and all(taken_from(leaf, text) for leaf in leaves)


def in_request_order(calls: Sequence[tuple[str, Mapping[str, Any]]], text: str) -> list[tuple[str, Any]]:
    """``calls`` in the order the request names them: each by the first place ``text`` spells one of its
    values (strings as ``taken_from`` finds them, numbers among its numbers). The model may write the second
    thing asked first ("Oslo" for "Paris and Oslo") and list the rest after it; a client that runs the calls
    in turn should get them as asked. Unchanged unless every call has such a place."""
    folded = _fold(text)
    numbers = [(m.start(), digits_value(m[0])) for m in _SIGNED.finditer(folded)]

    def place(args: Mapping[str, Any]) -> int | None:
        found = []
        for leaf in _leaves(args):
            if isinstance(leaf, bool):
                continue
            if isinstance(leaf, (int, float)):
                found += [at for at, n in numbers if n is not None and n == float(leaf)][:1]
            elif isinstance(leaf, str) and len(_fold(leaf)) >= 2 and _fold(leaf) in folded:
                found.append(folded.index(_fold(leaf)))
        return min(found, default=None)

    places = [place(args) for _, args in calls]
    if any(at is None for at in places):
        return list(calls)
    return [call for _, _, call in sorted(zip(places, range(len(places)), calls))]


def _leaves(value: Any) -> list[Any]:
    """The plain values inside a call's arguments, nested objects and lists included (a budget's min and
    max are values the call used)."""
    if isinstance(value, Mapping):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _names(text: str, tokens: Sequence[Any]) -> list[str]:
    """Runs of capitalised tokens (short lower-case joiners inside), and each part of one that starts and
    ends capitalised, as written."""
    runs: list[list[Any]] = []
    current: list[Any] = []
    for i, token in enumerate(tokens):
        word, before = token[0], tokens[i - 1] if i else None
        adjacent = before is not None and not text[before.end():token.start()].strip()
        after_number = adjacent and digits_value(before[0].rstrip(".")) is not None
        if word[0].isupper() and not after_number:
            if current and adjacent:
                current.append(token)
            else:
                current = [token]
                runs.append(current)
        elif current and adjacent and word in NAME_JOINERS:
            current.append(token)
        else:
            current = []
    names: list[str] = []
    for run in runs:
        while not run[-1][0][0].isupper():
            run = run[:-1]
        if len(run) == 1 and (len(run[0][0]) == 1 or _OPENS_CLAUSE.search(text[:run[0].start()])
                              or _NUMBER_NEXT.match(text, run[0].end())):
            continue
        for i in range(len(run)):
            for j in range(len(run), i, -1):
                if run[i][0][0].isupper() and run[j - 1][0][0].isupper():
                    names.append(_word(text[run[i].start():run[j - 1].end()]))
    return names


def _word(text: str) -> str:
    """A token or run without the full stop that ends its sentence ("Oslo." but "D.C." kept)."""
    last = text.rsplit(" ", 1)[-1]
    return text[:-1] if text.endswith(".") and last.count(".") == 1 else text




def _once(values: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, str] = {}
    for v in values:
        seen.setdefault(v.casefold(), v)
    return tuple(seen.values())


def _unused(candidate: Any, used: Sequence[Any]) -> bool:
    """Whether no used value holds ``candidate``: a number none equals nor any used string spells, a name
    no used string holds or is part of."""
    if isinstance(candidate, float):
        return not any(float(u) == candidate if isinstance(u, (int, float)) and not isinstance(u, bool)
                       else isinstance(u, str) and candidate in read_request(u).numbers for u in used)
    folded = candidate.casefold()
    return not any(isinstance(u, str) and u.strip() and (folded in u.casefold() or u.strip().casefold() in folded)
                   for u in used)


def _typed(numbers: Sequence[float], schema: Any) -> list[Any]:
    """Numbers as the argument's type writes them: whole ones as ints, an integer argument only whole."""
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    out = [int(n) if n.is_integer() else n for n in numbers]
    return [n for n in out if isinstance(n, int)] if kind == "integer" else out
