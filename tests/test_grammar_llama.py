"""Constrained turns from the real SmolLM2 through real llama.cpp.

SmolLM2-135M is the model that breaks the format most often without a grammar;
with one, every turn it writes must parse into an offered tool call or a final
answer, in every dialect, greedy and sampled.
"""

from __future__ import annotations

import pytest

from react_text import parse
from react_text.tools.builtins import default_tools
from react_text.protocol.dialects import DIALECTS
from react_text.grammar.gbnf import build_grammar, grammar_matches
from react_text.prompting.templates import load_template

pytestmark = pytest.mark.model

# (question, temperature, seed): greedy on two questions, sampled with two seeds. Runs on
# the same question follow each other so llama.cpp's prefix cache serves the prompt.
RUNS = [
    ("What is 17 * 23?", 0.0, 0),
    ("What is 17 * 23?", 0.8, 1),
    ("What is 17 * 23?", 0.8, 2),
    ("What day of the week is it today?", 0.0, 0),
]
MAX_TOKENS = 96
# Bounds small enough that a whole turn fits in MAX_TOKENS, so the grammar completes.
BOUNDS = dict(max_thought_chars=40, max_answer_chars=40, max_string_chars=32)


@pytest.fixture(scope="module")
def tools():
    return default_tools()


@pytest.mark.parametrize("dialect", sorted(d for d in DIALECTS if d != "native"))  # native: test_native_protocol
def test_constrained_turns_always_parse(dialect, tools, smol_backend):
    template = load_template(dialect)
    names = [t.name for t in tools]
    gbnf = build_grammar(template.dialect, tools, **BOUNDS)
    seen = []
    for question, temperature, seed in RUNS:
        prompt = smol_backend.wrap_prompt(template.render(question, tools))
        completion = smol_backend.complete(
            prompt, stop=template.stop, max_tokens=MAX_TOKENS, temperature=temperature, seed=seed, grammar=gbnf
        )
        text = completion.text
        where = f"{dialect} {question!r} t={temperature} seed={seed}: {text!r}"
        assert completion.finish_reason == "stop", where  # the grammar ended the turn, not the token limit
        assert grammar_matches(gbnf, text), where  # llama.cpp and the Python recognizer agree

        step = parse(template.turn_prefix(1) + text, names)
        assert step.error is None, (where, step.error)
        assert step.thought
        if step.final_answer is None:
            assert len(step.actions) == 1, where
            assert step.actions[0].tool in names, where
        else:
            assert step.final_answer.strip() and not step.actions, where
        seen.append(step)
    assert len(seen) == len(RUNS)


def test_grammar_changes_what_the_model_writes(tools, smol_backend):
    """The grammar is really applied: SmolLM2's unconstrained classic turn differs from its constrained one
    and the unconstrained one is not a single well-formed turn, while the constrained one is."""
    template = load_template("classic")
    prompt = smol_backend.wrap_prompt(template.render("Use the calculator: what is 4 ** 0.5 + 1?", tools))
    gbnf = build_grammar("classic", tools, allow_final=False, **BOUNDS)
    free = smol_backend.complete(prompt, stop=(), max_tokens=48, temperature=0.0)
    bound = smol_backend.complete(prompt, stop=(), max_tokens=MAX_TOKENS, temperature=0.0, grammar=gbnf)
    assert free.text != bound.text
    assert not grammar_matches(gbnf, free.text)
    assert grammar_matches(gbnf, bound.text)
    step = parse(template.turn_prefix(1) + bound.text, [t.name for t in tools])
    assert step.error is None and step.final_answer is None  # allow_final=False forces a tool call
    assert step.actions[0].tool in {"calculator", "current_time"}


@pytest.mark.parametrize("dialect", ["classic", "json", "zh"])
def test_gate_picks_what_full_filtering_picks(dialect, tools, smol_backend):
    """Greedy output through the backend's grammar gate (ask the grammar about the top token only)
    is token for token what llama-cpp-python's own grammar sampler, which filters the whole
    vocabulary, produces; and the gate did have to step in (the model's favourite was refused)."""
    from llama_cpp import LlamaGrammar

    template = load_template(dialect)
    gbnf = build_grammar(template.dialect, tools, **BOUNDS)
    prompt = smol_backend.wrap_prompt(template.render("What day of the week is it today?", tools))
    llm, lib = smol_backend._llm, smol_backend._lib
    # Both runs evaluate the whole prompt in one batch: logits of a prompt evaluated in
    # pieces differ in the last bits, which can flip a near tie between two tokens.
    llm.reset()
    gated = smol_backend.complete(prompt, stop=(), max_tokens=MAX_TOKENS, grammar=gbnf)
    assert gated.evaluated_tokens == gated.prompt_tokens
    assert gated.extra["grammar_fallbacks"] >= 1

    tokens = list(smol_backend.last_tokens[: gated.prompt_tokens])
    llm.reset()
    reference = []
    for token in llm.generate(tokens, temp=0.0, grammar=LlamaGrammar.from_string(gbnf, verbose=False)):
        if lib.llama_vocab_is_eog(smol_backend._vocab, token) or len(reference) >= MAX_TOKENS:
            break
        reference.append(token)
    assert list(smol_backend.last_tokens[gated.prompt_tokens:]) == reference
    smol_backend.complete("reset", max_tokens=1)  # the reference run bypassed the backend's token ledger


def test_gate_never_offers_a_control_token(smol_backend):
    """llama.cpp's grammar reads <|im_start|> as its text, which a free-text rule admits;
    the gate rules control tokens out, so a thought cannot open a new chat turn."""
    import numpy as np

    from react_text.backends.llama_cpp.grammar_gate import GrammarGate

    llm, lib = smol_backend._llm, smol_backend._lib
    controls = smol_backend._control_tokens()
    assert smol_backend._piece(int(controls[0])) == b"<|im_start|>"
    logits = np.zeros(llm.n_vocab(), dtype=np.single)
    logits[controls[0]] = 10.0  # the model's favourite is <|im_start|>
    args = (lib, smol_backend._vocab, llm.n_vocab(), "root ::= [^\\n]{1,40}")
    with GrammarGate(*args, width=1, eog=llm.token_eos()) as unguarded:
        assert int(np.argmax(unguarded(None, logits.copy()))) == controls[0]  # the grammar alone lets it in
    with GrammarGate(*args, width=1, eog=llm.token_eos(), banned=controls) as gate:
        out = gate(None, logits.copy())
    assert not np.isfinite(out[controls]).any()
    assert np.isfinite(out[int(np.argmax(out))])
