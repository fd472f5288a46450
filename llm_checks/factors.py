"""Per-head ``P`` and ``U`` in factored form, and the linear algebra done on the small factors.

For layer ``k`` and head ``h`` (row-vector convention of :mod:`llm_checks.layout`; ``g`` the scale
of the normalization in front of the attention, ``beta`` the temperature):

    P^h = A^h (B^h)^T,  A^h = beta diag(g) W_Q^h,  B^h = diag(g) W_K^h      (D x d_head factors)
    U^h = V^h O^h,      V^h = diag(g) W_V^h,       O^h = W_O^h              (D x d_head, d_head x D)

so that the score between normalized tokens is ``beta q_i.k_j = n_i P n_j^T`` (plus bias terms,
audited separately) and the head adds ``sum_j a_ij n_j U`` to the residual stream: ``U`` is the
value matrix followed by the head's block of the output projection, with the LN scale folded in
as in ``P``.  ``U`` acts on row vectors; its transpose acts on columns as in the paper, and every
quantity below (norms, distance to ``I``, antisymmetric share, eigenvalues) is transpose-invariant.

Nothing ``D x D`` is formed: ``||A B^T||_2 = ||R_A R_B^T||_2`` from thin QR factors
(``2 d_head`` columns for differences of two layers), ``tr(U) = tr(O V)``,
``||U||_F^2 = <V^T V, O O^T>``, ``tr(U^2) = tr((O V)^2)`` and the nonzero eigenvalues of ``U`` are
those of the ``d_head x d_head`` matrix ``O V`` (``U`` also has eigenvalue 0 with multiplicity at
least ``D - d_head``).  All arithmetic is float64; inputs may be float32 views.  These are float
measurements: they carry no rounding certificate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .layout import LayerAttention


@dataclass(frozen=True)
class LayerFactors:
    """Float64 factors of one layer, stacked over heads: ``A, B, V`` are ``(H, D, d_head)``,
    ``O`` is ``(H, d_head, D)``."""

    index: int
    A: np.ndarray
    B: np.ndarray
    V: np.ndarray
    O: np.ndarray


def layer_factors(layer: LayerAttention) -> LayerFactors:
    g = np.asarray(layer.norm_scale, dtype=np.float64)[None, :, None]
    kv = np.array([layer.kv_index(h) for h in range(layer.n_heads)])
    W_K = np.asarray(layer.W_K, dtype=np.float64)[kv]
    W_V = np.asarray(layer.W_V, dtype=np.float64)[kv]
    return LayerFactors(
        index=layer.index,
        A=layer.temperature * g * np.asarray(layer.W_Q, dtype=np.float64),
        B=g * W_K,
        V=g * W_V,
        O=np.asarray(layer.W_O, dtype=np.float64),
    )


def _r(stack: np.ndarray) -> np.ndarray:
    return np.linalg.qr(stack, mode="r")


def _spectral(small: np.ndarray) -> np.ndarray:
    return np.linalg.svd(small, compute_uv=False)[..., 0]


def product_norm(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``||left @ right^T||_2`` per head for ``(H, D, r)`` stacks, via ``R_left R_right^T``."""
    return _spectral(_r(left) @ np.swapaxes(_r(right), -1, -2))


def P_norms(f: LayerFactors) -> np.ndarray:
    """``p^h = ||P^h||_2`` per head."""
    return product_norm(f.A, f.B)


def P_differences(f0: LayerFactors, f1: LayerFactors) -> np.ndarray:
    """``||P_1^h - P_0^h||_2`` per head: ``[A_1, -A_0] [B_1, B_0]^T`` has rank ``<= 2 d_head``."""
    return product_norm(np.concatenate([f1.A, -f0.A], axis=-1), np.concatenate([f1.B, f0.B], axis=-1))


@dataclass(frozen=True)
class ValueStats:
    """Per-head facts about ``U^h = V^h O^h`` (arrays of length ``H``).

    ``skew_share = ||U - U^T||_F / (2 ||U||_F) = ||(U - U^T)/2||_F / ||U||_F`` in ``[0, 1]``: 0 iff
    ``U`` is symmetric, 1 iff antisymmetric (``||U||_F^2 = ||sym||_F^2 + ||skew||_F^2``).
    ``dist_identity_fro = ||U - I||_F / sqrt(D)`` and ``dist_identity_2 = ||U - I||_2`` (at least 1
    whenever ``d_head < D``, since ``U`` then has a null space).  ``top`` is the eigenvalue of ``U``
    with the largest real part (0 counts when ``d_head < D``), ``gap`` its real-part distance to
    the next one (0 when it is repeated), ``top_is_real`` whether its imaginary part is exactly 0.
    """

    norm_2: np.ndarray
    norm_fro: np.ndarray
    dist_identity_fro: np.ndarray
    dist_identity_2: np.ndarray
    skew_share: np.ndarray
    top_real: np.ndarray
    top_imag: np.ndarray
    gap: np.ndarray
    top_is_real: np.ndarray
    top_multiple_zero: np.ndarray


