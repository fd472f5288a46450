"""``verify depth ID``: a certified time ``T(eps)`` (eq. 5) or number of layers ``L(eps)`` (eq. 4).

A report over :func:`verify._depth.certify_depth`: the certified bound and rate, the hypotheses
and certificates they rest on, and the simulated value beside them (``observed``, evidence only)
with ``tightness = bound / observed``.  Exit codes carried by the verdict: 0 certified, 3 a
hypothesis fails, 4 no bound could be certified.
"""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput
from verify.outputs import Target, check_dir, check_targets, write_all
from verify.report import Report, envelope

from ._inputs import resolve_instance
from ._options import check_bool, check_int, check_path, keyword

MAX_ENTRY_BUDGET = 1000
THEOREMS = ("3.2", "4.2")
MODELS = ("ode", "layers")
_EXPONENT = re.compile(r"[eE][+-]?0*(\d+)")
"""The exponent of a decimal: ``Fraction("1e999999999")`` would build a billion-digit integer."""


def depth(theorem_id: str, *, model: str = "ode", tau: str | Fraction | None = None, eps: str | Fraction = "1/100",
          instance: Any = None, entry_budget: int = 64, simulate: bool = True, window: bool = True,
          save: str | Path | None = None, force: bool = False) -> Report:
    """Certify after which time (``model="ode"``) or how many layers of step ``tau``
    (``model="layers"``, default ``tau`` 1) every token of ``instance`` is within ``eps`` of consensus.

    ``theorem_id``: ``"3.2"`` (full attention) or ``"4.2"`` (causal).  ``eps``: a rational in
    (0, 1) (``"1/100"``, ``"0.01"``, a ``Fraction``); the metric is ``max_ij (1 - <x_i, x_j>)``
    for 3.2 and ``max_i (1 - <x_1, x_i>)`` for 4.2.  ``instance``: a path, a JSON-like dict or an
    ``AttentionSystem`` (default: the built-in instance of :mod:`verify._depth.defaults`).
    ``entry_budget``: layers evaluated in balls to find a late hemisphere entry (3.2 layers).
    ``simulate``: add the simulated value (evidence, not a proof).  ``window``: add the two-sided
    window ``[T_low, T_high]`` of a validated enclosure (constant rational ``P^h``; docs/depth.md),
    and certify a late entry with it where no closed form applies.  ``save``: a directory
    receiving the report and the depth certificate (checked before any work; existing files are
    replaced only with ``force``).  ``record`` is the :class:`~verify._depth.certify.DepthReport`.
    """
    return run(theorem_id, model=model, tau=tau, eps=eps, instance=instance, entry_budget=entry_budget,
               simulate=simulate, window=window, save=save, force=force)


def run(theorem_id: str, *, model: str = "ode", tau: str | Fraction | None = None, eps: str | Fraction = "1/100",
        instance: Any = None, entry_budget: int = 64, simulate: bool = True, window: bool = True,
        save: str | Path | None = None, force: bool = False, name: Callable[[str], str] = keyword) -> Report:
    """:func:`depth`, its errors naming the options with ``name`` (the CLI passes ``flag``)."""
    from verify._depth import certify_depth
    from verify._depth.defaults import default_instance

    if not isinstance(theorem_id, str) or theorem_id not in THEOREMS:
        raise InvalidInput(name("theorem_id"), "3.2 or 4.2", theorem_id, "verify depth certifies Theorem 3.2 and Theorem 4.2")
    if not isinstance(model, str) or model not in MODELS:
        raise InvalidInput(name("model"), "'ode' or 'layers'", model)
    eps_q = _rational(eps, name("eps"), Fraction(0), Fraction(1))
    tau_q = None if tau is None else _rational(tau, name("tau"), Fraction(0), Fraction(10 ** 6))
    if tau is not None and model != "layers":
        raise InvalidInput(name("tau"), f"only with {name('model')} layers", tau)
    entry_budget = check_int(name("entry_budget"), entry_budget, 0, MAX_ENTRY_BUDGET)
    simulate, force = check_bool(name("simulate"), simulate), check_bool(name("force"), force)
    window = check_bool(name("window"), window)
    safe = f"{theorem_id.replace('.', '_')}__depth_{model}"
    save = check_path(name("save"), save)
    if save is not None:
        check_dir(name("save"), save)
        check_targets([Target(name("save"), save / f"{safe}.json"), Target(name("save"), save / f"{safe}__report.json"),
                       Target(name("save"), save / f"{safe}__window.json")], force)
    system = resolve_instance(instance, lambda: default_instance(theorem_id))
    report = certify_depth(theorem_id, system, eps_q, model, tau_q, simulate=simulate, entry_budget=entry_budget,
                           tight=window)
    body = report.to_json()
    body["instance"] = {"name": system.name, "N": system.N, "d": system.d, "H": system.H, "mask": system.mask,
                        "beta": str(system.beta)}
    if model == "layers":
        body["tau_default"] = tau_q is None
    payload = envelope("depth", body)
    text = depth_text(payload, tau_q is None)
    files: list[Path] = []
    if save is not None:  # computed and rendered before anything is written
        batch = [(Target(name("save"), save / f"{safe}__report.json"), json.dumps(payload, indent=1))]
        if report.certificate is not None:
            batch.insert(0, (Target(name("save"), save / f"{safe}.json"),
                             json.dumps(report.certificate.to_json(), indent=1)))
        if report.window_certificate is not None:
            batch.insert(0, (Target(name("save"), save / f"{safe}__window.json"),
                             json.dumps(report.window_certificate.to_json(), indent=1)))
        files = write_all(batch, force)
    return Report("depth", payload, text, exit_code=int(report.status.exit_code), files=tuple(files), record=report)


