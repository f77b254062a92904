"""Grammar-constrained turns: what the GBNF from ``build_grammar`` admits and rejects.

Three referees must agree on every case: the Python recognizer
(``grammar_matches``), llama.cpp's own grammar engine (fed the real SmolLM2
tokenizer's tokens, vocabulary only) and the tolerant parser, which must read
every admitted turn back into the same tool and arguments.
"""

from __future__ import annotations

import ctypes
import json
import keyword
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from react_text import parse
from react_text.grammar.dialect_forms import FORMS
from react_text.protocol.dialects import DIALECTS, format_action, format_final, format_thought
from react_text.grammar.gbnf import build_grammar, check_gbnf, grammar_matches, max_bytes
from react_text.grammar.terms import GrammarError
from react_text.grammar.turns import _single_candidate
from react_text.protocol.lines import SPECIAL_TOKENS

# The derivation fuzzer below walks the rules read back from the grammar's text.
from react_text.grammar.reader import read_gbnf as _compile  # noqa: E402
from react_text.grammar.terms import Alt as _Alt, Class as _Class, Lit as _Lit, Ref as _Ref  # noqa: E402
from react_text.grammar.terms import Rep as _Rep, Seq as _Seq  # noqa: E402

DIALECT_NAMES = sorted(DIALECTS)
# The text protocols: a thought line, then an action or a labelled final answer. The model's own format
# (native) answers in plain text and its grammar admits only the call; its grammar tests are in
# tests/test_native_protocol.py.
TEXT_DIALECTS = [d for d in DIALECT_NAMES if d != "native"]
FINALS = {"final answer", "final_answer", "finish", "answer", "final"}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------
# llama.cpp as a second referee
# --------------------------------------------------------------------------------------


class LlamaGrammarReferee:
    """llama.cpp's grammar sampler driven token by token over a vocabulary-only model."""

    def __init__(self, model: Path) -> None:
        import llama_cpp

        self.lib = llama_cpp
        self.llm = llama_cpp.Llama(str(model), vocab_only=True, verbose=False)
        self.vocab = llama_cpp.llama_model_get_vocab(self.llm._model.model)
        self.eos = llama_cpp.llama_vocab_eos(self.vocab)

    def sampler(self, gbnf: str):
        smpl = self.lib.llama_sampler_init_grammar(self.vocab, gbnf.encode("utf-8"), b"root")
        assert smpl, "llama.cpp could not parse the grammar:\n" + gbnf
        return smpl

    def loads(self, gbnf: str) -> bool:
        self.lib.LlamaGrammar.from_string(gbnf, verbose=False)
        smpl = self.lib.llama_sampler_init_grammar(self.vocab, gbnf.encode("utf-8"), b"root")
        if smpl:
            self.lib.llama_sampler_free(smpl)
        return bool(smpl)

    def _allowed(self, smpl, token: int) -> bool:
        lib = self.lib
        data = (lib.llama_token_data * 1)(lib.llama_token_data(token, 0.0, 0.0))
        array = lib.llama_token_data_array(data, 1, -1, False)
        lib.llama_sampler_apply(smpl, ctypes.byref(array))
        return data[0].logit != float("-inf")

    def accepts(self, gbnf: str, text: str) -> bool | None:
        """Whether sampling could produce ``text`` and then end of generation.

        None when the tokenizer cannot spell ``text`` (SmolLM2's drops a byte of some
        unassigned code points), so llama.cpp has no verdict to give.
        """
        tokens = self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if self.llm.detokenize(tokens) != text.encode("utf-8"):
            return None
        smpl = self.sampler(gbnf)
        try:
            for token in tokens:
                if not self._allowed(smpl, token):
                    return False
                self.lib.llama_sampler_accept(smpl, token)
            return self._allowed(smpl, self.eos)
        finally:
            self.lib.llama_sampler_free(smpl)


def assert_admitted(gbnf: str, completion: str, llama: LlamaGrammarReferee) -> None:
    assert grammar_matches(gbnf, completion), completion
    assert llama.accepts(gbnf, completion) is not False, completion


def assert_rejected(gbnf: str, completion: str, llama: LlamaGrammarReferee) -> None:
    assert not grammar_matches(gbnf, completion), completion
    assert llama.accepts(gbnf, completion) is not True, completion


@pytest.fixture(scope="module")
def llama(smollm2_path: Path) -> LlamaGrammarReferee:
    """SmolLM2's vocabulary only (no weights): loads in a fraction of a second."""
    return LlamaGrammarReferee(smollm2_path)


