"""Consensus metrics of SPEC §4, in torch, computed in float64 from the residual stream.

For token states ``x_1..x_N`` (rows of one prompt) and ``c_j = cos(x_1, x_j)``:

    E_first     = 1 - (1/N) sum_j c_j            (the authors' metric, anchor token 1)
    E_first_abs = 1 - (1/N) sum_j |c_j|          (older variant: alignment with the line of x_1)
    E_pair      = 1 - (1/N^2) sum_{i,j} cos(x_i, x_j) = 1 - |sum_i x_i/|x_i||^2 / N^2

No mean-centring and no normalization layer are applied here: the caller decides which states to
pass (the consensus run passes the raw residual stream after every block).
"""
from __future__ import annotations

from ._deps import require_torch

METRICS = ("E_first", "E_first_abs", "E_pair")


def consensus_metrics(hidden):
    """``hidden``: ``(B, N, D)`` tensor -> dict of ``(B,)`` float64 tensors, one per metric."""
    torch = require_torch()
    x = hidden.to(torch.float64)
    unit = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    cos_first = torch.einsum("bnd,bd->bn", unit, unit[:, 0, :])
    total = unit.sum(dim=1)
    n = x.shape[1]
    return {
        "E_first": 1.0 - cos_first.mean(dim=1),
        "E_first_abs": 1.0 - cos_first.abs().mean(dim=1),
        "E_pair": 1.0 - (total * total).sum(dim=-1) / (n * n),
    }