def _rational(text: Any, option: str, low_open: Fraction, high_open: Fraction | None) -> Fraction:
    shown = str(text).strip()
    exponent = _EXPONENT.search(shown)
    if len(shown) > 200 or (exponent and len(exponent.group(1)) > 3):
        raise InvalidInput(option, "a rational such as 1/100 or 0.01 (at most 200 characters, exponents below 1000)",
                           text)
    try:
        q = Fraction(shown)
    except (ValueError, ZeroDivisionError):
        raise InvalidInput(option, "a rational such as 1/100 or 0.01", text) from None
    if not (q > low_open and (high_open is None or q < high_open)):
        raise InvalidInput(option, f"a rational in ({low_open}, {high_open if high_open is not None else 'oo'})", text)
    if max(abs(q.numerator), q.denominator) > 10 ** 60:
        raise InvalidInput(option, "a rational with at most 60 digits", text)
    return q


def depth_text(payload: dict[str, Any], tau_defaulted: bool) -> str:
    """The console rendering of a depth report's payload."""
    kind = payload["bound_kind"]
    lines = [f"depth {payload['theorem']} ({'eq. 5, ODE' if payload['model'] == 'ode' else 'eq. 4, layer map'}), "
             f"metric {payload['metric']} <= eps = {payload['eps']}"]
    if payload["model"] == "layers":
        lines.append(f"  tau = {payload['tau']}" + (" (default; set with --tau)" if tau_defaulted else ""))
    lines.append("hypotheses:")
    for v in payload["hypotheses"]:
        lines.append(f"  [{v['verdict']:<7}] {v['name']}: {v['reason']}")
    if payload["steps"]:
        lines.append("rests on:")
    for v in payload["steps"]:
        lines.append(f"  [{v['verdict']:<7}] {v['name']}: {v['reason']}")
    if payload["bound"] is not None:
        b = Fraction(payload["bound"])
        lines.append(f"certified {kind}: {payload['bound']}" + ("" if b.denominator == 1 else f" (~{float(b):.6g})"))
        lines.append(f"certified rate: {payload['rate']} (~{float(Fraction(payload['rate'])):.6g}) per "
                     f"{'unit time' if payload['model'] == 'ode' else 'layer'}")
        lines.append(f"claim: {payload['claim']}")
    w = payload.get("window")
    if w:
        show = lambda q: "not proved" if q is None else f"{q} (~{float(Fraction(q)):.6g})"  # noqa: E731
        ends = ("T_low", "T_high") if payload["model"] == "ode" else ("L_low", "L_high")
        lines.append(f"certified window (validated enclosure, {w['steps']} {'steps' if payload['model'] == 'ode' else 'layers'}, "
                     f"{w['seconds']} s): {ends[0]} = {show(w['T_low'])}, {ends[1]} = {show(w['T_high'])}")
        lines.append(f"  {w['reason']}")
    t2 = payload.get("token2")
    if t2:
        lines.append(f"token 2 alone (any a(0) > -1): T_2(eps) = {t2['bound']} (~{float(Fraction(t2['bound'])):.6g})")
    ev = payload.get("evidence")
    if ev:
        obs = payload["observed"]
        lines.append(f"simulated (evidence, not a proof; {ev['method']}): observed = {obs if obs is not None else 'not reached'}"
                     + (f", tightness = bound / observed = {payload['tightness']:.4g}" if payload["tightness"] else ""))
    lines.append(f"verdict: {payload['verdict']} - {payload['explanation']}")
    return "\n".join(lines)
