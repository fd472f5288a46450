"""The DOP853 step loop and the field of eq. 5 compiled with numba, for time-invariant batches
(private; :mod:`numerics._dop853_compiled` is the entry point).

Same method as :mod:`numerics._dop853_core` (the pure-numpy reference): the same tableau, error
norm, step-size rule, landing on the stops and renormalisation after each accepted step, and
the next step's first stage is the field at the *unrenormalised* new state, as there.  What
differs is the order of the floating-point operations (loops along the tokens, BLAS only for
``d > 4``, fused multiply-adds) and the exponential (a polynomial within 1 ulp of libm's), so the
two paths agree to round-off, not bitwise.

Why compiled: one field evaluation of a small system (``N = 64``, ``d = 3``) is about ten numpy
calls on 192-element arrays, and their dispatch (~30 us) dwarfs the arithmetic; here the whole
integration of an instance is one native loop.  Instances are independent (each has its own
time and step), so a batch is a loop over instances; ``nogil=True`` lets the caller run
sub-batches in threads.

Compiled on first use and cached on disk (``cache=True``, next to this file or in
``NUMBA_CACHE_DIR``).  Importing this module imports numba (~0.3 s); nothing imports it unless a
run chooses the compiled path.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import _dop853_tableau as tab

_S = tab.N_STAGES
_A = np.ascontiguousarray(tab.A[:_S, :_S])
_B = np.ascontiguousarray(tab.B)
_E5 = np.ascontiguousarray(tab.E5[:_S])
_E3 = np.ascontiguousarray(tab.E3[:_S])
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_EXPONENT = -1.0 / 8.0

SUCCESS, MAX_STEPS, STEP_TOO_SMALL = 0, 1, 2
_LOOP_MAX_D = 4
"""Up to this ``d`` the products are plain loops along ``N`` (vectorised); above, BLAS (``np.dot``).
Measured (interleaved, loaded machine): the two are within noise for ``d <= 6`` at ``N = 32, 64``;
at ``N = 64``, ``d = 8`` BLAS is 1.3x faster and at ``d = 16`` plain loops are 5x slower."""
_CONTRACT = {"contract"}
"""Only fused multiply-add is allowed (no reassociation, no finite-math assumptions): it halves the
work of the exponential's polynomial (8.3 -> 5.4 us per 4096 values, measured) and rounds once
instead of twice."""


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_FACT = np.array([1.0 / math.factorial(k) for k in range(14)])


@njit(cache=True, nogil=True, fastmath=_CONTRACT)
def _exp_inplace(x, bits):
    """``x <- exp(x)`` on a 1-d array, in loops the compiler vectorises (libm's scalar ``exp`` is
    most of a small field's time).  Cody–Waite reduction ``x = k ln2 + r``, ``|r| <= ln2/2``, and
    the degree-13 Taylor polynomial (truncation < 1e-17 relative): within a few ulp of libm.
    Arguments are clamped to ``[-708, 709]``: below, the true value (< 3.3e-308) is replaced by
    ``exp(-708)``, which changes a softmax weight by < 1e-300 (the row maximum is 1 or ``|S| <=
    200``, see :data:`numerics.field._SAFE_EXPONENT`).  ``bits``: int64 scratch, same length."""
    c = _INV_FACT
    for j in range(x.shape[0]):
        v = min(max(x[j], -708.0), 709.0)
        k = math.floor(v * _LOG2E + 0.5)
        r = (v - k * _LN2_HI) - k * _LN2_LO
        p = c[13]
        p = p * r + c[12]
        p = p * r + c[11]
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
        x[j] = p * r + c[0]
        bits[j] = (np.int64(k) + 1023) << 52
    two_k = bits.view(np.float64)
    for j in range(x.shape[0]):
        x[j] *= two_k[j]


@njit(cache=True, nogil=True, fastmath=_CONTRACT)
def _product(M, X, out, blas):
    """``out = M X`` (``(d, d) x (d, N)``)."""
    if blas:
        np.dot(M, X, out)
        return
    d, N = X.shape
    for a in range(d):
        for i in range(N):
            out[a, i] = M[a, 0] * X[0, i]
        for b in range(1, d):
            m = M[a, b]
            for i in range(N):
                out[a, i] += m * X[b, i]


@njit(cache=True, nogil=True, fastmath=_CONTRACT)
def field_into(X, P, U, has_U, causal, stabilize, scale, out, Y, S, V, z, bits):
    """``scale * F(X)`` for one instance in transposed layout: ``X``, ``out`` are ``(d, N)``
    (``X[a, i]`` = coordinate ``a`` of token ``i``); ``P``, ``U`` ``(H, d, d)`` (``beta`` folded into
    ``P``).  Scratch: ``Y``, ``V`` ``(d, N)``; ``S`` ``(N, N)`` holds ``S[j, i] = <x_i, P x_j>`` (the
    transpose of the numpy kernel's scores, so every inner loop runs along ``i`` and vectorises);
    ``z`` ``(N,)``; ``bits`` int64 ``(N * N,)``."""
    d, N = X.shape
    H = P.shape[0]
    out[:, :] = 0.0
    blas = d > _LOOP_MAX_D
    for h in range(H):
        if has_U:
            _product(U[h], X, V, blas)
        else:
            V[:, :] = X
        _product(P[h], X, Y, blas)
        if blas:
            np.dot(Y.T, X, S)
        else:
            for j in range(N):
                for i in range(N):
                    S[j, i] = Y[0, j] * X[0, i]
                for a in range(1, d):
                    y = Y[a, j]
                    for i in range(N):
                        S[j, i] += y * X[a, i]
        if causal:  # keys j > i are outside the mask: exp(-inf) = 0
            for j in range(N):
                for i in range(j):
                    S[j, i] = -np.inf
        if stabilize:
            for i in range(N):
                z[i] = S[0, i]
            for j in range(1, N):
                for i in range(N):
                    z[i] = max(z[i], S[j, i])
            for j in range(N):
                for i in range(N):
                    S[j, i] -= z[i]
        _exp_inplace(S.reshape(N * N), bits)
        if causal:
            for j in range(N):
                for i in range(j):
                    S[j, i] = 0.0
        z[:] = 0.0
        for j in range(N):
            for i in range(N):
                z[i] += S[j, i]
        for i in range(N):
            z[i] = scale / z[i]
        if blas:
            np.dot(V, S, Y)
        else:
            for a in range(d):
                for i in range(N):
                    Y[a, i] = V[a, 0] * S[0, i]
                for j in range(1, N):
                    v = V[a, j]
                    for i in range(N):
                        Y[a, i] += v * S[j, i]
        for a in range(d):
            for i in range(N):
                out[a, i] += Y[a, i] * z[i]
    z[:] = 0.0
    for a in range(d):
        for i in range(N):
            z[i] += X[a, i] * out[a, i]
    for a in range(d):
        for i in range(N):
            out[a, i] -= X[a, i] * z[i]
    return out


@njit(cache=True, nogil=True)
def _initial_step(X, f0, P, U, has_U, causal, stabilize, t_end, rtol, atol, X1, f1, w):
    """Hairer's starting step (as SciPy's ``select_initial_step`` and the numpy path); ``w`` is
    the field's scratch tuple."""
    n = X.size
    x, x0, x1, g0, g1 = X.reshape(n), X.reshape(n), X1.reshape(n), f0.reshape(n), f1.reshape(n)
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
        x1[k] = x0[k] + h0 * g0[k]
    field_into(X1, P, U, has_U, causal, stabilize, 1.0, f1, w[0], w[1], w[2], w[3], w[4])
    d2 = 0.0
    for k in range(n):
        sc = atol + abs(x[k]) * rtol
        d2 += ((g1[k] - g0[k]) / sc) ** 2
    d2 = math.sqrt(d2 / n) / h0
    big = max(d1, d2)
    h1 = max(1e-6, h0 * 1e-3) if big <= 1e-15 else (0.01 / max(big, 1e-300)) ** (1.0 / 8.0)
    return min(min(100.0 * h0, h1), t_end)


@njit(cache=True, nogil=True)
def integrate_instance(X0, P, U, has_U, causal, stabilize, stops, is_sample, slot, rtol, atol, max_steps,
                       first_step, out, counts):
    """Integrate one instance from ``X0`` (``(N, d)``, on the sphere, ``t = 0``; overwritten with the
    last accepted state) through ``stops``, writing samples into ``out`` (``(T, N, d)``).

    Internally every state is ``(d, N)`` (see :func:`field_into`).  ``counts`` (int64, length 5)
    receives steps, rejected, evaluations, status, and the index of the next stop not reached;
    returns the summed local error size.
    """
    N, d = X0.shape
    n = N * d
    X = np.ascontiguousarray(X0.T)
    K = np.empty((_S, d, N))
    Ys = np.empty((d, N))
    Xn = np.empty((d, N))
    f = np.empty((d, N))
    fn = np.empty((d, N))
    e5 = np.empty(n)
    e3 = np.empty(n)
    w = (np.empty((d, N)), np.empty((N, N)), np.empty((d, N)), np.empty(N), np.empty(N * N, dtype=np.int64))
    field_into(X, P, U, has_U, causal, stabilize, 1.0, f, w[0], w[1], w[2], w[3], w[4])
    t_end = stops[stops.shape[0] - 1]
    if first_step > 0:
        h = first_step
    else:
        h = _initial_step(X, f, P, U, has_U, causal, stabilize, t_end, rtol, atol, Xn, fn, w)
    x, xn, ys, kf = X.reshape(n), Xn.reshape(n), Ys.reshape(n), K.reshape(_S, n)
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
            ys[:] = x
            for j in range(s):
                c = _A[s, j]
                if c != 0.0:
                    for k in range(n):
                        ys[k] += c * kf[j, k]
            field_into(Ys, P, U, has_U, causal, stabilize, ha, K[s], w[0], w[1], w[2], w[3], w[4])
        xn[:] = x
        e5[:] = 0.0
        e3[:] = 0.0
        for j in range(_S):
            cb, c5, c3 = _B[j], _E5[j], _E3[j]
            if cb != 0.0 or c5 != 0.0 or c3 != 0.0:
                for k in range(n):
                    v = kf[j, k]
                    xn[k] += cb * v
                    e5[k] += c5 * v
                    e3[k] += c3 * v
        field_into(Xn, P, U, has_U, causal, stabilize, 1.0, fn, w[0], w[1], w[2], w[3], w[4])
        evaluations += _S
        attempts += 1
        size = 0.0
        s5 = 0.0
        s3 = 0.0
        for k in range(n):
            q5 = e5[k] * e5[k]
            q = math.sqrt(q5 + 0.01 * e3[k] * e3[k])
            if q > 0.0 and q5 / q > size:
                size = q5 / q
            sc = atol + rtol * max(abs(x[k]), abs(xn[k]))
            r5 = e5[k] / sc
            r3 = e3[k] / sc
            s5 += r5 * r5
            s3 += r3 * r3
        denom = s5 + 0.01 * s3
        norm = s5 / math.sqrt(denom * n) if denom > 0 else 0.0
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
        r = w[3]
        r[:] = 0.0
        for a in range(d):
            for i in range(N):
                r[i] += Xn[a, i] * Xn[a, i]
        for i in range(N):
            r[i] = math.sqrt(r[i])
        for a in range(d):
            for i in range(N):
                X[a, i] = Xn[a, i] / r[i]
        f[:, :] = fn
        if lands:
            t = target
            if is_sample[nxt]:
                out[slot[nxt]] = X.T
            nxt += 1
        else:
            t = t + ha
    X0[:, :] = X.T
    counts[0] = steps
    counts[1] = rejected
    counts[2] = evaluations
    counts[3] = status
    counts[4] = nxt
    return local


@njit(cache=True, nogil=True)
def integrate_batch(X, P, U, has_U, causal, stabilize, stops, is_sample, slot, rtol, atol, max_steps,
                    first_step, out, counts, local):
    """:func:`integrate_instance` for every instance of ``X`` (``(b, N, d)``); ``P``/``U`` have a
    leading axis of ``b`` or ``1``; ``out`` ``(T, b, N, d)``, ``counts`` ``(b, 5)``, ``local`` ``(b,)``."""
    for k in range(X.shape[0]):
        Pk = P[0] if P.shape[0] == 1 else P[k]
        Uk = U[0] if U.shape[0] == 1 else U[k]
        local[k] = integrate_instance(X[k], Pk, Uk, has_U, causal, stabilize, stops, is_sample, slot, rtol, atol,
                                      max_steps, first_step, out[:, k], counts[k])
