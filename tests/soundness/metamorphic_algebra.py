"""Exact algebra for the metamorphic suite's ground truth (:mod:`metamorphic_truth`), issue 20.

Imports nothing from the project: only ``fractions.Fraction``, ``sympy`` and ``itertools``.  Every
number is read *as written* (docs/model.md §8): an int is exact, a JSON float is the binary rational
``Fraction(x)`` it denotes, a string is the exact number it spells (``"0.1"`` is 1/10).  Every
decision here is exact (rational elimination, Sturm counts, root isolation by bisection with exact
tie tests); nothing is rounded and no tolerance decides.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import sympy

X = sympy.Symbol("x")


_VALUES: dict[str, sympy.Expr] = {}


def value(v) -> sympy.Expr:
    """The exact number a JSON leaf denotes."""
    if isinstance(v, bool) or v is None:
        raise TypeError(f"not a number: {v!r}")
    if isinstance(v, int):
        return sympy.Integer(v)
    if isinstance(v, float):
        q = Fraction(v)
        return sympy.Rational(q.numerator, q.denominator)
    if v not in _VALUES:
        try:
            q = Fraction(v)  # "3/7", "-0.6", "2.5e-3": exactly the rational spelled
            _VALUES[v] = sympy.Rational(q.numerator, q.denominator)
        except ValueError:
            _VALUES[v] = sympy.sympify(v.replace("^", "**"), rational=True)
    return _VALUES[v]


def frac(e: sympy.Expr) -> Fraction:
    e = sympy.nsimplify(e) if not e.is_Rational else e
    if not e.is_Rational:
        raise ValueError(f"irrational: {e}")
    return Fraction(int(e.p), int(e.q))


def is_zero(e: sympy.Expr) -> bool:
    """Exact zero test (rationals directly; algebraic numbers through their minimal polynomial)."""
    e = sympy.nsimplify(e) if e.atoms(sympy.Float) else e
    if e.is_Rational:
        return e == 0
    return sympy.minimal_polynomial(e, X) == X


def sign(e: sympy.Expr) -> int:
    if is_zero(e):
        return 0
    return 1 if sympy.N(e, 60) > 0 else -1


def matrix(value_json, d: int) -> dict:
    """``{"layers": [sympy.Matrix, ...], "stack": bool, "interp": str, "periodic": bool}``."""
    if value_json == "identity":
        return {"layers": [sympy.eye(d)], "stack": False}
    if value_json == "zero":
        return {"layers": [sympy.zeros(d, d)], "stack": False}
    if isinstance(value_json, dict):
        if value_json.get("kind") == "stack":
            layers = [sympy.Matrix([[value(v) for v in row] for row in layer]) for layer in value_json["layers"]]
            return {"layers": layers, "stack": True, "interp": value_json.get("interpolation", "constant"),
                    "periodic": value_json.get("periodic", True), "dt": value(value_json.get("dt", 1.0))}
        value_json = value_json["entries"]
    return {"layers": [sympy.Matrix([[value(v) for v in row] for row in value_json])], "stack": False}


def tokens(data: dict) -> list[list[Fraction]]:
    """The token rows as written (rational; see the module doc for why they stay unnormalised)."""
    return [[frac(value(v)) for v in row] for row in data["tokens"]]


def dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


# ----------------------------------------------------------------------------- linear algebra

def solve(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of ``A y = b`` (rows x cols, exact), or None (none, or not unique)."""
    rows, cols = len(A), len(A[0])
    M = [list(r) + [bb] for r, bb in zip(A, b)]
    piv, r = [], 0
    for c in range(cols):
        p = next((i for i in range(r, rows) if M[i][c] != 0), None)
        if p is None:
            continue
        M[r], M[p] = M[p], M[r]
        M[r] = [v / M[r][c] for v in M[r]]
        for i in range(rows):
            if i != r and M[i][c] != 0:
                M[i] = [a - M[i][c] * b_ for a, b_ in zip(M[i], M[r])]
        piv.append(c)
        r += 1
    if any(all(v == 0 for v in M[i][:cols]) and M[i][cols] != 0 for i in range(rows)):
        return None
    if len(piv) < cols:
        return None
    out = [Fraction(0)] * cols
    for i, c in enumerate(piv):
        out[c] = M[i][cols]
    return out


