"""One ``.v`` file per proof, built from a theorem report's payload (``TheoremReport.to_json()``).

Layout: a header listing the cited theorems (named axioms, each with its source and the steps that discharge
its hypotheses), the steps not exported and the instance hypotheses; the libraries; then, inside
``Section Instance`` whose ``Hypothesis`` es are the instance's predicates (``H_NAME : hyp_NAME``), one lemma per
certificate or symbolic step (:mod:`.sos`, :mod:`.identity`, :mod:`.special`) and, per cited step, an axiom
``cited_ID : <obligations> -> C_ID`` applied to the lemmas that discharge it.  The final theorem is the
conjunction of every step's statement; after the section it takes the instance hypotheses as premises.
"""
from __future__ import annotations

from typing import Any, Mapping

from theorems.errors import InvalidInput
from verify._sos.certificate import Certificate

from . import goals, identity, special, text
from .records import CoqSource, StepExport
from .sos import certificate_lemma

PRELUDE = r"""Ltac sos_nonneg :=
  match goal with
  | |- 0 <= 0 => apply Rle_refl
  | |- 0 <= ?a + ?b => apply Rplus_le_le_0_compat; sos_nonneg
  | |- 0 <= ?c * Rsqr ?x => apply Rmult_le_pos; [lra | apply Rle_0_sqr]
  | |- 0 <= ?g * ?r => apply Rmult_le_pos; [assumption | sos_nonneg]
  end."""


def module_name(theorem_id: str) -> str:
    """``theorem_4_2`` for ``4.2``: a Coq module name (letters, digits, ``_``)."""
    return "theorem_" + "".join(c if c.isalnum() else "_" for c in theorem_id)


def _comment(s: str) -> str:
    return str(s).replace("(*", "( *").replace("*)", "* )")


def build(payload: Mapping[str, Any], *, recheck: bool = True) -> CoqSource:
    """The ``.v`` text for a report payload.  ``recheck``: re-check every certificate exactly in Python first and
    refuse a failing one (:class:`~theorems.errors.InvalidInput`); ``False`` writes the file from the data as it
    is, so that ``coqc`` alone decides (the soundness tests)."""
    theorem = payload.get("theorem")
    tid = theorem.get("id") if isinstance(theorem, Mapping) else None
    if not isinstance(tid, str):
        raise InvalidInput("report.theorem.id", "a result id", tid)
    steps = payload.get("steps")
    if not isinstance(steps, list) or not steps:
        raise InvalidInput("report.steps", "the steps of a proof (a theorem whose hypotheses hold)", steps,
                           f"the report's verdict is {payload.get('verdict')!r}: there is no proof to export")
    module = module_name(tid)
    body, routes, hyps, needs, axioms, notes = [], [], [], set(), [], []
    weights_data: Mapping[str, Any] = {}
    props: dict[str, str] = {}
    for raw in steps:
        if not isinstance(raw, Mapping):
            raise InvalidInput("report.steps[]", "a step object", type(raw).__name__)
        sid, kind = text.step_name(raw.get("id")), raw.get("kind")
        if sid in props:
            raise InvalidInput(f"report.steps[{sid}]", "distinct step ids", sid)
        if kind == "numerical":
            routes.append(StepExport(sid, kind, "evidence", (), "numerical evidence is never part of the proof"))
            continue
        if kind == "cited":
            block, route, note = _cited(raw, sid, props, hyps, needs)
            if sid == "weights":
                weights_data = raw.get("data") or {}
            axioms.append(route.coq_names[0])
            notes.append(note)
        elif kind in ("certificate", "symbolic"):
            block, route = _proved(raw, sid, kind, weights_data, needs, recheck)
        elif kind == "enclosure":
            block, route = _unexported(raw, sid, kind, "a validated enclosure (arb balls, Lohner steps): checked in "
                                       "Python by verify recheck, not replayed by the Coq kernel")
        else:
            raise InvalidInput(f"report.steps[{sid}].kind", "certificate, symbolic, cited, enclosure or numerical", kind)
        body.append(block)
        routes.append(route)
        props[sid] = _prop(route)
    names = [r.step_id for r in routes if r.route != "evidence"]
    statement = text.conjunction([_prop(r) for r in routes if r.route != "evidence"])
    final = f"{module}_proof"
    declared = axioms + [f"unexported_{r.step_id}" for r in routes if r.route == "not_exported"]
    header = _header(tid, payload, routes, notes, hyps, final, declared)
    libs = ["Set Warnings \"-ambiguous-paths,-notation-overridden\".",
            "From Coq Require Import Reals Lra" + (" Nsatz." if any("nsatz." in b for b in body) else ".")]
    if "interval" in needs:
        libs += ["From Coq Require Import Lia.", "From Interval Require Import Tactic."]
    if "coquelicot" in needs:
        libs.append("From Coquelicot Require Import Coquelicot.")
    params = [f"Parameter hyp_{h} : Prop.  (* instance hypothesis {h}, decided by its predicate *)" for h in hyps]
    section = ["Section Instance."] + [f"Hypothesis H_{h} : hyp_{h}." for h in hyps]
    closing = [f"Definition S_{module} : Prop := {statement}.",
               f"Theorem {final} : S_{module}.", f"Proof. exact {special.conj_term(names)}. Qed.", "End Instance.", ""]
    src = "\n\n".join([header, "\n".join(libs), "Open Scope R_scope.", PRELUDE, "\n".join(params),
                       "\n".join(section), *body, "\n".join(closing)])
    return CoqSource(module, src, tuple(routes), tuple(axioms), final)


