"""Random-token prompts as in the paper's experiments: ids uniform on ``[0, vocab)``, seeded."""
from __future__ import annotations

import numpy as np

from theorems.errors import InvalidInput


def random_prompts(count: int, length: int, vocab_size: int, seed: int) -> np.ndarray:
    """``(count, length)`` int64 ids drawn with ``numpy.random.default_rng(seed)``."""
    for name, value in (("prompts", count), ("tokens", length), ("vocab_size", vocab_size)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidInput(name, "a positive integer", value)
    if length < 2:
        raise InvalidInput("tokens", "at least 2 tokens per prompt (E is trivial for one token)", length)
    return np.random.default_rng(seed).integers(0, vocab_size, size=(count, length), dtype=np.int64)
