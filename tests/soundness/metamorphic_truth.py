"""Independent ground truth for the metamorphic suite (issue 20, "Soundness III").

Imports nothing from the project: only ``fractions.Fraction``, ``sympy``, ``itertools`` and the
project-free exact helpers of :mod:`metamorphic_algebra` (same rule).  The instance is read *as
written* (SPEC §8): an int is exact, a JSON float is the binary rational ``Fraction(x)`` it denotes,
a string is the exact number it spells.  That is the only reading: mixed or all-float, a verdict is
about these values, so one truth serves an instance and its all-exact twin.

Token questions (open hemisphere, v-hemisphere, antipodes, ``<x_1, x_i> > 0``) only use signs of
inner products and convex combinations, which a positive rescaling of a row does not change: the rows
are used as written (a mixed row within 1e-12 of unit norm is normalised by ``x / sqrt(|x|^2)``).

:func:`truth` answers every predicate id with ``"holds"``, ``"fails"`` or ``"n/a"`` (not meaningful:
e.g. the top eigenvalue of a non-symmetric ``U``; the toolkit may answer unknown or fails, never
holds).  :data:`HYPOTHESES` lists each catalogue id's hypotheses, written down independently (a test
compares it with the catalogue).
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from metamorphic_algebra import spectrum, dot, is_zero, matrix, tokens, value, zero_in_hull

HOLDS, FAILS, NA = "holds", "fails", "n/a"
NOT_HOLDS = "not holds"
"""Theorem-level: the project must not say holds (a false claim of the catalogue; depth without a
certifiable start); fails and unknown are both right."""

_SYM = ["mask_causal", "one_head", "U_symmetric", "U_time_invariant", "U_simple_top_eigenvalue"]
HYPOTHESES = {
    "weights": ["P_bounded"],
    "3.2": ["mask_full", "U_identity", "P_bounded", "P_uniformly_continuous", "open_hemisphere", "equal_ln_scales"],
    "4.2": ["mask_causal", "dim_at_least_2", "U_identity", "P_bounded", "equal_ln_scales"],
    "4.4-sym": _SYM + ["P_bounded", "equal_ln_scales"],
    "4.4-hemisphere": _SYM + ["lambda_1_positive", "P_bounded", "v_hemisphere", "equal_ln_scales"],
    "iss-causal": ["mask_causal", "U_identity", "P_bounded", "equal_ln_scales"],
    "grad-energy": ["mask_full", "one_head", "P_time_invariant", "P_symmetric", "U_equals_P"],
    "D1": [],
    "LN1": ["equal_ln_scales"],
    "4.4-sym-later": _SYM + ["P_bounded", "equal_ln_scales"],
    "4.4-same-sign": _SYM + ["U_positive_definite", "P_bounded", "equal_ln_scales"],
}
FALSE_CLAIMS = ("4.4-sym-later", "4.4-same-sign")
DEPTH_HYPOTHESES = {"3.2": ["mask_full", "U_identity", "P_bounded", "equal_ln_scales"],
                    "4.2": ["mask_causal", "U_identity", "P_bounded", "equal_ln_scales"]}


def _verdict(ok: bool) -> str:
    return HOLDS if ok else FAILS


def _combine(parts) -> str:
    parts = list(parts)
    if FAILS in parts:
        return FAILS
    return NA if NA in parts else HOLDS


def _equal(A: sympy.Matrix, B: sympy.Matrix) -> bool:
    return all(is_zero(a - b) for a, b in zip(A, B))


def _constant(m: dict) -> sympy.Matrix | None:
    """The value of a time-invariant schedule, or None when two layers differ."""
    first = m["layers"][0]
    return first if all(_equal(first, L) for L in m["layers"][1:]) else None


def _uniformly_continuous(m: dict) -> bool:
    if not m["stack"] or m["interp"] == "linear":
        return True
    L = m["layers"]
    pairs = [(k, k + 1) for k in range(len(L) - 1)] + ([(len(L) - 1, 0)] if m["periodic"] and len(L) > 1 else [])
    return all(_equal(L[a], L[b]) for a, b in pairs)


def _same_schedule(a: dict, b: dict) -> str:
    if not a["stack"] and not b["stack"]:
        return _verdict(_equal(a["layers"][0], b["layers"][0]))
    if a["stack"] and b["stack"]:
        same_shape = (a["interp"], a["periodic"], a["dt"], len(a["layers"])) == \
            (b["interp"], b["periodic"], b["dt"], len(b["layers"]))
        if same_shape:
            return _verdict(all(_equal(x, y) for x, y in zip(a["layers"], b["layers"])))
        return NA
    stack, const = (a, b) if a["stack"] else (b, a)
    return _verdict(all(_equal(L, const["layers"][0]) for L in stack["layers"]))


def _spectral(U: dict, need_one_head: bool, H: int):
    """``(Spectrum or None, reason)``: None when the spectral predicates are not meaningful."""
    if need_one_head and H != 1:
        return None
    value_ = _constant(U)
    if value_ is None or not _equal(value_, value_.T):
        return None
    return spectrum(value_)


def v_signs(data: dict) -> list[int] | None:
    """``sign(<v, x_1> <v, x_i>)`` for every token (``i = 1`` gives ``sign(<v, x_1>^2)``), or None."""
    d = data["d"]
    spec = _spectral(matrix(data["heads"][0]["U"], d), True, len(data["heads"]))
    if spec is None or not spec.simple:
        return None
    rows = tokens(data)
    return [spec.v_sign(rows[0], x) for x in rows]


def v_orthogonal_first(data: dict) -> bool | None:
    """``<v, x_1(0)> = 0`` exactly (the exceptional start of 4.4-sym), or None when v is undefined."""
    signs = v_signs(data)
    return None if signs is None else signs[0] == 0


def antipodal_tokens(data: dict) -> list[int]:
    """1-based ``i >= 2`` with ``x_i = -x_1`` while every earlier token is at ``+-x_1`` (directions)."""
    rows = tokens(data)
    x1 = rows[0]
    out = []
    for i, x in enumerate(rows[1:], start=2):
        k = next(j for j in range(len(x1)) if x1[j] != 0)
        c = x[k] / x1[k]
        if c == 0 or any(x[j] != c * x1[j] for j in range(len(x1))):
            break
        if c < 0:
            out.append(i)
    return out


def first_token_inner(data: dict) -> list[int]:
    """``sign(<x_1, x_i>)`` for ``i >= 2`` (the 4.2 depth start condition ``a_i(0) > 0``)."""
    rows = tokens(data)
    return [(dot(rows[0], x) > 0) - (dot(rows[0], x) < 0) for x in rows[1:]]


def truth(data: dict) -> dict[str, str]:
    """Every predicate id of the catalogue, decided exactly on the instance as written."""
    d, H = data["d"], len(data["heads"])
    heads = [(matrix(h["P"], d), matrix(h["U"], d)) for h in data["heads"]]
    out = {"mask_full": _verdict(data["mask"] == "full"), "mask_causal": _verdict(data["mask"] == "causal"),
           "one_head": _verdict(H == 1), "P_bounded": HOLDS, "dim_at_least_2": _verdict(d >= 2)}
    out["U_identity"] = _verdict(all(_equal(L, sympy.eye(d)) for _, U in heads for L in U["layers"]))
    out["U_symmetric"] = _verdict(all(_equal(L, L.T) for _, U in heads for L in U["layers"]))
    out["U_time_invariant"] = _verdict(all(_constant(U) is not None for _, U in heads))
    out["P_symmetric"] = _verdict(all(_equal(L, L.T) for P, _ in heads for L in P["layers"]))
    out["P_time_invariant"] = _verdict(all(_constant(P) is not None for P, _ in heads))
    out["P_uniformly_continuous"] = _verdict(all(_uniformly_continuous(P) for P, _ in heads))
    out["U_equals_P"] = _combine(_same_schedule(U, P) for P, U in heads)
    specs = [_spectral(U, False, H) for _, U in heads]
    out["U_simple_top_eigenvalue"] = _combine(NA if s is None else _verdict(s.simple) for s in specs)
    pd = []
    for (_, U), s in zip(heads, specs):
        if U["stack"]:
            pd.append(NA)
        elif not _equal(U["layers"][0], U["layers"][0].T):
            pd.append(FAILS)
        else:
            pd.append(_verdict(s.positive_definite()))
    out["U_positive_definite"] = _combine(pd)
    one = specs[0] if H == 1 else None
    out["lambda_1_positive"] = NA if one is None else _verdict(one.lambda1_positive())
    signs = v_signs(data)
    out["v_hemisphere"] = NA if signs is None else _verdict(all(s > 0 for s in signs))
    out["open_hemisphere"] = _verdict(zero_in_hull(tokens(data)) is None)
    out["equal_ln_scales"] = _ln(data)
    return out


def _ln(data: dict) -> str:
    ln = data.get("layer_norm")
    if ln is None:
        return HOLDS
    g = [value(v) for v in ln["scale"]]
    return _verdict(all(is_zero(x - g[0]) for x in g) and not is_zero(g[0]))


def theorem_truth(theorem_id: str, predicates: dict[str, str]) -> str:
    """``verify theorem`` / ``verify assumptions``: fails as soon as a hypothesis fails; otherwise
    holds (a false claim of the catalogue: never holds)."""
    status = _combine(predicates[h] for h in HYPOTHESES[theorem_id])
    if status == NA:
        raise AssertionError(f"{theorem_id}: a hypothesis is n/a while none fails")
    if theorem_id in FALSE_CLAIMS and status == HOLDS:
        return NOT_HOLDS
    return status


def depth_truth(theorem_id: str, data: dict, predicates: dict[str, str]) -> str:
    """``verify depth ID --model ode``: fails when a hypothesis fails; holds when the start is in
    the domain of the certified bound (3.2: an open hemisphere; 4.2: every ``<x_1, x_i(0)> > 0``);
    otherwise no bound may be claimed."""
    status = _combine(predicates[h] for h in DEPTH_HYPOTHESES[theorem_id])
    if status != HOLDS:
        return status
    if theorem_id == "3.2":
        return HOLDS if predicates["open_hemisphere"] == HOLDS else NOT_HOLDS
    return HOLDS if all(s > 0 for s in first_token_inner(data)) else NOT_HOLDS


def spectral_norm_at_most(M: sympy.Matrix, p: Fraction) -> bool:
    """``||M||_2 <= p`` exactly: no eigenvalue of ``M^T M`` above ``p^2``."""
    G = M.T * M
    spec = spectrum(G)
    bound = p * p
    return spec.p.count_roots(sympy.Rational(bound.numerator, bound.denominator), None) - \
        int(spec.p.eval(sympy.Rational(bound.numerator, bound.denominator)) == 0) == 0


__all__ = ["FALSE_CLAIMS", "HYPOTHESES", "antipodal_tokens", "depth_truth", "first_token_inner",
           "spectral_norm_at_most", "theorem_truth", "truth", "v_orthogonal_first", "v_signs"]