def _prop(route: StepExport) -> str:
    return f"C_{route.step_id}" if route.route == "axiom" else f"S_{route.step_id}"


def _proved(raw: Mapping[str, Any], sid: str, kind: str, weights: Mapping[str, Any], needs: set,
            recheck: bool) -> tuple[str, StepExport]:
    if kind == "certificate":
        data = raw.get("certificate")
        if data is None:
            return _unexported(raw, sid, kind, "the step has no certificate (its verdict is not holds)")
        cert = Certificate.from_json(data, f"report.steps[{sid}].certificate")
        if recheck:
            check = cert.recheck()
            if not check.holds:
                raise InvalidInput(f"report.steps[{sid}].certificate", "a certificate that passes its exact re-check",
                                   check.reason, "export with recheck=False to let coqc decide")
        return certificate_lemma(sid, cert), StepExport(sid, kind, "kernel", (sid,))
    if sid in goals.GOALS:
        parts = goals.GOALS[sid]()
        names = [f"{sid}_{k + 1}" for k in range(len(parts))]
        blocks = [identity.lemma(n, g) for n, g in zip(names, parts)]
        blocks.append(f"Definition S_{sid} : Prop := {text.conjunction([f'S_{n}' for n in names])}.\n"
                      f"Lemma {sid} : S_{sid}.\nProof. exact {special.conj_term(names)}. Qed.")
        return f"(* symbolic {sid}: {_comment(raw.get('statement', ''))} *)\n" + "\n".join(blocks), \
            StepExport(sid, kind, "kernel", (sid,))
    if sid == "softmax_gradient":
        needs.add("coquelicot")
        return special.softmax_gradient(), StepExport(sid, kind, "kernel", (sid,))
    if sid == "energy_derivative":
        needs.add("coquelicot")
        return special.ENERGY_DERIVATIVE, StepExport(sid, kind, "kernel", (sid,))
    if sid == "antipode_divergence":
        if not raw.get("data"):
            return _unexported(raw, sid, kind, "no divergence data (d < 2 or no bound): nothing to state")
        needs.add("interval")
        return special.antipode_divergence(raw["data"], weights), StepExport(sid, kind, "kernel", (sid,))
    return _unexported(raw, sid, kind, "no Coq statement is written for this step (docs/coq.md lists the exported ones)")


