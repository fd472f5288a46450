"""Simulation cases that test the theorems' conclusions where their hypotheses hold.

Each case integrates eq. 5 (float64 DOP853, sphere-preserving) for ``scale.runs`` seeded
instances and returns a plain dict of :class:`~verify._reproduce.records.Measurement` s, the
catalogue's hypothesis counts and figures.  Each kind of ``P`` (or family of ``U``) is one task
(:mod:`.tasks`) with its own seeds, so the tasks are independent; ``*_finish`` merges them and
computes the extremes over all of them.  Every run draws its own matrices and tokens from a seed,
so bands cover both.

* ``sim-3.2``: full attention, ``U = I``, ``P`` constant or periodic (bounded, uniformly
  continuous), tokens drawn inside an open hemisphere: final ``E_pair`` and the hemisphere
  margin along the way (invariance: it never decreases).
* ``sim-3.2-late``: the same dynamics from tokens in **no** open hemisphere (checked exactly,
  Farkas witness): do they enter one, and does consensus follow?
* ``sim-4.2``: causal, ``U = I``, ``P`` constant / periodic / piecewise: drift of ``x_1`` and
  the Lyapunov function ``V = sum_i (1 - <x_1, x_i>)`` at the end.
* ``sim-4.4``: causal, one head, symmetric ``U`` with a simple top eigenvalue (the
  ``U = diag(1, -0.5, -2)`` of docs/model.md §2 and random symmetric ``U``): alignment
  ``1 - mean_i |<v, x_i>|`` and the share of runs that end with mixed signs (same-sign consensus is not implied).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from numerics.dop853 import DOP853
from numerics.metrics import E_pair, hemisphere_margins
from numerics.plotting import plot_trajectory
from numerics.presets import preset, preset_dict, random_tokens
from numerics.spread import METRIC_RANGES
from theorems.predicates.open_hemisphere import hemisphere_verdict
from theorems.predicates.value_map import USimpleTopEigenvalue
from theorems.system_json import system_from_dict
from theorems.verdict import Status

from .hypotheses import hypothesis_counts
from .scale import Scale
from .stats import extreme, median_band, share_band
from .tasks import Task, merge

RTOL, ATOL = 1e-10, 1e-12
SIGN_LEVEL = 0.9
"""A token counts as at ``+v`` (``-v``) when ``<v, x_i> > 0.9`` (``< -0.9``) at the end."""


def _integrate(systems, scale: Scale):
    return DOP853(rtol=RTOL, atol=ATOL).integrate(systems, scale.t_end, samples=scale.samples)


def hemisphere_tokens(rng: np.random.Generator, N: int, d: int) -> np.ndarray:
    """Uniform tokens reflected into the open hemisphere ``<z, x> > 0`` of a random ``z``."""
    X = random_tokens(rng, N, d)
    z = random_tokens(rng, 1, d)[0]
    signs = np.where(X @ z < 0, -1.0, 1.0)
    return X * signs[:, None]


def part_3_2(scale: Scale, kind: str, k: int) -> dict[str, Any]:
    """``sim-3.2`` for one kind of ``P`` (tokens from ``default_rng([32, k])``)."""
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": []}
    rng = np.random.default_rng([32, k])
    systems = [preset(f"{kind}-identity-full", N=scale.N, d=scale.d, seed=1000 + r)
               .with_tokens(hemisphere_tokens(rng, scale.N, scale.d)) for r in range(scale.runs)]
    out["hypotheses"] += hypothesis_counts("3.2", systems, f"{kind} P, U = I, full, tokens in a hemisphere")
    traj = _integrate(systems, scale)
    out["measurements"][f"final_E_pair_{kind}"] = median_band(
        E_pair(traj.states[-1]), f"E_pair at t = {scale.t_end:g}, {kind} P, U = I, full attention, start in an open hemisphere",
        METRIC_RANGES["E_pair"])
    drops, initial = [], []
    for b in range(len(systems)):
        margins = hemisphere_margins(traj.states[:, b])
        initial.append(float(margins[0]))
        drops.append(float(np.max(margins[:-1] - margins[1:])))
    if kind == "constant":
        out["figures"].append({"name": "sim-3.2-constant.png", "png": plot_trajectory(traj, title=f"Thm 3.2: constant P, U = I, full, {len(systems)} runs", mask="full"),
                               "caption": f"Theorem 3.2 setting (constant P, U = I, full attention, tokens start in an open hemisphere): "
                                          f"E_first and E_pair against t, median of {len(systems)} seeded runs with the 10-90% band; right: token paths of run 0 on S^2."})
    out["raw"] = {"drops": drops, "initial": initial}
    return out


def tasks_3_2(scale: Scale) -> list[Task]:
    return [Task(kind, part_3_2, (scale, kind, k)) for k, kind in enumerate(("constant", "periodic"))]


def finish_3_2(scale: Scale, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out = merge(parts)
    out["measurements"]["max_margin_decrease"] = extreme(
        [v for p in parts for v in p["raw"]["drops"]],
        "largest decrease of the hemisphere margin between consecutive samples, over every run (negative: it only grew)")
    out["measurements"]["min_initial_margin"] = extreme([v for p in parts for v in p["raw"]["initial"]],
                                                        "smallest hemisphere margin at t = 0", kind="min")
    return out


def case_3_2_late(scale: Scale) -> dict[str, Any]:
    """``sim-3.2-late`` (one task: the draws are a sequential rejection sampler)."""
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": [], "details": {}}
    rng = np.random.default_rng(321)
    systems, tries = [], 0
    while len(systems) < scale.runs and tries < 50 * scale.runs:
        tries += 1
        X = random_tokens(rng, scale.N, scale.d)
        if hemisphere_verdict(X).status is Status.FAILS:  # exact Farkas witness: in no open hemisphere
            systems.append(preset("constant-identity-full", N=scale.N, d=scale.d, seed=3000 + tries).with_tokens(X))
    out["details"]["draws"] = tries
    if not systems:
        out["skipped"] = f"no uniform draw of {scale.N} tokens in {scale.d} dimensions fell outside every open hemisphere in {tries} tries"
        return out
    out["hypotheses"] += hypothesis_counts("3.2", systems, "constant P, U = I, full, tokens in no hemisphere")
    traj = _integrate(systems, scale)
    entered, entry_times = 0, []
    for b in range(len(systems)):
        margins = hemisphere_margins(traj.states[:, b])
        hit = np.flatnonzero(margins > 1e-9)
        if hit.size:
            entered += 1
            entry_times.append(float(traj.times[hit[0]]))
    out["measurements"]["entered_share"] = share_band(entered, len(systems), "share of runs (starting in no open hemisphere) that enter one by t_end")
    if entry_times:
        out["measurements"]["entry_time"] = median_band(entry_times, "first sample time with hemisphere margin > 1e-9", (0.0, scale.t_end))
    out["measurements"]["final_E_pair"] = median_band(
        E_pair(traj.states[-1]), f"E_pair at t = {scale.t_end:g} for runs starting in no hemisphere", METRIC_RANGES["E_pair"])
    out["figures"].append({"name": "sim-3.2-late.png", "png": plot_trajectory(traj, title="tokens start in no hemisphere", mask="full"),
                           "caption": "Constant P, U = I, full attention, tokens start in no open hemisphere (exact Farkas witness): "
                                      "consensus metrics (median of the runs, 10-90% band) and token paths of run 0."})
    return out


def part_4_2(scale: Scale, kind: str) -> dict[str, Any]:
    """``sim-4.2`` for one kind of ``P``."""
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": []}
    systems = [preset(f"{kind}-identity-causal", N=scale.N, d=scale.d, seed=4000 + r) for r in range(scale.runs)]
    out["hypotheses"] += hypothesis_counts("4.2", systems, f"{kind} P, U = I, causal")
    traj = _integrate(systems, scale)
    X = traj.states
    x1_0 = X[0, :, 0, :]
    drifts = [float(v) for v in np.max(np.linalg.norm(X[:, :, 0, :] - x1_0[None], axis=-1), axis=0)]
    V_final = np.sum(1.0 - np.einsum("bd,bjd->bj", x1_0, X[-1]), axis=-1)
    out["measurements"][f"final_V_{kind}"] = median_band(
        V_final, f"V = sum_i (1 - <x_1(0), x_i(T)>) at T = {scale.t_end:g}, {kind} P, U = I, causal", (0.0, 2.0 * scale.N))
    if kind == "piecewise":
        out["figures"].append({"name": "sim-4.2-piecewise.png", "png": plot_trajectory(traj, title="Thm 4.2: piecewise P, U = I, causal", mask="causal"),
                               "caption": "Theorem 4.2 setting with random piecewise-constant P (bounded; causal, U = I): metrics (median, 10-90% band) "
                                          "and token paths of run 0; x_1 stays put and every token moves to it."})
    out["raw"] = {"drifts": drifts}
    return out


def tasks_4_2(scale: Scale) -> list[Task]:
    return [Task(kind, part_4_2, (scale, kind)) for kind in ("constant", "periodic", "piecewise")]


def finish_4_2(scale: Scale, parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    out = merge(parts)
    out["measurements"]["max_x1_drift"] = extreme([v for p in parts for v in p["raw"]["drifts"]],
                                                  "largest |x_1(t) - x_1(0)| over every run and sample")
    return out


def _sym44(name: str, U: list[list[str]] | None, scale: Scale, seed: int):
    """The ``constant-symmetric-causal`` preset of ``seed``, with ``U`` replaced when given."""
    data = preset_dict("constant-symmetric-causal", N=scale.N, d=scale.d, seed=seed)
    if U is not None:
        data["heads"][0]["U"] = U
    data["name"] = name
    return system_from_dict(data)


def _u_family(scale: Scale, key: str):
    if key == "random":
        return "random symmetric U", None
    diag = [["1" if i == j else "0" for j in range(scale.d)] for i in range(scale.d)]
    spectrum = ["1", "-1/2", "-2"] + ["-3"] * max(0, scale.d - 3)
    for i in range(scale.d):
        diag[i][i] = spectrum[i]
    return "U = diag(1, -0.5, -2, ...)", diag


def part_4_4(scale: Scale, key: str) -> dict[str, Any]:
    """``sim-4.4`` for one family of ``U`` (``diag`` or ``random``)."""
    out: dict[str, Any] = {"measurements": {}, "hypotheses": [], "figures": [], "details": {}}
    label, U = _u_family(scale, key)
    systems = []
    seed = 5000
    while len(systems) < scale.runs and seed < 5000 + 20 * scale.runs:
        seed += 1
        system = _sym44(f"4.4-{key}-{seed}", U, scale, seed)
        if U is None and USimpleTopEigenvalue().evaluate(system).status is not Status.HOLDS:
            continue  # random U only where Assumption 4.4's spectral hypothesis holds exactly
        systems.append(system)
    out["hypotheses"] += hypothesis_counts("4.4-sym", systems, f"{label}, constant P, causal, one head")
    traj = _integrate(systems, scale)
    align, mixed, off_line = [], 0, []
    for b, system in enumerate(systems):
        _, vecs = np.linalg.eigh(system.U_at(0.0)[0])
        v = vecs[:, -1]
        c = traj.states[-1, b] @ v
        align.append(1.0 - float(np.mean(np.abs(c))))
        if align[-1] > 1e-6:  # record where alignment failed, so a reader can rerun that instance
            worst = int(np.argmin(np.abs(c)))
            move = float(np.max(np.abs(traj.states[-1, b] - traj.states[-2, b])))
            off_line.append({"instance": system.name, "token": worst + 1, "v_dot_x": float(c[worst]),
                             "x_final": traj.states[-1, b, worst].tolist(), "last_step_change": move})
        if np.any(c > SIGN_LEVEL) and np.any(c < -SIGN_LEVEL):
            mixed += 1
    out["measurements"][f"final_alignment_{key}"] = median_band(
        align, f"1 - mean_i |<v, x_i(T)>| at T = {scale.t_end:g} ({label}; v = top eigenvector)", (0.0, 1.0))
    out["measurements"][f"mixed_sign_share_{key}"] = share_band(
        mixed, len(systems), f"share of runs ending with tokens at both +v and -v ({label})")
    out["details"][f"not_aligned_{key}"] = off_line
    if key == "diag":
        out["details"]["mixed_sign_runs_diag"] = [mixed, len(systems)]
        out["figures"].append({"name": "sim-4.4-diag.png", "png": plot_trajectory(traj, variant="abs", title="4.4-sym: U = diag(1, -0.5, -2)", mask="causal"),
                               "caption": "Assumption 4.4 setting with U = diag(1, -0.5, -2), constant random P, causal, one head: E_first with |cos| "
                                          "(alignment with a line), E_pair (same-sign consensus) and V; median and 10-90% band; right: token paths of run 0."})
    return out


def tasks_4_4(scale: Scale) -> list[Task]:
    return [Task(key, part_4_4, (scale, key)) for key in ("diag", "random")]