def value_stats(f: LayerFactors) -> ValueStats:
    H, D, dh = f.V.shape
    Ot = np.swapaxes(f.O, -1, -2)
    small = f.O @ f.V  # (H, dh, dh): nonzero spectrum of U
    fro2 = np.einsum("hij,hij->h", np.swapaxes(f.V, -1, -2) @ f.V, f.O @ Ot)
    trace = np.trace(small, axis1=-2, axis2=-1)
    trace_sq = np.einsum("hij,hji->h", small, small)
    skew = np.sqrt(np.clip((fro2 - trace_sq) / (2.0 * fro2), 0.0, 1.0))
    dist_fro = np.sqrt(np.clip(fro2 - 2.0 * trace + D, 0.0, None) / D)
    basis = np.linalg.qr(np.concatenate([f.V, Ot], axis=-1), mode="reduced")[0]  # (H, D, 2dh)
    restricted = (np.swapaxes(basis, -1, -2) @ f.V) @ (f.O @ basis)
    restricted -= np.eye(restricted.shape[-1])
    dist_2 = _spectral(restricted)
    if 2 * dh < D:
        dist_2 = np.maximum(dist_2, 1.0)
    eig = np.linalg.eigvals(small)
    if dh < D:
        eig = np.concatenate([eig, np.zeros((H, 1), dtype=eig.dtype)], axis=-1)
    order = np.argsort(-eig.real, axis=-1)
    ranked = np.take_along_axis(eig, order, axis=-1)
    top = ranked[:, 0]
    zero_is_top = (dh < D) & (ranked[:, 0].real == 0.0) & (ranked[:, 0].imag == 0.0)
    return ValueStats(
        norm_2=product_norm(f.V, Ot),
        norm_fro=np.sqrt(fro2),
        dist_identity_fro=dist_fro,
        dist_identity_2=dist_2,
        skew_share=skew,
        top_real=top.real.copy(),
        top_imag=top.imag.copy(),
        gap=np.where(zero_is_top, 0.0, ranked[:, 0].real - ranked[:, 1].real),
        top_is_real=top.imag == 0.0,
        top_multiple_zero=zero_is_top,
    )


def U_differences(f0: LayerFactors, f1: LayerFactors) -> np.ndarray:
    """``||U_1^h - U_0^h||_F / max(||U_0^h||_F, ||U_1^h||_F)`` per head, from ``d_head``-sized traces."""
    def cross(fa: LayerFactors, fb: LayerFactors) -> np.ndarray:  # tr(U_a^T U_b) = <V_a^T V_b, O_a O_b^T>
        return np.einsum("hij,hij->h", np.swapaxes(fa.V, -1, -2) @ fb.V, fa.O @ np.swapaxes(fb.O, -1, -2))

    n0, n1, c = cross(f0, f0), cross(f1, f1), cross(f0, f1)
    return np.sqrt(np.clip(n0 + n1 - 2.0 * c, 0.0, None)) / np.sqrt(np.maximum(np.maximum(n0, n1), np.finfo(float).tiny))


def U_dense(f: LayerFactors, head: int) -> np.ndarray:
    """The dense ``D x D`` ``U^h`` (only for exact checks on small data and for the benchmark)."""
    return f.V[head] @ f.O[head]


def P_dense(f: LayerFactors, head: int) -> np.ndarray:
    """The dense ``D x D`` ``P^h`` (only for cross-checks and the benchmark)."""
    return f.A[head] @ f.B[head].T


EXACT_LIMIT = 300_000  # D * D * d_head multiply-adds in rationals; beyond this exact checks are skipped


def U_exact(layer: LayerAttention, head: int) -> np.ndarray | None:
    """``U^h = diag(g) W_V^h W_O^h`` in exact rationals (object array of ``Fraction``), or ``None``
    when ``D * D * d_head`` exceeds :data:`EXACT_LIMIT`.  Stored floats are dyadic rationals, so
    this is the exact matrix the weights define; a float64 product could round a tiny asymmetry
    or a tiny deviation from ``I`` away."""
    from fractions import Fraction

    D, dh = layer.d_model, layer.d_head
    if D * D * dh > EXACT_LIMIT:
        return None
    to_q = np.vectorize(lambda v: Fraction(float(v)), otypes=[object])
    g = to_q(np.asarray(layer.norm_scale, dtype=np.float64))
    V = to_q(np.asarray(layer.W_V[layer.kv_index(head)], dtype=np.float64)) * g[:, None]
    O = to_q(np.asarray(layer.W_O[head], dtype=np.float64))
    return V.dot(O)
