"""LlamaCppBackend on the real SmolLM2 GGUF through real llama.cpp (short generations only)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from react_text.backends.base import Backend, BackendError
from react_text.backends.chat_template import render_chat_template
from react_text.backends.llama_cpp import LlamaCppBackend
from react_text.backends.llama_cpp.ledger import TokenLedger, common_prefix_len
from react_text.types import Completion

pytestmark = pytest.mark.model

COUNTING = "Count from one to twenty: one, two, three, four,"


# --- pure bookkeeping (no model) ---------------------------------------------------------


def test_common_prefix_len():
    assert common_prefix_len(b"abcdef", b"abcxyz") == 3
    assert common_prefix_len(b"abc", b"abcdef") == 3
    assert common_prefix_len(b"", b"abc") == 0
    assert common_prefix_len(b"x" * 5000 + b"a", b"x" * 5000 + b"b") == 5000


def test_ledger_reuses_only_whole_tokens_inside_the_shared_text():
    ledger = TokenLedger(tokens=[1, 2, 3, 4], ends=[0, 3, 6, 9], text=b"abcdefghi")
    assert ledger.reusable(b"abcdefghi and more") == 4
    assert ledger.reusable(b"abcdefgXX") == 3  # token 4 ("ghi") spans the change
    assert ledger.reusable(b"abcdeZ") == 2  # BOS (zero width) and "abc"
    assert ledger.reusable(b"Xbc") == 1  # only the BOS survives
    assert ledger.covered(2) == 3
    assert TokenLedger(tokens=[1], ends=[3], text=b"abc", exact=False).reusable(b"abcd") == 0


def test_ledger_never_splits_a_utf8_character():
    text = "né".encode()  # b"n\xc3\xa9": a byte-level token may end inside the é
    ledger = TokenLedger(tokens=[10, 11, 12], ends=[1, 2, 3], text=text)
    assert ledger.reusable(text + b"!") == 3
    assert ledger.reusable("nê".encode()) == 1  # shares b"n\xc3", but \xc3 alone is half a character


def test_chat_template_renders_in_a_sandbox():
    template = "{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}" \
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    assert render_chat_template(template, "hi", bos_token="<s>", eos_token="</s>") == "<s><user>hi</user><assistant>"
    with pytest.raises(Exception, match="unsafe|not safely|attribute"):
        render_chat_template("{{ messages.__class__.__mro__ }}", "x", bos_token="", eos_token="")


# --- the real model -------------------------------------------------------------------


def test_is_a_backend_that_completes(smol_backend: LlamaCppBackend):
    assert isinstance(smol_backend, Backend)
    assert smol_backend.supports_grammar
    result = smol_backend.complete(COUNTING, max_tokens=8)
    assert isinstance(result, Completion)
    assert result.text.strip()
    assert result.completion_tokens == 8 and result.finish_reason == "length"
    assert result.prompt_tokens == smol_backend.count_tokens(COUNTING)
    assert 0 <= result.evaluated_tokens <= result.prompt_tokens
    assert result.seconds > 0 and 0 < result.extra["model_seconds"] <= result.seconds


def test_temperature_zero_is_deterministic(smol_backend: LlamaCppBackend):
    first = smol_backend.complete(COUNTING, max_tokens=12)
    smol_backend.complete("Something else entirely, to move the cache.", max_tokens=4)
    again = smol_backend.complete(COUNTING, max_tokens=12)
    assert first.text == again.text


def test_sampling_is_reproducible_by_seed(smol_backend: LlamaCppBackend):
    a = smol_backend.complete("Once upon a time", max_tokens=16, temperature=1.0, seed=7)
    b = smol_backend.complete("Once upon a time", max_tokens=16, temperature=1.0, seed=7)
    assert a.text == b.text


def test_stop_sequences_cut_before_the_earliest_stop(smol_backend: LlamaCppBackend):
    free = smol_backend.complete(COUNTING, max_tokens=24).text
    words = [w.strip(" ,.") for w in free.split(",") if w.strip(" ,.")]
    assert len(words) >= 3, free
    later, earlier = words[2], words[1]
    stopped = smol_backend.complete(COUNTING, max_tokens=24, stop=[later, earlier])
    assert stopped.finish_reason == "stop"
    assert stopped.text == free[: free.index(earlier)]
    assert earlier not in stopped.text


def test_grammar_restricts_the_output(smol_backend: LlamaCppBackend):
    prompt = smol_backend.wrap_prompt("Is the sky green? Answer yes or no.")
    result = smol_backend.complete(prompt, max_tokens=8, grammar='root ::= "yes" | "no"')
    assert result.text in ("yes", "no")
    assert result.finish_reason == "stop"
    digits = smol_backend.complete(COUNTING, max_tokens=6, grammar='root ::= " " [0-9]+')
    assert digits.text[:1] == " " and digits.text[1:].isdigit()


def test_grammar_llama_cpp_cannot_parse_is_a_backend_error(smol_backend: LlamaCppBackend):
    with pytest.raises(BackendError, match="Undefined rule identifier 'nothing'") as err:
        smol_backend.complete(COUNTING, max_tokens=4, grammar="root ::= nothing")
    assert not err.value.retryable
    assert smol_backend.complete(COUNTING, max_tokens=2).completion_tokens == 2  # still usable


def test_appended_prompt_evaluates_only_the_new_tokens(smol_backend: LlamaCppBackend):
    """The scratchpad case: prompt 2 = prompt 1 + the model's own output + an observation."""
    prompt = smol_backend.wrap_prompt("Translate 'good night' into French and German.")
    first = smol_backend.complete(prompt, max_tokens=48)
    assert first.completion_tokens > 20
    sampled = list(smol_backend.last_tokens[: first.prompt_tokens + first.completion_tokens])
    retokenised = smol_backend._llm.tokenize((prompt + first.text).encode(), add_bos=False, special=True)
    # Precondition that makes this test bite: re-tokenising the model's own text gives other ids than
    # it sampled, so a backend that re-tokenised would re-evaluate everything after the first mismatch.
    mismatch = next(i for i, (a, b) in enumerate(zip(sampled, retokenised)) if a != b)
    assert mismatch < first.prompt_tokens + first.completion_tokens - 8
    observation = "\nObservation: Bonjour; Guten Morgen\nThought:"
    new_tokens = smol_backend.count_tokens(observation)
    second = smol_backend.complete(prompt + first.text + observation, max_tokens=4)
    assert second.evaluated_tokens <= new_tokens + 8
    assert second.extra["reused_tokens"] >= first.prompt_tokens + first.completion_tokens - 2
    assert second.prompt_tokens == second.extra["reused_tokens"] + second.evaluated_tokens
    assert list(smol_backend.last_tokens[: first.prompt_tokens + 20]) == sampled[: first.prompt_tokens + 20]


