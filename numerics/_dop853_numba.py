"""The DOP853 step loop and the field of eq. 5 compiled with numba: the whole integration of one
instance is one native loop, for time-invariant batches (private; :mod:`numerics._dop853_compiled`
is the entry point).

Same method as :mod:`numerics._dop853_core` (the pure-numpy reference): the same tableau, both
error estimators (5th and 3rd order) and SciPy's error norm, the step-size rule, landing on the
stops and renormalisation after each accepted step, and the next step's first stage is the field
at the *unrenormalised* new state, as there.  What differs is the order of the floating-point
operations and the exponential (a polynomial within 1 ulp of libm's), so the two paths agree to
round-off, not bitwise.

Why one native loop per instance, how the loops are written (aligned workspace, plain product
loops, fixed-order reductions, ``error_model="numpy"``), the floating-point flags, the disk cache
and why the field and the step loop share this file (numba's cache is keyed on the file of the
cached function only): docs/dop853-kernel.md.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.extending import intrinsic

from . import _dop853_tableau as tab

_S = tab.N_STAGES
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_EXPONENT = -1.0 / 8.0


_STAGE_ROWS, _STAGE_COEF, _STAGE_COUNT = tab.STAGE_ROWS, tab.STAGE_COEF, tab.STAGE_COUNT
_B_ROWS, _B_COEF = tab.B_ROWS, tab.B_COEF
_E5_ROWS, _E5_COEF = tab.E5_ROWS, tab.E5_COEF
_E3_ROWS, _E3_COEF = tab.E3_ROWS, tab.E3_COEF

SUCCESS, MAX_STEPS, STEP_TOO_SMALL = 0, 1, 2
COUNTS = 5
"""``counts`` per instance: steps, rejected, evaluations, status, index of the next stop not reached."""

_CONTRACT = {"contract"}
"""Only fused multiply-add is allowed in the field (no reassociation, no finite-math assumptions)."""
_FIELD = dict(cache=True, nogil=True, fastmath=_CONTRACT, error_model="numpy")
_LOOP = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_EXP_POLY = np.array([1.0, 1.0, 0.5000000000000019, 0.1666666666666668, 0.0416666666664881, 0.008333333333319601,
                      0.0013888888952314775, 0.00019841269890047113, 2.4801485482328494e-05, 2.755724091857897e-06,
                      2.763263963904103e-07, 2.5110037605963777e-08])
"""``exp(r) ~ sum_k c_k r^k`` on ``|r| <= ln2/2``: ``mpmath.chebyfit(mpmath.exp, [-ln2/2, ln2/2], 12)`` at
50 digits (a near-minimax degree-11 fit, largest error 3.2e-18), rounded to float64.  Two terms
fewer than the Taylor polynomial of the same accuracy (degree 13), 4% of the whole run (measured)."""


@njit(**_FIELD)
def _matmul(M, X, out):
    """``out = M X`` (``(r, k) x (k, N)``), each entry summed in the order of the ``k`` terms.

    Sixteen terms (then eight, four, one) per pass over an output row: one vectorised loop along
    the ``N`` columns that reloads its partial sums once per block.  The block loop is outside the
    row loop, so consecutive passes write different rows and do not wait on each other's stores.
    Measured at ``16 x 32`` products: 16-term passes 1.15x faster than 8-term ones, 2x than BLAS."""
    r, k = M.shape
    N = X.shape[1]
    b = 0
    while b < k:
        w = 16 if b + 16 <= k else (8 if b + 8 <= k else (4 if b + 4 <= k else 1))
        first = b == 0
        for a in range(r):
            if w == 16:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                p4, p5, p6, p7 = M[a, b + 4], M[a, b + 5], M[a, b + 6], M[a, b + 7]
                p8, p9, p10, p11 = M[a, b + 8], M[a, b + 9], M[a, b + 10], M[a, b + 11]
                p12, p13, p14, p15 = M[a, b + 12], M[a, b + 13], M[a, b + 14], M[a, b + 15]
                for i in range(N):
                    s = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
                    s += p1 * X[b + 1, i]
                    s += p2 * X[b + 2, i]
                    s += p3 * X[b + 3, i]
                    s += p4 * X[b + 4, i]
                    s += p5 * X[b + 5, i]
                    s += p6 * X[b + 6, i]
                    s += p7 * X[b + 7, i]
                    s += p8 * X[b + 8, i]
                    s += p9 * X[b + 9, i]
                    s += p10 * X[b + 10, i]
                    s += p11 * X[b + 11, i]
                    s += p12 * X[b + 12, i]
                    s += p13 * X[b + 13, i]
                    s += p14 * X[b + 14, i]
                    out[a, i] = s + p15 * X[b + 15, i]
            elif w == 8:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                p4, p5, p6, p7 = M[a, b + 4], M[a, b + 5], M[a, b + 6], M[a, b + 7]
                for i in range(N):
                    s = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
                    s += p1 * X[b + 1, i]
                    s += p2 * X[b + 2, i]
                    s += p3 * X[b + 3, i]
                    s += p4 * X[b + 4, i]
                    s += p5 * X[b + 5, i]
                    s += p6 * X[b + 6, i]
                    out[a, i] = s + p7 * X[b + 7, i]
            elif w == 4:
                p0, p1, p2, p3 = M[a, b], M[a, b + 1], M[a, b + 2], M[a, b + 3]
                for i in range(N):
                    s = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
                    s += p1 * X[b + 1, i]
                    s += p2 * X[b + 2, i]
                    out[a, i] = s + p3 * X[b + 3, i]
            else:
                p0 = M[a, b]
                for i in range(N):
                    out[a, i] = p0 * X[b, i] if first else out[a, i] + p0 * X[b, i]
        b += w


@intrinsic
def _from_bits(typingctx, bits):
    """The float64 whose IEEE-754 bits are the int64 ``bits`` (a bit cast, no conversion)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@njit(**_FIELD)
