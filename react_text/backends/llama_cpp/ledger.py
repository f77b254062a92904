"""Token bookkeeping that keeps llama.cpp's prefix cache effective.

The scratchpad of a ReAct run only ever grows, so llama.cpp's prefix cache
can make each step cost only its new tokens. That holds only if the token ids
sent for the old text are the ids llama.cpp already evaluated: re-tokenising
the model's own output can split it differently and silently throw the cache
away. ``TokenLedger`` therefore keeps the ids of the last prompt and of the
sampled output together with the bytes each one covers, and a new prompt
reuses the longest run of those ids whose text it starts with; only the new
suffix is tokenised (``Vocabulary.plan``).
"""

from __future__ import annotations

import ctypes
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any


def common_prefix_len(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix (binary search over memcmp, fast for long prompts)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass
class TokenLedger:
    """Token ids of the last prompt + output, and the byte offset in ``text`` where each one ends.

    ``exact`` is False when the ids' pieces do not spell ``text`` exactly (a
    tokenizer that inserts a leading space, say); then nothing is reused by
    text and llama.cpp's own token comparison is all that is left.
    """

    tokens: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    text: bytes = b""
    exact: bool = True

    def reusable(self, prompt: bytes) -> int:
        """How many leading ids cover text that ``prompt`` starts with, ending on a UTF-8 boundary."""
        if not self.exact or not self.tokens:
            return 0
        common = common_prefix_len(self.text, prompt)
        k = bisect_right(self.ends, common)
        while k > 0 and self.ends[k - 1] < len(prompt) and (prompt[self.ends[k - 1]] & 0xC0) == 0x80:
            k -= 1  # never split a character between reused ids and the freshly tokenised suffix
        return k

    def covered(self, k: int) -> int:
        """Bytes of text covered by the first ``k`` ids."""
        return self.ends[k - 1] if k else 0


@dataclass(frozen=True)
class PromptPlan:
    """The token ids a prompt is sent as.

    ``ends`` holds the byte offset each id ends at, ``exact`` whether those
    offsets spell the prompt exactly, ``reused`` how many ids came from the ledger.
    """

    tokens: list[int]
    ends: list[int]
    exact: bool
    reused: int


class Vocabulary:
    """The model's tokenizer seen as bytes: token pieces, tokenising, and planning a prompt's ids."""

    def __init__(self, lib: Any, llm: Any) -> None:
        self._lib = lib
        self._llm = llm
        self.vocab = llm._model.vocab
        self.bos: int = llm.token_bos()
        self.add_bos = bool(llm._model.add_bos_token()) and self.bos >= 0
        self._pieces: dict[int, bytes] = {}

    def piece(self, token: int) -> bytes:
        """The bytes one token stands for (special tokens as their text, as tokenize(special=True) reads them)."""
        piece = self._pieces.get(token)
        if piece is None:
            buf = ctypes.create_string_buffer(64)
            n = self._lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, True)
            if n < 0:  # the piece is longer than the buffer: -n is the size it needs
                buf = ctypes.create_string_buffer(-n)
                n = self._lib.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, True)
            piece = self._pieces[token] = buf.raw[: max(n, 0)]
        return piece

    def tokenize(self, data: bytes) -> list[int]:
        return list(self._llm.tokenize(data, add_bos=False, special=True)) if data else []

    def count(self, text: str) -> int:
        """Tokens ``text`` takes on its own (no BOS)."""
        return len(self._llm.tokenize(text.encode("utf-8", "replace"), add_bos=False, special=True))

    def ends(self, tokens: list[int], start: int) -> list[int]:
        """The byte offset each token ends at, counting from ``start``."""
        ends, offset = [], start
        for token in tokens:
            offset += len(self.piece(token))
            ends.append(offset)
        return ends

    def plan(self, prompt: bytes, ledger: TokenLedger) -> PromptPlan:
        """Token ids for ``prompt``: reused ids for the text the ledger already covers, fresh ids for the rest."""
        k = ledger.reusable(prompt)
        if k:
            start = ledger.covered(k)
            suffix = self.tokenize(prompt[start:])
            suffix_ends = self.ends(suffix, start)
            if not suffix or suffix_ends[-1] == len(prompt):
                return PromptPlan(ledger.tokens[:k] + suffix, ledger.ends[:k] + suffix_ends, True, k)
        tokens = self.tokenize(prompt)
        lead: list[int] = []
        if self.add_bos and (not tokens or tokens[0] != self.bos):
            lead = [self.bos]
        ends = [0] * len(lead) + self.ends(tokens, 0)
        exact = (ends[-1] if ends else 0) == len(prompt) and b"".join(map(self.piece, tokens)) == prompt
        return PromptPlan(lead + tokens, ends, exact, 0)
