"""``verify depth ID``: a certified time ``T(eps)`` (eq. 5) or number of layers ``L(eps)`` (eq. 4).

Certify after which time (``model="ode"``) or how many layers of step ``tau`` (``model="layers"``) every
token of ``instance`` is within ``eps`` of consensus (:func:`verify._depth.certify_depth`): the bound and
rate, the hypotheses and certificates they rest on, and the simulated value beside them (``observed``,
evidence only) with ``tightness = bound / observed``; the window is documented in docs/depth.md.  The
``record`` is the :class:`~verify._depth.certify.DepthReport`.  Exit codes carried by the verdict: 0
certified, 3 a hypothesis fails, 4 no bound could be certified.
"""
from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from verify.instances import resolve_instance
from verify.outputs import dir_targets, file_target, write_all
from verify.report import Report

from ._table import FORCE, REQUIRED, Command, Option, OptionError, api

MAX_ENTRY_BUDGET = 1000
COMMAND = Command(
    "depth", "depth", "certified time / number of layers until every token is within eps of consensus",
    "verify depth ID: a certified time T(eps) (eq. 5) or number of layers L(eps) (eq. 4) after which every token is "
    "within eps of consensus, with the certified rate, the hypotheses and certificates it rests on, and the "
    "simulated value beside it (evidence, not a proof).",
    None,
    (Option("theorem_id", "choice", REQUIRED, choices=("3.2", "4.2"), flag="ID", positional=True,
            expected="3.2 or 4.2", hint="verify depth certifies Theorem 3.2 and Theorem 4.2", help="3.2 (full attention) or 4.2 (causal attention)"),
     Option("instance", metavar="FILE",
            help="attention-system JSON file, or example:NAME (verify examples); default: the built-in instance"),
     Option("eps", "rational", "1/100", low=0, high=1, help="target: metric <= eps, a rational in (0, 1) such as 1/100 "
            "or 0.01 (metric: max_ij (1 - <x_i, x_j>) for 3.2, max_i (1 - <x_1, x_i>) for 4.2; default 1/100)"),
     Option("model", "choice", "ode", choices=("ode", "layers"),
            help="ode: eq. 5 (a time T); layers: eq. 4 with step tau (a number of layers L)"),
     Option("tau", "rational", low=0, high=10 ** 6,
            help="layer step of eq. 4, a positive rational (default 1 with --model layers)"),
     Option("entry_budget", "int", 64, low=0, high=MAX_ENTRY_BUDGET, help="layers evaluated in balls to find a late "
            f"hemisphere entry (3.2 layers; at most {MAX_ENTRY_BUDGET})"),
     Option("simulate", "bool", True, help="skip the simulation (observed = null)"),
     Option("window", "bool", True, help="skip the validated enclosure: no [T_low, T_high] window and no late entry by "
                                         "enclosure (closed form only)"),
     Option("save", "path", metavar="DIR", help="write the report and the depth certificate (verify recheck)"),
     Option("plot", "path", metavar="FILE", help="write a PNG of the simulated metric under the certified envelope "
            "(report.plot(); needs the simulation)"),
     FORCE))


def _depth(theorem_id: str, instance: Any, eps: Fraction, model: str, tau: Fraction | None, entry_budget: int,
           simulate: bool, window: bool, save: str | None, plot: str | None, force: bool) -> Report:
    from verify._depth import certify_depth
    from verify._depth.defaults import default_instance
    from verify._depth.render import render_depth
    from numerics.support.png import figure_png

    if tau is not None and model != "layers":
        raise OptionError("tau", "only with {model} layers", str(tau))
    safe = f"{theorem_id.replace('.', '_')}__depth_{model}"
    names = {"certificate": f"{safe}.json", "report": f"{safe}__report.json", "window": f"{safe}__window.json"}
    if plot is not None and not simulate:
        raise OptionError("plot", "the simulation the figure draws", "simulate off", conflict=True)
    pngs = file_target("plot", plot, force, ".png")
    saved = dict(zip(names, dir_targets("save", save, names.values(), force))) if save is not None else {}
    system = resolve_instance(instance, lambda: default_instance(theorem_id))
    report = certify_depth(theorem_id, system, eps, model, tau, simulate=simulate, entry_budget=entry_budget,
                           tight=window)
    body = report.to_json()
    body["instance"] = {"name": system.name, "N": system.N, "d": system.d, "H": system.H, "mask": system.mask,
                        "beta": str(system.beta)}
    if model == "layers":
        body["tau_default"] = tau is None
    text = render_depth(report, tau_default=tau is None)
    batch = [(t, figure_png(report.figure(), bbox_inches="tight")) for t in pngs]
    if saved:  # computed and rendered before anything is written
        certs = {"window": report.window_certificate, "certificate": report.certificate}
        batch += [(saved[k], json.dumps(c.to_json(), indent=1)) for k, c in certs.items() if c is not None]
        batch.append((saved["report"], json.dumps(Report("depth", body, text).to_json(), indent=1)))
    files = write_all(batch, force) if batch else []
    text += "".join(f"\nwrote {t.path}" for t in pngs)
    return Report("depth", body, text, files=tuple(files), record=report)


depth = api(COMMAND, _depth, __name__)