# --------------------------------------------------------------------------------------
# Random tool schemas and arguments
# --------------------------------------------------------------------------------------

LOWER = "abcdefghijklmnopqrstuvwxyz"
IDENT = st.builds(lambda a, b: a + b, st.sampled_from(LOWER), st.text(LOWER + "0123456789_", max_size=9))
TOOL_NAME = IDENT.filter(lambda n: n.replace("_", " ") not in FINALS)
KEY = IDENT.filter(lambda k: not keyword.iskeyword(k))
# A chat special token ends the turn wherever it stands (see test_parser.py), so it is never argument text;
# Hypothesis draws such tokens from the parser's own constants (it found {"a": "<|end|>"}).
TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from('"\\{}[]`\n\t\'/'),
    max_size=16,
).filter(lambda s: not any(tok in s for tok in SPECIAL_TOKENS))
ALNUM = LOWER + LOWER.upper() + "0123456789"
# One line of plain prose: what a thought or a final answer looks like.
WORDS = st.builds(
    lambda a, b, c: a + b + c,
    st.sampled_from(ALNUM),
    st.text(ALNUM + " .,:;!?'+*/=()-", max_size=20),
    st.sampled_from(ALNUM + ".!?)"),
)
SCALAR_SCHEMA = st.one_of(
    st.just({"type": "string"}),
    st.just({"type": "integer"}),
    st.just({"type": "number"}),
    st.just({"type": "boolean"}),
    st.lists(WORDS, min_size=1, max_size=4, unique=True).map(lambda v: {"type": "string", "enum": v}),
    st.lists(st.integers(-50, 50), min_size=1, max_size=4, unique=True).map(lambda v: {"type": "integer", "enum": v}),
)


@st.composite
def object_schemas(draw, values=SCALAR_SCHEMA, max_props: int = 4) -> dict:
    props = draw(st.dictionaries(KEY, values, max_size=max_props))
    required = [k for k in props if draw(st.booleans())]
    return {"type": "object", "properties": props, "required": required}


PROPERTY_SCHEMA = st.recursive(
    SCALAR_SCHEMA,
    lambda inner: st.one_of(
        inner.map(lambda s: {"type": "array", "items": s}),
        object_schemas(inner, max_props=3),
    ),
    max_leaves=4,
)


@st.composite
def toolsets(draw) -> dict[str, dict]:
    names = draw(st.lists(TOOL_NAME, min_size=1, max_size=4, unique=True))
    return {name: draw(object_schemas(PROPERTY_SCHEMA)) for name in names}


