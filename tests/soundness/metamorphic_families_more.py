"""Families of :mod:`metamorphic_cases`, part 2: open hemisphere (Farkas vs z), antipodes, U = P and
P symmetric, equal stack layers (time invariance), stack jumps (uniform continuity, Lipschitz
witnesses), equal layer-norm scales.  Project-free.
"""
from __future__ import annotations

import random

from metamorphic_cases import (EPS, UNITS, Case, F, Q, S, W, near_tokens, plus, random_P, random_tokens, system,
                               token_row, write_matrix)


def _neg(x):
    return tuple(-c for c in x)


def _inplane(rng: random.Random):
    return rng.choice([u for u in UNITS if u[2] == 0 and u[0] != 0 and u[1] != 0 and F(u[0]) != u[0]])


def hemisphere_cases(n: int = 32, seed: int = 2006) -> list[Case]:
    """Tokens on the boundary of a hemisphere: ``x`` exact and ``-x`` written as floats (binary: not
    antipodal, so a hemisphere exists; rounded: antipodal, Farkas), with a third token in the same plane
    on either side or off the plane; and random configurations of 4-5 tokens with float rows (some with
    a float antipode of an exact token), where either answer occurs."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        x = _inplane(rng)
        variant = k % 4
        perp = (x[1], -x[0], Q(0))
        if variant == 0:
            toks = [token_row(x, rng), token_row(_neg(x), rng, True)]
        elif variant == 1:
            third = perp if rng.random() < 0.5 else _neg(perp)
            toks = [token_row(x, rng), token_row(_neg(x), rng, True), token_row(third, rng)]
        elif variant == 2:
            third = rng.choice([u for u in UNITS if u[2] != 0])
            toks = [token_row(_neg(x), rng, True), token_row(x, rng), token_row(third, rng, rng.random() < 0.3)]
        else:  # random configurations (Wendel: 1 in 8 of four random directions has 0 in its hull)
            toks = random_tokens(rng, rng.choice([4, 5]), rng.choice([1, 2]))
            if k % 8 == 7:
                toks[1] = token_row(_neg(tuple(Q(v) for v in toks[0])), rng, True) if all(
                    isinstance(v, (int, str)) for v in toks[0]) else toks[1]
        level = "3.2" if k % 8 == 0 else ("D1" if k % 16 == 4 else None)
        depth = "3.2" if k % 8 == 2 else None
        out.append(Case(f"hemisphere-{k:03d}", "open hemisphere", "3.2",
                        system("full", random_P(rng), "identity", toks), level, depth))
    return out


_ROUNDED = [u for u in UNITS if sum(1 for c in u if c != 0) >= 2 and any(F(c) != c for c in u)]
"""Rational unit vectors that float64 cannot hold exactly."""


def antipodal_cases(n: int = 30, seed: int = 2007) -> list[Case]:
    """``x_i = -x_1``: exact pairs next to a float token (antipodal), ``x_1`` exact with ``-x_1`` written as
    floats (not antipodal), both rows floats (antipodal: the binary values are negatives), and a later
    token on the antipode after tokens at ``+x_1``."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        x = rng.choice(_ROUNDED)
        variant = k % 5
        other = rng.choice(UNITS)
        if variant == 0:
            toks = [token_row(x, rng), token_row(_neg(x), rng), [0.0, 0.0, 1.0] if x[2] == 0 else [1.0, 0.0, 0.0]]
        elif variant == 1:
            toks = [token_row(x, rng), token_row(_neg(x), rng, True), token_row(other, rng)]
        elif variant == 2:
            toks = [token_row(x, rng, True), [-F(c) for c in x], token_row(other, rng)]
        elif variant == 3:
            toks = [token_row(x, rng), token_row(x, rng, True), token_row(_neg(x), rng)]
        else:
            toks = [token_row(x, rng, True), token_row(x, rng), token_row(_neg(x), rng)]
        causal = k % 3 != 2
        data = system("causal" if causal else "full", random_P(rng), "identity", toks)
        level = ("4.2" if causal else "3.2") if k % 3 == 0 else None
        depth = ("4.2" if causal else "3.2") if k % 4 == 2 else None
        out.append(Case(f"antipodal-{k:03d}", "antipodes", "3.2", data, level, depth))  # 3.2: the open hemisphere
    return out


