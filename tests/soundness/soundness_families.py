"""Generated families of false instances (issue 9), each with an independent witness.

Every family is deterministic (``random.Random(seed)``).  A :class:`Case` names the hypotheses
that are false on its instance; its ``witness()`` proves that with mpmath at 60-120 digits or
with exact ``Fraction`` arithmetic, never with the code under test.

Classes (the ``cls`` field):

* ``discontinuous``: P(t) with a jump inside (0, oo) (atan(tan), sign-like t/|t|, atan(1/x),
  tanh(1/x), |sin|/sin, logistic of 1/x); uniform continuity is false.
* ``huge_trig``: 1/sin(A + c g(t)), tan(B + c g(t)), 1/cos(B + c g(t)) with A ~ 3pi/2 + 2pi 10^k,
  B ~ 2pi 10^k (k <= 25) written as exact rationals, c > pi/2: the denominator vanishes at some
  t0 in [0, pi/2]; P bounded (and uniformly continuous) is false.
* ``poles``: a denominator with a zero at t0 >= 0 located by a sign change and bisection, the
  numerator nonzero there; P bounded (and uniformly continuous) is false.
* ``removable``: (t^2-c^2)/(t-c) - t - c and kin, undefined at t = c >= 0 (0/0), disguised as a
  constant; U = I, U time-invariant, U symmetric, P time-invariant are false as stated (the
  matrix is not defined at t = c; issue 9 asks for exit 2 or unknown).
* ``decimals``: decimal strings that differ from 1, 0 or each other only beyond double
  precision; U = I, U symmetric, U = P, P symmetric, equal LN scales are false; tokens with a
  near-unit decimal norm must be rejected.
* ``complex``: expressions that are complex at some t >= 0 (sqrt, log, fractional powers of a
  negative base); P is not a real matrix function, so "P bounded" / "uniformly continuous" do
  not hold; complex beta and complex tokens must be rejected.
* ``unbounded``: unbounded P entries that look bounded (t sin(t)^2, t/(1 + t sin(t)^2), ...),
  each with an explicit sequence t_k along which |P_ij(t_k)| grows without bound.
* ``time_varying``: U (or P) entries whose derivative simplifies to 0 or which are constant at
  small t (atan(tan(at)) - at, atan(1/(t-c)) + atan(t-c), |x|/x, |t-c| + t - c); U = I,
  U time-invariant and P time-invariant are false (two times with different values).
"""
from __future__ import annotations

import random
from fractions import Fraction

import mpmath

from soundness_helpers import (Case, complex_at, diag_with, exact_zero_of_polynomial, instance, jump_at, mp_eval,
                               mp_real, sign_change_root)


from soundness_builders import _p_case, _place, q, rat  # noqa: F401  (also used by the other family files)
from soundness_families_growth import time_varying, unbounded


# ---------------------------------------------------------------------------------------------
def discontinuous() -> list[Case]:
    rng = random.Random(9001)
    pi = mpmath.pi
    cases = []
    for n in range(6):
        a, b, c = rat(rng, 0.5, 3), rat(rng, 0, 1, 11), rat(rng, 0.5, 2)
        s = rat(rng, 0.3, 20)
        disguise = rng.choice(["", " + sin(t)", " + cos(t)/2", " + t/(1 + t)"])
        with mpmath.workdps(60):
            t_atan = (pi / 2 - mpmath.mpf(b.numerator) / b.denominator) / (mpmath.mpf(a.numerator) / a.denominator)
            t_sin = (pi - mpmath.mpf(b.numerator) / b.denominator) / (mpmath.mpf(a.numerator) / a.denominator)
        with mpmath.workdps(60):
            sf = mpmath.mpf(s.numerator) / s.denominator
        forms = [
            (f"{q(c)}*atan(tan({q(a)}*t + {q(b)})){disguise}", t_atan, float(c) * 3.0),
            (f"{q(c)}*(t - {q(s)})/abs(t - {q(s)}){disguise}", sf, float(c) * 1.9),
            (f"atan(1/(t - {q(s)})){disguise}", sf, 3.0),
            (f"tanh({q(c)}/(t - {q(s)})){disguise}", sf, 1.9),
            (f"abs(sin({q(a)}*t + {q(b)}))/sin({q(a)}*t + {q(b)}){disguise}", t_sin, 1.9),
            (f"1/(1 + exp(1/(t - {q(s)}))){disguise}", sf, 0.9),
        ]
        for k, (entry, t0, jump) in enumerate(forms):
            def witness(entry=entry, t0=t0, jump=jump):
                jump_at(entry, t0, jump)
                return f"{entry} jumps by more than {jump} at t0 = {mpmath.nstr(t0, 20)}"
            cases.append(Case(f"disc-{n}-{k}", "discontinuous", "3.2", ("P_uniformly_continuous",),
                              instance("3.2", P=_place(rng, entry)), witness))
    return cases


