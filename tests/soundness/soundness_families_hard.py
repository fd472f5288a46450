"""Harder false instances (issue 9), aimed at a domain-checking arb engine rather than at the
float walker it replaces.  Same conventions as :mod:`soundness_families`.

* ``hidden_zero``: divisions and logarithms whose argument vanishes without any sign change or
  syntactic hint: constants that are exactly 0 by an identity (``sinh(log 2) - 3/4``,
  ``atan(1/2) + atan(1/3) - pi/4``), zeros exactly at the boundary ``t = 0``, double (touching)
  zeros inside ``(0, oo)`` (``1 - cos t`` at ``2 pi``, ``(t - sqrt 2)^2``, ``1 + sin(A + 7 sin t)``
  with ``A ~ 3pi/2 + 2pi 10^k``), sign changes inside windows of width ``1e-15``, and domain
  violations far out (``t ~ 1e20 .. 1e25``).  P bounded (and uniformly continuous) is false: P is
  not even defined (or not real) everywhere on ``[0, oo)``.
* ``near_constants``: constants and time dependences that differ from the claimed value by less
  than ``1e-300`` (``tanh(1000)``, ``cos(10^(-200))``, ``exp(-1000) sin t``), invisible at double
  and at any fixed low precision.
* ``bound_check``: P bounded and uniformly continuous may well HOLD here; the false statement
  would be a proven constant that is too small.  Each case carries a value the matrix attains
  (``||P(t*)||_2 >= |P_ij(t*)|``) and a difference quotient (``||P(s) - P(t)||_2 >= |P_ij(s) -
  P_ij(t)|``); any ``p`` or Lipschitz bound below them is a false "holds".
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath

from soundness_families import _huge_rational, _place, q, rat
from soundness_helpers import Case, complex_at, instance, mp_eval, mp_real, sign_change_root, values_differ

HUGE_K = (4, 12, 19, 25)


def _delta(A: Fraction, phase_over_pi: Fraction, k: int, dps: int = 160):
    """A - (phase + 2 pi 10^k) at ``dps`` digits."""
    with mpmath.workdps(dps):
        return (mpmath.mpf(A.numerator) / A.denominator
                - (mpmath.mpf(phase_over_pi.numerator) / phase_over_pi.denominator + 2 * mpmath.mpf(10) ** k) * mpmath.pi)


def _false_P(theorem: str) -> tuple[str, ...]:
    return ("P_bounded", "P_uniformly_continuous") if theorem == "3.2" else ("P_bounded",)


# ---------------------------------------------------------------------------------------------
ZERO_CONSTANTS = [
    ("atan(1/2) + atan(1/3) - pi/4", "Euler's arctangent identity"),
    ("log(8) - 3*log(2)", "log 8 = 3 log 2"),
    ("sinh(log(2)) - 3/4", "sinh(ln 2) = (2 - 1/2)/2"),
    ("tanh(log(3)) - 4/5", "tanh(ln 3) = (9 - 1)/(9 + 1)"),
    ("cosh(log(2)) - 5/4", "cosh(ln 2) = (2 + 1/2)/2"),
    ("4*sin(pi/12) - sqrt(6) + sqrt(2)", "sin(15 deg) = (sqrt 6 - sqrt 2)/4"),
    ("cos(pi/5) - (1 + sqrt(5))/4", "cos 36 deg = golden ratio / 2"),
    ("sqrt(3 + 2*sqrt(2)) - 1 - sqrt(2)", "(1 + sqrt 2)^2 = 3 + 2 sqrt 2"),
    ("tan(pi/8) - sqrt(2) + 1", "tan(22.5 deg) = sqrt 2 - 1"),
    ("exp(log(2)/2) - sqrt(2)", "e^(ln 2 / 2) = sqrt 2"),
]


def hidden_zero() -> list[Case]:
    rng = random.Random(9101)
    cases: list[Case] = []
    theorems = ["3.2", "4.2"]

    def add(cid, entry, witness, note=""):
        theorem = theorems[len(cases) % 2]
        cases.append(Case(cid, "hidden_zero", theorem, _false_P(theorem), instance(theorem, P=_place(rng, entry)),
                          witness, note=note))

    def zero_at(den, t0, dps=150, tol=None):
        def witness():
            with mpmath.workdps(dps):
                at = t0() if callable(t0) else t0
                value = mp_eval(den, at, dps)
                bound = mpmath.mpf(10) ** -(tol or dps - 30)
                assert value == 0 or abs(value) < bound, (den, value)
            return f"{den} = 0 at t = {mpmath.nstr(at, 20)} (|value| < 1e-{tol or dps - 30})"
        return witness

    for k, (D, why) in enumerate(ZERO_CONSTANTS):
        form = k % 4
        if form == 0:
            entry = f"1/({D})"
        elif form == 1:
            entry = f"sin(t) + 1/({D})"
        elif form == 2:
            entry = f"1/(t + {D})"          # a pole exactly at t = 0
        else:
            entry = f"cos(t)/(t^2 + {D})"   # a double pole exactly at t = 0
        add(f"hz-const-{k}", entry, zero_at(D, 0), note=f"{D} = 0 exactly ({why})")
    for k, (entry, den) in enumerate([
        ("1/t", "t"), ("1/sin(t) + 1", "sin(t)"), ("1/(exp(t) - 1)", "exp(t) - 1"), ("1/tanh(t)", "tanh(t)"),
        ("1/(1 - cos(t))", "1 - cos(t)"), ("log(t)/(1 + t)", "t"), ("1/sqrt(t)", "sqrt(t)"),
        ("log(tanh(t))", "tanh(t)"), ("t/(t - atan(t))", "t - atan(t)"), ("exp(1/t)", "t"),
        ("sin(t)/t", "t"), ("t^(-1/2)", "t"),
    ]):
        add(f"hz-t0-{k}", entry, zero_at(den, 0),
            note="removable at t = 0 (sin t / t); issue 9 asks for exit 2 or unknown" if entry == "sin(t)/t" else "")
    c = rat(rng, 0.5, 9)
    cf = lambda: mpmath.mpf(c.numerator) / c.denominator  # noqa: E731
    touching = [
        ("1/(1 - cos(t))", "1 - cos(t)", lambda: 2 * mpmath.pi),
        ("2/(1 - sin(t)) - 1", "1 - sin(t)", lambda: mpmath.pi / 2),
        ("1/(cos(t) + 1)", "cos(t) + 1", lambda: +mpmath.pi),
        ("1/(t^2 - 2*sqrt(2)*t + 2)", "t^2 - 2*sqrt(2)*t + 2", lambda: mpmath.sqrt(2)),
        (f"1/(cosh(t - {q(c)}) - 1)", f"cosh(t - {q(c)}) - 1", cf),
        (f"1/(exp(t - {q(c)}) - 1 - (t - {q(c)}))", f"exp(t - {q(c)}) - 1 - (t - {q(c)})", cf),
        ("cos(t)/sin(t)^2", "sin(t)^2", lambda: +mpmath.pi),
        (f"log(log(1 + (t - {q(c)})^2) + 1) + log(1 - cos(t - {q(c)}))", f"1 - cos(t - {q(c)})", cf),
        (f"1/atan((t - {q(c)})^2)", f"atan((t - {q(c)})^2)", cf),
    ]
    for k, (entry, den, t0) in enumerate(touching):
        add(f"hz-touch-{k}", entry, zero_at(den, t0, dps=100, tol=40))
    for k in HUGE_K:
        A = _huge_rational(Fraction(3, 2), k)
        den = f"1 + sin({q(A)} + 7*sin(t))"

        def t0(A=A, k=k):
            with mpmath.workdps(160):
                return mpmath.asin((2 * mpmath.pi - _delta(A, Fraction(3, 2), k)) / 7)
        add(f"hz-touch-huge-{k}", f"1/({den})", zero_at(den, t0, dps=160, tol=60))
    for k, (entry, den, lo, hi) in enumerate([
        ("1/(sin(t) - 1 + 1/10^30)", "sin(t) - 1 + 1/10^30", 0, mpmath.pi / 2),
        ("1/(cos(t) + 1 - 1/10^24)", "cos(t) + 1 - 1/10^24", 0, mpmath.pi),
        ("1/(t^2 - 2*t + 1 - 1/10^40)", "t^2 - 2*t + 1 - 1/10^40", 0, 1),
        ("1/(t - 10^20)", "t - 10^20", 0, 2 * mpmath.mpf(10) ** 20),
        ("1/(sin(t/10^20) - 1/2)", "sin(t/10^20) - 1/2", 0, mpmath.mpf(10) ** 20),
        ("1/(exp(-t) - 1/10^30)", "exp(-t) - 1/10^30", 0, 100),
    ]):
        def witness(entry=entry, den=den, lo=lo, hi=hi):
            t0 = sign_change_root(den, lo, hi, dps=100, steps=2000)
            return f"{den} changes sign at t0 = {mpmath.nstr(t0, 30)}"
        add(f"hz-window-{k}", entry, witness)
    for k, (entry, t0) in enumerate([
        ("sqrt(1/(1 + t) - 1/10^20)", mpmath.mpf(10) ** 21),
        ("log(1 - t/10^25)/(1 + t/10^25)", 2 * mpmath.mpf(10) ** 25),
        ("sqrt(cos(t/10^15))", mpmath.pi * mpmath.mpf(10) ** 15),
        ("sqrt(sin(t)^2 - 1/10^30)", mpmath.mpf(10) ** -20),
        ("(t - 1/10^40)^(1/3)", 0),
        ("log(exp(-t) - 1/10^30)", 100),
    ]):
        def witness(entry=entry, t0=t0):
            complex_at(entry, t0, dps=100)
            return f"{entry} is not real at t = {mpmath.nstr(t0, 10)}"
        add(f"hz-far-{k}", entry, witness, note="complex (principal branch) at some t >= 0")
    return cases


# ---------------------------------------------------------------------------------------------
def near_constants() -> list[Case]:
    rng = random.Random(9102)
    cases: list[Case] = []
    near_one = ["tanh(1000)", "1 - exp(-1000)", "cos(10^(-200))", "2*atan(10^300)/pi", "exp(10^(-300))",
                "sqrt(1 + 10^(-300))", "10^(10^(-300))", "log(E + 10^(-200))", "cosh(10^(-200))", "1 + sinh(10^(-300))"]
    near_zero = ["exp(-1000)", "sin(10^(-300))", "tanh(10^(-300))", "atan(10^(-300))", "log(1 + 10^(-300))",
                 "1 - tanh(1000)"]

    def differs(expr, target, t1=0, dps=1400):
        def witness():
            with mpmath.workdps(dps):
                v = mp_real(expr, t1, dps)
                gap = abs(v - target)
                v2 = mp_real(expr, t1, dps + 200)
                assert gap > mpmath.mpf(10) ** -(dps - 150) and abs(v2 - v) < gap / 10 ** 6, (expr, gap)
            return f"{expr} - {target} = {mpmath.nstr(v - target, 6)} (nonzero at {dps} digits)"
        return witness

    for k, e in enumerate(near_one):
        i = rng.randrange(3)
        U = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        U[i][i] = e
        cases.append(Case(f"nc-Uid-{k}", "near_constants", "3.2", ("U_identity",), instance("3.2", U=U),
                          differs(e, 1)))
    for k, e in enumerate(near_zero):
        i, j = rng.sample(range(3), 2)
        U = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        U[i][j] = e
        cases.append(Case(f"nc-Uoff-{k}", "near_constants", "3.2", ("U_identity",), instance("3.2", U=U),
                          differs(e, 0)))
    for k, (a, b) in enumerate([("1/3", "1/3 + exp(-2000)"), ("sin(pi/7)", "sin(pi/7)*cos(10^(-200))"),
                                ("1/2", "tanh(atan(1) + 10^(-300) - pi/4 + 1000)/2")]):
        i, j = rng.sample(range(3), 2)
        U = [[3, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        U[i][j], U[j][i] = a, b
        cases.append(Case(f"nc-Usym-{k}", "near_constants", "4.4-sym", ("U_symmetric",), instance("4.4-sym", U=U),
                          differs(f"({a}) - ({b})", 0)))
    for k, e in enumerate(["3 + (tanh(1000) - 1)*t/(1 + t)", "3 + exp(-1000)*sin(t)",
                           "3 + (cos(10^(-200)) - 1)*sin(t)", "3 + exp(-3000)*t/(1 + t)"]):
        def witness(e=e):
            values_differ(e, 0, 1, mpmath.mpf(10) ** -1400, dps=1500)
            return f"{e} differs at t = 0 and t = 1 (at 1500 digits)"
        cases.append(Case(f"nc-Uti-{k}", "near_constants", "4.4-sym", ("U_time_invariant",),
                          instance("4.4-sym", U=[[e, 0, 0], [0, 1, 0], [0, 0, "1/2"]]), witness))
        e1 = "1" + e[1:]
        cases.append(Case(f"nc-Uid-t-{k}", "near_constants", "3.2", ("U_identity",),
                          instance("3.2", U=[[e1, 0, 0], [0, 1, 0], [0, 0, 1]]), witness_for_differ(e1)))
        e2 = "2" + e[1:]
        m = [[e2, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        cases.append(Case(f"nc-Pti-{k}", "near_constants", "grad-energy", ("P_time_invariant",),
                          instance("grad-energy", P=m, U=m), witness_for_differ(e2)))
    cases.append(Case("nc-ln", "near_constants", "3.2", ("equal_ln_scales",),
                      instance("3.2", layer_norm={"scale": [1, "tanh(1000)", 1], "shift": [0, 0, 0]}),
                      differs("tanh(1000)", 1)))
    P = [[2, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
    cases.append(Case("nc-UeqP", "near_constants", "grad-energy", ("U_equals_P",),
                      instance("grad-energy", P=P, U=[[2, 0, 0], [0, "cos(10^(-200))", 0], [0, 0, "1/2"]]),
                      differs("cos(10^(-200))", 1)))
    M = [[2, "1/4", 0], ["1/4 + exp(-3000)", 1, 0], [0, 0, "1/2"]]
    cases.append(Case("nc-Psym", "near_constants", "grad-energy", ("P_symmetric",),
                      instance("grad-energy", P=M, U=M), differs("exp(-3000)", 0, dps=3400)))
    return cases


def witness_for_differ(e):
    def witness():
        values_differ(e, 0, 1, mpmath.mpf(10) ** -1400, dps=1500)
        return f"{e} differs at t = 0 and t = 1 (at 1500 digits)"
    return witness


# ---------------------------------------------------------------------------------------------
def bound_check() -> list[Case]:
    rng = random.Random(9103)
    cases: list[Case] = []
    pi = mpmath.pi

    def add(cid, entry, t_star, dps=80, h=None):
        """``t_star()``: a point where |entry| is large; ``h``: steps for the difference quotient."""
        def lower_bounds(entry=entry, t_star=t_star, dps=dps, h=h):
            with mpmath.workdps(dps):
                ts = t_star()
                sup = abs(mp_real(entry, ts, dps))
                slope = mpmath.mpf(0)
                for step in (h or [mpmath.mpf(10) ** -j for j in range(1, 30, 2)]):
                    for s in (ts + step, ts - step):
                        if s >= 0:
                            slope = max(slope, abs(mp_real(entry, s, dps) - mp_real(entry, ts, dps)) / step)
            return {"p": sup, "lipschitz_bound": slope}

        def witness(entry=entry):
            lb = lower_bounds()
            return (f"|{entry[:60]}| attains {mpmath.nstr(lb['p'], 8)}; a difference quotient is "
                    f"{mpmath.nstr(lb['lipschitz_bound'], 8)}")
        cases.append(Case(cid, "bound_check", "3.2", (), instance("3.2", P=_place(rng, entry)), witness,
                          bounded_predicates=("P_bounded", "P_uniformly_continuous"), lower_bounds=lower_bounds))

    for k in (3, 10, 20, 30):
        add(f"bc-texp-{k}", f"t*exp(-t/10^{k})", lambda k=k: mpmath.mpf(10) ** k,
            h=[mpmath.mpf(10) ** (k - 1)])
    for k in (10, 20, 30):
        c = rat(rng, 0.5, 9)
        add(f"bc-peak-{k}", f"1/((t - {q(c)})^2 + 1/10^{k})", lambda c=c: mpmath.mpf(c.numerator) / c.denominator,
            dps=120)
        add(f"bc-cos-{k}", f"1/(cos(t) + 1 + 1/10^{k})", lambda: +mpmath.pi, dps=120)
    for n in (20, 50, 100):
        add(f"bc-gamma-{n}", f"t^{n}*exp(-t)", lambda n=n: mpmath.mpf(n))
    for k in (15, 25):
        add(f"bc-far-{k}", f"1/(1 + (t - 10^{k})^2)", lambda k=k: mpmath.mpf(10) ** k, dps=120,
            h=[mpmath.mpf(1) / 2, mpmath.mpf(1)])
        add(f"bc-gauss-{k}", f"10^6*exp(-(t - 10^{k})^2)", lambda k=k: mpmath.mpf(10) ** k, dps=120,
            h=[mpmath.mpf(1) / 2, mpmath.mpf(1)])
        add(f"bc-origin-{k}", f"(t - 10^{k})^2/(1 + t^2)", lambda: mpmath.mpf(0), dps=120)
    for k in HUGE_K:
        A = _huge_rational(Fraction(3, 2), k)
        for c in (Fraction(3, 2), Fraction(157, 100)):
            # c < pi/2 - |delta|: no pole; the sup is at t = pi/2, 1/|sin(A + c)| ~ 1/cos(c)
            add(f"bc-huge-{k}-{c.numerator}", f"1/sin({q(A)} + {q(c)}*sin(t))", lambda: mpmath.pi / 2, dps=160)
        add(f"bc-huge-touch-{k}", f"1/(1 + sin({q(A)} + 7*sin(t)) + 1/10^20)",
            lambda A=A, k=k: mpmath.asin((2 * mpmath.pi - _delta(A, Fraction(3, 2), k)) / 7), dps=160)
    for k, (entry, ts) in enumerate([
        ("1/(tanh(t - 3)^2 + 1/10^20)", lambda: mpmath.mpf(3)),
        ("1/(log(1 + (t - 2)^2) + 1/10^20)", lambda: mpmath.mpf(2)),
        ("1/sqrt((t - 5)^2 + 1/10^40)", lambda: mpmath.mpf(5)),
        ("1/(t - sin(t) + 1/10^20)", lambda: mpmath.mpf(0)),
        ("exp(t)/(1 + exp(t)*(t - 30)^2)", lambda: mpmath.mpf(30)),
        ("1/(1 + sin(t) + 1/10^25)", lambda: 3 * mpmath.pi / 2),
    ]):
        add(f"bc-misc-{k}", entry, ts, dps=120)
    del pi
    return cases


HARD_CASES = hidden_zero() + near_constants() + bound_check()