def value_for(schema: dict) -> st.SearchStrategy:
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema["type"]
    if kind == "string":
        return TEXT
    if kind == "integer":
        return st.integers(-(10**12), 10**12)
    if kind == "number":
        return st.floats(allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(value_for(schema["items"]), max_size=3)
    return args_for(schema)


@st.composite
def args_for(draw, schema: dict) -> dict:
    """Arguments in schema order with required keys first, optional keys sometimes left out."""
    props, required = schema["properties"], schema["required"]
    order = [k for k in props if k in required] + [k for k in props if k not in required]
    return {k: draw(value_for(props[k])) for k in order if k in required or draw(st.booleans())}


@st.composite
def calls(draw):
    """A tool set, a chosen tool, arguments for it and a one-line thought."""
    tools = draw(toolsets())
    name = draw(st.sampled_from(sorted(tools)))
    args = draw(args_for(tools[name]))
    thought = draw(WORDS)
    n = draw(st.integers(1, 12))
    return tools, name, args, thought, n


def single_value(args: dict) -> str | None:
    """What the paper dialect writes bare inside ``Tool[...]`` (mirrors format_action)."""
    if len(args) == 1:
        (value,) = args.values()
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
    return None


def bare_safe(text: str) -> bool:
    return bool(text) and text == text.strip() and not set(text) & set("\n\r[]{}`") and text[0] not in "\"'.…<*_[" \
        and text.isprintable()


def turn(dialect: str, thought: str, body: str, n: int) -> tuple[str, str]:
    """(prefix the prompt ends with, completion the model writes) for one turn."""
    if not FORMS[dialect].thought:  # the model's own tool format: the call is the whole turn
        return "", body
    prefix = DIALECTS[dialect].thought.format(n=n)
    full = format_thought(dialect, thought, n) + "\n" + body
    assert full.startswith(prefix)
    return prefix, full[len(prefix):]


def skip_placeholder_echo(step) -> None:
    """Drop examples whose generated text happens to contain a phrase the parser refuses as
    an echoed instruction ("your answer here"): parser policy, which no small grammar can
    express; test_placeholder_* cover it on purpose."""
    assume(step.error is None or step.error.code != "placeholder")


def expected_args(dialect: str, args: dict) -> dict | str:
    if dialect == "paper":
        single = single_value(args)
        if single is not None:
            return single
    return args


# --------------------------------------------------------------------------------------
# Every rendered action and answer is admitted and reads back the same
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@SETTINGS
@given(case=calls())
def test_rendered_action_is_admitted_and_parses_back(dialect, case, llama):
    tools, name, args, thought, n = case
    if dialect == "paper":
        single = single_value(args)
        assume(single is None or bare_safe(single))
        # ``format_action`` has no schema and writes any one-key call bare; the grammar admits a bare
        # value only for the one key it can stand for (Hypothesis found {"a": "a0a"} for a tool that
        # also takes an optional "b"): such a call is written as JSON in the grammar's own form.
        found = _single_candidate(tools[name])
        assume(single is None or (found is not None and found[0] in args))
    gbnf = build_grammar(dialect, tools)
    assert llama.loads(gbnf)
    prefix, completion = turn(dialect, thought, format_action(dialect, name, args, n), n)

    assert_admitted(gbnf, completion, llama)
    assert_admitted(gbnf, completion + "\n", llama)

    step = parse(prefix + completion, list(tools))
    skip_placeholder_echo(step)
    assert step.error is None, (completion, step.error)
    assert step.final_answer is None
    assert [a.tool for a in step.actions] == [name]
    assert step.actions[0].args == expected_args(dialect, args)


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
@SETTINGS
@given(tools=toolsets(), thought=WORDS, answer=WORDS, n=st.integers(1, 9))
def test_rendered_final_answer_is_admitted_and_parses_back(dialect, tools, thought, answer, n, llama):
    gbnf = build_grammar(dialect, tools)
    prefix, completion = turn(dialect, thought, format_final(dialect, answer, n), n)
    assert_admitted(gbnf, completion, llama)
    step = parse(prefix + completion, list(tools))
    skip_placeholder_echo(step)
    assert step.error is None, (completion, step.error)
    assert step.actions == ()
    assert step.final_answer == answer


# Characters the fuzzer may pick: every class in a generated grammar has some, and
# they include what the parser treats specially.
ALPHABET = list("aZ09 _-.,:;!?'\"\\/{}[]()<>`$#*+=|~\t\n\ré中😀…")


def derive(rules: dict, data) -> str:
    """A random text the grammar admits, choices drawn by Hypothesis (so it shrinks)."""
    out: list[str] = []
    deep = 12  # past this nesting, take the shortest way out (last alternative, fewest repeats)

    def walk(node, depth: int) -> None:
        if isinstance(node, _Lit):
            out.append(node.text)
        elif isinstance(node, _Class):
            choices = [c for c in ALPHABET if node.has(c)] or [chr(node.ranges[0][0])]
            out.append(data.draw(st.sampled_from(choices)))
        elif isinstance(node, _Ref):
            walk(rules[node.name], depth + 1)
        elif isinstance(node, _Alt):
            walk(node.options[-1] if depth > deep else data.draw(st.sampled_from(node.options)), depth)
        elif isinstance(node, _Seq):
            for item in node.items:
                walk(item, depth)
        else:
            assert isinstance(node, _Rep)
            high = node.low + 6 if node.high is None else min(node.high, node.low + 6)
            for _ in range(node.low if depth > deep else data.draw(st.integers(node.low, high))):
                walk(node.item, depth)

    walk(rules["root"], 0)
    return "".join(out)


def conforms(value, schema: dict) -> bool:
    """Whether a parsed argument value fits the schema the grammar was built from."""
    if "enum" in schema:
        return value in schema["enum"] and type(value) in {type(v) for v in schema["enum"]}
    kind = schema["type"]
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list) and all(conforms(v, schema["items"]) for v in value)
    props = schema["properties"]
    return (
        isinstance(value, dict)
        and set(schema["required"]) <= set(value) <= set(props)
        and all(conforms(v, props[k]) for k, v in value.items())
    )


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@SETTINGS
@given(tools=toolsets(), n=st.integers(1, 12), data=st.data())
def test_every_admitted_turn_parses_to_an_offered_call_or_an_answer(dialect, tools, n, data):
    """Random derivations of the grammar, not just canonical renderings, read back cleanly."""
    gbnf = build_grammar(dialect, tools)
    completion = derive(_compile(gbnf), data)
    assert grammar_matches(gbnf, completion)
    prose = "final" if dialect == "native" else "error"  # the model's own format answers in plain text
    step = parse(DIALECTS[dialect].thought.format(n=n) + completion, list(tools), prose=prose)
    if step.error is not None:
        # Only a string argument that is itself a placeholder echo ("...", "<x>") may be
        # refused, on purpose (see test_placeholder_argument_strings_are_left_to_the_parser).
        assert step.error.code == "placeholder", (completion, step.error)
        assert not any(label in completion for label in ("Final Answer", "最终答案", "Finish[")), completion
        return
    if step.final_answer is not None:
        assert step.actions == () and step.final_answer.strip()
        return
    assert len(step.actions) == 1 or dialect == "native", completion  # the model's own format: parallel calls
    for action in step.actions:
        assert action.tool in tools
        schema = tools[action.tool]
        if action.args == "" and not schema["properties"]:  # Tool[] for a tool without arguments
            assert dialect == "paper"
        elif isinstance(action.args, str):  # a bare value stands for the tool's one argument
            assert dialect in ("paper", "call") and (len(schema["required"]) == 1 or len(schema["properties"]) == 1)
        else:
            assert conforms(action.args, schema), (completion, action.args)


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@pytest.mark.parametrize("answer", ["...", "…", "<answer>", "[your answer]", "*...*", "'...'", "_x", " 42", "42 "])
def test_placeholder_answers_are_not_admitted(dialect, answer, llama):
    """Echoed placeholders (which the parser refuses) and answers the parser would trim
    or read as markdown (``_x`` after ``最终答案：``) are kept out by the grammar."""
    gbnf = build_grammar(dialect, {})
    prefix, completion = turn(dialect, "done", format_final(dialect, answer, 1), 1)
    if dialect == "json" and answer == "42 ":  # inside a JSON string the space is kept exactly
        assert_admitted(gbnf, completion, llama)
        assert parse(prefix + completion, []).final_answer == answer
        return
    assert_rejected(gbnf, completion, llama)
    if "." in answer or "answer" in answer or "…" in answer:
        step = parse(prefix + completion, [])
        assert step.error is not None and step.error.code == "placeholder", step


