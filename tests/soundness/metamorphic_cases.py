"""Generated instances for the metamorphic suite (issue 20): exact strings next to JSON floats where
rounding to float64 would create or destroy a relation.  Project-free (``random``, ``fractions``).

Every instance is deterministic (``random.Random(seed)`` per family).  A :class:`Case` names the
relation it probes, the catalogue id whose hypotheses are compared predicate by predicate
(``verify.assumptions``), and optionally a theorem-level check (``verify.theorem``) and a depth
check (``verify.depth``).  :func:`twin` is the all-exact twin: every JSON float replaced by the
string ``"p/q"`` of ``Fraction(float)``, with ``"normalize_tokens": true`` when a token row is then
not exactly a unit vector.

Writers: ``W(q)`` writes an exact rational as a float when its binary value *is* ``q`` (dyadic),
else as a string, so the written numbers mean the intended values; ``F(q)`` writes ``float(q)``
even when that is *not* ``q`` (a float whose binary value differs from the decimal it prints).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Q = Fraction
EPS = ("1/10^30", "1/10^25", "1/2^70", "3/10^28", "1/(7*10^22)", "1/10^40")


@dataclass(frozen=True)
class Case:
    id: str
    relation: str
    theorem: str
    data: dict
    theorem_level: str | None = None
    depth: str | None = None
    note: str = ""


def S(q: Fraction) -> Any:
    """Exact writing: an int for integers, else the string ``"p/q"``."""
    q = Fraction(q)
    return q.numerator if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def dyadic(q: Fraction) -> bool:
    q = Fraction(q)
    return q.denominator & (q.denominator - 1) == 0 and abs(q.numerator) < 2 ** 53


def W(q: Fraction, rng: random.Random, p_float: float = 0.5) -> Any:
    """``q`` written exactly: a float only when the float is exactly ``q`` (dyadic); a terminating
    decimal sometimes as a decimal string (``"0.6"`` is exactly 3/5)."""
    q = Fraction(q)
    if dyadic(q) and rng.random() < p_float:
        return float(q)
    den = q.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den == 1 and q.denominator > 1 and rng.random() < 0.3:
        return decimal(q)
    return S(q)


def decimal(q: Fraction) -> str:
    """The exact terminating decimal string of ``q`` (``3/5`` -> ``"0.6"``)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 200
        return format(Decimal(q.numerator) / Decimal(q.denominator), "f")


def F(q: Fraction) -> float:
    return float(Fraction(q))


def plus(q: Fraction, eps: str, sign: int = 1) -> str:
    """``q +- eps`` as one exact string (``"313/169 + 1/10^30"``)."""
    return f"{S(q)} {'+' if sign > 0 else '-'} {eps}"


def write_matrix(M, rng: random.Random, p_float: float = 0.5, force_float: bool = True) -> list[list[Any]]:
    """Exact writing of ``M``; with ``force_float`` one dyadic entry (if any) is a float, one
    non-dyadic entry (if any) a string, so the matrix is mixed whenever it can be."""
    out = [[W(v, rng, p_float) for v in row] for row in M]
    cells = [(i, j) for i in range(len(M)) for j in range(len(M))]
    if force_float and not any(isinstance(v, float) for row in out for v in row):
        dy = [c for c in cells if dyadic(M[c[0]][c[1]])]
        if dy:
            i, j = rng.choice(dy)
            out[i][j] = float(M[i][j])
    return out


def _units(limit: int = 27) -> list[tuple[Fraction, ...]]:
    found = set()
    for n in range(1, limit + 1):
        for a in range(0, n + 1):
            for b in range(0, n + 1):
                c2 = n * n - a * a - b * b
                if c2 < 0:
                    continue
                c = int(round(c2 ** 0.5))
                if c * c != c2:
                    continue
                for sa in (1, -1):
                    for sb in (1, -1):
                        for sc in (1, -1):
                            found.add((Q(sa * a, n), Q(sb * b, n), Q(sc * c, n)))
    return sorted(found)


