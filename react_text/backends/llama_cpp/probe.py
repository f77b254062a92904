"""The model's next-token distribution, read as the odds of the texts a caller could go on with.

Why: some choices a small model makes badly when it must pick one greedily are still told well by how
much weight it gives each (whether a list of calls ends here: ``fc.call_list``). A ``Probe`` is a
logits processor that keeps the first step's scores; ``OptionMasks`` sums them over the tokens that can
begin each option, found once per option over the whole vocabulary.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np


class Probe:
    """A logits processor that keeps a softmax of the first scores it sees and leaves them unchanged."""

    def __init__(self) -> None:
        self.probs: np.ndarray | None = None

    def __call__(self, input_ids: Any, scores: np.ndarray) -> np.ndarray:
        if self.probs is None:
            shifted = np.exp(scores - scores.max())
            self.probs = shifted / shifted.sum()
        return scores


class OptionMasks:
    """For each option text, the ids of the tokens that can begin it: a token whose text is a start of the
    option, or that starts with the whole option (``"]"`` and ``"],"`` both begin ``"]"``)."""

    def __init__(self, n_vocab: int, piece: Callable[[int], bytes]) -> None:
        self._texts = [piece(t).decode("utf-8", "ignore") for t in range(n_vocab)]
        self._masks: dict[str, np.ndarray] = {}

    def ids(self, option: str) -> np.ndarray:
        mask = self._masks.get(option)
        if mask is None:
            begins = [t for t, text in enumerate(self._texts)
                      if text and (option.startswith(text) or text.startswith(option))]
            mask = self._masks[option] = np.array(begins, dtype=np.intc)
        return mask

    def odds(self, probs: np.ndarray, options: Sequence[str]) -> tuple[float, ...]:
        """The probability mass on each option's first tokens."""
        return tuple(float(probs[self.ids(option)].sum()) for option in options)