def energy_cases(n: int = 30, seed: int = 2008) -> list[Case]:
    """grad-energy: ``P`` symmetric (a mirrored pair ``"1/10"`` / ``0.1``, ``"1 + eps"`` / ``1.0``) and
    ``U = P`` with one entry written as ``float(p/q)`` or perturbed by ``eps``; exact controls."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        M = [[Q(rng.randint(-6, 6), rng.choice([3, 5, 7, 10, 1, 2])) for _ in range(3)] for _ in range(3)]
        M = [[M[max(a, b)][min(a, b)] for b in range(3)] for a in range(3)]
        P = write_matrix(M, rng)
        U = [row[:] for row in P]
        i, j = rng.choice([(0, 1), (0, 2), (1, 2), (0, 0), (2, 2)])
        variant = k % 6
        if variant == 0:
            U[i][j] = F(M[i][j]) if F(M[i][j]) != M[i][j] else plus(M[i][j], rng.choice(EPS))
        elif variant == 1:
            P[i][j], P[j][i] = "1/10", 0.1
            U = [row[:] for row in P]
        elif variant == 2:
            P[i][j] = plus(M[i][j], rng.choice(EPS))
            U = [row[:] for row in P]
        elif variant == 3:
            U[i][j] = plus(M[i][j], rng.choice(EPS))
        elif variant == 4:
            U[i][j] = W(M[i][j], rng, 1.0) if F(M[i][j]) == M[i][j] else S(M[i][j])  # exact control
        else:
            P = [[F(v) for v in row] for row in M]
            U = [row[:] for row in P]  # all-float control
        data = system("full", P, U, random_tokens(rng, 3))
        level = "grad-energy" if k % 10 == 0 else None  # its symbolic identity costs ~1 s a call
        out.append(Case(f"energy-{k:03d}", "U = P, P symmetric", "grad-energy", data, level))
    return out


def _layer(rng: random.Random, M) -> list:
    return write_matrix(M, rng, 0.6)


def stack_equal_cases(n: int = 30, seed: int = 2009) -> list[Case]:
    """Time invariance: two layers differing by ``1/10^25`` (exact, next to floats), a layer entry
    written as ``float(p/q)`` in one layer and ``"p/q"`` in the other, identical layers (control)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        sym = [[Q(rng.randint(-5, 5), rng.choice([1, 2, 3, 7])) for _ in range(3)] for _ in range(3)]
        M = [[sym[max(a, b)][min(a, b)] for b in range(3)] for a in range(3)]
        first = _layer(rng, M)
        second = [row[:] for row in first]
        i, j = rng.randrange(3), rng.randrange(3)
        variant = k % 4
        if variant == 0:
            second[i][j] = plus(M[i][j], rng.choice(EPS + ("1/10^25",)))
        elif variant == 1:
            nondy = [(a, b) for a in range(3) for b in range(3) if F(M[a][b]) != M[a][b]]
            i, j = rng.choice(nondy) if nondy else (i, j)
            first[i][j], second[i][j] = S(M[i][j]), F(M[i][j])
        elif variant == 3:
            second[i][j] = W(M[i][j], rng, 1.0)  # the same value, maybe written otherwise
        stack = {"kind": "stack", "layers": [first, second] + ([first] if rng.random() < 0.3 else []), "dt": 1.0,
                 "periodic": rng.random() < 0.7, "interpolation": rng.choice(["constant", "linear"])}
        if k % 2 == 0:
            data = system("causal", random_P(rng), stack, random_tokens(rng, 3))
            theorem = "4.4-sym"
        else:
            data = system("full", stack, stack, random_tokens(rng, 3))
            theorem = "grad-energy"
        level = theorem if k % 10 == 0 else None
        out.append(Case(f"layers-{k:03d}", "equal stack layers", theorem, data, level))
    return out


