"""A late entry into an open hemisphere as a proof step (Theorem 3.2 when the tokens start in none).

When the only hypothesis that fails at ``t = 0`` is ``open_hemisphere``, the instance is autonomous
(constant rational ``P^h``, ``U^h = I``) and a validated enclosure of eq. 5 (:mod:`verify.validated`,
arb balls) proves every token in the open hemisphere of a rational ``z`` at some ``t0``, then the
trajectory from ``t0`` is the solution of the same system started at ``x(t0)``: every hypothesis of
the result holds for that start, and the result applies from ``t0`` on.  The step's certificate
(:class:`~.entry_certificate.EntryCertificate`) re-runs the enclosure in ``verify recheck``.
Not guaranteed: that an entry is found (the step is then unknown and says why).
"""
from __future__ import annotations

from theorems.system import AttentionSystem
from theorems.verdict import holds, unknown

from .entry_certificate import EntryCertificate
from .report import ProofStep

STEP = "late_entry"
STATEMENT = ("a validated enclosure of eq. 5 (arb balls) proves every token in the open hemisphere "
             "<z, x> > 0 at a time t0; the system is autonomous, so the result applies to the trajectory from t0")


def late_entry_step(system: AttentionSystem, mask: str) -> ProofStep:
    """The ``late_entry`` step of the module docstring (kind ``enclosure``)."""
    from verify.validated.entry import find_entry
    from verify.validated.from_system import token_directions, validated_problem

    tokens = token_directions(system)
    problem = validated_problem(system, mask, tokens) if tokens is not None else \
        "a token has no rational direction (the enclosure takes rational directions)"
    if isinstance(problem, str):
        return ProofStep(STEP, "enclosure", STATEMENT, unknown(STEP, f"no validated run: {problem}"))
    field, init = problem
    entry, traj, horizon = find_entry(field, init)
    if entry is None:
        return ProofStep(STEP, "enclosure", STATEMENT, unknown(
            STEP, f"the enclosure proved no entry into an open hemisphere by t = {traj.reached} "
                  f"({traj.message or traj.status.value})", {"reached": str(traj.reached)}))
    cert = EntryCertificate(field.beta, mask, field.P, init.centers, horizon, entry.t0, entry.z, entry.margin,
                            label=f"late entry of {system.name}")
    check = cert.recheck()  # the certificate is kept only after its own independent re-run
    if not check.holds:
        return ProofStep(STEP, "enclosure", STATEMENT, unknown(STEP, f"the entry failed its re-check: {check.reason}"))
    data = {"t0": str(entry.t0), "t0_float": float(entry.t0), "z": [str(v) for v in entry.z],
            "margin": str(entry.margin), "width_at_t0": entry.width, "steps": len(traj.steps),
            "horizon": str(horizon)}
    verdict = holds(STEP, f"every token lies in the open hemisphere of z at t0 = {entry.t0} (~{float(entry.t0):.4g}): "
                    f"<z, x_i(t0)> >= {float(entry.margin):.3g} > 0 on the enclosure", data)
    return ProofStep(STEP, "enclosure", STATEMENT, verdict, cert, data=data)


__all__ = ["STEP", "late_entry_step"]
