"""Exact top-eigenvalue analysis of a symmetric constant matrix with irrational exact entries
(Assumption 4.4; :func:`theorems.predicates._eigen.top_eigen` dispatches here).

Exact irrational data (``sqrt(2)``, ``cos(pi/5)``, ``pi``, ...), dimension <= :data:`EXACT_ALGEBRAIC_DIM`:

1. *Isolation* (any enclosable constants).  Each entry is enclosed by an arb ball (the enclosure
   engine, :func:`theorems.enclosure.constant_interval`), the characteristic polynomial of the ball
   matrix is computed in ball arithmetic (``arb_mat.charpoly``: its coefficient balls contain the
   exact coefficients) and its roots are isolated by ``acb_poly.roots`` (arb's root inclusion
   ``n |p(m)/p'(m)|``, valid for every polynomial in the coefficient balls).  ``d`` pairwise
   disjoint discs, each holding at least one root of a degree-``d`` polynomial, hold exactly one
   each: every eigenvalue is simple.  A disc whose mirror image meets no other disc holds a real
   root (the polynomial is real), so nothing here relies on the caller's symmetry check.  Real
   parts that are pairwise disjoint order the eigenvalues; ``lo(lambda_1) - hi(lambda_2)`` is the
   proven gap bound.  Precision 128, 256, 512 bits; after step 2 could not decide, up to 4096.
2. *Exact multiplicities* (algebraic entries, ``d <=`` :data:`FIELD_DIM`; when isolation fails: a
   multiple or very close eigenvalue).  The entries are mapped into one number field
   ``QQ(theta)`` (SymPy ``primitive_element``, exact), the characteristic polynomial is computed
   there exactly (Berkowitz, ``DomainMatrix.charpoly``) and split into its square-free
   factorisation ``prod f_k^k`` (``dup_sqf_list``, exact); the roots of the ``f_k`` (square-free,
   pairwise coprime) are isolated as in step 1, coefficients enclosed through a ball of ``theta``.
   The multiplicity of ``lambda_1`` is the ``k`` of the factor holding the largest root: 1 holds,
   more fails (both exact).  A square-free polynomial whose roots stay unseparated still holds,
   with Mahler's root separation bound as the gap bound.  Cross-checks (not proofs, bug traps):
   each generator's image and the exact polynomial must meet their ball enclosures.

Transcendental entries whose isolation fails, fields of degree > :data:`FIELD_DEGREE_CAP` and
roots not separated at 4096 bits are unknown, with the reason.  Not guaranteed: ``lambda_1`` is an
exact SymPy string only for ``d = 2`` or an eigenvalue found as a linear factor (else a text with
its rational enclosure); ``v`` is exact only then, otherwise the float eigenvector (``v_exact``
False, a hint).  Larger float problems are unknown (the float gap is reported as a measurement).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import flint
import sympy
from flint import acb_poly, arb, arb_mat, ctx
from sympy.polys.matrices import DomainMatrix
from sympy.polys.numberfields.subfield import primitive_element
from sympy.polys.euclidtools import dup_discriminant
from sympy.polys.sqfreetools import dup_sqf_list

from ..enclosure import constant_interval
from ..enclosure.box import to_fraction as arb_fraction
from ..matrices import ConstantMatrix
from ..verdict import Status
from ._rational import enclose, fstr, rational_lower
from ._eigen_support import Interval, PRECISIONS, _X, _eigenvector, _float_info, _in, _interval, _dec, _short

EXACT_ALGEBRAIC_DIM = 32
"""Largest dimension for exact irrational data (step 1: about 0.3 s at d = 32, 25 ms at d = 8)."""

FIELD_DEGREE_CAP = 64
"""Largest degree of the number field of step 2."""

FIELD_DIM = 16
"""Largest dimension for step 2 (0.1 to 4 s at d = 16 by field degree 2 to 16; 15 s at d = 24)."""


class _Undecided(Exception):
    """Internal: the exact multiplicity step cannot decide (carries the reason)."""


def _ball(expr: sympy.Expr, prec: int) -> arb | None:
    """An arb ball containing the constant ``expr`` (the enclosure engine at ``prec`` bits)."""
    iv = constant_interval(expr, prec=prec)
    return None if iv is None else iv.lo.union(iv.hi)


def _charpoly_balls(U: sympy.Matrix, prec: int) -> list[list[arb]] | None:
    """Coefficient balls (constant term first) of ``det(x I - U)``, from entry balls; None when an
    entry cannot be enclosed."""
    entries = [_ball(U[i, j], prec) for i in range(U.rows) for j in range(U.cols)]
    if any(e is None for e in entries):
        return None
    return [[c for c in arb_mat(U.rows, U.cols, entries).charpoly().coeffs()]]


def _isolate(polys_at: Callable[[int], list[list[arb]] | None],
             precisions: tuple[int, ...] = PRECISIONS) -> tuple[list[tuple[Interval, int]], int] | None:
    """Isolate every root of each polynomial ``polys_at(prec)`` (coefficient balls, constant term
    first) into rational intervals ``[lo, hi]`` that are pairwise disjoint across all polynomials
    and each proven to hold exactly one root, which is real.  Returns ``(sorted [(interval,
    polynomial index)], prec)``, or None when the last precision fails."""
    for prec in precisions:
        with ctx.workprec(prec):
            polys = polys_at(prec)
            if polys is None:
                return None
            found: list[tuple[Interval, int]] = []
            for index, coeffs in enumerate(polys):
                poly = acb_poly(coeffs)
                try:
                    roots = poly.roots(maxprec=2 * prec)
                except ValueError:  # not isolated at this precision (or a multiple root)
                    break
                try:  # tighten to about prec/2 bits (isolation alone may stop at 32 bits)
                    roots = poly.roots(tol=arb(2) ** (-(prec // 2)) * (1 + poly.root_bound()), maxprec=2 * prec)
                except ValueError:
                    pass
                if len(roots) != len(coeffs) - 1:
                    break
                # p is real: conj(z) is a root in conj(disc); if conj(disc) meets no other disc, conj(z) = z.
                if not all(not r.conjugate().overlaps(s) for r in roots for s in roots if s is not r):
                    break
                found += [((arb_fraction(r.real.lower()), arb_fraction(r.real.upper())), index) for r in roots]
            else:
                found.sort(key=lambda item: item[0][0])
                if all(g > 0 for g in _gaps(found)):
                    short = [(_outward(iv), index) for iv, index in found]
                    keep = all(g >= raw * (1 - Fraction(1, 10 ** 9)) for g, raw in zip(_gaps(short), _gaps(found)))
                    return (short if keep else found), prec
    return None


def _gaps(found: list[tuple[Interval, int]]) -> list[Fraction]:
    return [b[0][0] - a[0][1] for a, b in zip(found, found[1:])]


def _outward(iv: Interval, digits: int = 24) -> Interval:
    """``iv`` widened to endpoints with about ``digits`` significant decimals (readable, still exact;
    kept only when no gap between neighbours shrinks by more than 1e-9 of itself)."""
    try:
        size = float(max(abs(iv[0]), abs(iv[1])))
    except OverflowError:
        return iv
    if not 0 < size < math.inf:
        return iv
    scale = Fraction(10) ** (digits - math.floor(math.log10(size)))
    return Fraction(math.floor(iv[0] * scale)) / scale, Fraction(math.ceil(iv[1] * scale)) / scale


def _gap_bound(lo1: Fraction, hi2: Fraction) -> Fraction:
    """``lo1 - hi2``, or a short rational below it (float only proposes; the comparison is exact)."""
    gap_lb = lo1 - hi2
    for x in (float(gap_lb), float(gap_lb) * (1 - 1e-12)):
        short = rational_lower(x)
        if 0 < short <= gap_lb:
            return short
    return gap_lb


def _algebraic_top(m: ConstantMatrix) -> tuple[Status, dict[str, Any]]:
    U = sympy.Matrix(m.exact)
    if _charpoly_balls(U, PRECISIONS[0]) is None:
        return Status.UNKNOWN, {"reason": "an entry of U is not an enclosable real constant", "exact": False,
                                **_float_info(m)}
    balls = lambda prec: _charpoly_balls(U, prec)  # noqa: E731
    found = _isolate(balls, PRECISIONS[:3])
    if found is None:  # a multiple (or very close) eigenvalue: decide exactly, else try harder numerically
        try:
            return _field_top(m, U)
        except _Undecided as exc:
            found = _isolate(balls, PRECISIONS[3:])
            if found is None:
                return Status.UNKNOWN, {"reason": f"eigenvalues not isolated at {PRECISIONS[-1]} bits and "
                                                  f"multiplicities not decidable exactly: {exc}",
                                        "exact": False, **_float_info(m)}
    roots, prec = found
    (iv1, _), (iv2, _) = roots[-1], roots[-2]
    witness = {"multiplicity": 1, "lambda_1": f"largest eigenvalue, {_in(iv1)}",
               "lambda_2": f"second largest eigenvalue, {_in(iv2)}",
               "gap": f"lambda_1 - lambda_2 >= {_dec(iv1[0] - iv2[1])}",
               "gap_lower_bound": fstr(_gap_bound(iv1[0], iv2[1])),
               "lambda_1_interval": _interval(iv1), "lambda_2_interval": _interval(iv2),
               "eigenvalue_intervals": [_interval(iv) for iv, _ in roots[::-1]], "precision_bits": prec,
               "method": "entry balls -> arb charpoly -> acb_poly.roots: d disjoint real root enclosures",
               "exact": True,
               **_float_info(m), "v": None, "v_exact": False}
    if U.rows == 2:
        witness.update(_quadratic_exact(U, iv1, iv2))
    if not witness["v_exact"]:
        witness["v"] = witness["v_float"]
    return Status.HOLDS, witness


def _quadratic_exact(U: sympy.Matrix, iv1: Interval, iv2: Interval) -> dict[str, Any]:
    """``d = 2``: ``lambda = (a + c +- sqrt((a - c)^2 + 4 b b')) / 2`` exactly, the ``+`` root the larger
    (the discriminant is positive: the roots were isolated apart); cross-checked against the
    intervals, else nothing is added."""
    a, b, b2, c = U[0, 0], U[0, 1], U[1, 0], U[1, 1]
    root = sympy.sqrt(sympy.expand((a - c) ** 2 + 4 * b * b2))
    lam1, lam2 = (a + c + root) / 2, (a + c - root) / 2
    try:
        (l1lo, l1hi), (l2lo, l2hi) = enclose(lam1), enclose(lam2)
    except ValueError:
        return {}
    if not (iv1[0] <= l1hi and l1lo <= iv1[1] and iv2[0] <= l2hi and l2lo <= iv2[1]):
        return {}
    out = {"lambda_1": str(lam1), "lambda_2": str(lam2), "gap": str(root)}
    out.update(_eigenvector(U, lam1))
    return out


# --- step 2: exact multiplicities over a number field -----------------------------------------


def _generators(e: sympy.Expr, out: list[sympy.Expr]) -> None:
    """The irrational atoms of ``e``: everything but rationals, sums, products and integer powers."""
    if isinstance(e, sympy.Rational):
        return
    if isinstance(e, (sympy.Add, sympy.Mul)) or (isinstance(e, sympy.Pow) and isinstance(e.exp, sympy.Integer)):
        for arg in (e.base,) if isinstance(e, sympy.Pow) else e.args:
            _generators(arg, out)
    elif e not in out:
        out.append(e)


def _to_field(e: sympy.Expr, K, images: dict) -> Any:
    """The element of ``K`` equal to ``e`` (the field operations mirror the expression tree)."""
    if isinstance(e, sympy.Rational):
        return K.from_sympy(e)
    if isinstance(e, (sympy.Add, sympy.Mul)):
        parts = [_to_field(arg, K, images) for arg in e.args]
        total = K.zero if isinstance(e, sympy.Add) else K.one
        for part in parts:
            total = total + part if isinstance(e, sympy.Add) else total * part
        return total
    if isinstance(e, sympy.Pow) and isinstance(e.exp, sympy.Integer):
        base, n = _to_field(e.base, K, images), int(e.exp)
        if n < 0 and not base:
            raise _Undecided(f"the denominator {e.base} is 0")
        return (K.one / base) ** (-n) if n < 0 else base ** n
    return images[e]


def _number_field(U: sympy.Matrix):
    """``(K, theta, entries in K)``: ``K = QQ[x]/(minpoly)`` embedded in R by ``x -> theta``
    (``theta = sum c_i a_i`` over the atoms ``a_i``, SymPy's ``primitive_element``, exact)."""
    atoms: list[sympy.Expr] = []
    for e in U:
        _generators(e, atoms)
    try:
        minpoly, coeffs, reps = primitive_element(atoms, _X, ex=True)
    except Exception as exc:  # noqa: BLE001 - NotAlgebraic, CoercionFailed, ...: the exact step cannot decide
        raise _Undecided(f"an entry is not (recognised as) algebraic ({type(exc).__name__})") from exc
    degree = sympy.degree(minpoly, _X)
    if degree > FIELD_DEGREE_CAP:
        raise _Undecided(f"the number field of the entries has degree {degree} > {FIELD_DEGREE_CAP}")
    theta = sympy.Add(*[c * a for c, a in zip(coeffs, atoms)])
    K = sympy.QQ.algebraic_field(sympy.AlgebraicNumber((sympy.Poly(minpoly, _X), theta)))
    images = {a: K(list(rep)) for a, rep in zip(atoms, reps)}
    with ctx.workprec(PRECISIONS[0]):  # cross-check of the embedding: theta real, the right conjugate
        t = _ball(theta, PRECISIONS[0])
        for a, image in images.items():
            ball = _ball(a, PRECISIONS[0])
            if t is None or ball is None or not _field_value(image, t).overlaps(ball):
                raise _Undecided(f"the number-field image of {a} does not match its enclosure")
    return K, theta, [[_to_field(U[i, j], K, images) for j in range(U.cols)] for i in range(U.rows)]


def _field_value(c, t: arb) -> arb:
    """Ball of the field element ``c`` (a polynomial in ``theta``, highest coefficient first) at ``t ∋ theta``."""
    acc = arb(0)
    for q in c.to_list():
        acc = acc * t + arb(flint.fmpq(int(q.numerator), int(q.denominator)))
    return acc


def _field_expr(K, c, theta: sympy.Expr) -> sympy.Expr:
    """``c`` as a SymPy constant: expanded in the radicals for fields of degree <= 8, else a
    polynomial in ``theta`` (expansion costs ~0.3 s per element at degree 16)."""
    terms = c.to_list()
    expr = sympy.Add(*[sympy.Rational(int(q.numerator), int(q.denominator)) * theta ** k
                       for k, q in enumerate(reversed(terms))])
    return sympy.expand(expr) if K.mod.degree() <= 8 else expr


def _poly_text(K, coeffs: list, theta: sympy.Expr) -> str:
    expr = sympy.Add(*[_field_expr(K, c, theta) * _X ** k for k, c in enumerate(reversed(coeffs))])
    return _short(expr, "(long; recompute over the number field)")


def _exact_root(K, f: list, iv: Interval):
    """An element of ``K`` equal to the one root of ``f`` in ``iv``: ``f`` linear, or ``f`` rational
    with a linear factor over ``QQ`` whose root lies in ``iv`` (``iv`` isolates that root); else None."""
    if len(f) == 2:
        return -f[1]
    if not all(len(c.to_list()) <= 1 for c in f):
        return None
    q = [c.to_list()[0] if c else 0 for c in reversed(f)]
    poly = flint.fmpq_poly([flint.fmpq(int(getattr(a, "numerator", a)), int(getattr(a, "denominator", 1))) for a in q])
    for factor, _ in poly.factor()[1]:
        if factor.degree() == 1:
            r = -factor[0] / factor[1]
            r = Fraction(int(r.p), int(r.q))
            if iv[0] <= r <= iv[1]:
                return K.from_sympy(sympy.Rational(r.numerator, r.denominator))
    return None


def _field_top(m: ConstantMatrix, U: sympy.Matrix) -> tuple[Status, dict[str, Any]]:
    """Step 2 (module docstring); ``_Undecided`` when ``U``'s entries do not give a number field."""
    if U.rows > FIELD_DIM:
        raise _Undecided(f"the exact step is limited to d <= {FIELD_DIM}")
    K, theta, entries = _number_field(U)
    d = U.rows
    UK = DomainMatrix(entries, (d, d), K)
    charpoly = UK.charpoly()
    with ctx.workprec(PRECISIONS[0]):  # cross-check of the exact algebra against the ball charpoly
        t, balls = _ball(theta, PRECISIONS[0]), _charpoly_balls(U, PRECISIONS[0])[0]
        if t is None or not all(_field_value(c, t).overlaps(b) for c, b in zip(reversed(charpoly), balls)):
            raise _Undecided("the exact characteristic polynomial does not match its ball enclosure")
    factors = [([c / f[0] for c in f], k) for f, k in dup_sqf_list(charpoly, K)[1]]  # monic, pairwise coprime
    if sum(k * (len(f) - 1) for f, k in factors) != d:
        raise ValueError("square-free factorisation does not match the degree")  # a bug, not bad input
    found = _isolate(lambda prec: _factor_balls(factors, theta, prec))
    text = lambda c: str(_field_expr(K, c, theta))  # noqa: E731
    base = {"characteristic_polynomial": _poly_text(K, charpoly, theta), "number_field": f"QQ({theta})",
            "squarefree_factors": [{"factor": _poly_text(K, f, theta), "multiplicity": k} for f, k in factors],
            "method": "exact charpoly and square-free factorisation over the number field; arb root isolation",
            **_float_info(m)}
    if found is None:
        sep = _separation_bound(charpoly, theta, K) if len(factors) == 1 and factors[0][1] == 1 else None
        if sep is None:
            return Status.UNKNOWN, {"reason": "the square-free factors' roots are not separated at "
                                              f"{PRECISIONS[-1]} bits", "exact": False, **base}
        return Status.HOLDS, {**base, "multiplicity": 1, "lambda_1": "largest root of the characteristic polynomial",
                              "lambda_2": "second largest root", "gap": f"lambda_1 - lambda_2 >= {fstr(sep)} (Mahler)",
                              "gap_lower_bound": fstr(sep), "exact": True, "v": base["v_float"], "v_exact": False,
                              "note": "the characteristic polynomial is square-free over the field (exact): every "
                                      "eigenvalue is simple; the gap bound is Mahler's root separation bound"}
    roots, prec = found
    (iv1, index1), (iv2, index2) = roots[-1], roots[-2]
    (top, mult1), (second, mult2) = factors[index1], factors[index2]
    lam1, lam2 = _exact_root(K, top, iv1), _exact_root(K, second, iv2)
    base.update({"lambda_1": text(lam1) if lam1 is not None else
                 f"largest root of {_poly_text(K, top, theta)}, {_in(iv1)}",
                 "multiplicity": mult1, "lambda_1_interval": _interval(iv1), "precision_bits": prec})
    if mult1 > 1:
        return Status.FAILS, {"reason": f"lambda_1 has multiplicity {mult1} (exact square-free factorisation)",
                              "exact": True, **base}
    witness = {**base, "lambda_2": text(lam2) if lam2 is not None else
               f"second largest eigenvalue, {_in(iv2)}",
               "lambda_2_interval": _interval(iv2), "multiplicity_lambda_2": mult2,
               "gap": text(lam1 - lam2) if lam1 is not None and lam2 is not None else
               f"lambda_1 - lambda_2 >= {_dec(iv1[0] - iv2[1])}",
               "gap_lower_bound": fstr(_gap_bound(iv1[0], iv2[1])), "exact": True, "v": None, "v_exact": False}
    if lam1 is not None and K.mod.degree() <= 8:
        witness.update(_field_eigenvector(K, UK, lam1, theta))
    if not witness["v_exact"]:
        witness["v"] = witness["v_float"]
    return Status.HOLDS, witness


def _separation_bound(p: list, theta: sympy.Expr, K) -> Fraction | None:
    """Mahler (1964): distinct roots of a square-free monic ``p`` of degree ``n`` are more than
    ``sqrt(3 |disc p|) n^(-(n+2)/2) ||p||_2^(-(n-1))`` apart (``||p||_2`` bounds the Mahler measure);
    None when ``|disc p| > 0`` is not shown by its enclosure at the largest precision."""
    n, disc = len(p) - 1, dup_discriminant(p, K)
    for prec in PRECISIONS:
        with ctx.workprec(prec):
            t = _ball(theta, prec)
            D = None if t is None else abs(_field_value(disc, t))
            if D is None or not D > 0:
                continue
            norm = sum((_field_value(c, t) ** 2 for c in p), arb(0)).sqrt()
            sep = ((3 * D).sqrt() / (arb(n).sqrt() ** (n + 2) * norm ** (n - 1))).lower()
            if sep > 0:
                return arb_fraction(sep)
    return None


def _factor_balls(factors: list, theta: sympy.Expr, prec: int) -> list[list[arb]] | None:
    t = _ball(theta, prec)
    return None if t is None else [[_field_value(c, t) for c in reversed(f)] for f, _ in factors]


def _field_eigenvector(K, UK: DomainMatrix, lam, theta: sympy.Expr) -> dict[str, Any]:
    """The exact eigenvector of the simple eigenvalue ``lam`` in ``K`` (checked: ``U v = lam v`` in ``K``)."""
    basis = (UK - DomainMatrix.eye(UK.shape[0], K) * lam).nullspace()
    if basis.shape[0] != 1 or UK * basis.transpose() != basis.transpose() * lam:
        return {}
    return {"v": [str(_field_expr(K, c, theta)) for c in basis.to_list()[0]], "v_exact": True}
