"""Families of :mod:`metamorphic_cases`, part 1: U = I, symmetry, top-eigenvalue multiplicity, zero
eigenvalue, orthogonality to v (the v-hemisphere and the first token's side).  Project-free.

In each family a seeded generator varies the exact value, the perturbation (``"1 + 1/10^30"``,
``"5/13"``-type fractions with large denominators, floats like ``0.1`` whose binary value is not
``1/10``) and where the float stands, so that rounding would flip the relation in some instances
and not in others (controls).  The ground truth never looks at how an instance was made.
"""
from __future__ import annotations

import random

from metamorphic_cases import (AXES, EPS, ORTHO, Case, F, Q, S, UNITS, W, basis_with, conj, dot, near_tokens,
                               plus, random_P, random_tokens, rotation, system, token_row, write_matrix)


def identity_cases(n: int = 32, seed: int = 2001) -> list[Case]:
    """``U = I`` with an exact perturbation next to floats (``"1 + 1/10^30"``, ``"1 - 1/2^60"``),
    off-diagonal tiny entries, stacks with one perturbed layer, and exact controls."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        variant = k % 6
        U = [[W(Q(int(i == j)), rng, 0.7) for j in range(3)] for i in range(3)]
        U[0][1] = 0.0
        i = rng.randrange(3)
        eps = rng.choice(EPS)
        if variant == 0:
            U[i][i] = plus(Q(1), eps, rng.choice([1, -1]))
        elif variant == 1:
            U[i][(i + 1) % 3] = eps  # tiny but representable: rounding keeps it
        elif variant == 2:
            U[i][i] = rng.choice(["1 - 1/2^60", "1 + 1/2^60", "(10^20 + 1)/10^20"])
        elif variant == 3:
            U[i][i] = rng.choice(["1", "10/10", "0.5 + 0.5", "3/3", 1])  # exact control: U = I
        elif variant == 4:
            layer = [[W(Q(int(a == b)), rng, 0.7) for b in range(3)] for a in range(3)]
            bad = [row[:] for row in layer]
            bad[i][i] = plus(Q(1), eps)
            bad[0][2] = 0.0
            U = {"kind": "stack", "layers": [layer, bad] if rng.random() < 0.5 else [bad, layer], "dt": 1.0}
        else:
            U[i][i] = rng.choice([0.1, 0.3, 1.1]) if rng.random() < 0.3 else F(Q(1))  # float control
            U[(i + 1) % 3][(i + 1) % 3] = "1"
        causal = (k // 6) % 2 == 0
        depth = ("4.2" if causal else "3.2") if k % 4 == 1 else None
        toks = near_tokens(rng, 3, axis=depth is not None) if k % 4 < 2 else random_tokens(rng, 3)
        data = system("causal" if causal else "full", random_P(rng) if k % 3 else "identity", U, toks)
        theorem = "4.2" if causal else "3.2"
        level = ["4.2", "3.2", "iss-causal", "weights"][k // 8 % 4] if k % 8 == 0 else None
        out.append(Case(f"identity-{k:03d}", "U = I", theorem, data, level, depth))
    return out


def _sym_base(rng: random.Random) -> list[list[Q]]:
    R = rotation(*rng.choice([(1, 2, 2, 0), (2, 1, 0, 1), (1, 1, 1, 1), (3, 1, 1, 1), (1, 0, 0, 2), (2, 0, 0, 1)]))
    lams = rng.choice([(Q(2), Q(1), Q(1, 2)), (Q(3), Q(1, 3), Q(-1)), (Q(1), Q(1, 2), Q(1, 4)), (Q(5, 2), Q(1), Q(0))])
    return conj(R, lams)


def symmetry_cases(n: int = 30, seed: int = 2002) -> list[Case]:
    """``U`` symmetric: one of a mirrored pair written as a float whose binary value is not the exact
    entry (``"1/10"`` vs ``0.1``, ``"p/q"`` vs ``float(p/q)``), ``"1 + 1/10^30"`` vs ``1.0``, exactly equal
    floats (``"1/2"`` vs ``0.5``) and all-float controls."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        M = _sym_base(rng)
        U = write_matrix(M, rng)
        i, j = rng.choice([(0, 1), (0, 2), (1, 2)])
        if rng.random() < 0.5:
            i, j = j, i
        variant = k % 5
        if variant == 0:
            nondy = [(a, b) for a in range(3) for b in range(3) if a != b and F(M[a][b]) != M[a][b]]
            if nondy:
                i, j = rng.choice(nondy)
            U[i][j], U[j][i] = S(M[i][j]), F(M[i][j])
        elif variant == 1:
            U[i][j], U[j][i] = "1/10", 0.1
        elif variant == 2:
            U[i][j], U[j][i] = plus(Q(1), rng.choice(EPS)), 1.0
        elif variant == 3:
            U[i][j], U[j][i] = rng.choice([("1/2", 0.5), ("0.25", 0.25), ("-3/4", -0.75), (1, 1.0)])
        else:
            U = [[F(v) for v in row] for row in M]
            U[i][j] = U[j][i] = rng.choice([0.1, 1 / 3, 0.7])
        data = system("causal", random_P(rng), U, random_tokens(rng, 3))
        level = "4.4-sym" if k % 10 == 0 else ("4.4-sym-later" if k % 15 == 7 else None)
        out.append(Case(f"symmetry-{k:03d}", "U symmetric", "4.4-sym", data, level))
    return out


