"""Figure for docs/depth.md: certified bound and simulated consensus metric against depth.

Left: eq. 5 (ODE), right: eq. 4 (layer map, tau = 1/2 and 1).  For each instance the simulated
metric (solid, float64 evidence) and the certified envelope ``C exp(-rate t)`` / ``C exp(-rate k)``
(dashed), with the certified ``T(eps)`` / ``L(eps)`` marked.  Run:

    python benchmarks/figure_depth.py [--out docs/figures/depth.png]
"""
from __future__ import annotations

import argparse
import math
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from theorems import simple_system  # noqa: E402
from theorems.system_json import load_system  # noqa: E402
from verify.depth import certify_depth  # noqa: E402
from verify.depth.defaults import default_instance  # noqa: E402

EPS = Fraction(1, 1000)


def cluster(mask: str, seed: int, scale: str) -> object:
    rng = np.random.default_rng(seed)
    u = rng.normal(size=3)
    X = u / np.linalg.norm(u) + 0.5 * rng.normal(size=(6, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    if mask == "causal":
        X[1:] = np.where((X[1:] @ X[0] < 0)[:, None], -X[1:], X[1:])
    P = [[scale if i == j else "0" for j in range(3)] for i in range(3)]
    return simple_system(P, "identity", X.tolist(), beta=1, mask=mask, name=f"{mask}-P={scale}I")


def cases():
    return [("ode", "3.2", default_instance("3.2"), None, "3.2 default"),
            ("ode", "3.2", cluster("full", 1, "0"), None, "3.2, P = 0"),
            ("ode", "4.2", default_instance("4.2"), None, "4.2 default"),
            ("ode", "4.2", cluster("causal", 2, "1/4"), None, "4.2, P = I/4"),
            ("layers", "3.2", default_instance("3.2"), Fraction(1, 2), "3.2 default, tau = 1/2"),
            ("layers", "3.2", cluster("full", 1, "0"), Fraction(1), "3.2, P = 0, tau = 1"),
            ("layers", "4.2", cluster("causal", 2, "1/4"), Fraction(1), "4.2, P = I/4, tau = 1"),
            ("layers", "3.2", load_system("examples/late_entry.json"), Fraction(1), "late entry, tau = 1")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/figures/depth.png")
    args = parser.parse_args()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for k, (model, tid, system, tau, label) in enumerate(cases()):
        ax = axes[0 if model == "ode" else 1]
        report = certify_depth(tid, system, EPS, model, tau)
        ev, cert = report.evidence, report.certificate
        color = f"C{k % 4}"
        t, v = ev["times"], np.maximum(ev["values"], 1e-16)
        ax.semilogy(t, v, color=color, label=f"{label}: observed {ev['observed']:.3g}, bound {float(Fraction(report.bound)):.4g}")
        start = cert.derived.get("L0", 0)
        grid = np.linspace(start, float(Fraction(report.bound)), 400)
        if model == "ode" and tid == "4.2":  # the certified curve itself: 1 - tanh(c t + artanh m0)
            c, m0 = float(Fraction(cert.derived["rate"])) / 2, float(Fraction(cert.derived["m0"]))
            envelope = 1 - np.tanh(c * grid + math.atanh(m0))
        else:  # Q exp(-rate (t - start))
            C, rate = float(Fraction(cert.derived["chart"]["Q"])), float(Fraction(cert.derived["rate"]))
            envelope = C * np.exp(-rate * (grid - start))
        ax.semilogy(grid, np.minimum(envelope, 2.0), "--", color=color, lw=1)
        ax.axvline(float(Fraction(report.bound)), color=color, ls=":", lw=1)
        print(f"{model:6} {label:28} bound {report.bound} observed {ev['observed']} tightness {report.to_json()['tightness']}")
    for ax, title, xl in ((axes[0], "eq. 5 (ODE): metric against time", "t"),
                          (axes[1], "eq. 4 (layer map): metric against layers", "layer k")):
        ax.axhline(float(EPS), color="k", lw=0.8)
        ax.set_title(title)
        ax.set_xlabel(xl + " (linear up to 10, logarithmic beyond)")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(left=0)
        ax.set_ylabel("max (1 - <x_i, x_j>)  /  max (1 - <x_1, x_i>)")
        ax.set_ylim(1e-6, 3)
        ax.legend(fontsize=7)
    fig.suptitle(f"solid: simulated (evidence); dashed: certified envelope; dotted: certified T / L (eps = {EPS})",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