UNITS = _units()
"""Every rational unit vector of R^3 with denominator at most 27."""
_FULL = [u for u in UNITS if all(c != 0 for c in u)]
AXES = [u for u in UNITS if sum(1 for c in u if c != 0) == 1]


def dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def rounded_dot(a, b) -> Fraction:
    """``<a, b>`` after rounding both to float64 (what a rounding reader decides on)."""
    return sum((Fraction(float(x)) * Fraction(float(y)) for x, y in zip(a, b)), Fraction(0))


def orthogonal_pairs(max_den: int = 19) -> list[tuple[tuple, tuple, int]]:
    """``(v, x, s)``: ``<v, x> = 0`` exactly, ``s = sign`` of the rounded inner product (nonzero);
    ``v`` with at most one zero coordinate and denominator at most ``max_den``."""
    scaled = {}
    for u in UNITS:
        den = max(c.denominator for c in u)
        if den <= max_den:
            n = 1
            for c in u:
                n = n * c.denominator // math.gcd(n, c.denominator)
            scaled[u] = tuple(int(c * n) for c in u)
    out = []
    for v, iv in scaled.items():
        if sum(1 for c in v if c == 0) > 1:
            continue
        for x, ix in scaled.items():
            if iv[0] * ix[0] + iv[1] * ix[1] + iv[2] * ix[2] == 0:
                r = rounded_dot(v, x)
                if r != 0:
                    out.append((v, x, 1 if r > 0 else -1))
    return out


ORTHO = orthogonal_pairs()


def rotation(a: int, b: int, c: int, d: int) -> list[list[Fraction]]:
    """The rational rotation of the quaternion ``(a, b, c, d)``."""
    n = a * a + b * b + c * c + d * d
    R = [[a * a + b * b - c * c - d * d, 2 * (b * c - a * d), 2 * (b * d + a * c)],
         [2 * (b * c + a * d), a * a - b * b + c * c - d * d, 2 * (c * d - a * b)],
         [2 * (b * d - a * c), 2 * (c * d + a * b), a * a - b * b - c * c + d * d]]
    return [[Q(v, n) for v in row] for row in R]


def basis_with(v) -> list[list[Fraction]]:
    """A rational orthonormal basis (columns) whose first column is the rational unit ``v``."""
    for w in UNITS:
        if dot(v, w) == 0:
            u = (v[1] * w[2] - v[2] * w[1], v[2] * w[0] - v[0] * w[2], v[0] * w[1] - v[1] * w[0])
            return [[v[i], w[i], u[i]] for i in range(3)]
    raise AssertionError(f"no rational orthonormal completion of {v}")


def conj(R, lams) -> list[list[Fraction]]:
    """``R diag(lams) R^T``."""
    return [[sum((R[i][k] * lams[k] * R[j][k] for k in range(3)), Fraction(0)) for j in range(3)] for i in range(3)]


def eye() -> list[list[Fraction]]:
    return [[Q(int(i == j)) for j in range(3)] for i in range(3)]


def token_row(x, rng: random.Random, as_float: bool = False) -> list[Any]:
    if as_float:
        return [float(c) for c in x]
    return [W(c, rng, 0.5) for c in x]


def random_tokens(rng: random.Random, n: int, float_rows: int = 1) -> list[list[Any]]:
    """``n`` rational unit tokens, ``float_rows`` of them written as floats (decimal round-off)."""
    rows = [rng.choice(UNITS) for _ in range(n)]
    picks = set(rng.sample(range(n), min(float_rows, n)))
    return [token_row(x, rng, i in picks) for i, x in enumerate(rows)]


