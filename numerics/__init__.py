"""Numerical integration of the attention dynamics on the sphere (paper eq. 5), metrics and evidence.

Integrators share one interface (:class:`Integrator`, ``integrate(systems, t_end, ...)``) and
return a frozen :class:`Trajectory`:

* :class:`DOP853` — float64 adaptive Dormand–Prince 8(5,3), batched, per-instance step control;
* :class:`TaylorMP` — arbitrary precision Taylor series by automatic differentiation;
* :class:`EulerRenormalized`, :class:`Midpoint`, :class:`RK4` — fixed-step baselines;
* :class:`TorchRK4`, :class:`TorchDOP853` — optional torch backend, fixed-step RK4 and batched
  adaptive DOP853 on CPU or CUDA (torch imported only when used).

A simulation is evidence, never proof (see :mod:`numerics.evidence`).
"""
from .dop853 import DOP853
from .euler import EulerRenormalized
from .evidence import simulate_evidence, summarize
from .field import BatchedField, attention_field
from .metrics import E_first, E_pair, V_first, fit_rate, hemisphere_margin, hemisphere_margins
from .midpoint import Midpoint
from .rk4 import RK4
from .taylor import TaylorMP
from .torch_backend import TorchRK4
from .torch_dop853 import TorchDOP853
from .trajectory import Integrator, Precision, RunStatus, Stats, Trajectory

__all__ = ["DOP853", "TaylorMP", "EulerRenormalized", "Midpoint", "RK4", "TorchRK4", "TorchDOP853", "Integrator", "Trajectory",
           "Stats", "Precision", "RunStatus", "BatchedField", "attention_field", "E_first", "E_pair", "V_first",
           "hemisphere_margin", "hemisphere_margins", "fit_rate", "simulate_evidence", "summarize"]