def _softmax_weights(S, shift, stabilize, causal, z):
    """``S[j, i] <- exp(S[j, i] - shift[i])`` (no shift unless ``stabilize``), exactly ``0`` for the
    keys ``j > i`` outside a causal mask, and ``z[i] = sum_j S[j, i]``, row by row.

    Cody–Waite reduction ``x = k ln2 + r``, ``|r| <= ln2/2``, the polynomial :data:`_EXP_POLY` and
    ``2^k`` built from its bits: within 1 ulp of libm's ``exp`` (measured, and tested), in a loop
    the compiler vectorises.  Arguments are clamped to ``[-708, 709]``:
    below, the true value (< 3.3e-308) is replaced by ``exp(-708)``, which changes a softmax weight
    by < 1e-300 (the row maximum is 1 or ``|S| <= 200``, see :data:`numerics.field._SAFE_EXPONENT`).
    Masked entries are evaluated too (clamped, so finite) and then replaced by 0 with a select: a
    loop starting at the first unmasked key ran 2.5x slower inside the step loop (measured)."""
    N, M = S.shape
    c = _EXP_POLY
    for i in range(M):
        z[i] = 0.0
    for j in range(N):
        first = j if causal else 0
        for i in range(M):
            v = S[j, i] - shift[i] if stabilize else S[j, i]
            v = min(max(v, -708.0), 709.0)
            k = math.floor(v * _LOG2E + 0.5)
            r = (v - k * _LN2_HI) - k * _LN2_LO
            p = c[11]
            p = p * r + c[10]
            p = p * r + c[9]
            p = p * r + c[8]
            p = p * r + c[7]
            p = p * r + c[6]
            p = p * r + c[5]
            p = p * r + c[4]
            p = p * r + c[3]
            p = p * r + c[2]
            p = p * r + c[1]
            e = (p * r + c[0]) * _from_bits((np.int64(k) + 1023) << 52)
            if i < first:
                e = 0.0
            S[j, i] = e
            z[i] += e


