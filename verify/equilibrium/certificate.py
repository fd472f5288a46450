"""A counterexample certificate: a certified asymptotically stable equilibrium that violates a claim.

:class:`EquilibriumCertificate` stores only exact data: the system (``d``, ``beta``, mask, ``P`` and
``U`` per head, all rational), one gnomonic chart per token (:mod:`.chart_field`), a rational box
``mid +- rad`` in chart coordinates, one pair ``(A, S)`` per Jacobian block (:mod:`.stability`),
the working precision of the ball arithmetic, and the witness of the violated conclusion
(:mod:`.claims`).  :meth:`recheck` re-derives everything from these data with python-flint balls
and exact rationals, never a solver or a float:

1. the refuted claim's hypotheses hold exactly on the data;
2. Krawczyk: the box contains exactly one zero of the chart field, i.e. one equilibrium of eq. 5;
3. the Jacobian enclosure over the box is block lower triangular (causal mask) and every block
   satisfies the Lyapunov inequality, so the equilibrium is asymptotically stable;
4. the equilibrium violates the claim's conclusion (witness), for every point of the box.

Not guaranteed: the size of the basin of attraction (only "an open set"); anything about
instances whose data differ from the stored ones.  A failed re-check proves nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final

from flint import ctx

from theorems.verdict import Verdict, fails, holds

from .certificate_json import FORMAT, KIND, fields_from_json, to_json  # noqa: F401  (FORMAT, KIND re-exported)
from .chart_field import FieldData, token_points
from .claims import CLAIMS, check_hypotheses, check_witness
from .krawczyk import arb_scalars, box_balls, krawczyk
from .stability import check_block, token_blocks, upper_triangular_zero

MAX_RAD = Fraction(1, 1000)
"""The certificate localises the equilibrium: every box radius (chart coordinates) is at most this."""

Matrix = tuple[tuple[Fraction, ...], ...]


@final
@dataclass(frozen=True)
class EquilibriumCertificate:
    refutes: str
    witness: tuple[int, ...]
    data: FieldData
    mid: tuple[Fraction, ...]
    rad: tuple[Fraction, ...]
    blocks: tuple[tuple[Matrix, Matrix], ...]
    precision: int
    instance_tokens: int
    label: str = ""

    @property
    def claim(self) -> str:
        d, N = self.data.d, self.data.N
        extra = (f" (the first {N} of the instance's {self.instance_tokens} tokens: under the causal mask they evolve on "
                 "their own)" if self.instance_tokens > N and self.data.mask == "causal" else "")
        who = (f"token {self.witness[0] + 1} is not +-v" if self.refutes == "later-token-alignment"
               else f"tokens {self.witness[0] + 1} and {self.witness[1] + 1} differ")
        return (f"eq. 5 with {self.data.mask} mask, d = {d}, N = {N}{extra}, {len(self.data.heads)} head(s), "
                f"beta = {self.data.beta}: the rational box (gnomonic charts) contains exactly one equilibrium, it is "
                f"asymptotically stable, and there {who}; so '{CLAIMS.get(self.refutes, self.refutes)}' fails for every "
                "start in an open set")

    def recheck(self) -> Verdict:
        """Re-derive the claim from the stored data (balls and rationals only)."""
        name = "equilibrium_certificate"
        problem = self._shape_problem()
        if problem:
            return fails(name, problem)
        ok, hyp = check_hypotheses(self.refutes, self.data)
        if not ok:
            return fails(name, f"the refuted claim's hypotheses do not hold: {hyp}")
        with ctx.workprec(self.precision):
            kr = krawczyk(self.data, self.mid, self.rad)
            if not kr.contained:
                return fails(name, f"Krawczyk test failed: {kr.reason}")
            m = self.data.d - 1
            blocks = token_blocks(self.data.N, m, self.data.mask)
            tri, why = upper_triangular_zero(kr.jacobian, blocks)
            if not tri:
                return fails(name, why)
            decays, margins = [], []
            for b, (rows, (A, S)) in enumerate(zip(blocks, self.blocks)):
                D = [[kr.jacobian[r][c] for c in rows] for r in rows]
                res = check_block(D, A, S)
                if not res.ok:
                    return fails(name, f"stability block {b}: {res.reason}")
                decays.append(res.decay)
                margins.append(res.margin)
            X = box_balls(self.mid, self.rad)
            ok, wit = check_witness(self.refutes, self.witness, self.data, X)
            if not ok:
                return fails(name, f"witness: {wit}")
            points = token_points(self.data, [x.mid() for x in X], arb_scalars())
        width = 2 * max(self.rad)
        shown = "; ".join(f"x_{i + 1} ~ ({', '.join(f'{float(c.mid()):.6f}' for c in p)})"
                          for i, p in enumerate(points) if self._shown(i))
        stats = {"box_width_max": str(width), "krawczyk_contraction_le": str(kr.contraction),
                 "decay_ge": str(min(decays)), "lyapunov_margin_ge": str(min(margins)), "precision_bits": self.precision}
        return holds(name, (f"exact re-check passed: {hyp}; Krawczyk: {kr.reason}; box: chart coordinates mid +- "
                            f"{float(max(self.rad)):.3g}, box width <= {float(width):.3g}; stability: every tangent eigenvalue has Re lambda <= "
                            f"-{float(min(decays)):.4g} (Lyapunov: D^T S + S D <= -(1 - {float(1 - min(margins)):.3g}) I on every "
                            "block over the box); "
                            f"{wit}; {shown}"), stats)

    def _shown(self, i: int) -> bool:
        return i in self.witness or i == 0

    def _shape_problem(self) -> str:
        data, n, m = self.data, self.data.n, self.data.d - 1
        if self.refutes not in CLAIMS:
            return f"unknown refuted claim {self.refutes!r}"
        if len(self.mid) != n or len(self.rad) != n:
            return f"the box must have {n} coordinates"
        if any(r <= 0 or r > MAX_RAD for r in self.rad):
            return f"every box radius must lie in (0, {MAX_RAD}]"
        if data.beta <= 0:
            return "beta must be > 0"
        for k, sign in data.charts:
            if not (0 <= k < data.d and sign in (1, -1)):
                return "every chart needs a pivot in range and a sign +-1"
        blocks = token_blocks(data.N, m, data.mask)
        if len(self.blocks) != len(blocks):
            return f"expected {len(blocks)} stability blocks, got {len(self.blocks)}"
        wanted = 1 if self.refutes == "later-token-alignment" else 2
        if len(self.witness) != wanted or not all(0 <= w < data.N for w in self.witness):
            return f"the witness must name {wanted} token(s) in range"
        if self.instance_tokens < data.N or (data.mask != "causal" and self.instance_tokens != data.N):
            return "instance_tokens must be >= N (causal) or equal to N (full mask)"
        return ""

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> "EquilibriumCertificate":
        return EquilibriumCertificate(**fields_from_json(data))