def test_unrelated_prompt_is_evaluated_in_full(smol_backend: LlamaCppBackend):
    smol_backend.complete("Alpha beta gamma delta.", max_tokens=2)
    fresh = smol_backend.complete("Zebras graze on the open savanna at dawn.", max_tokens=2)
    assert fresh.evaluated_tokens == fresh.prompt_tokens


def test_wrap_prompt_uses_the_models_chat_template(smol_backend: LlamaCppBackend):
    assert smol_backend.chat and smol_backend.chat_template
    wrapped = smol_backend.wrap_prompt("Question: 2+2?\nThought:")
    assert "<|im_start|>user\nQuestion: 2+2?\nThought:<|im_end|>" in wrapped
    assert wrapped.endswith("<|im_start|>assistant\n")
    assert wrapped.startswith("<|im_start|>system\n")  # SmolLM2's template adds its default system turn


def test_chat_false_leaves_prompts_alone(smollm2_path: Path):
    with LlamaCppBackend(smollm2_path, n_ctx=256, chat=False) as plain:
        assert plain.wrap_prompt("Thought:") == "Thought:"


def test_length_limit_and_context_overflow(smollm2_path: Path):
    with LlamaCppBackend(smollm2_path, n_ctx=128) as small:
        with pytest.raises(BackendError) as err:
            small.complete("word " * 200, max_tokens=4)
        assert "context window holds 128" in str(err.value) and not err.value.retryable
        near = small.complete("word " * 120, max_tokens=50)
        assert near.finish_reason == "length" and near.extra.get("context_full")
        assert near.prompt_tokens + near.completion_tokens == 128
        assert small.complete("Hello", max_tokens=3).completion_tokens == 3  # still usable after


def test_missing_model_is_a_backend_error(tmp_path: Path):
    with pytest.raises(BackendError, match="no model file at"):
        LlamaCppBackend(tmp_path / "absent.gguf")
    with pytest.raises(BackendError, match="unknown model 'no-such-model'"):
        LlamaCppBackend("no-such-model")


def test_corrupt_model_is_a_backend_error_not_a_crash(tmp_path: Path, smollm2_path: Path):
    truncated = tmp_path / "truncated.gguf"
    with open(smollm2_path, "rb") as src, open(truncated, "wb") as dst:
        dst.write(src.read(3_000_000))
    with pytest.raises(BackendError, match="damaged, truncated"):
        LlamaCppBackend(truncated)
    not_gguf = tmp_path / "notes.gguf"
    shutil.copyfile(__file__, not_gguf)
    with pytest.raises(BackendError, match="not a GGUF model file"):
        LlamaCppBackend(not_gguf)


def test_bad_arguments_are_refused(smol_backend: LlamaCppBackend):
    with pytest.raises(BackendError, match="max_tokens"):
        smol_backend.complete("Hi", max_tokens=0)
    with pytest.raises(BackendError, match="empty"):
        smol_backend.complete("", max_tokens=2)
    with pytest.raises(BackendError, match="grammar is empty"):
        smol_backend.complete("Hi", max_tokens=2, grammar=" ")


def test_a_prompt_with_a_lone_surrogate_completes(smol_backend: LlamaCppBackend):
    """Undecodable bytes from a CLI argument or a tool arrive as lone surrogates; they must not crash a turn."""
    completion = smol_backend.complete("Question: what is \udcff?\nAnswer:", stop=["\n"], max_tokens=4)
    assert isinstance(completion.text, str) and completion.prompt_tokens > 0
    assert smol_backend.count_tokens("a \udcff b") > 0