def zero_in_hull(rows: list[list[Fraction]]) -> list[Fraction] | None:
    """Weights ``lambda >= 0``, sum 1, ``sum lambda_i x_i = 0`` (Caratheodory: an affinely independent
    support of at most d + 1 tokens suffices), or None when 0 is not in the convex hull."""
    d = len(rows[0])
    for size in range(1, min(d + 1, len(rows)) + 1):
        for support in itertools.combinations(range(len(rows)), size):
            A = [[rows[i][k] for i in support] for k in range(d)] + [[Fraction(1)] * size]
            lam = solve(A, [Fraction(0)] * d + [Fraction(1)])
            if lam is not None and all(v >= 0 for v in lam):
                out = [Fraction(0)] * len(rows)
                for i, v in zip(support, lam):
                    out[i] = v
                return out
    return None


def charpoly(M: sympy.Matrix) -> sympy.Poly:
    return sympy.Poly(M.charpoly(X).as_expr(), X, domain="QQ")


def root_intervals(p: sympy.Poly) -> list[tuple[Fraction, Fraction, int]]:
    """Isolating intervals ``(a, b, multiplicity)`` of the real roots, ascending (a root with
    ``a < b`` lies strictly inside; an endpoint may be another root)."""
    out = [(Fraction(int(a.p), int(a.q)), Fraction(int(b.p), int(b.q)), int(m))
           for (a, b), m in p.intervals()]
    return sorted(out, key=lambda r: (r[0], r[1]))


def _q(v: Fraction) -> sympy.Rational:
    return sympy.Rational(v.numerator, v.denominator)


def peval(p: sympy.Poly, q: Fraction) -> Fraction:
    v = p.eval(_q(q))
    return Fraction(int(v.p), int(v.q))


def open_count(p: sympy.Poly, a: Fraction, b: Fraction) -> int:
    """Distinct roots of ``p`` in the open interval ``(a, b)`` (or ``[a, a]`` when ``a == b``)."""
    if a == b:
        return int(peval(p, a) == 0)
    if p.degree() <= 0:
        return 0
    return p.count_roots(_q(a), _q(b)) - int(peval(p, a) == 0) - int(peval(p, b) == 0)


def refine(p: sympy.Poly, a: Fraction, b: Fraction, width: Fraction) -> tuple[Fraction, Fraction]:
    """Shrink the isolating interval of the one root of square-free ``p`` in ``(a, b)`` to ``width``
    (SymPy's exact refinement; plain bisection with open root counts when it refuses)."""
    if a == b or b - a <= width:
        return a, b
    try:
        s_, t_ = p.refine_root(_q(a), _q(b), eps=_q(width))
        return Fraction(int(s_.p), int(s_.q)), Fraction(int(t_.p), int(t_.q))
    except Exception:  # noqa: BLE001 - an endpoint that is another root: bisect instead
        pass
    while b - a > width:
        m = (a + b) / 2
        if peval(p, m) == 0:
            return m, m
        if open_count(p, a, m) == 1:
            b = m
        else:
            a = m
    return a, b


def sign_at_root(q: sympy.Poly, p: sympy.Poly, a: Fraction, b: Fraction) -> int:
    """Sign of ``q(r)`` at the one root ``r`` of ``p`` isolated by ``(a, b)`` (exact)."""
    if a == b:
        v = peval(q, a)
        return (v > 0) - (v < 0)
    if q.is_zero:
        return 0
    g = sympy.Poly(sympy.gcd(q.as_expr(), p.as_expr()), X, domain="QQ")
    if g.degree() > 0 and open_count(g, a, b) > 0:
        return 0
    for _ in range(10_000):
        a, b = refine(p, a, b, (b - a) / 2 ** 32)
        if a == b or q.degree() <= 0 or q.count_roots(_q(a), _q(b)) == 0:
            v = peval(q, a)
            return (v > 0) - (v < 0)
    raise RuntimeError("sign_at_root did not terminate")


