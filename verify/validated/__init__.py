"""Validated (rigorous) enclosures of the attention dynamics: eq. 5 (ODE) and eq. 4 (layer map).

* :func:`integrate_validated` — the continuous model (paper eq. 5), constant or piecewise-constant
  ``P^h``, ``U^h``, ``beta`` (:class:`Field`, layer stacks), full or causal mask, from exact tokens or
  boxes around them (:class:`Tokens`); returns a frozen :class:`ValidatedTrajectory`.
* :func:`iterate_layers` — the layer map (paper eq. 4), same data, returns :class:`LayerTrajectory`.
* :mod:`.metrics` — ``E_pair``, ``E_first``, the cap around ``x_1`` and the pair diameter, enclosed
  on an enclosure; :func:`depth_window` / :func:`layer_window` — certified windows ``[T_low, T_high]``.

Design note: why a result is a proof.  Every number on the path to an enclosure is an exact
rational or a python-flint ``arb`` ball (outward rounded, at ``prec`` bits scoped per call):
Taylor coefficients of the solution through a point or a box (:mod:`.series`) and their Jacobians
(:mod:`.tangent`), an a-priori box proved by the Picard–Lindelöf containment test
(:mod:`.apriori`), Lagrange remainders evaluated on that box (:mod:`.step`, :mod:`.jacobian`), and
Lohner's mean-value update of a parallelepiped (:mod:`.lohner`).  Floats only *propose*: step sizes,
the inflation of candidate boxes, the orthogonal frame ``Q`` of the parallelepiped; each proposal
is accepted only after an arb check (containment in the interior, invertibility of ``Q`` with an
arb enclosure of ``Q^{-1}``), and a bad proposal costs tightness or a smaller step, never
soundness.  What is *not* guaranteed: tightness and progress (a run can stop early; its status
says why and its steps so far remain valid).  The enclosures cover ``[0, reached]`` only; a claim
for all later times needs an invariance certificate (``verify depth``).

Trust base: this package relies on python-flint's arb (ball arithmetic, ``arb_mat`` products and
inverses) and exact rationals only.
"""
from __future__ import annotations

from .integrate import integrate_validated
from .layer_map import LayerOptions, LayerTrajectory, iterate_layers
from .metrics import METRICS
from .options import ValidatedOptions
from .problem import Field, Tokens
from .record import StepEnclosure, ValidatedStats, ValidatedStatus, ValidatedTrajectory
from .window import DepthWindow, depth_window, layer_window

__all__ = ["DepthWindow", "Field", "LayerOptions", "LayerTrajectory", "METRICS", "StepEnclosure", "Tokens",
           "ValidatedOptions", "ValidatedStats", "ValidatedStatus", "ValidatedTrajectory", "depth_window",
           "integrate_validated", "iterate_layers", "layer_window"]
