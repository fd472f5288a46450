"""Prompts: random token ids as in the paper's experiments (uniform on ``[0, vocab)``, seeded), or
read from a file.

A prompts file is either JSON (a list of lists of token ids, each of length >= 2) or text (one
prompt per non-empty line, tokenized with the model's own tokenizer, no special tokens added).
Prompts may differ in length; the measurement batches equal-length neighbours together.
"""
from __future__ import annotations

import json
from pathlib import Path

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


def _check_ids(rows, vocab_size: int, where: str) -> list[np.ndarray]:
    if not isinstance(rows, list) or not rows:
        raise InvalidInput(where, "a non-empty JSON list of token-id lists", type(rows).__name__)
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in row):
            raise InvalidInput(f"{where}[{i}]", "a list of integer token ids", str(row)[:60])
        if len(row) < 2:
            raise InvalidInput(f"{where}[{i}]", "at least 2 tokens (E is trivial for one token)", len(row))
        bad = [t for t in row if not 0 <= t < vocab_size]
        if bad:
            raise InvalidInput(f"{where}[{i}]", f"token ids in [0, {vocab_size})", bad[0])
        out.append(np.asarray(row, dtype=np.int64))
    return out


def read_prompts_file(path: str | Path, vocab_size: int, tokenizer=None) -> tuple[list[np.ndarray], str]:
    """``(prompts, kind)`` from ``path``; ``kind`` is ``"token ids (JSON)"`` or ``"text"``.

    ``tokenizer`` is a callable ``tokenizer() -> object with encode(text, add_special_tokens=False)``,
    called only for text files (loading a tokenizer can be slow or impossible for random shapes).
    """
    target = Path(path)
    if not target.is_file():
        raise InvalidInput("--prompts", "a JSON file of token-id lists or a text file (or a number of random prompts)", str(path))
    text = target.read_text(encoding="utf-8", errors="strict")
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput("--prompts", "valid JSON (a list of token-id lists)", f"{target}: {exc}") from None
        return _check_ids(rows, vocab_size, "--prompts"), "token ids (JSON)"
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InvalidInput("--prompts", "a non-empty text file (one prompt per line)", str(target))
    if tokenizer is None:
        raise InvalidInput("--prompts", "token ids as JSON for a model without a tokenizer", f"text file {target}",
                           hint="random-init shapes ship no tokenizer: give a JSON list of token-id lists")
    tok = tokenizer()
    rows = [list(map(int, tok.encode(line, add_special_tokens=False))) for line in lines]
    return _check_ids(rows, vocab_size, "--prompts"), "text"


def batches(prompts: list[np.ndarray], batch_size: int) -> list[tuple[int, int]]:
    """``[(lo, hi)]``: consecutive prompts of equal length, at most ``batch_size`` per batch."""
    out = []
    lo = 0
    while lo < len(prompts):
        hi = lo + 1
        while hi < len(prompts) and hi - lo < batch_size and len(prompts[hi]) == len(prompts[lo]):
            hi += 1
        out.append((lo, hi))
        lo = hi
    return out


def prompt_count(value: object) -> int | None:
    """The number of random prompts ``value`` names (an int or a string of digits), else ``None`` (a file)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    text = str(value).strip()
    return int(text) if text.isascii() and text.isdigit() else None


def resolve_prompts(value: object, tokens: int, loaded, max_prompts: int, max_tokens: int):
    """``(rows or None, count, tokens, source)``: ``value`` random prompts of ``tokens`` tokens, or the
    prompts of the file ``value`` (token ids, or text tokenized with ``loaded``'s tokenizer), at most
    ``max_prompts`` of at most ``max_tokens`` tokens (``InvalidInput`` naming ``prompts`` / ``tokens``)."""
    from .loaders import tokenizer_factory

    count = prompt_count(value)
    if count is not None:
        return None, count, tokens, "random"
    rows, kind = read_prompts_file(value, int(loaded.model.config.vocab_size), tokenizer_factory(loaded))
    longest = max(len(r) for r in rows)
    if len(rows) > max_prompts:
        raise InvalidInput("prompts", f"at most {max_prompts} prompts", len(rows))
    if not 2 <= longest <= max_tokens:
        raise InvalidInput("tokens", f"prompts of 2 to {max_tokens} tokens", longest)
    return rows, len(rows), longest, f"{kind}: {Path(value).resolve()}"