@pytest.mark.parametrize("dialect", ["classic", "json", "call", "zh"])
def test_placeholder_argument_strings_are_left_to_the_parser(dialect, llama):
    """A JSON string may hold anything, so an echoed "..." argument is admitted and the
    parser refuses it with a message for the model, rather than running the tool on it."""
    tools = {"search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}
    gbnf = build_grammar(dialect, tools)
    prefix, completion = turn(dialect, "search", format_action(dialect, "search", {"query": "..."}, 1), 1)
    assert_admitted(gbnf, completion, llama)
    step = parse(prefix + completion, ["search"])
    assert step.error is not None and step.error.code == "placeholder"


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
def test_unicode_answer_and_thought(dialect, llama):
    tools = {"lookup": {"type": "object", "properties": {"term": {"type": "string"}}, "required": ["term"]}}
    gbnf = build_grammar(dialect, tools)
    prefix, completion = turn(dialect, "先查一下 ünïcode", format_final(dialect, "答案是 42 (ok)", 2), 2)
    assert_admitted(gbnf, completion, llama)
    assert parse(prefix + completion, ["lookup"]).final_answer == "答案是 42 (ok)"
    prefix, completion = turn(dialect, "查", format_action(dialect, "lookup", {"term": "北京 天气"}, 2), 2)
    assert_admitted(gbnf, completion, llama)
    step = parse(prefix + completion, ["lookup"])
    assert step.actions[0].tool == "lookup"
    assert step.actions[0].args == ("北京 天气" if dialect == "paper" else {"term": "北京 天气"})


# --------------------------------------------------------------------------------------
# Malformed turns are rejected
# --------------------------------------------------------------------------------------


WRONG_VALUE = {
    "string": st.integers(0, 99) | st.booleans(),
    "integer": st.sampled_from(["seven", 2.5, True, None, [1]]),
    "number": st.sampled_from(["pi", False, None, {"x": 1}]),
    "boolean": st.sampled_from(["yes", 1, 0.0, None]),
    "array": st.sampled_from(["a", 3, {"x": 1}, True]),
    "object": st.sampled_from(["a", 3, [1, 2], False]),
}
TAILS = [
    "\nObservation: 42",
    "\nObservation 1: 42",
    "\n观察：42",
    "\nFinal Answer: 42",
    " and then some",
    "\n\n",
    "\nQuestion: what next?",
]


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
@SETTINGS
@given(case=calls(), data=st.data())
def test_malformed_turns_are_rejected(dialect, case, data, llama):
    """Unknown tool, missing required key, wrong type, enum violation, a tail, a two-line thought."""
    tools, name, args, thought, n = case
    gbnf = build_grammar(dialect, tools)

    def render(tool: str, arguments: dict, thought: str = thought) -> str:
        return turn(dialect, thought, format_action(dialect, tool, arguments, n), n)[1]

    # In the paper dialect a lone bare value stands for the tool's single argument:
    # it can be neither missing nor of another type, so such renderings are skipped.
    def bare(arguments: dict) -> bool:
        return dialect == "paper" and single_value(arguments) is not None

    other = data.draw(TOOL_NAME.filter(lambda t: t not in tools), label="unknown tool")
    assert_rejected(gbnf, render(other, args), llama)

    required = tools[name]["required"]
    if required:
        dropped = data.draw(st.sampled_from(required), label="dropped key")
        broken = {k: v for k, v in args.items() if k != dropped}
        if not bare(broken):
            assert_rejected(gbnf, render(name, broken), llama)

    if args:
        key = data.draw(st.sampled_from(sorted(args)), label="changed key")
        schema = tools[name]["properties"][key]
        if "enum" in schema:
            wrong = data.draw(st.one_of(WORDS, st.integers(-99, 99)).filter(lambda v: v not in schema["enum"]))
        else:
            wrong = data.draw(WRONG_VALUE[schema["type"]], label="wrong value")
        broken = {**args, key: wrong}
        if not bare(broken):
            assert_rejected(gbnf, render(name, broken), llama)

    if not bare(args) or bare_safe(single_value(args)):
        tail = data.draw(st.sampled_from(TAILS), label="tail")
        assert_rejected(gbnf, render(name, args) + tail, llama)

    second = data.draw(WORDS, label="second thought line")
    assert_rejected(gbnf, render(name, args, thought + "\n" + second), llama)
    two_lines = turn(dialect, thought + "\n" + second, format_final(dialect, "done", n), n)[1]
    assert_rejected(gbnf, two_lines, llama)


CALC = {"calc": {"type": "object", "properties": {"expr": {"type": "string"}}, "required": ["expr"]}}


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
def test_json_blob_or_brackets_in_thought_are_rejected(dialect, llama):
    """A blob in the thought could be read as a second action, so the thought cannot hold one."""
    tools = CALC
    gbnf = build_grammar(dialect, tools)
    for thought in ('use {"action": "calc"}', "try calc[2+2]", "run `calc`"):
        _, completion = turn(dialect, thought, format_final(dialect, "4", 1), 1)
        assert_rejected(gbnf, completion, llama)


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_final_answer_can_be_switched_off(dialect, llama):
    tools = CALC
    gbnf = build_grammar(dialect, tools, allow_final=False)
    assert llama.loads(gbnf)
    _, completion = turn(dialect, "done", format_final(dialect, "4", 1), 1)
    assert_rejected(gbnf, completion, llama)
    _, completion = turn(dialect, "compute", format_action(dialect, "calc", {"expr": "2*2"}, 1), 1)
    assert grammar_matches(gbnf, completion)


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
def test_turn_may_end_after_the_thought_only_when_allowed(dialect, llama):
    """How a model declines every tool under a grammar (the shim's tool_choice "auto")."""
    tools = CALC
    strict = build_grammar(dialect, tools)
    lenient = build_grammar(dialect, tools, allow_thought_only=True)
    assert llama.loads(lenient)
    for ending in ("", "\n"):
        assert grammar_matches(lenient, " No tool fits; I know the answer." + ending)
        assert not grammar_matches(strict, " No tool fits; I know the answer." + ending)
    for body in (format_final(dialect, "4", 1), format_action(dialect, "calc", {"expr": "2*2"}, 1)):
        assert grammar_matches(lenient, turn(dialect, "ok", body, 1)[1])
    assert_rejected(lenient, " No tool fits.\nObservation: 4", llama)


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
def test_bounds_hold(dialect, llama):
    tools = CALC
    gbnf = build_grammar(dialect, tools, max_thought_chars=10, max_answer_chars=5, max_string_chars=4)
    assert llama.loads(gbnf)
    ok = lambda thought, body: grammar_matches(gbnf, turn(dialect, thought, body, 1)[1])  # noqa: E731
    assert ok("a" * 10, format_final(dialect, "b" * 5, 1))
    assert not ok("a" * 11, format_final(dialect, "b" * 5, 1))
    assert not ok("a" * 10, format_final(dialect, "b" * 6, 1))
    assert ok("a", format_action(dialect, "calc", {"expr": "1234"}, 1))
    assert not ok("a", format_action(dialect, "calc", {"expr": "12345"}, 1))


def test_answers_have_no_space_at_either_end():
    gbnf = build_grammar("classic", {})
    assert grammar_matches(gbnf, " t\nFinal Answer: 4 2")
    assert not grammar_matches(gbnf, " t\nFinal Answer: 42 ")
    assert not grammar_matches(gbnf, " t\nFinal Answer:  42")
    assert not grammar_matches(gbnf, " t\nFinal Answer: ")


def test_schema_features_beyond_the_basics(llama):
    tools = {
        "book": {
            "type": "dict",  # Gorilla / BFCL spelling
            "properties": {
                "city": {"type": "str", "minLength": 2, "maxLength": 5},
                "nights": {"type": ["integer", "null"]},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
                "mode": {"const": "fast"},
                "extra": {"anyOf": [{"type": "boolean"}, {"type": "number"}]},
                "any": {},
            },
            "required": ["city", "tags"],
        }
    }
    gbnf = build_grammar("classic", tools)
    assert llama.loads(gbnf)

    def ok(args: dict) -> bool:
        return grammar_matches(gbnf, " t\n" + format_action("classic", "book", args))

    assert ok({"city": "Rome", "tags": ["x"]})
    assert ok({"city": "Rome", "tags": ["x", "y"], "nights": None, "mode": "fast", "extra": 2.5, "any": [1, {}]})
    assert ok({"city": "Rome", "tags": ["x"], "extra": True})
    assert not ok({"city": "R", "tags": ["x"]})  # minLength
    assert not ok({"city": "Romeee", "tags": ["x"]})  # maxLength
    assert not ok({"city": "Rome", "tags": []})  # minItems
    assert not ok({"city": "Rome", "tags": ["x", "y", "z"]})  # maxItems
    assert not ok({"city": "Rome", "tags": ["x"], "mode": "slow"})  # const
    assert not ok({"city": "Rome", "tags": ["x"], "extra": "yes"})  # anyOf
    assert not ok({"city": "Rome", "tags": ["x"], "nights": 1.5})  # type list
    assert not ok({"city": "Rome", "tags": ["x"], "unknown": 1})  # no keys outside the schema
    assert not ok({"tags": ["x"], "city": "Rome"})  # schema order


def test_tools_in_every_accepted_shape():
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    class ToolLike:
        name = "search"
        parameters = schema

    shapes = [
        [ToolLike()],
        {"search": schema},
        [{"name": "search", "parameters": schema}],
        [{"type": "function", "function": {"name": "search", "parameters": schema}}],
    ]
    grammars = {build_grammar("classic", shape) for shape in shapes}
    assert len(grammars) == 1
    assert grammar_matches(grammars.pop(), ' t\nAction: search\nAction Input: {"q": "x"}')


def test_a_tool_named_in_chinese_is_offered_under_ascii_rule_names():
    """GBNF rule names are ASCII; the tool's own name stays literal in the strings it writes."""
    from react_text.tools.spec import tool

    @tool
    def 搜索(查询: str) -> str:
        """Search."""
        return ""

    for dialect in DIALECT_NAMES:
        gbnf = build_grammar(dialect, [搜索])
        check_gbnf(gbnf)
        assert all(line.split(" ::= ")[0].isascii() for line in gbnf.splitlines())
        _, completion = turn(dialect, "look it up", format_action(dialect, "搜索", {"查询": "天气"}, 1), 1)
        assert grammar_matches(gbnf, completion), (dialect, completion)
        step = parse(DIALECTS[dialect].thought.format(n=1) + completion, [搜索])
        assert step.error is None and step.actions[0].tool == "搜索", (dialect, step)


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_the_built_tree_and_the_text_read_back_agree(dialect):
    """max_bytes and the recognizer walk the tree build_grammar made; reading its text gives the same."""
    from react_text.grammar.recognizer import longest, matches

    gbnf = build_grammar(dialect, CALC, allow_unoffered=True, allow_thought_only=True)
    read = _compile(gbnf)
    assert max_bytes(gbnf) == longest(read)
    _, completion = turn(dialect, "add them", format_action(dialect, "calc", {"expr": "1+2"}, 1), 1)
    assert grammar_matches(gbnf, completion)
    for text in (completion, completion[:-1], completion + "x", " just a thought"):
        assert grammar_matches(gbnf, text) == matches(read, text), text


def test_builtin_tools_if_present(llama):
    builtin = pytest.importorskip("react_text.tools.builtins")
    tools = builtin.default_tools()
    for dialect in DIALECT_NAMES:
        gbnf = build_grammar(dialect, tools)
        assert llama.loads(gbnf)
        assert len(gbnf) < 4000  # small: only the offered tools


# --------------------------------------------------------------------------------------
# Bad input gets a clear error
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dialect, tools, message",
    [
        ("yaml", {}, "unknown dialect"),
        ("classic", {"final_answer": {}}, "means 'final answer'"),
        ("classic", {"Finish": {}}, "means 'final answer'"),
        ("classic", {"two words": {}}, "cannot be written"),
        ("classic", {"a(b)": {}}, "cannot be written"),
        ("classic", [{"name": "x", "parameters": {}}, {"name": "x", "parameters": {}}], "offered twice"),
        ("classic", {"x": {"type": "string"}}, "type object"),
        ("classic", [{"parameters": {}}], "has no name"),
        ("call", {"x": {"type": "object", "properties": {"first name": {"type": "string"}}}}, "key=value"),
        ("call", {"x": {"type": "object", "properties": {"class": {"type": "string"}}}}, "key=value"),
    ],
)
def test_bad_tools_raise_clear_errors(dialect, tools, message):
    with pytest.raises(GrammarError, match=message):
        build_grammar(dialect, tools)


