"""Benchmark: validated enclosures of eq. 5 (issue 22) and of the layer map.

Cases (full attention, beta = 1, P = U = I, tokens random rational unit vectors in the open
hemisphere x_d > 0, seed 0, default ``ValidatedOptions``: order 20, Jacobian order 3, tol 1e-15,
128 bits):

* **ode N=8 d=4** to t = 10 — goal: final max width <= 1e-10 within 30 s;
* **ode N=8 d=8** to t = 10 — goal: within 120 s;
* **layers N=8 d=4**, tau = 1/2, 300 layers (Lohner wrapping control).

Each row: wall time, steps (rejected), smallest and largest step, final max width (the widest
coordinate ball at the end, rounded up), and the certified window of the pair diameter for
eps = 1e-3 (``depth_window``).  The machine is shared: timings vary with the load (printed).
Run:

    python benchmarks/bench_validated.py [--cases ode84,ode88,layers84]
"""
from __future__ import annotations

import argparse
import os
import random
import time
from fractions import Fraction


def tokens(N: int, d: int, seed: int = 0) -> list[list[Fraction]]:
    """Rational points of the upper hemisphere (inverse stereographic projection of rationals)."""
    rng = random.Random(seed)
    out = []
    while len(out) < N:
        u = [Fraction(rng.randint(-12, 12), 8) for _ in range(d - 1)]
        s = sum(v * v for v in u)
        if s < 1:
            out.append([2 * v / (1 + s) for v in u] + [(1 - s) / (1 + s)])
    return out


def ode(N: int, d: int) -> dict:
    from verify.validated import Field, Tokens, depth_window, integrate_validated
    start = time.perf_counter()
    traj = integrate_validated(Field.identity(d), Tokens(tokens(N, d)), 10)
    wall = time.perf_counter() - start
    window = depth_window(traj, "diameter", Fraction(1, 1000))
    return {"case": f"ode N={N} d={d} t=10", "wall_s": wall, "status": traj.status.value,
            "steps": f"{traj.stats.steps} ({traj.stats.rejected})",
            "h": f"{traj.stats.min_step:.3g}..{traj.stats.max_step:.3g}", "width": traj.final_width,
            "window": _window(window)}


def layers(N: int, d: int) -> dict:
    from verify.validated import Field, Tokens, iterate_layers, layer_window
    start = time.perf_counter()
    traj = iterate_layers(Field.identity(d), Tokens(tokens(N, d)), Fraction(1, 2), 300)
    wall = time.perf_counter() - start
    window = layer_window(traj.enclosures, "diameter", Fraction(1, 1000))
    return {"case": f"layers N={N} d={d} x300", "wall_s": wall, "status": traj.status.value,
            "steps": str(traj.layers), "h": "tau=1/2", "width": traj.widths[-1], "window": _window(window)}


def _window(w) -> str:
    if w.T_low is None or w.T_high is None:
        return w.status.value
    return f"[{float(w.T_low):.6g}, {float(w.T_high):.6g}]"


CASES = {"ode84": lambda: ode(8, 4), "ode88": lambda: ode(8, 8), "layers84": lambda: layers(8, 4)}
GOALS = {"ode N=8 d=4 t=10": (30.0, 1e-10), "ode N=8 d=8 t=10": (120.0, None)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    header = (f"{'case':<22} {'wall (s)':>9} {'status':>8} {'steps (rej)':>12} {'step range':>16} "
              f"{'final width':>12}  window eps=1e-3")
    print(header)
    print("-" * len(header))
    for name in args.cases.split(","):
        row = CASES[name]()
        goal = GOALS.get(row["case"])
        verdict = ""
        if goal is not None:
            ok = row["wall_s"] <= goal[0] and (goal[1] is None or row["width"] <= goal[1])
            verdict = "  goal met" if ok else "  goal MISSED"
        print(f"{row['case']:<22} {row['wall_s']:>9.2f} {row['status']:>8} {row['steps']:>12} {row['h']:>16} "
              f"{row['width']:>12.3g}  {row['window']}{verdict}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
