"""Exact re-check of the numbers in witnesses the toolkit labels exact (issue 20), against the
instance *as written*.  Project-free: ``fractions``, ``sympy`` and the project-free helpers of
:mod:`metamorphic_algebra` / :mod:`metamorphic_truth`.

:func:`recheck` takes one serialised verdict (``{"name", "verdict", "exact", "witness"}``) and the
instance; it returns ``(numbers_checked, problems)``.  Verdicts labelled ``"exact": false`` are not
re-checked (they claim nothing exact).  Only keys whose meaning is documented are read: ``z`` and
``lambda`` (open hemisphere), ``entry``/``entry_value`` (U = I, U symmetric, U = P, P symmetric),
``layers`` and any ``*difference*`` (time invariance), ``gap_lower_bound``/``lambda_1``/``v``
(top eigenvalue), ``w`` (lambda_1 > 0), ``v_exact``/``w``/``inner_*`` (v-hemisphere), ``p`` (P bounded),
``jump_entry_value``/``lipschitz_bound`` (uniform continuity), ``spread``/``scale`` (LN scales).
"""
from __future__ import annotations

from fractions import Fraction

import sympy

from metamorphic_algebra import spectrum, dot, is_zero, matrix, tokens, value
from metamorphic_truth import spectral_norm_at_most


def _q(s) -> Fraction:
    e = s if isinstance(s, sympy.Basic) else value(s)
    if not e.is_Rational:
        raise ValueError(f"not rational: {s!r}")
    return Fraction(int(e.p), int(e.q))


def _heads(data, key):
    return [matrix(h[key], data["d"]) for h in data["heads"]]


def _unit_rows(data) -> bool:
    return all(sum(c * c for c in x) == 1 for x in tokens(data))


def _normalised(data) -> list[list[sympy.Expr]]:
    out = []
    for x in tokens(data):
        n2 = sum(c * c for c in x)
        r = sympy.sqrt(sympy.Rational(n2.numerator, n2.denominator))
        out.append([sympy.Rational(c.numerator, c.denominator) / r for c in x])
    return out


def _entry_checks(name, data, sub, head, problems) -> int:
    """``entry`` [i, j] (optionally ``layer``) with ``entry_value``/``value``: the difference that the
    predicate is about is nonzero exactly, and equal to a string value."""
    if "entry" not in sub:
        return 0
    i, j = sub["entry"]
    d = data["d"]
    if name in ("U_identity", "U_symmetric"):
        U = _heads(data, "U")[head]["layers"][sub.get("layer", 0)]
        D = U - sympy.eye(d) if name == "U_identity" else U - U.T
    elif name == "P_symmetric":
        P = _heads(data, "P")[head]["layers"][sub.get("layer", 0)]
        D = P - P.T
    else:  # U_equals_P
        k = sub.get("layer", 0)
        U, P = _heads(data, "U")[head]["layers"], _heads(data, "P")[head]["layers"]
        D = U[min(k, len(U) - 1)] - P[min(k, len(P) - 1)]
    exact = D[i, j]
    if is_zero(exact):
        problems.append(f"{name}: witness entry {sub['entry']} but that difference is exactly 0 as written")
    shown = sub.get("entry_value", sub.get("value"))
    if isinstance(shown, str) and not shown.startswith("["):
        try:
            if not is_zero(value(shown) - exact):
                problems.append(f"{name}: entry_value {shown} != exact difference {exact}")
        except (sympy.SympifyError, TypeError, ValueError, SyntaxError):
            pass
    return 1


def _differences(sub, name, problems) -> int:
    n = 0
    for key, v in sub.items():
        if "difference" in key and isinstance(v, (int, float, str)):
            n += 1
            if (isinstance(v, str) and is_zero(value(v))) or (not isinstance(v, str) and v == 0):
                problems.append(f"{name}: witness {key} = {v!r}, but the layers it names differ exactly")
    return n