def test_nothing_to_admit_and_bad_bounds():
    with pytest.raises(GrammarError, match="admit nothing"):
        build_grammar("classic", [], allow_final=False)
    with pytest.raises(GrammarError, match="max_thought_chars"):
        build_grammar("classic", [], max_thought_chars=0)


# --------------------------------------------------------------------------------------
# The recognizer itself
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gbnf, text, expected",
    [
        ('root ::= "a" | "b"', "b", True),
        ('root ::= "a" | "b"', "ab", False),
        ('root ::= [a-c]{2,3}', "abc", True),
        ('root ::= [a-c]{2,3}', "a", False),
        ('root ::= [a-c]{2,3}', "abca", False),
        ('root ::= [a-c]{2}', "ab", True),
        ('root ::= [a-c]{2,}', "abcabc", True),
        ('root ::= [^\\n"\\\\]*', 'ab c', True),
        ('root ::= [^\\n"\\\\]*', 'a"b', False),
        ('root ::= [^\\n"\\\\]*', "a\\b", False),
        ('root ::= "\\x41\\u00e9\\U0001F600\\t\\""', 'Aé😀\t"', True),
        ('root ::= ("a" | "ab") "c"', "abc", True),
        ('root ::= x+ "!"\nx ::= "a" x? | "b"', "aab!", True),
        ('root ::= x+ "!"\nx ::= "a" x? | "b"', "aac!", False),
        ('# comment\nroot ::= ( "a"\n  | "b" ) # trailing\n', "b", True),
        ('root ::= ("a"?)* "b"', "aab", True),
        ('root ::= . "x"', "éx", True),
        ('root ::= [-a]+', "-a-", True),
    ],
)
def test_recognizer_cases(gbnf, text, expected, llama):
    assert grammar_matches(gbnf, text) is expected
    if "\n" not in text:  # the same verdict from llama.cpp
        assert llama.accepts(gbnf, text) is expected


