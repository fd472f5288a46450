"""Figure for docs/depth.md: certified bound and simulated consensus metric against depth.

Left: eq. 5 (ODE), right: eq. 4 (layer map, tau = 1/2 and 1).  For each instance the simulated
metric (solid, float64 evidence) and the certified envelope ``C exp(-rate t)`` / ``C exp(-rate k)``
(dashed), with the certified ``T(eps)`` / ``L(eps)`` marked (:func:`verify._depth.figure.depth_figure`).
Run:

    python benchmarks/figure_depth.py [--out docs/figures/depth.png]
"""
from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path

import numpy as np

from numerics.support.png import figure_png
from theorems import simple_system
from theorems.system_json import load_system
from verify._depth import certify_depth
from verify._depth.defaults import default_instance
from verify._depth.figure import depth_figure

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
    entries = []
    for model, tid, system, tau, label in cases():
        report = certify_depth(tid, system, EPS, model, tau)
        entries.append((report, label))
        ev = report.evidence
        print(f"{model:6} {label:28} bound {report.bound} observed {ev['observed']} tightness {report.to_json()['tightness']}")
    fig = depth_figure(entries, title=f"solid: simulated (evidence); dashed: certified envelope; dotted: certified T / L (eps = {EPS})")
    Path(args.out).write_bytes(figure_png(fig))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