def _unexported(raw: Mapping[str, Any], sid: str, kind: str, reason: str) -> tuple[str, StepExport]:
    block = (f"(* NOT EXPORTED {kind} {sid}: {_comment(reason)} *)\nParameter S_{sid} : Prop.\n"
             f"Axiom unexported_{sid} : S_{sid}.\nDefinition {sid} : S_{sid} := unexported_{sid}.")
    return block, StepExport(sid, kind, "not_exported", (f"unexported_{sid}",), reason)


def _cited(raw: Mapping[str, Any], sid: str, props: Mapping[str, str], hyps: list[str],
           needs: set) -> tuple[str, StepExport, str]:
    premises, args, lines, discharged = [], [], [], []
    if sid == "weights" and raw.get("data"):
        needs.add("interval")
        lines += [special.WEIGHTS_SOFTMAX, special.weights_constants(raw["data"])]
        premises += ["S_weights_softmax", "S_weights_constants"]
        args += ["weights_softmax", "weights_constants"]
    for k, o in enumerate(raw.get("obligations") or []):
        ref = o.get("discharged_by")
        if not isinstance(ref, str):
            raise InvalidInput(f"report.steps[{sid}].obligations[{k}]", "a discharging step or hypothesis", ref)
        if ref.startswith("hypothesis:"):
            h = text.step_name(ref.split(":", 1)[1], f"report.steps[{sid}].obligations[{k}]")
            if h not in hyps:
                hyps.append(h)
            premises.append(f"hyp_{h}")
            args.append(f"H_{h}")
            discharged.append(f"hypothesis {h}")
        else:
            ref = text.step_name(ref, f"report.steps[{sid}].obligations[{k}]")
            if ref not in props:
                raise InvalidInput(f"report.steps[{sid}].obligations[{k}]", "an earlier step of the proof", ref)
            premises.append(props[ref])
            args.append(ref)
            discharged.append(ref)
    if not args:
        raise InvalidInput(f"report.steps[{sid}].obligations", "at least one obligation", [])
    ax = f"cited_{sid}"
    lines += [f"(* cited {sid}: {_comment(raw.get('statement', ''))}\n   source: {_comment(raw.get('source', ''))} *)",
              f"Parameter C_{sid} : Prop.", f"Axiom {ax} : {' -> '.join(premises + [f'C_{sid}'])}.",
              f"Lemma {sid} : C_{sid}.", f"Proof. exact ({ax} {' '.join(args)}). Qed."]
    note = f"{ax}: {_comment(raw.get('source', ''))[:160]}; discharged by: {', '.join(discharged)}"
    return "\n".join(lines), StepExport(sid, "cited", "axiom", (ax,)), note


def _header(tid: str, payload: Mapping[str, Any], routes: list[StepExport], notes: list[str], hyps: list[str],
            final: str, declared: list[str]) -> str:
    inst = payload.get("instance") if isinstance(payload.get("instance"), Mapping) else {}
    lines = [f"(* consensus-verify: the proof of result {_comment(tid)} on instance {_comment(inst.get('name', '?'))}, "
             "for the Coq kernel.", "   Generated by verify.coq (docs/coq.md); every number is an exact rational.", "",
             "   NAMED AXIOMS (cited theorems, not re-proved; each takes the steps that discharge its hypotheses):"]
    for note in notes:
        lines.append(f"     {note}")
    bad = [r for r in routes if r.route == "not_exported"]
    lines.append("   NOT EXPORTED (axioms of their statements; checked in Python only): " +
                 (", ".join(f"{r.step_id} ({_comment(r.reason)})" for r in bad) if bad else "none"))
    lines.append("   INSTANCE HYPOTHESES (premises of the final theorem): " + (", ".join(hyps) or "none"))
    lines.append("*)")
    lines.append(f"(* DECLARED-AXIOMS: {' '.join(declared)} *)")
    lines.append(f"(* FINAL-THEOREM: {final} *)")
    return "\n".join(lines)
