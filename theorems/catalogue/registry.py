"""The one explicit registry mapping result ids to :class:`~theorems.catalogue.base.Theorem`.

Statements follow docs/model.md §2.  Paper numbering is used only where the authors' replies to
reviewers and the paper's summary page confirm it (Theorem 3.2, Theorem 4.2, Assumption 4.4); the
other ids are descriptive.  Every record's ``reading`` says what is this project's reading of the
paper.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator, Mapping, final

from ..errors import InvalidInput, UnknownName
from ..predicates.bounded import PBounded
from ..predicates.continuity import PUniformlyContinuous
from ..predicates.energy import PSymmetric, PTimeInvariant, UEqualsP
from ..predicates.open_hemisphere import OpenHemisphere
from ..predicates.structure import DimensionAtLeast, EqualLNScales, MaskIs, OneHead
from ..predicates.value_map import UIdentity, USimpleTopEigenvalue, USymmetric, UTimeInvariant
from . import examples
from .base import Theorem
from .claim_d1 import prove_d1
from .claim_44_later import theorems as claims_44_later
from .claim_ln1 import prove_ln1
from .theorem_44_hemisphere import theorem_4_4_hemisphere

CITATION = ("A. Rodriguez Abella, J. P. Silvestre, P. Tabuada, Consensus Is All You Get: The Role of "
            "Attention in Transformers, ICML 2025 (PMLR 267:174-184); arXiv:2412.02682")

_THEOREMS = (
    Theorem(
        id="weights", kind="lemma", title="Bounds on the attention weights",
        setting="any mask, any number of heads",
        hypotheses=(PBounded(),),
        conclusion="exp(-2 beta p)/|M(i)| <= a^h_ij <= exp(2 beta p)/|M(i)| for j in M(i)",
        citation=CITATION + " (lemma on attention weights)",
        reading="As read by this project: p bounds the spectral norm of every P^h(t), tokens on the unit sphere.",
        example=examples.example_weights,
    ),
    Theorem(
        id="3.2", kind="theorem", title="Consensus under full attention",
        setting="full attention, any number of heads",
        hypotheses=(MaskIs("full"), UIdentity(), PBounded(), PUniformlyContinuous(), OpenHemisphere(), EqualLNScales()),
        conclusion=("consensus: there is x* with x_i(t) -> x* for every i; open hemispheres are forward invariant, "
                    "so the conclusion also holds once the tokens enter an open hemisphere"),
        citation=CITATION + ", Theorem 3.2",
        reading=("Numbering confirmed by the authors' replies to reviewers. As read by this project: uniform "
                 "continuity in t is of each P^h; the hemisphere statement after entry is from the authors' reply to reviewers."),
        example=examples.example_3_2,
    ),
    Theorem(
        id="4.2", kind="theorem", title="Consensus under causal attention",
        setting="causal attention, any number of heads",
        hypotheses=(MaskIs("causal"), DimensionAtLeast(2), UIdentity(), PBounded(), EqualLNScales()),
        conclusion=("x_1 never moves; the consensus set is asymptotically stable with a domain of attraction of "
                    "almost every initial condition; every token tends to x_1(0)"),
        citation=CITATION + ", Theorem 4.2",
        reading=("Numbering confirmed by the authors' replies to reviewers. As read by this project: the "
                 "exceptional set of 'almost every' is the measure-zero set of starts that converge to a "
                 "configuration with some token at -x_1 (a token that starts at -x_1 generally still converges to "
                 "x_1 once an earlier token moves; it stays at -x_1 when every earlier token sits at +-x_1, as "
                 "x_2(0) = -x_1(0) does). Needs d >= 2: on S^0 the field vanishes and every start is an equilibrium."),
        example=examples.example_4_2,
    ),
    Theorem(
        id="4.4-sym", kind="theorem", title="Causal attention, one head, symmetric value map",
        setting="causal attention, one head",
        hypotheses=(MaskIs("causal"), OneHead(), USymmetric(), UTimeInvariant(), USimpleTopEigenvalue(), PBounded(),
                    EqualLNScales()),
        conclusion=("x_1 converges to sign(<v, x_1(0)>) v unless <v, x_1(0)> = 0 (the part this project certifies). "
                    "The paper's further conclusion, as this project reads it in verify docs model, §2 (every later token "
                    "converges to v or -v), is NOT claimed: example:counterexample_4_4_sym is a stable "
                    "equilibrium off span(v) with every hypothesis holding. Same-sign consensus is not implied"),
        citation=CITATION + ", Assumption 4.4 and the theorem of Section 4.2 that uses it",
        reading=("Assumption 4.4 numbering confirmed by the authors' replies to reviewers; the spectral "
                 "hypotheses (largest eigenvalue of U simple with eigenvector v) are this project's reading. The "
                 "conclusion is narrowed to the first token because the later-token alignment, as read, has a "
                 "counterexample: the paper's statement probably carries a hypothesis this reading misses."),
        example=examples.example_4_4_sym, evidence="abs",
    ),
    theorem_4_4_hemisphere(CITATION),
    Theorem(
        id="iss-causal", kind="lemma", title="Input-to-state stability of each causal token",
        setting="causal attention, U^h = I",
        hypotheses=(MaskIs("causal"), UIdentity(), PBounded(), EqualLNScales()),
        conclusion=("with V_i = 1 - <x_1, x_i>: dV_i/dt <= -c_i V_i (2 - V_i) + k sum_{j<i} (r_j + r_j^2/2), "
                    "c_i = H (i-1) exp(-2 beta p)/i, k = H exp(2 beta p), r_j = |x_j - x_1|"),
        citation=CITATION + " (ISS lemma behind Theorem 4.2)",
        reading="The explicit constants c_i and k are this project's reading (docs/model.md §3).",
        example=examples.example_4_2,
    ),
    Theorem(
        id="grad-energy", kind="proposition", title="Gradient-like flow of the attention energy",
        setting="full attention, one head, time-invariant",
        hypotheses=(MaskIs("full"), OneHead(), PTimeInvariant(), PSymmetric(), UEqualsP()),
        conclusion="E(X) = sum_ij exp(beta <x_i, P x_j>) satisfies dE/dt >= 0; trajectories approach the equilibrium set",
        citation="This project's proposition (not a numbered result of the paper); cf. " + CITATION,
        reading="A proposition of this project, stated for the catalogue; not claimed by the paper.",
        example=examples.example_grad_energy,
    ),
    Theorem(
        id="D1", kind="claim", title="The discrete model (eq. 4) linearises to the continuous one (eq. 5)",
        setting="any token on the unit sphere",
        hypotheses=(),
        conclusion="for |x| = 1: d/dtau pi(x + tau F) at tau = 0 equals Proj_x F = F - <x, F> x",
        citation=CITATION + ", eqs. (4)-(5)",
        reading="Stated by this project from eqs. (4) and (5); proved here symbolically.",
        example=examples.example_4_2, proof=prove_d1,
        evidence=None,
    ),
    Theorem(
        id="LN1", kind="claim", title="Layer normalisation with equal scales is a translated-sphere projection",
        setting="layer normalisation (eq. 2) with scales g = c 1, c != 0, and eps = 0",
        hypotheses=(EqualLNScales(),),
        conclusion="LN(y) = c sqrt(D) C y/|C y| + b with C = I - 1 1^T/D",
        citation=CITATION + ", eq. (2) and the authors' reply to reviewers",
        reading=("From the authors' reply; eps = 0 and population standard deviation are this project's reading. "
                 "Unequal scales are left open by the authors."),
        example=examples.example_ln1, proof=prove_ln1,
        evidence=None,
    ),
) + claims_44_later(CITATION)

_ALIASES = {"3": "3.2", "4": "4.2", "4.4": "4.4-sym", "iss": "iss-causal", "d1": "D1", "ln1": "LN1"}


@final
@dataclass(frozen=True)
class Registry:
    """Result ids to theorems, with a few short aliases; unknown ids get close matches."""

    theorems: tuple[Theorem, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = [th.id for th in self.theorems]
        if len(set(ids)) != len(ids):
            raise InvalidInput("registry", "distinct theorem ids", sorted(i for i in ids if ids.count(i) > 1))

    def get(self, theorem_id: str) -> Theorem:
        if not isinstance(theorem_id, str):  # 3.2 as a float, None, b"3.2": never guessed at
            raise InvalidInput("theorem id", "a result id as text, such as '4.2' (see 'verify list')", theorem_id)
        by_id = {th.id: th for th in self.theorems}
        key = theorem_id.strip()
        key = key.removeprefix("theorem").removeprefix("Theorem").strip() or key
        if key in by_id:
            return by_id[key]
        if key in self.aliases and self.aliases[key] in by_id:
            return by_id[self.aliases[key]]
        raise UnknownName("theorem id", theorem_id, by_id)

    def extended(self, *theorems: Theorem) -> "Registry":
        """A new registry with ``theorems`` added (the default one is never modified)."""
        return Registry(self.theorems + tuple(theorems), self.aliases)


CATALOGUE = Registry(_THEOREMS, _ALIASES)
"""The paper's results: the one explicit registry."""

_ACTIVE: ContextVar[Registry] = ContextVar("theorems.catalogue.registry", default=CATALOGUE)


@contextmanager
def using(registry: Registry) -> Iterator[Registry]:
    """Within the block, :func:`get` and :func:`all_theorems` answer from ``registry`` (scoped to
    this thread or task; used to try a new entry, e.g. in a test, before adding it to the catalogue)."""
    token = _ACTIVE.set(registry)
    try:
        yield registry
    finally:
        _ACTIVE.reset(token)


def all_theorems() -> tuple[Theorem, ...]:
    return _ACTIVE.get().theorems


def get(theorem_id: str) -> Theorem:
    """The theorem with this id; unknown ids raise :class:`UnknownName` with close matches."""
    return _ACTIVE.get().get(theorem_id)