def eigen_cases(n: int = 30, seed: int = 2003) -> list[Case]:
    """Simple vs double top eigenvalue: ``diag(1.0, "1 + eps", 0.5)`` (simple, rounds to double),
    ``lambda I + (mu - lambda) w w^T`` with non-dyadic entries (double, rounds to simple), ``0.1``
    next to ``"1/10"`` on the diagonal (simple: the float is bigger), and controls."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        variant = k % 5
        if variant == 0:
            d = [Q(1), Q(1), Q(1, 2)]
            U = [[0.0 if a != b else W(d[a], rng, 0.9) for b in range(3)] for a in range(3)]
            a = rng.randrange(2)
            U[a][a] = plus(Q(1), rng.choice(EPS), rng.choice([1, -1]))
            U[1 - a][1 - a] = 1.0
        elif variant == 1:
            w = rng.choice([u for u in UNITS if u[2] == 0 and u[0] != 0 and u[1] != 0])
            lam, mu = Q(1), rng.choice([Q(1, 3), Q(-1), Q(2, 7)])
            M = [[lam * int(a == b) + (mu - lam) * w[a] * w[b] for b in range(3)] for a in range(3)]
            U = write_matrix(M, rng, 0.9)
        elif variant == 2:
            w = rng.choice([u for u in UNITS if all(c != 0 for c in u)])
            M = [[Q(int(a == b)) - Q(1, 2) * w[a] * w[b] for b in range(3)] for a in range(3)]
            U = write_matrix(M, rng, 0.9)
            U[0][0] = U[0][0] if isinstance(U[0][0], str) else S(M[0][0])
            U[1][2], U[2][1] = S(M[1][2]), S(M[2][1])
            if k % 10 == 2:
                U[2][2] = F(M[2][2])  # a non-dyadic float: the binary value breaks the double eigenvalue
        elif variant == 3:
            U = [[0.1, 0, 0.0], [0, "1/10", 0], [0.0, 0, rng.choice([0.05, "1/20", -1.0])]]
            if rng.random() < 0.5:
                U[0][0], U[1][1] = U[1][1], U[0][0]
        else:
            d = rng.choice([[Q(1), Q(1), Q(1, 2)], [Q(2), Q(1), Q(1)], [Q(3, 2), Q(3, 2), Q(-1)]])
            U = [[0.0 if a != b else (F(d[a]) if a == 0 else S(d[a])) for b in range(3)] for a in range(3)]
        data = system("causal", random_P(rng), U, random_tokens(rng, 3))
        level = "4.4-sym" if k % 10 == 1 else None
        out.append(Case(f"eigen-{k:03d}", "simple top eigenvalue", "4.4-sym", data, level))
    return out


def zero_eigen_cases(n: int = 30, seed: int = 2004) -> list[Case]:
    """``lambda_1 = 0`` vs tiny and positive definite vs singular: the block ``[[-c +- eps, c], [c, -c]]``
    (``lambda_1`` tiny positive, or negative; rounds to 0) and ``[[c +- eps, c], [c, c]]`` (definite or
    indefinite; rounds to singular), ``0.1`` next to ``"1/10"``, and exact controls."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        variant = k % 5
        eps, sgn, c = rng.choice(EPS), rng.choice([1, 1, -1]), rng.choice([1, 2, 3])
        if variant == 0:
            U = [[plus(Q(-c), eps, sgn), float(c), 0.0], [float(c), -float(c), 0],
                 [0.0, 0, rng.choice([-0.5, "-1/3", -2.0])]]
        elif variant == 1:
            U = [[plus(Q(c), eps, sgn), float(c), 0.0], [float(c), float(c), 0],
                 [0.0, 0, rng.choice([0.5, "1/3", 2.0])]]
        elif variant == 2:
            U = [[0.1, 0.1, 0.0], [0.1, "1/10", 0], [0.0, 0, rng.choice([0.5, -0.5, "1/3"])]]
        elif variant == 3:
            U = [[-float(c), float(c), 0.0], [float(c), str(-c), 0], [0.0, 0, -0.5]]  # exact: lambda_1 = 0
        else:
            U = [[float(c), float(c), 0.0], [float(c), str(c), 0], [0.0, 0, 0.5]]  # exact: singular
        theorem = "4.4-hemisphere" if variant in (0, 3) or (variant == 2 and k % 2) else "4.4-same-sign"
        level = theorem if k % 7 == 0 else None
        data = system("causal", random_P(rng), U, random_tokens(rng, 3))
        out.append(Case(f"zero-eig-{k:03d}", "zero eigenvalue", theorem, data, level))
    return out


