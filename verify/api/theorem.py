"""``verify theorem ID``: prove result ``theorem_id`` on ``instance`` (default: its built-in example).

Hypotheses, exact certificates, symbolic and cited steps and numerical evidence, composed into one verdict
(:func:`verify._theorem.check.check_theorem`); ``record`` is the :class:`~verify._theorem.report.TheoremReport`.
Exit codes carried by the verdict: 0 the result holds on the instance (relative to the cited steps it
lists), 3 a hypothesis fails (the result does not apply), 4 inconclusive.  The simulation is evidence, never
part of the proof, and is skipped, with the reason, when its cost estimate is too high.  ``save`` receives the
report and every certificate (re-checked by ``verify recheck``), checked before any work.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verify.instances import resolve_instance
from verify.limits import MAX_T_END
from verify.outputs import Target, dir_targets, file_target, write_all
from verify.report import Report

from ._table import FORCE, Command, Option, OptionError, api
from .assumptions import INSTANCE, THEOREM_ID

COMMAND = Command(
    "theorem", "theorem", "prove a result of the paper on an instance with exact certificates",
    "Prove a result of the paper on an instance: hypotheses, exact certificates, symbolic and cited steps, and "
    "numerical evidence (never part of the proof).",
    None,
    (THEOREM_ID, INSTANCE,
     Option("save", "path", metavar="DIR", help="write the report and every certificate (re-check with 'verify recheck')"),
     Option("simulate", "bool", True, help="skip the numerical evidence"),
     Option("t_end", "number", 20.0, low=0, high=MAX_T_END, expected=f"a positive finite number at most {MAX_T_END:g}",
            help=f"simulation horizon for the numerical evidence (default 20, at most {MAX_T_END:g})"),
     Option("certified_rate", "bool", False,
            help="3.2 / 4.2: add the certified ODE time T(1/100) and rate of 'verify depth' (verify docs depth)"),
     Option("plot", "path", metavar="FILE", help="write a PNG of the numerical evidence re-integrated (report.plot(); "
            "evidence, not proof)"),
     Option("export_coq", "path", metavar="DIR",
            help="write the proof as a Coq file DIR/theorem_<id>.v when it holds (check it: 'verify recheck --coq DIR'; "
                 "verify docs coq)"),
     FORCE))


def _theorem(theorem_id: str, instance: Any, save: str | None, simulate: bool, t_end: float, certified_rate: bool,
             plot: str | None, export_coq: str | None, force: bool) -> Report:
    from theorems.catalogue import get  # lazily (cold start: the catalogue imports SymPy)
    from verify._theorem.check import check_theorem
    from verify._theorem.render import render_theorem
    from verify.limits import evidence_skip_reason

    th = get(theorem_id)
    safe = th.id.replace(".", "_")
    if plot is not None and not simulate:
        raise OptionError("plot", "the numerical evidence the figure draws", "simulate off", conflict=True)
    pngs = file_target("plot", plot, force, ".png")
    if save is not None:  # certificate names are known only after the proof: any earlier one counts
        earlier = {p.name for p in Path(save).glob(f"{safe}__*.json")} if Path(save).is_dir() else set()
        dir_targets("save", save, [f"{safe}__report.json", *sorted(earlier - {f"{safe}__report.json"})], force)
    if export_coq is not None:
        from verify.coq import module_name

        dir_targets("export_coq", export_coq, [f"{module_name(th.id)}.v"], force)
    system = resolve_instance(instance, th.example)
    skipped = evidence_skip_reason(system, t_end) if simulate else None
    report = check_theorem(th.id, system, simulate=simulate and skipped is None, t_end=t_end)
    body = report.to_json()
    if skipped:
        body["numerical_evidence_skipped"] = skipped
    rate_line = None
    if certified_rate:  # optional: verify depth's certified rate
        from verify._depth.summary import certified_rate as rate_entry, text_line

        body["certified_rate"] = rate_entry(th.id, system)
        rate_line = text_line(body["certified_rate"])
    text = render_theorem(report, skipped, rate_line)
    files: list[Path] = []
    if pngs and report.evidence is None:
        raise OptionError("plot", "numerical evidence to draw", "none: " + (skipped or "the simulation was skipped"))
    if pngs:
        from numerics.support.png import figure_png

        files += write_all([(pngs[0], figure_png(report.figure(), bbox_inches="tight"))], force)
        text += f"\nwrote {pngs[0].path}"
    if export_coq is not None:  # the Coq file first: the saved report then records it
        body["coq_export"], line, written = _export_coq(report, body, Path(export_coq), force)
        text += "\n" + line
        files += written
    if save is not None:  # everything is computed and rendered before anything is written
        payload = Report("theorem", body, text).to_json()
        batch = [(Target("save", Path(save) / f"{safe}__{step_id}.json"), json.dumps(cert.to_json(), indent=1))
                 for step_id, cert in report.certificates]
        batch.append((Target("save", Path(save) / f"{safe}__report.json"), json.dumps(payload, indent=1)))
        files = write_all(batch, force) + files
    return Report("theorem", body, text, files=tuple(files), record=report)


def _export_coq(report: Any, body: dict, directory: Path, force: bool) -> tuple[dict | None, str, list[Path]]:
    """The Coq export of a proof that holds: ``(its JSON, the console line, the file written)``."""
    from verify.coq import export_report

    if report.status.value != "holds":
        return None, f"coq: nothing exported (the verdict is {report.verdict}, not holds)", []
    record = export_report(body, directory, force=force)
    axioms = ", ".join(record.source.axioms) or "none"
    skipped = [s.step_id for s in record.source.not_exported]
    kernel = sum(s.route == "kernel" for s in record.source.steps)
    also = f"; not exported (axioms of their statements): {', '.join(skipped)}" if skipped else ""
    return (record.to_json(), f"coq: wrote {record.path} ({kernel} steps for the kernel; axioms: {axioms}{also}); "
            f"check it with 'verify recheck --coq {directory}'", [record.path])


theorem = api(COMMAND, _theorem, __name__)