@njit(**_FIELD)
def field_into(X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, m):
    """``scale * F(X)`` (eq. 5) for one instance in transposed layout: ``X``, ``out`` are ``(d, N)``
    (``X[a, i]`` = coordinate ``a`` of token ``i``); ``P``, ``U`` ``(H, d, d)`` (``beta`` folded into
    ``P``).  Scratch: ``Y``, ``V`` ``(d, N)``; ``S`` ``(N, N)`` holds ``S[j, i] = <x_i, P x_j>`` (the
    transpose of the numpy kernel's scores, so every inner loop runs along ``i`` and vectorises);
    ``z``, ``m`` ``(N,)``.  ``out`` must not alias ``X``."""
    d, N = X.shape
    H = P.shape[0]
    for h in range(H):
        _matmul(P[h], X, Y)
        _matmul(Y.T, X, S)
        if stabilize:  # the largest score of each query over its keys (j <= i when causal)
            for i in range(N):
                m[i] = S[0, i]
            for j in range(1, N):
                first = j if causal else 0
                for i in range(N):
                    if i >= first:
                        m[i] = max(m[i], S[j, i])
        _softmax_weights(S, m, stabilize, causal, z)
        for i in range(N):
            z[i] = scale / z[i]
        if has_U:
            _matmul(U[h], X, V)
            _matmul(V, S, Y)
        else:
            _matmul(X, S, Y)
        if h == 0:
            for a in range(d):
                for i in range(N):
                    out[a, i] = Y[a, i] * z[i]
        else:
            for a in range(d):
                for i in range(N):
                    out[a, i] += Y[a, i] * z[i]
    for i in range(N):
        z[i] = X[0, i] * out[0, i]
    for a in range(1, d):
        for i in range(N):
            z[i] += X[a, i] * out[a, i]
    for a in range(d):
        for i in range(N):
            out[a, i] -= X[a, i] * z[i]
    return out


@njit(**_LOOP)
def _combine(out, base, has_base, K, coef, rows, count):
    """``out = base + sum_q coef[q] K[rows[q]]`` over flat rows (``base`` only when ``has_base``),
    up to four terms per pass, added in the order of ``q``.  A pass with fewer than four terms
    repeats its first row with coefficient 0, which adds an exact ``+0``."""
    n = out.shape[0]
    for q in range(0, count, 4):
        w = min(4, count - q)
        r0 = rows[q]
        c0 = coef[q]
        c1, r1 = (coef[q + 1], rows[q + 1]) if w > 1 else (0.0, r0)
        c2, r2 = (coef[q + 2], rows[q + 2]) if w > 2 else (0.0, r0)
        c3, r3 = (coef[q + 3], rows[q + 3]) if w > 3 else (0.0, r0)
        if q > 0:
            for k in range(n):
                out[k] = out[k] + c0 * K[r0, k] + c1 * K[r1, k] + c2 * K[r2, k] + c3 * K[r3, k]
        elif has_base:
            for k in range(n):
                out[k] = base[k] + c0 * K[r0, k] + c1 * K[r1, k] + c2 * K[r2, k] + c3 * K[r3, k]
        else:
            for k in range(n):
                out[k] = c0 * K[r0, k] + c1 * K[r1, k] + c2 * K[r2, k] + c3 * K[r3, k]


@njit(**_LOOP)
def _error_norm(x, xn, e5, e3, rtol, atol, acc):
    """SciPy's DOP853 error norm ``|e5|^2 / sqrt((|e5|^2 + |e3|^2 / 100) n)`` (``e5``, ``e3``:
    ``h`` times the estimators, ``(d, N)``; divided in place by the error scale) and the local
    error size ``max |e5|^2 / sqrt(|e5|^2 + |e3|^2 / 100)``.  ``acc``: ``(3, N)`` scratch; sums run
    along ``d`` per token, then over the tokens."""
    d, N = x.shape
    size, s5, s3 = acc[0], acc[1], acc[2]
    for i in range(N):
        size[i] = 0.0
        s5[i] = 0.0
        s3[i] = 0.0
    for a in range(d):
        for i in range(N):
            q5 = e5[a, i] * e5[a, i]
            q = math.sqrt(q5 + 0.01 * (e3[a, i] * e3[a, i]))
            size[i] = max(size[i], q5 / q if q > 0.0 else 0.0)
    for a in range(d):
        for i in range(N):
            sc = atol + rtol * max(abs(x[a, i]), abs(xn[a, i]))
            e5[a, i] /= sc
            e3[a, i] /= sc
    for a in range(d):
        for i in range(N):
            s5[i] += e5[a, i] * e5[a, i]
            s3[i] += e3[a, i] * e3[a, i]
    big, t5, t3 = 0.0, 0.0, 0.0
    for i in range(N):
        big = max(big, size[i])
        t5 += s5[i]
        t3 += s3[i]
    denom = t5 + 0.01 * t3
    return (t5 / math.sqrt(denom * (d * N)) if denom > 0.0 else 0.0), big