def _top_eigen(sub, U, problems) -> int:
    n = 0
    spec = spectrum(U)
    g = sub.get("gap_lower_bound")
    if g:
        n += 1
        if not (_q(g) > 0 and spec.gap_at_least(_q(g))):
            problems.append(f"U_simple_top_eigenvalue: gap_lower_bound {g} is not a lower bound of the exact gap")
    lam = sub.get("lambda_1")
    if isinstance(lam, str) and value(lam).is_Rational:
        n += 1
        if not spec.is_top(_q(lam)):
            problems.append(f"U_simple_top_eigenvalue: lambda_1 = {lam} is not the simple top eigenvalue of U "
                            "as written")
        v = sub.get("v")
        if sub.get("v_exact") and v:
            n += 1
            vec = sympy.Matrix([value(c) for c in v])
            if all(is_zero(c) for c in vec) or not all(is_zero(c) for c in (U * vec - value(lam) * vec)):
                problems.append(f"U_simple_top_eigenvalue: v = {v} is not an eigenvector for {lam} of U as written")
    return n


def _v_hemisphere(sub, data, U, verdict, problems) -> int:
    rows, n = tokens(data), 0
    unit = _unit_rows(data)
    if "v_exact" in sub:
        v = [_q(c) for c in sub["v_exact"]]
        vs = sympy.Matrix([sympy.Rational(c.numerator, c.denominator) for c in v])
        Uv = U * vs
        lam = (vs.T * Uv)[0, 0] / (vs.T * vs)[0, 0]
        n += 1
        if not all(is_zero(c) for c in Uv - lam * vs) or not spectrum(U).is_top(_q(lam)):
            problems.append(f"v_hemisphere: v_exact = {sub['v_exact']} is not the top eigenvector of U as written")
        inner = [dot(v, x) for x in rows]
        if verdict == "holds":
            o = sub.get("orientation", 1)
            if not all(c * o > 0 for c in inner):
                problems.append(f"v_hemisphere: holds, but <v, x_i> as written = {[str(c) for c in inner]} "
                                f"(orientation {o})")
        if unit and "inner_v_x" in sub:
            n += 1
            if [_q(c) for c in sub["inner_v_x"]] != inner:
                problems.append("v_hemisphere: inner_v_x differs from <v, x_i> with the tokens as written")
    elif "w" in sub and verdict == "holds":
        w = [_q(c) for c in sub["w"]]
        n2, Uf = dot(w, w), [[_q(str(c)) for c in U.row(i)] for i in range(U.rows)]
        mu = sum((w[i] * Uf[i][j] * w[j] for i in range(3) for j in range(3)), Fraction(0)) / n2
        hi2 = _q(sub["lambda_2_upper"])
        spec = spectrum(U)
        n += 1
        at = sympy.Rational(hi2.numerator, hi2.denominator)
        above = spec.p.count_roots(at, None) - int(spec.p.eval(at) == 0)  # roots in (hi2, oo): lambda_1 only
        if mu <= hi2 or above != 1:
            problems.append("v_hemisphere: lambda_2_upper is not above lambda_2 (or mu <= it) for U as written")
        res = [sum((Uf[i][j] * w[j] for j in range(3)), Fraction(0)) - mu * w[i] for i in range(3)]
        sin2 = (dot(res, res) / n2) / (mu - hi2) ** 2
        if sin2 > _q(sub["sin2_theta_upper"]):
            problems.append("v_hemisphere: sin2_theta_upper is below the Davis-Kahan bound for U as written")
        o = sub.get("orientation", 1)
        for x in rows:
            c = dot(w, x) * o
            if not (c > 0 and c * c > sin2 * n2 * dot(x, x)):
                problems.append(f"v_hemisphere: token {x} is not proven on the v side with w as written")
                break
    return n


