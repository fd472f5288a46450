"""Helpers shared by the adapters: zero-copy numpy views of parameters, head splitting."""
from __future__ import annotations

import numpy as np

from theorems.errors import InvalidInput


def as_numpy(tensor) -> np.ndarray:
    """A numpy view of a CPU parameter (a float32 copy for dtypes numpy lacks, e.g. bfloat16)."""
    t = tensor.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if str(t.dtype) not in ("torch.float32", "torch.float64", "torch.float16"):
        t = t.float()
    return t.numpy()


def split_in(weight_in_out: np.ndarray, n_heads: int, d_head: int) -> np.ndarray:
    """``(D, H*d_head)`` (input rows, head-major output columns) -> ``(H, D, d_head)`` view."""
    D = weight_in_out.shape[0]
    return weight_in_out.reshape(D, n_heads, d_head).transpose(1, 0, 2)


def split_out(weight_in_out: np.ndarray, n_heads: int, d_head: int) -> np.ndarray:
    """``(H*d_head, D)`` (head-major input rows) -> ``(H, d_head, D)`` view."""
    return weight_in_out.reshape(n_heads, d_head, weight_in_out.shape[1])


def base_model(model, attribute: str):
    """The bare transformer inside a task model (``GPT2LMHeadModel.transformer`` ...)."""
    if hasattr(model, attribute):
        return model
    inner = getattr(model, "base_model", None)
    if inner is not None and hasattr(inner, attribute):
        return inner
    raise InvalidInput("model", f"a model with a '{attribute}' module", type(model).__name__)
