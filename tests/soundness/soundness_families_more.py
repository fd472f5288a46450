"""More false instances (issue 9): oscillation, branch identities, hemispheres, layer stacks,
JSON floats, negative powers, degenerate spectra.  Same conventions as :mod:`soundness_families`.

* ``not_uc``: bounded but not uniformly continuous entries (``sin(t^2)``, ``sin(exp t)``, ...).
  Witness: pairs ``s_k, t_k`` (level sets of the phase found by bisection at 60 digits) with
  ``|f(s_k) - f(t_k)|`` bounded below while ``|s_k - t_k| -> 0``.
* ``branch_identities``: ``sqrt(x^2)`` is ``|x|``, not ``x``: ``sqrt((t-c)^2) - t + c``,
  ``sqrt(1 - sin 2t) - sin t + cos t``, ``sqrt((1 - cos 2t)/2) - sin t`` are not constant.
* ``hemisphere``: tokens with no open hemisphere, nearly: three exact rational unit vectors at
  angles 0 and pi +- 2 atan(10^-k) (k up to 60), exactly antipodal pairs written differently,
  the regular tetrahedron.  Witness: exact Farkas weights (``sum_i lambda_i x_i = 0``).
* ``stacks``: piecewise-constant layer stacks whose layers differ only beyond double precision
  (a jump: not uniformly continuous, not time-invariant, not the identity).
* ``json_floats``: float data differing from 1, 0 or its transpose by one ulp or a subnormal.
* ``neg_powers``: poles written as negative powers (``abs(t - c)^(-1)``, ``E^(1/(t - c))``).
* ``degenerate_top``: U = diag(1 + D, 1, 1/2) with D exactly 0 by an identity: the top
  eigenvalue is double, so Assumption 4.4's "simple" is false.
* ``unbounded_defined``: defined everywhere, unbounded (``tan(pi/2 - 1/(1+t))``, ...).
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath

from soundness_families import _place, q, rat
from soundness_families_hard import ZERO_CONSTANTS
from soundness_helpers import Case, grows, instance, mp_eval, mp_real, values_differ


def _solve_increasing(g: str, y, dps: int = 60):
    """x >= 0 with g(x) = y for g increasing on the bracket found by doubling (bisection)."""
    with mpmath.workdps(dps):
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while mp_real(g, hi, dps) < y:
            lo, hi = hi, 2 * hi
        for _ in range(3 * dps + 40):
            m = (lo + hi) / 2
            if mp_real(g, m, dps) < y:
                lo = m
            else:
                hi = m
        return (lo + hi) / 2


def not_uc() -> list[Case]:
    rng = random.Random(9201)
    cases = []
    pi = mpmath.pi
    forms = [  # entry, phase g, (level_a, level_b) as functions of k, minimal |f(s_k) - f(t_k)|
        ("sin(t^2)", "t^2", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 1.9),
        ("cos(t^2 + t)/2", "t^2 + t", lambda k: 2 * pi * k, lambda k: 2 * pi * k + pi, 0.9),
        ("sin(exp(t))", "exp(t)", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 1.9),
        ("sin(t^3)/3 + 1/(1 + t)", "t^3", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 0.6),
        ("cos(t*sqrt(t))", "t*sqrt(t)", lambda k: 2 * pi * k, lambda k: 2 * pi * k + pi, 1.9),
        ("sin(t*log(1 + t))", "t*log(1 + t)", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 1.9),
        ("sin(t^2)*t/(1 + t)", "t^2", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 1.9),
        ("sin(cosh(t))", "cosh(t)", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 1.9),
        ("sin(t^2)^2", "t^2", lambda k: pi / 2 + pi * k, lambda k: pi * k, 0.9),
        ("tanh(sin(t^2))", "t^2", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 1.5),
        ("atan(3*cos(t^4))", "t^4", lambda k: 2 * pi * k, lambda k: 2 * pi * k + pi, 2.4),
        ("exp(sin(t^2)) - 1", "t^2", lambda k: pi / 2 + 2 * pi * k, lambda k: -pi / 2 + 2 * pi * k, 2.3),
    ]
    slow = {"t*sqrt(t)": ((10 ** 3, 10 ** 6, 10 ** 9), 60),
            "t*log(1 + t)": ((mpmath.mpf(10) ** 50, mpmath.mpf(10) ** 100, mpmath.mpf(10) ** 200), 300)}
    for n, (entry, g, ya, yb, jump) in enumerate(forms):
        def witness(entry=entry, g=g, ya=ya, yb=yb, jump=jump):
            gaps = []
            ks, dps = slow.get(g, ((10 ** 2, 10 ** 4, 10 ** 6), 60))
            with mpmath.workdps(dps):
                for k in ks:
                    s, t = _solve_increasing(g, ya(k), dps), _solve_increasing(g, yb(k), dps)
                    assert abs(mp_real(entry, s, dps) - mp_real(entry, t, dps)) > jump, (entry, k)
                    gaps.append(abs(s - t))
            assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < mpmath.mpf("0.01"), gaps
            return f"{entry}: |f(s_k) - f(t_k)| > {jump} while |s_k - t_k| = {[mpmath.nstr(x, 3) for x in gaps]}"
        cases.append(Case(f"nuc-{n}", "not_uc", "3.2", ("P_uniformly_continuous",),
                          instance("3.2", P=_place(rng, entry)), witness))
    return cases


# ---------------------------------------------------------------------------------------------
def _two_distinct_times(expr: str, gap: float):
    """Two grid times in [0, 10] where ``expr`` differs by more than ``gap`` (asserted)."""
    with mpmath.workdps(60):
        grid = [mpmath.mpf(k) / 20 + mpmath.mpf(1) / 1000 for k in range(200)]
        vals = [mp_real(expr, x) for x in grid]
        hi = max(range(len(vals)), key=lambda i: vals[i])
        lo = min(range(len(vals)), key=lambda i: vals[i])
        values_differ(expr, grid[hi], grid[lo], gap)
        return grid[hi], grid[lo]


def branch_identities() -> list[Case]:
    rng = random.Random(9202)
    cases = []
    c = rat(rng, 1, 6)
    a = rat(rng, 0.5, 2)
    zs = [
        f"sqrt((t - {q(c)})^2) - t + {q(c)}",
        f"sqrt(t^2 - {q(2 * c)}*t + {q(c * c)}) + t - {q(c)}",
        f"((t - {q(c)})^2)^(1/2) - t",
        "sqrt(sin(t)^2) - sin(t)",
        f"sqrt(cos({q(a)}*t)^2) - cos({q(a)}*t)",
        "sqrt(1 - sin(2*t)) - sin(t) + cos(t)",
        "sqrt((1 - cos(2*t))/2) - sin(t)",
    ]
    for k, z in enumerate(zs):
        for kind in ("Uid", "Uti", "Pti", "Usym"):
            if kind == "Uid":
                entry, theorem, false = f"1 + {z}", "3.2", ("U_identity",)
                data = instance(theorem, U=[[entry, 0, 0], [0, 1, 0], [0, 0, 1]])
            elif kind == "Uti":
                entry, theorem, false = f"3 + {z}", "4.4-sym", ("U_time_invariant",)
                data = instance(theorem, U=[[entry, 0, 0], [0, 1, 0], [0, 0, "1/2"]])
            elif kind == "Pti":
                entry, theorem, false = f"2 + {z}", "grad-energy", ("P_time_invariant",)
                m = [[entry, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
                data = instance(theorem, P=m, U=m)
            else:
                entry, theorem, false = f"1/3 + ({z})/8", "4.4-sym", ("U_symmetric",)
                data = instance(theorem, U=[[3, entry, 0], ["1/3", 1, 0], [0, 0, "1/2"]])

            def witness(entry=entry, kind=kind):
                t1, t2 = _two_distinct_times(entry, 0.05)
                if kind == "Usym":  # U_10 = 1/3 constantly, so U_01 != U_10 at t1 or at t2
                    assert mp_real(entry, t1) != mpmath.mpf(1) / 3 or mp_real(entry, t2) != mpmath.mpf(1) / 3
                return f"{entry} = {mpmath.nstr(mp_real(entry, t1), 8)} at t = {mpmath.nstr(t1, 6)} but " \
                       f"{mpmath.nstr(mp_real(entry, t2), 8)} at t = {mpmath.nstr(t2, 6)}"
            cases.append(Case(f"br-{kind}-{k}", "branch_identities", theorem, false, data, witness))
    return cases


# ---------------------------------------------------------------------------------------------
def _fstr(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def hemisphere() -> list[Case]:
    cases = []
    for k in (3, 8, 16, 20, 30, 60):
        s = Fraction(1, 10 ** k)
        cx, sy = (1 - s * s) / (1 + s * s), 2 * s / (1 + s * s)
        toks = [[1, 0, 0], [_fstr(-cx), _fstr(sy), 0], [_fstr(-cx), _fstr(-sy), 0]]
        if k % 2 == 0:
            toks.append(["2/3", "1/3", "2/3"])
        lam = [2 * cx, Fraction(1), Fraction(1)] + ([Fraction(0)] if len(toks) == 4 else [])

        def witness(toks=toks, lam=lam):
            X = [[Fraction(str(v)) for v in x] for x in toks]
            assert all(sum(v * v for v in x) == 1 for x in X)
            assert all(w >= 0 for w in lam) and sum(lam) > 0
            assert all(sum(w * x[i] for w, x in zip(lam, X)) == 0 for i in range(3))
            return f"exact Farkas weights {[str(w) for w in lam]} give sum lambda_i x_i = 0: no open hemisphere"
        cases.append(Case(f"hemi-angle-{k}", "hemisphere", "3.2", ("open_hemisphere",),
                          instance("3.2", tokens=toks), witness))
    for k, (a, b) in enumerate([(["0.6", "0.8", 0], ["-0.60000000000000000000", "-0.80", 0]),
                                (["3/5", "4/5", 0], ["-0.6", "-4/5", 0]),
                                (["2/3", "2/3", "1/3"], ["-0.666666666666666666666666666666666", "-2/3", "-1/3"])]):
        toks = [a, b, ["2/3", "1/3", "2/3"]]

        def witness(a=a, b=b, k=k):
            A = [Fraction(str(v)) for v in a]
            B = [Fraction(str(v)) for v in b]
            if k < 2:
                assert all(x == -y for x, y in zip(A, B))
                return "tokens 0 and 1 are exactly antipodal: no open hemisphere"
            # token 1 is not a unit vector: the instance must be rejected (or the hemisphere
            # must not hold: b != -a, and b is not on the sphere)
            assert sum(v * v for v in B) != 1
            return "token 1 is not exactly a unit vector (a 33-digit decimal of -2/3)"
        must = k == 2
        cases.append(Case(f"hemi-antipodal-{k}", "hemisphere", "3.2", () if must else ("open_hemisphere",),
                          instance("3.2", tokens=toks), witness, must_reject=must))
    tet = [["sqrt(3)/3", "sqrt(3)/3", "sqrt(3)/3"], ["sqrt(3)/3", "-sqrt(3)/3", "-sqrt(3)/3"],
           ["-sqrt(3)/3", "sqrt(3)/3", "-sqrt(3)/3"], ["-sqrt(3)/3", "-sqrt(3)/3", "sqrt(3)/3"]]

    def witness_tet():
        signs = [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]
        assert all(sum(s[i] for s in signs) == 0 for i in range(3))
        return "the four tetrahedron vertices sum to 0 (weights 1/4 each): no open hemisphere"
    cases.append(Case("hemi-tetrahedron", "hemisphere", "3.2", ("open_hemisphere",), instance("3.2", tokens=tet),
                      witness_tet))
    floats = [[0.6, 0.8, 0.0], [-0.6, -0.8, -0.0], [0.0, 0.6, 0.8]]

    def witness_float():
        assert all(x == -y for x, y in zip(floats[0], floats[1]))
        return "float tokens 0 and 1 are exact negatives (normalisation keeps them so): no open hemisphere"
    cases.append(Case("hemi-float-antipodal", "hemisphere", "3.2", ("open_hemisphere",),
                      instance("3.2", tokens=floats, normalize_tokens=True), witness_float))
    return cases


# ---------------------------------------------------------------------------------------------
def stacks() -> list[Case]:
    rng = random.Random(9203)
    cases = []
    for k in range(3):
        n = rng.randint(18, 40)
        a = "1." + "0" * n + "1"
        I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        L1 = [[1, 0, 0], [0, a, 0], [0, 0, 1]]
        dt = [1.0, 0.5, 1e-300][k]

        def differs(a=a):
            assert Fraction(a) != 1
            return f"consecutive layers differ by {Fraction(a) - 1} (exact decimal)"
        stack = {"kind": "stack", "layers": [I3, L1], "dt": dt, "periodic": bool(k % 2), "interpolation": "constant"}
        cases.append(Case(f"stack-Puc-{k}", "stacks", "3.2", ("P_uniformly_continuous",),
                          instance("3.2", P=stack), differs, note="a jump of 1e-20 at t = dt"))
        cases.append(Case(f"stack-Uid-{k}", "stacks", "3.2", ("U_identity",),
                          instance("3.2", U={**stack, "layers": [I3, L1]}), differs))
        U0 = [[3, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        U1 = [[3, 0, 0], [0, a, 0], [0, 0, "1/2"]]
        cases.append(Case(f"stack-Uti-{k}", "stacks", "4.4-sym", ("U_time_invariant",),
                          instance("4.4-sym", U={**stack, "layers": [U0, U1]}), differs))
        cases.append(Case(f"stack-Pti-{k}", "stacks", "grad-energy", ("P_time_invariant",),
                          instance("grad-energy", P={**stack, "layers": [U0, U1]}, U=U0), differs))
    return cases


# ---------------------------------------------------------------------------------------------
def json_floats() -> list[Case]:
    cases = []
    for k, (value, target, pos) in enumerate([(1.0000000000000002, 1, (0, 0)), (0.9999999999999999, 1, (1, 1)),
                                              (5e-324, 0, (0, 1)), (1e-320, 0, (2, 0)),
                                              (2.2250738585072014e-308, 0, (1, 2)), (1e-300, 0, (0, 2))]):
        U = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        U[pos[0]][pos[1]] = value

        def witness(value=value, target=target):
            assert Fraction(value) != target
            return f"the float {value!r} is exactly {Fraction(value)} != {target}"
        cases.append(Case(f"flt-Uid-{k}", "json_floats", "3.2", ("U_identity",), instance("3.2", U=U), witness))
    for k, (a, b) in enumerate([(0.30000000000000004, 0.3), (5e-324, 0.0), (0.1, 0.1 + 1e-17 + 2e-17)]):
        U = [[3.0, a, 0.0], [b, 1.0, 0.0], [0.0, 0.0, 0.5]]

        def witness(a=a, b=b):
            assert Fraction(a) != Fraction(b), (a, b)
            return f"U_01 = {a!r} != U_10 = {b!r} as exact binary fractions"
        if Fraction(a) != Fraction(b):
            cases.append(Case(f"flt-Usym-{k}", "json_floats", "4.4-sym", ("U_symmetric",), instance("4.4-sym", U=U),
                              witness))
    P = [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.5]]
    U = [[2.0, 0.0, 0.0], [0.0, 1.0000000000000002, 0.0], [0.0, 0.0, 0.5]]
    def witness_ueqp():
        assert Fraction(1.0000000000000002) != 1
        return "U_11 = 1.0000000000000002 != P_11 = 1.0 exactly"
    cases.append(Case("flt-UeqP", "json_floats", "grad-energy", ("U_equals_P",), instance("grad-energy", P=P, U=U),
                      witness_ueqp))
    M = [[2.0, 5e-324, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.5]]
    cases.append(Case("flt-Psym", "json_floats", "grad-energy", ("P_symmetric",), instance("grad-energy", P=M, U=M),
                      lambda: "P_01 = 5e-324 (the least subnormal) but P_10 = 0"))
    cases.append(Case("flt-ln", "json_floats", "3.2", ("equal_ln_scales",),
                      instance("3.2", layer_norm={"scale": [1.0, 1.0000000000000002, 1.0], "shift": [0.0, 0.0, 0.0]}),
                      lambda: "scale 1.0000000000000002 != 1.0 exactly"))
    return cases


# ---------------------------------------------------------------------------------------------
def neg_powers() -> list[Case]:
    rng = random.Random(9204)
    cases = []
    for rep in range(2):
        c = rat(rng, 0.5, 9)
        cf = lambda c=c: mpmath.mpf(c.numerator) / c.denominator  # noqa: E731
        for k, (entry, base, t0) in enumerate([
            (f"abs(t - {q(c)})^(-1)", f"t - {q(c)}", cf),
            (f"(t - {q(c)})^(-2)", f"t - {q(c)}", cf),
            ("sin(t)^(-1) + 1", "sin(t)", lambda: +mpmath.pi),
            (f"(t - {q(c)})^-1", f"t - {q(c)}", cf),
            (f"E^(1/(t - {q(c)}))", f"t - {q(c)}", cf),
            (f"10^(1/(t - {q(c)}))/10", f"t - {q(c)}", cf),
            ("(cos(t) + 1)^(-1)", "cos(t) + 1", lambda: +mpmath.pi),
            (f"(t^2 - {q(c * c)})^(-1/3)", f"t^2 - {q(c * c)}", cf),
        ]):
            def witness(base=base, t0=t0):
                with mpmath.workdps(80):
                    v = mp_eval(base, t0(), 80)
                    assert abs(v) < mpmath.mpf(10) ** -40, v
                return f"the base {base} vanishes at t = {mpmath.nstr(t0(), 15)}, where a negative power is undefined"
            theorem = "3.2" if (k + rep) % 2 == 0 else "4.2"
            false = ("P_bounded", "P_uniformly_continuous") if theorem == "3.2" else ("P_bounded",)
            cases.append(Case(f"negpow-{rep}-{k}", "neg_powers", theorem, false,
                              instance(theorem, P=_place(rng, entry)), witness))
    return cases


# ---------------------------------------------------------------------------------------------
def degenerate_top() -> list[Case]:
    cases = []
    for k, (D, why) in enumerate(ZERO_CONSTANTS):
        if k % 2 == 0:
            U = [[f"1 + {D}", 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        else:
            U = [[1, D, 0], [D, 1, 0], [0, 0, "1/2"]]

        def witness(D=D, why=why):
            with mpmath.workdps(150):
                assert abs(mp_eval(D, 0, 150)) < mpmath.mpf(10) ** -120
            return f"{D} = 0 exactly ({why}): the eigenvalues are 1, 1, 1/2, the top one is double"
        cases.append(Case(f"degen-{k}", "degenerate_top", "4.4-sym", ("U_simple_top_eigenvalue",),
                          instance("4.4-sym", U=U), witness))
    return cases


# ---------------------------------------------------------------------------------------------
def unbounded_defined() -> list[Case]:
    rng = random.Random(9205)
    cases = []
    with mpmath.workdps(80):
        times = [mpmath.mpf(10) ** j for j in (2, 6, 12)]
    for k, entry in enumerate(["tan(pi/2 - 1/(1 + t))", "tan(pi/4 + t*pi/(4 + 4*t))", "log(1/(1 + t))",
                               "1/(1 - t/(1 + t))", "exp(t/(1 + 1/(1 + t)))", "sqrt(t)*atan(t)",
                               "1/(exp(-t) + 1/(1 + t^2))", "cosh(t)/cosh(t/2)", "t^(3/2)/(1 + t)",
                               "log(cosh(t))", "sinh(log(1 + t))", "1/tanh(1/(1 + t))"]):
        def witness(entry=entry):
            grows(entry, times, 5)
            return f"|{entry}| grows without bound (values at t = 1e2, 1e6, 1e12)"
        theorem = "3.2" if k % 2 == 0 else "4.2"
        cases.append(Case(f"unbdef-{k}", "unbounded_defined", theorem, ("P_bounded",),
                          instance(theorem, P=_place(rng, entry)), witness))
    return cases


MORE_CASES = (not_uc() + branch_identities() + hemisphere() + stacks() + json_floats() + neg_powers()
              + degenerate_top() + unbounded_defined())