class Spectrum:
    """Exact facts about the top eigenvalue of a symmetric rational matrix ``U``."""

    def __init__(self, U: sympy.Matrix):
        self.U = U
        self.p = charpoly(U)
        self.sqf = sympy.Poly(sympy.sqf_part(self.p.as_expr()), X, domain="QQ")
        self.roots = root_intervals(self.p)
        self.a1, self.b1, self.mult1 = self.roots[-1]
        self.simple = self.mult1 == 1

    def lambda1_positive(self) -> bool:
        return self.p.count_roots(0, None) - (1 if self.p.eval(0) == 0 else 0) > 0

    def positive_definite(self) -> bool:
        return self.p.count_roots(None, 0) == 0  # no eigenvalue in (-oo, 0]

    def v_sign(self, x, y) -> int:
        """Sign of ``<v, x> <v, y>`` (v the top eigenvector): ``x^T adj(lambda_1 I - U) y`` has that
        sign, with the positive factor ``prod_{k > 1} (lambda_1 - lambda_k)``."""
        lam = sympy.Symbol("lam")
        d = self.U.rows
        if not hasattr(self, "_adj"):
            self._adj = (lam * sympy.eye(d) - self.U).adjugate()
        A = self._adj
        xs = sympy.Matrix([sympy.Rational(v.numerator, v.denominator) for v in x])
        ys = sympy.Matrix([sympy.Rational(v.numerator, v.denominator) for v in y])
        q = sympy.Poly(sympy.expand((xs.T * A * ys)[0, 0]).subs(lam, X), X, domain="QQ")
        return sign_at_root(q, self.sqf, self.a1, self.b1)

    def eigen_ok(self, lam: Fraction) -> bool:
        return peval(self.p, lam) == 0

    def is_top(self, lam: Fraction) -> bool:
        return self.eigen_ok(lam) and self.p.count_roots(sympy.Rational(lam.numerator, lam.denominator), None) == 1 \
            and self.simple

    def gap_at_least(self, g: Fraction) -> bool:
        """``lambda_1 - lambda_2 >= g`` (distinct roots), exactly: refine both isolating intervals
        until they decide, with an exact tie test (``lambda_2 + g = lambda_1`` iff ``lambda_2`` is a
        root of ``gcd(p(x), p(x + g))``, whose roots ``c`` have ``c + g`` a root as well)."""
        if not self.simple or len(self.roots) < 2:
            return False
        a2, b2, _ = self.roots[-2]
        a1, b1 = self.a1, self.b1
        shifted = sympy.Poly(self.sqf.as_expr().subs(X, X + _q(g)), X, domain="QQ")
        common = sympy.Poly(sympy.gcd(shifted.as_expr(), self.sqf.as_expr()), X, domain="QQ")
        if common.degree() > 0 and open_count(common, a2, b2) > 0:
            return True
        for step in range(10_000):
            if a1 - b2 >= g:
                return True
            if b1 - a2 <= g:
                return False
            width = g / 2 ** (8 + 8 * step)
            a1, b1 = refine(self.sqf, a1, b1, width)
            a2, b2 = refine(self.sqf, a2, b2, width)
        raise RuntimeError("gap comparison did not terminate")


_SPECTRA: dict[tuple, Spectrum] = {}


def spectrum(U: sympy.Matrix) -> Spectrum:
    """:class:`Spectrum` of ``U``, memoised (the truth and the witness re-check ask the same matrices)."""
    key = tuple(U)
    if key not in _SPECTRA:
        _SPECTRA[key] = Spectrum(U)
    return _SPECTRA[key]