@njit(**_LOOP)
def _initial_step(X, f0, P, U, has_U, causal, stabilize, t_end, rtol, atol, X1, f1, Y, S, V, v):
    """Hairer's starting step (as SciPy's ``select_initial_step`` and the numpy path)."""
    n = X.size
    x, x1, g0, g1 = X.reshape(n), X1.reshape(n), f0.reshape(n), f1.reshape(n)
    d0 = 0.0
    d1 = 0.0
    for k in range(n):
        sc = atol + abs(x[k]) * rtol
        d0 += (x[k] / sc) ** 2
        d1 += (g0[k] / sc) ** 2
    d0 = math.sqrt(d0 / n)
    d1 = math.sqrt(d1 / n)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / max(d1, 1e-300)
    for k in range(n):
        x1[k] = x[k] + h0 * g0[k]
    field_into(X1, P, U, has_U, causal, stabilize, 1.0, f1, Y, S, V, v[0], v[1])
    d2 = 0.0
    for k in range(n):
        sc = atol + abs(x[k]) * rtol
        d2 += ((g1[k] - g0[k]) / sc) ** 2
    d2 = math.sqrt(d2 / n) / h0
    big = max(d1, d2)
    h1 = max(1e-6, h0 * 1e-3) if big <= 1e-15 else (0.01 / max(big, 1e-300)) ** (1.0 / 8.0)
    return min(min(100.0 * h0, h1), t_end)


