"""The exact oracle of the Collatz-Wielandt adversarial tests (``test_adversary_lognorm_cw*.py``): see the docstring of
``test_adversary_lognorm_cw.py``."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
from flint import arb, arb_mat, ctx, fmpq, fmpq_mat

from verify.validated.lognorm import lognorm_upper

# ----------------------------------------------------------------------------------------------------------- oracle


def _fq(x) -> fmpq:
    """The exact value of an exact arb (a midpoint or a radius), an mpf or a float, as a rational."""
    if isinstance(x, float):
        f = Fraction(x)
        return fmpq(f.numerator, f.denominator)
    m, e = x.man_exp if isinstance(x, mpmath.mpf) else x.man_exp()
    m, e = int(m), int(e)
    return fmpq(m * 2 ** e) if e >= 0 else fmpq(m, 2 ** -e)


def _parts(DF: arb_mat) -> tuple[fmpq_mat, fmpq_mat]:
    """Exact midpoints and radii of the balls of ``DF`` (as the library sees them)."""
    n, m = DF.nrows(), DF.ncols()
    ent = DF.entries()
    return (fmpq_mat(n, m, [_fq(x.mid()) for x in ent]), fmpq_mat(n, m, [_fq(x.rad()) for x in ent]))


def _log2(q: fmpq) -> int:
    p, d = int(q.p), int(q.q)
    return p.bit_length() - d.bit_length() if p else -10 ** 9


def _floats(Q: fmpq_mat, k: int) -> np.ndarray:
    """``Q * 2^-k`` in floats (underflow to 0 is fine: floats only propose directions)."""
    n, m = Q.nrows(), Q.ncols()
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            q = Q[i, j]
            out[i, j] = float(Fraction(int(q.p), int(q.q) * 2 ** k) if k >= 0 else Fraction(int(q.p) * 2 ** -k, int(q.q)))
    return out


def _W(Mq: fmpq_mat, Rq: fmpq_mat, x, sign: int = 1) -> fmpq:
    """``(sign x^T M x + |x|^T Rr |x|) / x^T x`` exactly (``x`` floats or mpf, not all zero)."""
    n = Mq.nrows()
    xq = [_fq(float(t)) if isinstance(t, (float, np.floating)) else _fq(t) for t in x]
    X = fmpq_mat(n, 1, xq)
    A = fmpq_mat(n, 1, [abs(t) for t in xq])
    den = (X.transpose() * X)[0, 0]
    return (sign * (X.transpose() * Mq * X)[0, 0] + (A.transpose() * Rq * A)[0, 0]) / den


def _sgn(a: np.ndarray) -> np.ndarray:
    return np.where(a >= 0, 1.0, -1.0)


def _oracle(DF: arb_mat, seed: int = 0, sign: int = 1, starts: int = 4, rounds: int = 8, refine: bool = True) -> fmpq:
    """A rigorous lower bound on ``max_{J in DF} lambda_max(sign * J_sym)`` (the largest exact ``W`` over the
    candidates), meant to be tight (see the module docstring)."""
    rng = np.random.default_rng(seed)
    Mq, Rq = _parts(DF)
    n = Mq.nrows()
    k = max([_log2(abs(q)) for q in Mq.entries()] + [_log2(q) for q in Rq.entries()] + [-10 ** 8])
    k = 0 if k == -10 ** 8 else k
    Mf, Rf = sign * _floats(Mq, k), _floats(Rq, k)
    Rs = (Rf + Rf.T) / 2
    Js = [Mf, Mf + Rf, Mf - Rf]
    for _ in range(starts):
        S = _sgn(rng.standard_normal((n, n)))
        Js.append(Mf + Rf * S)
    cands = [np.eye(n)[i] for i in range(n)] + [np.ones(n)]
    if np.any(Rs > 0):
        cands.append(np.linalg.eigh(Rs)[1][:, -1])
    for J in Js:
        for _ in range(rounds):
            x = np.linalg.eigh((J + J.T) / 2)[1][:, -1]
            cands.append(x)
            J = Mf + Rf * _sgn(np.outer(x, x))
    cands = [x for x in cands if np.all(np.isfinite(x)) and np.any(x != 0)]
    vals = [(_W(Mq, Rq, x, sign), i) for i, x in enumerate(cands)]
    best = max(v for v, _ in vals)
    if refine and n <= 6:  # mpmath refinement of the two best (no exponent range, 60 digits)
        with mpmath.workdps(60):
            Mm = mpmath.matrix([[sign * mpmath.mpf(int(q.p)) / int(q.q) for q in Mq.entries()[i * n:(i + 1) * n]]
                                for i in range(n)])
            Rm = mpmath.matrix([[mpmath.mpf(int(q.p)) / int(q.q) for q in Rq.entries()[i * n:(i + 1) * n]]
                                for i in range(n)])
            for _, i in sorted(vals, key=lambda t: t[0], reverse=True)[:2]:
                x = cands[i]
                for _ in range(3):
                    J = Mm.copy()
                    for a in range(n):
                        for b in range(n):
                            J[a, b] += Rm[a, b] * (1 if x[a] * x[b] >= 0 else -1)
                    E, Q = mpmath.eigsy((J + J.T) / 2)
                    top = max(range(n), key=lambda t: E[t])
                    x = [Q[a, top] for a in range(n)]
                    best = max(best, _W(Mq, Rq, x, sign))
    return best


def _bound(DF: arb_mat, prec: int = 128) -> fmpq:
    with ctx.workprec(prec):
        b = lognorm_upper(DF)
    assert isinstance(b, arb) and b.rad() == 0 and b.is_finite(), b
    return _fq(b.mid())


def _sound(DF: arb_mat, prec: int = 128, seed: int = 0, **kw) -> tuple[fmpq, fmpq]:
    """Asserts ``oracle <= bound`` exactly; returns both."""
    B = _bound(DF, prec)
    W = _oracle(DF, seed, **kw)
    assert W <= B, f"FALSE BOUND: bound {float(B)!r} < witness {float(W)!r} (prec {prec}, n {DF.nrows()})"
    return B, W


def _balls(mid: np.ndarray, rad: np.ndarray) -> arb_mat:
    n, m = mid.shape
    return arb_mat(n, m, [arb(float(a), float(r)) for a, r in zip(mid.ravel(), rad.ravel())])


def _rel(B: fmpq, W: fmpq) -> float:
    """``(B - W) / max(|W|, tiny)`` as a float (the overestimate)."""
    d = B - W
    return float(d) / max(abs(float(W)), 1e-300) if W != 0 else float(d)


def _pattern(name: str, n: int) -> np.ndarray:
    A = np.zeros((n, n))
    if name == "star":
        A[0, 1:] = A[1:, 0] = 1
    elif name == "K_2,n-2":
        A[:2, 2:] = A[2:, :2] = 1
    elif name == "even cycle":
        for i in range(n):
            A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    elif name == "path":
        for i in range(n - 1):
            A[i, i + 1] = A[i + 1, i] = 1
    elif name == "geometric path":  # Perron vector entries far below the 1e-6 floor
        for i in range(n - 1):
            A[i, i + 1] = A[i + 1, i] = 10.0 ** (-8 * i)
    elif name == "cyclic shift (non-symmetric)":
        for i in range(n):
            A[i, (i + 1) % n] = 1
    elif name == "reducible, equal radii":  # two blocks with spectral radii 1 and 1 - 1e-12, and an isolated node
        A[0, 1] = A[1, 0] = 1
        A[2, 3] = A[3, 2] = 1 - 1e-12
    elif name == "bipartite weights":
        rng = np.random.default_rng(n)
        p = n // 3
        A[:p, p:] = rng.uniform(0, 1, (p, n - p)) ** 4
        A[p:, :p] = A[:p, p:].T
    return A