def orthogonality_cases(n: int = 36, seed: int = 2005) -> list[Case]:
    """``<v, x_i> = 0`` exactly for the top eigenvector ``v`` of an exact ``U``, with a float token next
    to it: the rounded side decides the v-hemisphere (and 4.4-sym's exceptional start) unless the
    exact data are kept.  Variants: x_1 or a later token on ``v^perp``; the other tokens on the rounded
    side or against it; the orthogonal token itself written as floats (then it is off ``v^perp``)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        v, x, s = rng.choice(ORTHO)
        B = basis_with(v)
        lams = rng.choice([(Q(2), Q(1), Q(1, 2)), (Q(3), Q(-1), Q(1, 5)), (Q(1), Q(1, 3), Q(-2))])
        M = conj(B, lams)
        U = write_matrix(M, rng, 0.8, force_float=k % 3 == 0)
        side = s if k % 4 != 1 else -s
        others = [u for u in rng.sample(UNITS, 150) if dot(u, v) * side > 0]
        floats = [u for u in AXES if dot(u, v) * side > 0]
        rows = [rng.choice(floats) if floats and k % 2 == 0 else rng.choice(others) for _ in range(rng.choice([1, 2]))]
        first = token_row(x, rng, as_float=k % 6 == 5)
        toks = [first] + [token_row(r, rng, as_float=i == 0) for i, r in enumerate(rows)]
        if k % 5 == 3:
            toks = [token_row(rows[0], rng, True)] + [first] + toks[2:]
        theorem = "4.4-hemisphere"
        level = ("4.4-sym" if k % 8 == 0 else "4.4-hemisphere") if k % 4 == 0 else None
        data = system("causal", random_P(rng), U, toks)
        out.append(Case(f"orthogonal-{k:03d}", "orthogonality to v", theorem, data, level))
    return out


FAMILIES_1 = (identity_cases, symmetry_cases, eigen_cases, zero_eigen_cases, orthogonality_cases)
