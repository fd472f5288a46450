"""Builders shared by the numerics tests (a plain module: test files import it by name)."""
from __future__ import annotations

import numpy as np

from theorems.system_build import simple_system


def build_system(seed: int, N: int, d: int, *, mask: str = "full", U: str = "identity", beta=1,
                 scale: float = 1.0, P=None, hemisphere: bool = False):
    """A random instance: float ``P`` (``scale`` times standard normal), tokens uniform on the
    sphere (or, with ``hemisphere=True``, in the open hemisphere around ``e_1``)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    if hemisphere:
        X[:, 0] = np.abs(X[:, 0]) + 0.05
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    if P is None:
        P = (scale * rng.standard_normal((d, d))).tolist()
    if U == "identity":
        Um = "identity"
    elif U == "symmetric":
        A = rng.standard_normal((d, d))
        Um = ((A + A.T) / 2).tolist()
    else:
        Um = rng.standard_normal((d, d)).tolist()
    return simple_system(P, Um, X.tolist(), beta=beta, mask=mask)