@pytest.mark.parametrize(
    "gbnf, message",
    [
        ('root ::= foo', "undefined rule 'foo'"),
        ('rot ::= "a"', "no 'root' rule"),
        ('root ::= "a', "unterminated string"),
        ('root ::= [a-', "unterminated character class"),
        ('root ::= "a"\nx ::= ( "b"', "expected '\\)'"),
        ('root ::= "a"{3,1}', "bad repetition"),
        ('root ::= "\\q"', "unknown escape"),
        ('root "a"', "expected '::='"),
        ('root ::= "a" $', "unexpected"),
    ],
)
def test_malformed_gbnf_is_reported_with_a_position(gbnf, message):
    with pytest.raises(GrammarError, match=message):
        check_gbnf(gbnf)


def test_left_recursion_is_an_error_not_a_hang():
    with pytest.raises(GrammarError, match="left recursion"):
        grammar_matches('root ::= root "a" | "a"', "aa")


def test_generated_grammars_pass_the_checker():
    tools = CALC
    for dialect in DIALECT_NAMES:
        gbnf = build_grammar(dialect, tools)
        check_gbnf(gbnf)
        assert gbnf.startswith("root ::= ")


def test_max_bytes_bounds_the_grammar_and_sees_unbounded_ones():
    assert max_bytes('root ::= "ab" [a-z]{0,3} ( "x" | "yy" )?') == 2 + 3 + 2
    assert max_bytes('root ::= "中" [^a]') == 3 + 4
    assert max_bytes('root ::= "a" [a-z]*') is None
    assert max_bytes('root ::= "(" root? ")"') is None
    one_string = {"search": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}
    bound = max_bytes(build_grammar("zh", one_string))
    assert bound is not None and bound > 160 * 3  # the thought alone may be 160 three-byte characters
    untyped = {"search": {"type": "object", "properties": {"o": {}}}}
    assert max_bytes(build_grammar("json", untyped)) is None  # an untyped value may nest without end


