"""Families ``unbounded`` and ``time_varying`` of :mod:`soundness_families` (same conventions)."""
from __future__ import annotations

import random

import mpmath

from soundness_builders import _place, q, rat
from soundness_helpers import Case, diag_with, grows, instance, mp_real, values_differ


def unbounded() -> list[Case]:
    rng = random.Random(9007)
    cases = []
    ks = (10, 1000, 10 ** 6)
    for rep in range(2):
        c = rat(rng, 0.2, 3)
        a = rat(rng, 0.2, 1.5)
        m = rng.randint(2, 9)
        with mpmath.workdps(80):
            forms = _unbounded_forms(ks, c, a, m)
        for k, (entry, times) in enumerate(forms):
            def witness(entry=entry, times=times):
                grows(entry, times, 20, dps=80)
                return f"|{entry}| along t_k = {[mpmath.nstr(x, 8) for x in times]}: " \
                       f"{[mpmath.nstr(abs(mp_real(entry, x, 80)), 8) for x in times]} (unbounded)"
            theorem = "3.2" if (k + rep) % 2 == 0 else "4.2"
            cases.append(Case(f"unb-{rep}-{k}", "unbounded", theorem, ("P_bounded",),
                              instance(theorem, P=_place(rng, entry)), witness))
    return cases


def _unbounded_forms(ks, c, a, m):
    """The unbounded entries with their sequences t_k (built at the caller's precision)."""
    pi = +mpmath.pi
    af = mpmath.mpf(a.numerator) / a.denominator
    return [
        (f"{q(c)}*t*sin(t)^2", [pi / 2 + 2 * pi * k for k in ks]),
        (f"exp({q(a)}*t)*cos(t)^2", [2 * pi * k for k in ks]),
        (f"t/(1 + t - t*cos(t)^2)", [k * pi for k in ks]),
        (f"t*exp(-t*cos(t)^2)", [pi / 2 + k * pi for k in ks]),
        (f"exp(t*sin(t))/{m}", [pi / 2 + 2 * pi * k for k in ks]),
        (f"sqrt(t)*cos({q(a)}*t)^2", [2 * pi * k / af for k in ks]),
        ("log(1 + t)*sin(t)^2", [pi / 2 + pi * mpmath.mpf(10) ** j for j in (5, 12, 25)]),
        (f"t*(sin(t) + cos(t))^2/{m}", [pi / 4 + 2 * pi * k for k in ks]),
        ("(1 + t)*sin(t)^2/(1 + sin(t)^2)", [pi / 2 + k * pi for k in ks]),
        (f"t^2*sin(1/(1 + t)) - {m}", [mpmath.mpf(10) ** j for j in (2, 4, 8)]),
        ("sinh(t)/sqrt(cosh(t))", [mpmath.mpf(j) for j in (10, 20, 40)]),
        ("cosh(t) - sinh(t) + t*cos(t)^4", [2 * pi * k for k in ks]),
        (f"atan(t)*t*sin(t)^2 - {m}", [pi / 2 + k * pi for k in ks]),
        (f"{q(c)}*t*abs(sin(t))", [pi / 2 + k * pi for k in ks]),
        ("tanh(t)*t*cos(t)^2 - 1", [2 * pi * k for k in ks]),
    ]


# ---------------------------------------------------------------------------------------------
def time_varying() -> list[Case]:
    rng = random.Random(9008)
    pi = mpmath.pi
    cases = []
    for rep in range(2):
        a = rat(rng, 0.4, 2.5)
        af = mpmath.mpf(a.numerator) / a.denominator
        c = rat(rng, 0.5, 10)
        cf = mpmath.mpf(c.numerator) / c.denominator
        c5 = rat(rng, 3.2, 10)
        c5f = mpmath.mpf(c5.numerator) / c5.denominator
        b = rat(rng, 0.05, 1, 11)
        forms = [
            (f"atan(tan({q(a)}*t)) - {q(a)}*t", pi / (4 * af), pi / af, 3.0),
            (f"atan(1/(t - {q(c)})) + atan(t - {q(c)})", cf / 2, cf + 1, 3.0),
            (f"abs(sin({q(a)}*t))/sin({q(a)}*t)", pi / (2 * af), 3 * pi / (2 * af), 1.9),
            (f"(t - {q(c)})/abs(t - {q(c)})", cf / 2, cf + 1, 1.9),
            (f"abs(t - {q(c5)}) + t - {q(c5)}", 1, c5f + 2, 3.9),
            (f"atan(tan(t + {q(b)})) - t", mpmath.mpf(1) / 100, pi, 3.0),
        ]
        for k, (z, t1, t2, gap) in enumerate(forms):
            for kind in ("Uid", "Uti", "Pti"):
                if kind == "Uid":
                    entry = f"1 + {z}"
                    i = rng.randrange(3)
                    data = instance("3.2", U=diag_with(entry, at=(i, i)))
                    theorem, false = "3.2", ("U_identity",)
                elif kind == "Uti":
                    entry = f"3 + {z}"
                    if (k + rep) % 2:
                        data = instance("4.4-sym", U=[[entry, 0, 0], [0, 1, 0], [0, 0, "1/2"]])
                    else:  # a symmetric off-diagonal pair
                        entry = f"1/4 + ({z})/8"
                        data = instance("4.4-sym", U=[[3, entry, 0], [entry, 1, 0], [0, 0, "1/2"]])
                    theorem, false = "4.4-sym", ("U_time_invariant",)
                else:
                    entry = f"2 + {z}"
                    mm = [[entry, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
                    data = instance("grad-energy", P=mm, U=mm)
                    theorem, false = "grad-energy", ("P_time_invariant",)
                g = gap / 8 if "/8" in entry else gap

                def witness(entry=entry, t1=t1, t2=t2, g=g):
                    values_differ(entry, t1, t2, g)
                    return (f"{entry}: {mpmath.nstr(mp_real(entry, t1), 10)} at t = {mpmath.nstr(t1, 10)} but "
                            f"{mpmath.nstr(mp_real(entry, t2), 10)} at t = {mpmath.nstr(t2, 10)}")
                cases.append(Case(f"tv-{kind}-{rep}-{k}", "time_varying", theorem, false, data, witness))
    return cases
