"""One part of a batch of random initial conditions, as a self-contained task (for a cluster).

:func:`simulate_part` rebuilds the instance from its JSON form, draws the same ``count`` random
initial conditions from ``seed`` as :func:`numerics.presets.with_random_tokens` does for the whole
batch, and integrates the instances ``lo:hi`` with the float64 DOP853.  DOP853 controls each
instance's steps on its own, so the parts of a split batch are the rows of the whole batch, bit for
bit (``tests/numerics/test_num_dop853_workers.py``); :func:`join_parts` puts them back together.
A part takes the step loop (compiled or numpy, :func:`numerics._dop853_compiled.use_compiled`)
that the whole batch takes: the rule weighs the batch size, and the two loops agree to round-off,
not bitwise, so a part choosing by its own size could differ from the serial run in the last bits.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .trajectory import Precision, RunStatus, Stats, Trajectory


def simulate_part(system_json: Mapping[str, Any], count: int, seed: int, lo: int, hi: int, t_end: float,
                  points: int, rtol: float, atol: float) -> dict[str, Any]:
    """The trajectories of instances ``lo:hi`` of the ``count`` random starts drawn from ``seed``."""
    from theorems.system_json import system_from_dict

    from ._dop853_compiled import use_compiled
    from .dop853 import DOP853
    from .field import BatchedField
    from .presets import with_random_tokens

    batch = with_random_tokens(system_from_dict(dict(system_json)), count, seed)
    kernel = "compiled" if use_compiled("auto", BatchedField.of(batch), float(t_end)) else "numpy"
    traj = DOP853(rtol=rtol, atol=atol, workers=1, kernel=kernel).integrate(batch[lo:hi], t_end, samples=points)
    s = traj.stats
    return {"method": traj.method, "times": traj.times, "states": traj.states, "steps": s.steps,
            "rejected": s.rejected, "evaluations": s.evaluations, "wall_time": s.wall_time,
            "error_estimate": traj.error_estimate, "error_kind": traj.error_kind, "status": traj.status.value,
            "precision": [traj.precision.kind, traj.precision.bits, traj.precision.digits, traj.precision.backend]}


def join_parts(parts: Sequence[Mapping[str, Any]], workers: int) -> Trajectory:
    """One trajectory from the parts in batch order (the shortest common time range if a part stopped)."""
    reached = min(len(p["times"]) for p in parts)
    status = next((RunStatus(p["status"]) for p in parts if p["status"] != RunStatus.SUCCESS.value), RunStatus.SUCCESS)
    states = np.concatenate([np.asarray(p["states"])[:reached] for p in parts], axis=1)
    stats = Stats(sum(int(p["steps"]) for p in parts), sum(int(p["rejected"]) for p in parts),
                  sum(int(p["evaluations"]) for p in parts), max(float(p["wall_time"]) for p in parts), workers)
    kind, bits, digits, backend = parts[0]["precision"]
    return Trajectory(parts[0]["method"], np.asarray(parts[0]["times"])[:reached], states, stats,
                      Precision(kind, int(bits), digits, backend), max(float(p["error_estimate"]) for p in parts),
                      parts[0]["error_kind"], status)


__all__ = ["join_parts", "simulate_part"]