def recheck(verdict: dict, data: dict) -> tuple[int, list[str]]:
    """``(numbers checked, problems)`` for one serialised verdict labelled exact."""
    if not verdict.get("exact"):
        return 0, []
    name, w, status = verdict["name"], verdict.get("witness") or {}, verdict["verdict"]
    problems: list[str] = []
    n = 0
    if name == "open_hemisphere" and status == "holds" and "z" in w:
        z = [_q(c) for c in w["z"]]
        n += 1
        bad = [i for i, x in enumerate(tokens(data)) if dot(z, x) <= 0]
        if bad:
            problems.append(f"open_hemisphere: z = {w['z']} has <z, x_i> <= 0 for tokens {bad} as written")
    elif name == "open_hemisphere" and status == "fails" and "lambda" in w:
        lam = {int(i): value(v) for i, v in w["lambda"].items()}
        n += 1
        raw = [[sympy.Rational(c.numerator, c.denominator) for c in x] for x in tokens(data)]
        ok = lambda rows: all(is_zero(sum((lv * rows[i][k] for i, lv in lam.items()), sympy.Integer(0)))  # noqa: E731
                              for k in range(data["d"]))
        directions = w.get("token_directions")
        if directions is not None:  # lambda refers to these positive multiples of the tokens
            directions = [[value(c) for c in row] for row in directions]
            n += 1
            for i, (row, x) in enumerate(zip(directions, raw)):
                if not _positive_multiple(row, x):
                    problems.append(f"open_hemisphere: token_directions[{i}] is not a positive multiple of token {i} "
                                    "as written")
        if any(sign_neg(v) for v in lam.values()) or not is_zero(sum(lam.values()) - 1) or \
                not (ok(raw) or ok(_normalised(data)) or (directions is not None and ok(directions))):
            problems.append(f"open_hemisphere: Farkas lambda = {w['lambda']} does not give sum lambda_i x_i = 0 "
                            "with the tokens as written")
    elif name in ("U_identity", "U_symmetric") and status == "fails":
        for h, sub in enumerate(w.get("per_head", [])):
            if sub.get("verdict") == "fails":
                n += _entry_checks(name, data, sub, h, problems)
    elif name in ("P_symmetric", "U_equals_P") and status == "fails":
        n += _entry_checks(name, data, w, w.get("head", 0), problems)
    elif name == "U_time_invariant" and status == "fails":
        for h, sub in enumerate(w.get("per_head", [])):
            if sub.get("verdict") == "fails":
                n += _layers_differ(name, data, "U", h, sub, problems)
    elif name == "P_time_invariant" and status == "fails":
        n += _layers_differ(name, data, "P", w.get("head", 0), w, problems)
    elif name == "U_simple_top_eigenvalue" and status == "holds" and w.get("exact", True):
        U = _heads(data, "U")[0]["layers"][0]
        if len(data["heads"]) == 1 and not all(is_zero(c) for c in U - U.T):
            n += 1
            problems.append("U_simple_top_eigenvalue: an exact spectral witness for a symmetric U, but U as written "
                            "is not symmetric")
        elif len(data["heads"]) == 1 and all(c.is_Rational for c in U):
            n += _top_eigen(w, U, problems)
    elif name == "lambda_1_positive" and status == "holds" and "w" in w:
        U = _heads(data, "U")[0]["layers"][0]
        vec = sympy.Matrix([value(c) for c in w["w"]])
        n += 1
        if not (vec.T * U * vec)[0, 0] > 0:
            problems.append(f"lambda_1_positive: w^T U w <= 0 for w = {w['w']} and U as written")
    elif name == "v_hemisphere" and status in ("holds", "fails"):
        U = _heads(data, "U")[0]["layers"][0]
        n += _v_hemisphere(w, data, U, status, problems)
    elif name == "P_bounded" and status == "holds" and "p" in w:
        p = _q(w["p"])
        for P in _heads(data, "P"):
            for L in P["layers"]:
                n += 1
                if not spectral_norm_at_most(L, p):
                    problems.append(f"P_bounded: ||P||_2 > p = {w['p']} for a layer as written")
    elif name == "P_uniformly_continuous":
        n += _continuity(w, data, status, problems)
    elif name == "equal_ln_scales":
        g = [value(v) for v in (data.get("layer_norm") or {}).get("scale", [])]
        if status == "fails" and "spread" in w and "entries" in w:
            a, b = w["entries"]
            n += 1
            if not is_zero(value(w["spread"]) - (g[b] - g[a])) or is_zero(g[b] - g[a]):
                problems.append(f"equal_ln_scales: spread {w['spread']} != g[{b}] - g[{a}] as written")
        if status == "holds" and g and "scale" in w:
            n += 1
            if not all(is_zero(value(w["scale"]) - x) for x in g):
                problems.append(f"equal_ln_scales: common scale {w['scale']} differs from a scale as written")
    return n, problems