def jump_cases(n: int = 30, seed: int = 2010) -> list[Case]:
    """Stack jumps: consecutive P layers differing by an exact ``eps`` next to floats (a jump that
    rounding hides), by ``float(p/q)`` vs ``"p/q"``, or not at all; constant and linear interpolation
    (uniform continuity, Lipschitz bound), periodic or not (the wrap-around pair)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        M = [[Q(rng.randint(-4, 4), rng.choice([1, 2, 3, 5])) for _ in range(3)] for _ in range(3)]
        layers = [_layer(rng, M) for _ in range(rng.choice([2, 3]))]
        i, j = rng.randrange(3), rng.randrange(3)
        where = rng.randrange(len(layers))
        variant = k % 4
        if variant == 0:
            layers[where][i][j] = plus(M[i][j], rng.choice(EPS), rng.choice([1, -1]))
        elif variant == 1:
            nondy = [(a, b) for a in range(3) for b in range(3) if F(M[a][b]) != M[a][b]]
            i, j = rng.choice(nondy) if nondy else (i, j)
            for L in layers:
                L[i][j] = S(M[i][j])
            layers[where][i][j] = F(M[i][j])
        elif variant == 2:
            layers[-1] = [[F(v) for v in row] for row in M]
            layers[0] = [[S(v) for v in row] for row in M]
        interp = "constant" if k % 3 else "linear"
        P = {"kind": "stack", "layers": layers, "dt": rng.choice([1.0, 0.5, 2.0]), "periodic": rng.random() < 0.6,
             "interpolation": interp}
        depth = "3.2" if k % 10 == 3 else None
        data = system("full", P, "identity", near_tokens(rng, 3, axis=k % 20 == 3))
        level = ("3.2" if k % 2 == 0 else "weights") if k % 5 == 0 else None
        out.append(Case(f"jump-{k:03d}", "stack jumps", "3.2", data, level, depth))
    return out


def ln_cases(n: int = 30, seed: int = 2011) -> list[Case]:
    """Equal layer-norm scales: ``"1 + 1/10^30"`` next to ``1.0``, ``0.1`` next to ``"1/10"``, ``"0.5"`` next
    to ``0.5``, ``"sqrt(2)/2"`` next to its float, zero scales, all-float controls."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        variant = k % 7
        c = rng.choice([Q(1), Q(1, 2), Q(3, 4), Q(2)])
        scale = [W(c, rng, 1.0), float(c), W(c, rng, 0.0)]
        if variant == 0:
            scale[rng.randrange(3)] = plus(c, rng.choice(EPS), rng.choice([1, -1]))
        elif variant == 1:
            scale = [0.1, "1/10", 0.1]
        elif variant == 2:
            scale = ["sqrt(2)/2", 0.7071067811865476, "sqrt(2)/2"]
        elif variant == 3:
            scale = [0.0, "0", 0]
        elif variant == 4:
            scale = [0.1, 0.1, 0.1]
        elif variant == 5:
            scale = ["0.3", 0.3, "3/10"]
        rng.shuffle(scale)
        shift = [W(Q(rng.randint(-2, 2), 4), rng) for _ in range(3)]
        data = system("causal", random_P(rng), "identity", near_tokens(rng, 3),
                      layer_norm={"scale": scale, "shift": shift})
        level = "LN1" if k % 15 == 0 else None  # LN1's symbolic proof costs ~1 s a call
        out.append(Case(f"ln-{k:03d}", "equal LN scales", "4.2", data, level))
    return out


FAMILIES_2 = (hemisphere_cases, antipodal_cases, energy_cases, stack_equal_cases, jump_cases, ln_cases)