@njit(**_LOOP)
def integrate_instance(X0, P, U, has_U, causal, stabilize, stops, is_sample, slot, rtol, atol, max_steps,
                       first_step, out, counts, K, R, S, v):
    """Integrate one instance from ``X0`` (``(N, d)``, on the sphere, ``t = 0``; overwritten with the
    last accepted state) through ``stops``, writing samples into ``out`` (``(T, N, d)``).

    Internally every state is ``(d, N)`` (see :func:`field_into`).  Workspace (contents ignored):
    ``K`` ``(12, d, N)`` holds ``h k_s``; ``R`` ``(9, d, N)`` the states, the two error estimates,
    the fields at the current and the new state and the field's scratch; ``S`` ``(N, N)``; ``v``
    ``(3, N)``.  ``counts`` (int64, length :data:`COUNTS`) receives steps, rejected, evaluations,
    status, and the index of the next stop not reached; returns the summed local error size.
    """
    N, d = X0.shape
    n = N * d
    X, Ys, Xn, e5, e3, f, fn, Y, V = R[0], R[1], R[2], R[3], R[4], R[5], R[6], R[7], R[8]
    x, ys, xn, kf = X.reshape(n), Ys.reshape(n), Xn.reshape(n), K.reshape(_S, n)
    z, m = v[0], v[1]
    for a in range(d):
        for i in range(N):
            X[a, i] = X0[i, a]
    field_into(X, P, U, has_U, causal, stabilize, 1.0, f, Y, S, V, z, m)
    t_end = stops[stops.shape[0] - 1]
    if first_step > 0:
        h = first_step
    else:
        h = _initial_step(X, f, P, U, has_U, causal, stabilize, t_end, rtol, atol, Xn, fn, Y, S, V, v)
    evaluations = 2
    steps = 0
    rejected = 0
    attempts = 0
    status = SUCCESS
    local = 0.0
    t = 0.0
    nxt = 1
    step_rejected = False
    while nxt < stops.shape[0]:
        if attempts >= max_steps:
            status = MAX_STEPS
            break
        target = stops[nxt]
        room = target - t
        ha = min(h, room)
        lands = h >= room
        if ha <= 1e-14 * max(1.0, abs(t)):
            status = STEP_TOO_SMALL
            break
        fl = f.reshape(n)
        for k in range(n):
            kf[0, k] = ha * fl[k]
        for s in range(1, _S):
            _combine(ys, x, True, kf, _STAGE_COEF[s], _STAGE_ROWS[s], _STAGE_COUNT[s])
            field_into(Ys, P, U, has_U, causal, stabilize, ha, K[s], Y, S, V, z, m)
        _combine(xn, x, True, kf, _B_COEF, _B_ROWS, _B_ROWS.shape[0])
        _combine(e5.reshape(n), x, False, kf, _E5_COEF, _E5_ROWS, _E5_ROWS.shape[0])
        _combine(e3.reshape(n), x, False, kf, _E3_COEF, _E3_ROWS, _E3_ROWS.shape[0])
        field_into(Xn, P, U, has_U, causal, stabilize, 1.0, fn, Y, S, V, z, m)
        evaluations += _S
        attempts += 1
        norm, size = _error_norm(X, Xn, e5, e3, rtol, atol, v)
        accept = norm < 1.0
        factor = _MAX_FACTOR if norm == 0 else _SAFETY * norm ** _EXPONENT
        if accept:
            factor = min(_MAX_FACTOR, factor)
            if step_rejected:
                factor = min(1.0, factor)
        else:
            factor = max(_MIN_FACTOR, factor)
        new_h = ha * factor
        if accept and lands:
            new_h = max(new_h, min(h, new_h * _MAX_FACTOR))
        h = new_h
        step_rejected = not accept
        if not accept:
            rejected += 1
            continue
        steps += 1
        local += size
        for i in range(N):
            z[i] = Xn[0, i] * Xn[0, i]
        for a in range(1, d):
            for i in range(N):
                z[i] += Xn[a, i] * Xn[a, i]
        for i in range(N):
            z[i] = math.sqrt(z[i])
        for a in range(d):
            for i in range(N):
                X[a, i] = Xn[a, i] / z[i]
        f, fn = fn, f
        if lands:
            t = target
            if is_sample[nxt]:
                o = out[slot[nxt]]
                for a in range(d):
                    for i in range(N):
                        o[i, a] = X[a, i]
            nxt += 1
        else:
            t = t + ha
    for a in range(d):
        for i in range(N):
            X0[i, a] = X[a, i]
    counts[0] = steps
    counts[1] = rejected
    counts[2] = evaluations
    counts[3] = status
    counts[4] = nxt
    return local


@njit(**_LOOP)
def _aligned(size):
    """A fresh float64 array of ``size`` entries starting on a 64-byte boundary (numba aligns to 32):
    a vector load that straddles two cache lines costs two.  Every row of the workspace is then
    aligned when ``N`` is a multiple of 8 (the loop ran 1.4x faster at ``N = 32``, ``d = 16``)."""
    buf = np.empty(size + 8)
    start = (64 - buf.ctypes.data % 64) % 64 // 8
    return buf[start:start + size]


@njit(**_LOOP)
def integrate_batch(X, P, U, has_U, causal, stabilize, stops, is_sample, slot, rtol, atol, max_steps,
                    first_step, out, counts, local):
    """:func:`integrate_instance` for every instance of ``X`` (``(b, N, d)``), one workspace for all;
    ``P``/``U`` have a leading axis of ``b`` or ``1``; ``out`` ``(T, b, N, d)``, ``counts``
    ``(b, COUNTS)``, ``local`` ``(b,)``."""
    b, N, d = X.shape
    K = _aligned(_S * d * N).reshape(_S, d, N)
    R = _aligned(9 * d * N).reshape(9, d, N)
    S = _aligned(N * N).reshape(N, N)
    v = _aligned(3 * N).reshape(3, N)
    for k in range(b):
        Pk = P[0] if P.shape[0] == 1 else P[k]
        Uk = U[0] if U.shape[0] == 1 else U[k]
        local[k] = integrate_instance(X[k], Pk, Uk, has_U, causal, stabilize, stops, is_sample, slot, rtol, atol,
                                      max_steps, first_step, out[:, k], counts[k], K, R, S, v)