@given(st.text(alphabet="ab中", max_size=30))
def test_every_admitted_text_fits_max_bytes(text):
    gbnf = build_grammar("classic", {"search": {"type": "object", "properties": {"query": {"type": "string"}},
                                                "required": ["query"]}})
    turn = f" {text or 'x'}\nAction: search\nAction Input: {json.dumps({'query': text}, ensure_ascii=False)}"
    assert grammar_matches(gbnf, turn)
    assert len(turn.encode("utf-8")) <= max_bytes(gbnf)


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_a_tool_not_offered_is_admitted_only_when_allowed(dialect, llama):
    """So the shim can see a model reach for a tool it lacks, instead of steering it onto calc."""
    tools = CALC
    strict = build_grammar(dialect, tools)
    lenient = build_grammar(dialect, tools, allow_unoffered=True)
    assert llama.loads(lenient)
    prefix, elsewhere = turn(dialect, "I should look it up", format_action(dialect, "web_search", {"query": "who"}, 1), 1)
    assert_admitted(lenient, elsewhere, llama)
    assert_rejected(strict, elsewhere, llama)
    assert parse(prefix + elsewhere, None, dialect=dialect).actions[0].tool == "web_search"
    assert_admitted(lenient, turn(dialect, "ok", format_action(dialect, "calc", {"expr": "2*2"}, 1), 1)[1], llama)