# ---------------------------------------------------------------------------------------------
def _huge_rational(phase_over_pi: Fraction, k: int, digits: int = 6) -> Fraction:
    """round((phase + 2 pi 10^k) 10^digits) / 10^digits, computed at 120 digits."""
    with mpmath.workdps(120):
        x = (mpmath.mpf(phase_over_pi.numerator) / phase_over_pi.denominator + 2 * mpmath.mpf(10) ** k) * mpmath.pi
        num = int(mpmath.nint(x * 10 ** digits))
    return Fraction(num, 10 ** digits)


def huge_trig() -> list[Case]:
    rng = random.Random(9002)
    cases = []
    cs = [Fraction(2), Fraction(5, 2), Fraction(3), Fraction(7, 4), Fraction(9, 5), Fraction(8, 5)]
    for k in range(1, 26):
        A = _huge_rational(Fraction(3, 2), k)
        c = cs[k % len(cs)]
        inner = "sin(t)" if k % 3 else "cos(t)"
        den = f"sin({q(A)} + {q(c)}*{inner})"
        entry = f"1/{den}"
        theorem = "3.2" if k % 2 else "4.2"
        cases.append(_pole_case(f"huge-sin-{k}", "huge_trig", theorem, entry, den, "1", 0, mpmath.pi / 2,
                                rng, dps=160))
    for k in range(2, 26, 3):
        B = _huge_rational(Fraction(0), k)
        c = cs[(k + 1) % len(cs)]
        den = f"cos({q(B)} + {q(c)}*sin(t))"
        if k % 2:
            entry, num = f"tan({q(B)} + {q(c)}*sin(t))", f"sin({q(B)} + {q(c)}*sin(t))"
        else:
            entry, num = f"3/{den} + 1", "3"
        theorem = "3.2" if (k // 3) % 2 else "4.2"
        cases.append(_pole_case(f"huge-cos-{k}", "huge_trig", theorem, entry, den, num, 0, mpmath.pi / 2,
                                rng, dps=160))
    return cases


# ---------------------------------------------------------------------------------------------
def _pole_case(cid, cls, theorem, entry, den, num, lo, hi, rng, dps=60) -> Case:
    def witness():
        t0 = sign_change_root(den, lo, hi, dps=dps)
        with mpmath.workdps(dps):
            assert abs(mp_real(num, t0, dps)) > mpmath.mpf("1e-3"), "numerator vanishes at the pole"
            near = abs(mp_real(entry, t0 + mpmath.mpf(10) ** -(dps // 3), dps))
            assert near > mpmath.mpf(10) ** (dps // 3 - 10), near
        return f"denominator {den[:60]} changes sign at t0 = {mpmath.nstr(t0, 25)}; |P_ij| -> oo there"
    return _p_case(cid, cls, theorem, entry, witness, rng)


def poles() -> list[Case]:
    rng = random.Random(9003)
    cases = []
    theorems = ["3.2", "4.2", "3.2", "iss-causal"]
    n = 0

    def add(entry, den, num, lo, hi):
        nonlocal n
        cases.append(_pole_case(f"pole-{n}", "poles", theorems[n % 4], entry, den, num, lo, hi, rng))
        n += 1

    for rep in range(3):
        c = rat(rng, 0.2, 30)
        add(f"{q(rat(rng, 0.5, 5))}/(t - {q(c)})", f"t - {q(c)}", "1", 0, float(c) + 1)
        r1 = rat(rng, 0.1, 5)
        r2 = r1 + rat(rng, 0.3, 5)
        add(f"1/(t^2 - {q(r1 + r2)}*t + {q(r1 * r2)})", f"t^2 - {q(r1 + r2)}*t + {q(r1 * r2)}", "1", 0, 11)
        qq = rat(rng, -0.95, 0.95, 13)
        add(f"1/(sin(t) - {q(qq)}) + cos(t)", f"sin(t) - {q(qq)}", "1", 0, 7)
        a, b = rat(rng, 0.4, 3), rat(rng, -0.95, 0.95, 13)
        add(f"1/(cos({q(a)}*t) + {q(b)})", f"cos({q(a)}*t) + {q(b)}", "1", 0, 4 / float(a))
        while True:
            qe = rat(rng, 0.05, 0.95, 17)
            if abs(mpmath.sin(mpmath.log(float(qe)))) > 0.05:
                break
        add(f"sin(t)/(exp(-t) - {q(qe)})", f"exp(-t) - {q(qe)}", "sin(t)", 0, 4.2)
        qt = rat(rng, 0.05, 0.95, 17)
        add(f"1/(tanh(t) - {q(qt)})", f"tanh(t) - {q(qt)}", "1", 0, 3)
        qa = rat(rng, 0.1, 1.35, 17)
        add(f"2/(atan(t) - {q(qa)}) - 1", f"atan(t) - {q(qa)}", "2", 0, 6)
        ql = rat(rng, 0.1, 2.9, 7)
        add(f"1/(log(1 + t) - {q(ql)})", f"log(1 + t) - {q(ql)}", "1", 0, 21)
        cc = rat(rng, 1, 50)
        add(f"t/(t^3 - {q(cc)})", f"t^3 - {q(cc)}", "t", 0, 4)
        qs = rat(rng, 0.05, 0.9, 13)
        add(f"cos(t)/(sin(t)^2 - {q(qs)})", f"sin(t)^2 - {q(qs)}", "cos(t)", 0, 1.5)
        ch = rat(rng, 1.2, 20)
        add(f"1/(cosh(t) - {q(ch)})", f"cosh(t) - {q(ch)}", "1", 0, 4)
        ca, cb = rat(rng, 0.3, 2), rat(rng, 0.5, 3)
        add(f"sin({q(ca)}*t)/(sqrt(t) - {q(cb)})", f"sqrt(t) - {q(cb)}", f"sin({q(ca)}*t) + 1", 0, 10)
    # double poles: no sign change; the denominator is exactly zero at a rational t0
    for rep in range(6):
        c = rat(rng, 0.2, 25)
        entry = f"1/(t - {q(c)})^2 + sin(t)" if rep % 2 else f"{q(rat(rng, 0.5, 3))}/(t^2 - {q(2 * c)}*t + {q(c * c)})"
        den = f"(t - {q(c)})^2" if rep % 2 else f"t^2 - {q(2 * c)}*t + {q(c * c)}"

        def witness(entry=entry, den=den, c=c):
            assert exact_zero_of_polynomial(den, c)
            assert abs(mp_real(entry, Fraction(c) + Fraction(1, 10 ** 20))) > 10 ** 39
            return f"{den} = 0 exactly at t = {c}; |P_ij(c + 1e-20)| > 1e39"
        cases.append(_p_case(f"pole-double-{rep}", "poles", theorems[rep % 4], entry, witness, rng))
    return cases


# ---------------------------------------------------------------------------------------------
def _zero_forms(rng: random.Random) -> list[tuple[str, str, Fraction, str]]:
    """(Z, denominator, c, note): Z = 0 for t != c, undefined (0/0) at t = c."""
    out = []
    for _ in range(2):
        c = rat(rng, 0.3, 10)
        r = rat(rng, 0.3, 10)
        out += [
            (f"(t^2 - {q(c)}^2)/(t - {q(c)}) - t - {q(c)}", f"t - {q(c)}", c, ""),
            (f"(t^3 - {q(c)}^3)/(t - {q(c)}) - t^2 - {q(c)}*t - {q(c)}^2", f"t - {q(c)}", c, ""),
            (f"(sin(t)^2 + cos(t)^2 - 1)/(t - {q(c)})", f"t - {q(c)}", c, ""),
            (f"(t^2 - {q(c + r)}*t + {q(c * r)})/(t - {q(c)}) - t + {q(r)}", f"t - {q(c)}", c, ""),
        ]
    c = Fraction(rng.randint(1, 9))
    out.append((f"(t - {q(c)})/(t - {q(c)}) - 1", f"t - {q(c)}", c,
                "SymPy cancels x/x at parse time: the tool never sees the division"))
    return out


def removable() -> list[Case]:
    rng = random.Random(9004)
    cases = []
    forms = _zero_forms(rng)

    def witness_for(z, den, c):
        def witness():
            assert exact_zero_of_polynomial(den, c), (den, c)
            return f"denominator {den} vanishes exactly at t = {c} >= 0: the entry {z} is undefined there (0/0)"
        return witness

    for k, (z, den, c, note) in enumerate(forms):
        w = witness_for(z, den, c)
        pos = rng.randrange(3)
        cases.append(Case(f"rem-Uid-{k}", "removable", "3.2", ("U_identity",),
                          instance("3.2", U=diag_with(f"1 + {z}", at=(pos, pos))), w, note=note))
        cases.append(Case(f"rem-Uti-{k}", "removable", "4.4-sym", ("U_time_invariant",),
                          instance("4.4-sym", U=[[f"3 + {z}", 0, 0], [0, 1, 0], [0, 0, "1/2"]]), w, note=note))
        if k % 3 == 0:
            cases.append(Case(f"rem-Usym-{k}", "removable", "4.4-sym", ("U_symmetric",),
                              instance("4.4-sym", U=[[3, f"1/3 + {z}", 0], ["1/3", 1, 0], [0, 0, "1/2"]]), w,
                              note=note))
        if k % 3 == 1:
            m = [[f"2 + {z}", 0, 0], [0, 1, 0], [0, 0, "1/2"]]
            cases.append(Case(f"rem-Pti-{k}", "removable", "grad-energy", ("P_time_invariant",),
                              instance("grad-energy", P=m, U=m), w, note=note))
    for k in range(3):
        c = rat(rng, 0.3, 10)

        def witness(c=c):
            assert exact_zero_of_polynomial(f"t - {q(c)}", c)
            return f"sin(t - c)/(t - c) is 0/0 at t = c = {c}"
        cases.append(Case(f"rem-sinc-{k}", "removable", "3.2", ("P_bounded", "P_uniformly_continuous"),
                          instance("3.2", P=_place(rng, f"sin(t - {q(c)})/(t - {q(c)})")), witness,
                          note="undefined at one point only; its continuous extension is bounded and uniformly "
                               "continuous (issue 9 asks for unknown or exit 2)"))
    return cases


# ---------------------------------------------------------------------------------------------
def decimals() -> list[Case]:
    rng = random.Random(9005)
    cases = []

    def differs(s: str, value: Fraction) -> callable:
        def witness():
            exact = sum((Fraction(p) for p in s.split(" + ")), Fraction(0))
            assert exact != value, (s, value)
            return f"{s!r} is exactly {exact} != {value} (differs by {exact - value})"
        return witness

    for k in range(8):
        n = rng.randint(16, 40)
        for form, target, where in (
            ("1." + "0" * n + "1", Fraction(1), "diag"),
            ("0." + "0" * n + "1", Fraction(0), "off"),
            (f"1e-{n}", Fraction(0), "off"),
            (f"1 + 1e-{n}", Fraction(1), "diag"),
            ("0." + "9" * n, Fraction(1), "diag"),
        ):
            if (k + len(form)) % 2 and form.startswith(("0.9", "1e")):
                continue
            if where == "diag":
                i = rng.randrange(3)
                U = diag_with(form, at=(i, i))
            else:
                i, j = rng.sample(range(3), 2)
                U = diag_with(1, at=(0, 0))
                U[i][j] = form
            cases.append(Case(f"dec-Uid-{k}-{len(cases)}", "decimals", "3.2", ("U_identity",),
                              instance("3.2", U=U), differs(form, target)))
    for k in range(6):
        n = rng.randint(16, 40)
        base = rng.choice(["0.3", "0.1", "0.7", "1.5"])
        a = base + "0" * n + "1"
        i, j = rng.sample(range(3), 2)
        U = [[3, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        U[i][j], U[j][i] = a, base
        cases.append(Case(f"dec-Usym-{k}", "decimals", "4.4-sym", ("U_symmetric",), instance("4.4-sym", U=U),
                          differs(a, Fraction(base))))
    for k in range(4):
        n = rng.randint(16, 40)
        a = "1." + "0" * n + "1"
        P = [[2, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        U = [[2, 0, 0], [0, a, 0], [0, 0, "1/2"]]
        cases.append(Case(f"dec-UeqP-{k}", "decimals", "grad-energy", ("U_equals_P",),
                          instance("grad-energy", P=P, U=U), differs(a, Fraction(1))))
        b = "0.25" + "0" * n + "1"
        M = [[2, b, 0], ["0.25", 1, 0], [0, 0, "1/2"]]
        cases.append(Case(f"dec-Psym-{k}", "decimals", "grad-energy", ("P_symmetric",),
                          instance("grad-energy", P=M, U=M), differs(b, Fraction("0.25"))))
    for k in range(4):
        n = rng.randint(16, 40)
        g = rng.choice(["1", "2", "0.5"])
        s = g + ("" if "." in g else ".") + "0" * n + "1"
        scale = [g, g, g]
        scale[rng.randrange(3)] = s
        cases.append(Case(f"dec-ln-{k}", "decimals", "3.2", ("equal_ln_scales",),
                          instance("3.2", layer_norm={"scale": scale, "shift": [0, 0, 0]}), differs(s, Fraction(g))))
    for k in range(4):
        n = rng.randint(16, 40)
        x = rng.choice([("0.6", "0.8"), ("0.28", "0.96"), ("0.8", "0.6")])
        bad = [x[0] + "0" * n + "1", x[1], 0]
        toks = [list(v) for v in instance("3.2")["tokens"]]
        toks[1] = bad

        def witness(bad=bad):
            norm2 = sum(Fraction(str(v)) ** 2 for v in bad)
            assert norm2 != 1
            return f"|token|^2 = {norm2} != 1 exactly"
        cases.append(Case(f"dec-token-{k}", "decimals", "3.2", (), instance("3.2", tokens=toks), witness,
                          must_reject=True, note="non-unit exact token: docs/format.md says it is an error"))
    return cases


# ---------------------------------------------------------------------------------------------
def complex_values() -> list[Case]:
    rng = random.Random(9006)
    cases = []
    n = 0
    for rep in range(3):
        c = rat(rng, 1, 10)
        a = rat(rng, 0.5, 3)
        qq = rat(rng, 1.5, 3)
        forms = [
            (f"sqrt(t - {q(c)})/(1 + t)", Fraction(c) / 2),
            (f"sqrt(sin({q(a)}*t))", None),
            (f"log(cos(t) - {q(qq)})", Fraction(0)),
            (f"(sin(t) - {q(qq)})^(1/3)", Fraction(0)),
            (f"atan(sqrt(t - {q(c)}))", Fraction(0)),
            (f"sqrt(-{rep + 1})*sin(t)", Fraction(1)),
            (f"log(-{rep + 2}) + t/(1 + t)", Fraction(0)),
        ]
        for entry, t0 in forms:
            if t0 is None:
                with mpmath.workdps(60):
                    t0 = 3 * mpmath.pi / 2 / (mpmath.mpf(a.numerator) / a.denominator)

            def witness(entry=entry, t0=t0):
                complex_at(entry, t0)
                return f"{entry} = {mpmath.nstr(mp_eval(entry, t0), 12)} at t = {t0} (not real)"
            theorem = "3.2" if n % 2 == 0 else "4.2"
            cases.append(_p_case(f"cplx-P-{n}", "complex", theorem, entry, witness, rng,
                                 note="P is not a real matrix function (principal branches, as SymPy and mpmath)"))
            n += 1
    for entry in ("sqrt(-1)", "log(-2)", "(-1)^(1/3)"):
        def witness(entry=entry):
            complex_at(entry, 0)
            return f"{entry} is not real"
        cases.append(_p_case(f"cplx-const-{entry}", "complex", "3.2", entry, witness, rng))
    for beta in ("sqrt(-1)", "log(-2)", "(-1)^(1/3)", "sqrt(-4)", "log(-1/2)"):
        def witness(beta=beta):
            complex_at(beta, 0)
            return f"beta = {beta} is not a positive real"
        cases.append(Case(f"cplx-beta-{beta}", "complex", "4.2", (), instance("4.2", beta=beta), witness,
                          must_reject=True))
    toks = [list(v) for v in instance("3.2")["tokens"]]
    toks[0] = ["sqrt(-1)", "sqrt(2)", 0]

    def witness_tok():
        complex_at("sqrt(-1)", 0)
        return "token 0 = (i, sqrt 2, 0): x^T x = 1 but it is not a real unit vector"
    cases.append(Case("cplx-token", "complex", "3.2", (), instance("3.2", tokens=toks), witness_tok, must_reject=True))
    return cases


def all_cases() -> list[Case]:
    out = (discontinuous() + huge_trig() + poles() + removable() + decimals() + complex_values() + unbounded()
           + time_varying())
    ids = [c.id for c in out]
    assert len(set(ids)) == len(ids), "duplicate case ids"
    return out


CASES = all_cases()