def near_tokens(rng: random.Random, n: int, float_rows: int = 1, axis: bool = False) -> list[list[Any]]:
    """Tokens with ``<x_1, x_i> > 1/2`` for all i (depth 4.2 and 3.2 can certify a bound).  With
    ``axis``, ``x_1`` is a float axis vector (exactly unit) and the others are exact, so that a
    certificate built on rounded tokens shows."""
    if axis:
        k = rng.randrange(3)
        x1 = tuple(Q(int(j == k)) for j in range(3))
        rows = [u for u in rng.sample(UNITS, 400) if u[k] > Q(1, 2)][: n - 1]
        return [[float(c) for c in x1]] + [[S(c) for c in u] for u in rows]
    x1 = rng.choice(_FULL)
    rows = [x1]
    while len(rows) < n:
        u = rng.choice(UNITS)
        if dot(u, x1) > Q(1, 2):
            rows.append(u)
    picks = set(rng.sample(range(1, n), min(float_rows, n - 1)))
    return [token_row(x, rng, i in picks) for i, x in enumerate(rows)]


def random_P(rng: random.Random) -> Any:
    """A constant P of small rational and dyadic-float entries (any P is bounded)."""
    kind = rng.random()
    if kind < 0.3:
        return "identity"
    M = [[Q(rng.randint(-4, 4), rng.choice([1, 2, 3, 4, 5, 8])) for _ in range(3)] for _ in range(3)]
    return write_matrix(M, rng, 0.5)


def system(mask: str, P: Any, U: Any, toks: list, **extra) -> dict:
    data = {"d": 3, "beta": 1, "mask": mask, "heads": [{"P": P, "U": U}], "tokens": toks}
    data.update(extra)
    return data


def _leaf_exact(v: Any) -> Any:
    if isinstance(v, float):
        return S(Fraction(v))
    if isinstance(v, list):
        return [_leaf_exact(x) for x in v]
    return v


def twin(data: dict) -> dict:
    """The all-exact twin: every float of the matrices, tokens and layer norm becomes ``"p/q"``."""
    out = dict(data)
    heads = []
    for h in data["heads"]:
        new = {}
        for key in ("P", "U"):
            m = h[key]
            if isinstance(m, dict):
                m = dict(m)
                if "layers" in m:
                    m["layers"] = _leaf_exact(m["layers"])
                if "entries" in m:
                    m["entries"] = _leaf_exact(m["entries"])
            elif isinstance(m, list):
                m = _leaf_exact(m)
            new[key] = m
        heads.append(new)
    out["heads"] = heads
    out["tokens"] = _leaf_exact(data["tokens"])
    if "layer_norm" in data:
        out["layer_norm"] = {k: _leaf_exact(v) for k, v in data["layer_norm"].items()}
    if any(_needs_normalising(row) for row in data["tokens"]):
        out["normalize_tokens"] = True
    return out


def _needs_normalising(row: list) -> bool:
    if not any(isinstance(v, float) for v in row):
        return False
    return sum((Fraction(v) if isinstance(v, float) else _exact(v)) ** 2 for v in row) != 1


def _exact(v: Any) -> Fraction:
    return Fraction(v)  # the generator writes exact token entries as ints, "p/q" or decimal strings


def mixed(data: dict) -> bool:
    """Some matrix, stack, token list or layer norm holds both a float and an exact entry."""
    def leaves(x):
        if isinstance(x, list):
            for y in x:
                yield from leaves(y)
        elif isinstance(x, dict):
            for y in x.values():
                yield from leaves(y)
        elif not isinstance(x, (str, bool)) or x not in ("identity", "zero", "constant", "linear", "stack"):
            yield x
    groups = [h[k] for h in data["heads"] for k in ("P", "U")] + [data["tokens"], data.get("layer_norm", [])]
    for g in groups:
        if isinstance(g, dict):
            g = g.get("layers", g.get("entries", g.get("scale", [])))
        kinds = {isinstance(v, float) for v in leaves(g) if not isinstance(v, bool)}
        if kinds == {True, False}:
            return True
    return False
