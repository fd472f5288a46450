"""The float proposal of a head's crossing time is bounded (from the adversarial review of the enclosure pass,
``test_adversary_head_entry.py``).

Both tests were marked ``# BUG:`` and failed when written: the float proposal of the crossing time
(:func:`verify._fate.head_flow.crossing_time`, then called by ``entry_pass`` before any deadline applied) was
unbounded: with a non-finite float field it never returned (SciPy's step size becomes NaN), and with a stiff one it ran
far past ``flow_budget_s``.  Fixed (a non-finite check, an evaluation cap and the deadline in the proposal); the tests
stay as regressions.  Each runs the map in a fresh interpreter with a time limit, so a hang fails instead of
blocking the suite."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _child(code: str, timeout: float):
    """Run ``code`` in a fresh interpreter; ``(seconds, rc or None when killed at timeout, output)``."""
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                             timeout=timeout)
        return time.perf_counter() - t0, out.returncode, out.stdout + out.stderr
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t0, None, ""


_MAP = """
    import types, numpy as np
    from verify._fate.head_map import certify_heads
    V = np.array([[1.0, 0.0], [0.0, 0.1], [0.0, 0.0]]); O = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    rng = np.random.default_rng(0)
    A = 0.5 * rng.standard_normal((3, 2)); B = 0.5 * rng.standard_normal((3, 2))
    X = np.array([[1.0, 0.2, 0.1], [0.9, -0.3, 0.2], [0.8, 0.1, -0.4], [-1.0, 1.0, 0.3]])
    layer = types.SimpleNamespace(index=0, V=V[None], O=O[None], A={A}[None], B={B}[None], tokens=X, beta={beta})
    h = certify_heads([layer], tokens=list("abcd"), flow_budget_s={budget}).heads[0]
    print("FATE", h.fate, h.reason)
"""


def test_a_non_finite_float_field_hangs_the_map():
    # was a BUG (fixed): A, B ~ 1e200 (finite float64 inputs) make beta P_z ~ 1e400: its float midpoints are inf, the float field
    # of head_flow.crossing_time is NaN, SciPy's solve_ivp (DOP853) takes a NaN step size and loops forever
    # (its rejection branch never reaches min_step).  entry_pass calls plan_entry -> crossing_time for every
    # candidate before any deadline applies, so certify_heads(..., flow_budget_s=2) never returns.
    # Reproducer: certify_heads([layer with A = 1e200 * A, B = 1e200 * B], flow_budget_s=2.0)  (hangs)
    # Expected: the head stays unknown with a reason (e.g. guard non-finite values / evaluations as head_observe does).
    seconds, rc, out = _child(_MAP.format(A="1e200 * A", B="1e200 * B", beta=1.0, budget=2.0), timeout=12.0)
    assert rc is not None, f"certify_heads(flow_budget_s=2) did not return within {seconds:.0f} s (infinite loop)"
    assert rc == 0 and "FATE unknown" in out, out


def test_a_stiff_float_proposal_overruns_the_budget():
    # was a BUG (fixed): beta = 1e10 makes the attention a near hard-max; the float proposal (DOP853 to t = 25 in
    # crossing_time, no evaluation cap, no deadline) takes ~80 s on this machine, and entry_pass runs it outside
    # flow_budget_s (also for heads that are never attempted: "time budget spent").  Measured: budget 20 s ->
    # 70 s wall for one head with beta = 1e12.
    # Reproducer: certify_heads([STRADDLE layer with beta=1e10], flow_budget_s=0.5)
    seconds, rc, out = _child(_MAP.format(A="A", B="B", beta=1e10, budget=0.5), timeout=12.0)
    assert rc is not None, f"certify_heads(flow_budget_s=0.5) still running after {seconds:.0f} s"
    assert rc == 0 and "FATE unknown" in out, out
