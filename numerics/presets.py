"""The paper's simulation cases (§5) as named, seeded instances.

A preset name is ``"<P>-<U>-<mask>"`` with ``P`` in ``constant`` (one random matrix),
``periodic`` (``P0 + sin(t) P1``, bounded and uniformly continuous), ``piecewise`` (random
matrices held for one unit of time each, cycled: bounded but discontinuous); ``U`` in
``identity`` (Theorems 3.2 / 4.2), ``symmetric`` (Assumption 4.4's setting, one head) or
``random`` (no theorem applies); ``mask`` in ``full`` / ``causal``.  Matrix entries are
rationals with denominator 8, so the exact checks of :mod:`theorems` apply to presets too.
The default temperature is ``beta = 1``.
"""
from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from theorems.errors import InvalidInput, UnknownName
from theorems.system import AttentionSystem
from theorems.system_json import system_from_dict

P_KINDS = ("constant", "periodic", "piecewise")
U_KINDS = ("identity", "symmetric", "random")
MASKS = ("full", "causal")
PRESETS = tuple(f"{p}-{u}-{m}" for p, u, m in product(P_KINDS, U_KINDS, MASKS))


def _rational(rng: np.random.Generator, d: int, scale: int = 8) -> list[list[str]]:
    return [[f"{int(v)}/8" for v in row] for row in rng.integers(-scale, scale + 1, size=(d, d))]


def random_tokens(rng: np.random.Generator, N: int, d: int) -> np.ndarray:
    """``N`` points drawn uniformly on ``S^{d-1}``."""
    X = rng.standard_normal((N, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def preset_dict(name: str, *, N: int = 12, d: int = 3, seed: int = 0) -> dict[str, Any]:
    """The JSON form of a preset (``system_from_dict`` reads it)."""
    if name not in PRESETS:
        raise UnknownName("preset", name, PRESETS)
    for label, v, lo in (("N", N, 1), ("d", d, 2)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InvalidInput(label, f"an integer >= {lo}", v)
    p_kind, u_kind, mask = name.split("-")
    rng = np.random.default_rng(seed)
    if p_kind == "constant":
        P: Any = _rational(rng, d)
    elif p_kind == "periodic":
        P0, P1 = _rational(rng, d), _rational(rng, d)
        P = {"kind": "expression", "entries": [[f"{a} + ({b})*sin(t)" for a, b in zip(r0, r1)] for r0, r1 in zip(P0, P1)]}
    else:
        P = {"kind": "stack", "dt": 1.0, "periodic": True, "interpolation": "constant",
             "layers": [_rational(rng, d) for _ in range(6)]}
    if u_kind == "identity":
        U: Any = "identity"
    elif u_kind == "symmetric":
        A = rng.integers(-8, 9, size=(d, d))
        U = [[f"{int(v)}/16" for v in row] for row in (A + A.T)]
    else:
        U = _rational(rng, d)
    tokens = random_tokens(rng, N, d)
    return {"name": name, "description": f"preset {name} (seed {seed})", "d": d, "beta": 1, "mask": mask,
            "heads": [{"P": P, "U": U}], "tokens": tokens.tolist(), "normalize_tokens": True}


def preset(name: str, *, N: int = 12, d: int = 3, seed: int = 0) -> AttentionSystem:
    """Build a preset instance (see the module docstring for the naming scheme)."""
    return system_from_dict(preset_dict(name, N=N, d=d, seed=seed))


def with_random_tokens(system: AttentionSystem, count: int, seed: int) -> list[AttentionSystem]:
    """``count`` copies of ``system`` sharing its heads, each with fresh uniform tokens."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidInput("samples", "a positive integer", count)
    rng = np.random.default_rng(seed)
    return [system.with_tokens(random_tokens(rng, system.N, system.d)) for _ in range(count)]