def _layers_differ(name, data, key, head, sub, problems) -> int:
    n = _differences(sub, name, problems)
    if "layers" in sub:
        layers = _heads(data, key)[head]["layers"]
        a, b = sub["layers"]
        n += 1
        if all(is_zero(x - y) for x, y in zip(layers[a], layers[b])):
            problems.append(f"{name}: layers {sub['layers']} named as different are equal as written")
        shown = sub.get("entry_difference")
        if "entry" in sub and isinstance(shown, str):
            i, j = sub["entry"]
            exact = layers[b][i, j] - layers[a][i, j]
            n += 1
            if is_zero(exact) or not (is_zero(value(shown) - exact) or is_zero(value(shown) + exact)):
                problems.append(f"{name}: entry_difference {shown} at {sub['entry']} is not the exact difference "
                                f"{exact} of layers {sub['layers']} as written")
    return n


def _positive_multiple(row, x) -> bool:
    k = next(j for j in range(len(x)) if x[j] != 0)
    r = row[k] / x[k]
    return bool(r > 0) and all(is_zero(row[j] - r * x[j]) for j in range(len(x)))


def sign_neg(v) -> bool:
    return not is_zero(v) and bool(sympy.N(v, 50) < 0)


def _continuity(w, data, status, problems) -> int:
    n = 0
    if status == "fails" and "jump_entry_value" in w:
        P = _heads(data, "P")[w.get("head", 0)]
        a, b = w["layers"]
        i, j = w["jump_entry"]
        exact = P["layers"][b][i, j] - P["layers"][a][i, j]
        n += 1
        if is_zero(exact):
            problems.append(f"P_uniformly_continuous: jump entry {w['jump_entry']} between layers {w['layers']} does "
                            f"not jump as written (exact difference 0; witness says {w['jump_entry_value']})")
        elif not is_zero(value(w["jump_entry_value"]) - exact):
            problems.append(f"P_uniformly_continuous: jump_entry_value {w['jump_entry_value']} != exact jump {exact}")
    if status == "holds" and w.get("lipschitz_bound") is not None:
        L = _q(w["lipschitz_bound"])
        for P in _heads(data, "P"):
            if not P["stack"] or P["interp"] != "linear":
                continue
            layers, dt = P["layers"], Fraction(str(P["dt"]))
            pairs = list(zip(layers, layers[1:])) + ([(layers[-1], layers[0])] if P["periodic"] else [])
            for A, B in pairs:
                n += 1
                if not spectral_norm_at_most(B - A, L * dt):
                    problems.append(f"P_uniformly_continuous: lipschitz_bound {w['lipschitz_bound']} is below "
                                    "||M_(k+1) - M_k||_2 / dt for layers as written")
                    return n
    return n


def depth_certificate_problems(cert_tokens, cert_p, data) -> tuple[int, list[str]]:
    """The depth certificate's tokens are the instance's (positive multiples of the rows as written)
    and its ``p`` bounds every ``P`` as written."""
    problems, n = [], 0
    for i, (c, x) in enumerate(zip(cert_tokens, tokens(data))):
        n += 1
        k = next(j for j in range(len(x)) if x[j] != 0)
        r = Fraction(c[k]) / x[k]
        if r <= 0 or any(Fraction(c[j]) != r * x[j] for j in range(len(x))):
            problems.append(f"depth certificate: token {i} is not the instance's token as written")
    for P in _heads(data, "P"):
        for L in P["layers"]:
            n += 1
            if not spectral_norm_at_most(L, Fraction(cert_p)):
                problems.append(f"depth certificate: p = {cert_p} is below ||P||_2 as written")
    return n, problems
