"""Consensus metrics of docs/model.md §4, in torch, computed in float64 from the residual stream.

For token states ``x_1..x_N`` (rows of one prompt), optionally mean-centred first
(``center=True``: ``x_j <- x_j - (1/N) sum_l x_l``), an anchor ``a`` and ``c_j = cos(a, x_j)``:

    E_first     = 1 - (1/N) sum_j c_j          (the authors' metric with anchor = token 1)
    E_first_abs = 1 - (1/N) sum_j |c_j|        (older variant: alignment with the line of a)
    E_pair      = 1 - (1/N^2) sum_{i,j} cos(x_i, x_j) = 1 - |sum_i x_i/|x_i||^2 / N^2   (anchor-free)

Anchors: ``"first"`` (token 1, the paper's), ``"mean"`` (the mean of the token states), or an
integer token index (0-based; negative counts from the end).  The names ``E_first`` /
``E_first_abs`` are kept whatever the anchor; the anchor is recorded next to them.

``center=True`` with ``anchor="mean"`` is refused: the centred mean is the zero vector.  A zero
state (possible after centring two identical tokens) gives NaN, never a silent 0.  Whether the
final norm is applied is the caller's choice (:mod:`llm_checks.consensus`).
"""
from __future__ import annotations

from theorems.errors import InvalidInput

from ._deps import require_torch

METRICS = ("E_first", "E_first_abs", "E_pair")


def parse_anchor(value) -> str | int:
    """``"first"``, ``"mean"`` or an int index (from an int or a decimal string)."""
    if isinstance(value, bool):
        raise InvalidInput("anchor", "first, mean or a token index", value)
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text in ("first", "mean"):
        return text
    try:
        return int(text)
    except ValueError:
        raise InvalidInput("anchor", "first, mean or a token index (an integer)", value) from None


def check_metric_options(anchor, center: bool, n_tokens: int | None = None) -> str | int:
    anchor = parse_anchor(anchor)
    if center and anchor == "mean":
        raise InvalidInput("anchor", "first or a token index when centring (the centred mean is zero)", "mean with center",
                           hint="drop --center or use --anchor first")
    if isinstance(anchor, int) and n_tokens is not None and not -n_tokens <= anchor < n_tokens:
        raise InvalidInput("anchor", f"a token index in [{-n_tokens}, {n_tokens})", anchor)
    return anchor


def consensus_metrics(hidden, anchor="first", center: bool = False):
    """``hidden``: ``(B, N, D)`` tensor -> dict of ``(B,)`` float64 tensors, one per metric."""
    torch = require_torch()
    anchor = check_metric_options(anchor, center, int(hidden.shape[1]))
    x = hidden.to(torch.float64)
    if center:
        x = x - x.mean(dim=1, keepdim=True)
    unit = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    if anchor == "mean":
        a = x.mean(dim=1)
        a = a / torch.linalg.vector_norm(a, dim=-1, keepdim=True)
    else:
        a = unit[:, 0 if anchor == "first" else anchor, :]
    cos_anchor = torch.einsum("bnd,bd->bn", unit, a)
    total = unit.sum(dim=1)
    n = x.shape[1]
    return {
        "E_first": 1.0 - cos_anchor.mean(dim=1),
        "E_first_abs": 1.0 - cos_anchor.abs().mean(dim=1),
        "E_pair": 1.0 - (total * total).sum(dim=-1) / (n * n),
    }