def test_every_dialect_gets_a_grammar_from_its_shape_and_labels() -> None:
    """A dialect module of a known shape needs no grammar code: its form is built from its labels."""
    from react_text.grammar.dialect_forms import FORMS, SHAPES
    from react_text.protocol.dialects.classic import Labelled

    assert set(FORMS) == set(DIALECTS)
    spanish = Labelled("es", "Pensamiento:", "Observación:", ("\nObservación",), language="es",
                       action_label="Acción: ", input_label="Entrada: ", final_label="Respuesta final: ")
    form = SHAPES[spanish.shape](spanish)
    assert (form.action_label, form.input_label, form.final_label) == ("\nAcción: ", "\nEntrada: ", "Respuesta final: ")
    for name, dialect in DIALECTS.items():
        grammar = build_grammar(name, {"search": {"type": "object", "properties": {"query": {"type": "string"}},
                                                  "required": ["query"]}})
        turn = (" look it up\n" if FORMS[name].thought else "") + dialect.write_action("search", {"query": "tides"}, 1)
        assert grammar_matches(grammar, turn), (name, turn)


@pytest.mark.parametrize("dialect", TEXT_DIALECTS)
def test_a_turn_may_hold_several_calls_in_order_when_asked(dialect: str) -> None:
    """Parallel tool calls: with ``calls=N`` a constrained turn holds 1..N calls one after another (the
    parser returns them in order) and may end on the dialect's own stop; one call stays the default."""
    tools = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    calls = [format_action(dialect, "get_weather", {"city": city}, n) for n, city in enumerate(("Paris", "Oslo"), 1)]
    one, two = " x\n" + calls[0], " x\n" + "\n".join(calls)
    several = build_grammar(dialect, tools, calls=3)
    check_gbnf(several)
    assert grammar_matches(several, one) and grammar_matches(several, two)
    assert grammar_matches(several, two + DIALECTS[dialect].stop[0])
    assert not grammar_matches(several, " x\n" + "\n".join(calls * 2))  # four: more than asked for
    assert [a.args for a in parse(two, tools, dialect=dialect).actions] in (
        [{"city": "Paris"}, {"city": "Oslo"}], ["Paris", "Oslo"])
    single = build_grammar(dialect, tools)
    assert grammar_matches(single, one) and not grammar_matches(single, two)
    assert max_bytes(several) is not None
