"""False claims kept in the catalogue so that their refutation is a result: ``4.4-sym-later`` and
``4.4-same-sign`` (docs/model.md §2).

* ``4.4-sym-later``: the later-token conclusion of 4.4-sym as this project reads it in docs/model.md §2, "every token converges
  to v or -v", under the hypotheses of 4.4-sym.  False: ``examples/counterexample_4_4_sym.json``
  has a stable equilibrium with token 4 off span(v) (tokens 1-3 at e1).
* ``4.4-same-sign``: "every token converges to sign(<v, x_1(0)>) v" with U positive definite.
  False: ``U = diag(1, 1/20, 1/20)``, ``P = diag(3, 0, 0)``, ``beta = 1`` has the stable
  equilibrium ``(e1, -e1)`` (``examples/counterexample_same_sign.json``).

``verify theorem`` never reports these as holding: it searches a certified counterexample
(:mod:`verify.equilibrium`) and answers refuted (with the certificate) or unknown.
"""
from __future__ import annotations

from ..predicates.bounded import PBounded
from ..predicates.structure import EqualLNScales, MaskIs, OneHead
from ..predicates.u_definite import UPositiveDefinite
from ..predicates.value_map import USimpleTopEigenvalue, USymmetric, UTimeInvariant
from ..system import AttentionSystem
from ..system_build import simple_system
from .base import Theorem

P_44 = [["-1/2", "3/4", "5/8"], [1, "3/4", "-1/2"], ["-1/4", "-1/8", "1/8"]]
U_44 = [[1, 0, 0], [0, "-1/2", 0], [0, 0, -2]]
P_SAME = [[3, 0, 0], [0, 0, 0], [0, 0, 0]]
U_SAME = [[1, 0, 0], [0, "1/20", 0], [0, 0, "1/20"]]


def example_44_later() -> AttentionSystem:
    """The data of ``examples/counterexample_4_4_sym.json`` with four exact tokens: tokens 1-3 at e1
    (an exact equilibrium under the causal mask) and token 4 in the basin of the equilibrium off span(v)."""
    tokens = [[1, 0, 0], [1, 0, 0], [1, 0, 0], ["-4/5", "-3/5", 0]]
    return simple_system(P_44, U_44, tokens, beta=1, mask="causal", name="example-4.4-sym-later")


def example_same_sign() -> AttentionSystem:
    """The same-sign counterexample of docs/model.md §2: two tokens that end at e1 and -e1."""
    tokens = [["2/3", "2/3", "1/3"], ["-2/3", "2/3", "1/3"]]
    return simple_system(P_SAME, U_SAME, tokens, beta=1, mask="causal", name="example-4.4-same-sign")


def _hypotheses(*extra):
    return (MaskIs("causal"), OneHead(), USymmetric(), UTimeInvariant(), USimpleTopEigenvalue(), *extra, PBounded(),
            EqualLNScales())


def theorems(citation: str) -> tuple[Theorem, ...]:
    return (
        Theorem(
            id="4.4-sym-later", kind="claim", title="Later tokens align with span(v) (4.4-sym as read; false)",
            setting="causal attention, one head",
            hypotheses=_hypotheses(),
            conclusion="every token converges to v or -v (alignment with span(v))",
            citation=citation + ", Assumption 4.4 and the theorem of Section 4.2 that uses it",
            reading=("This project's first reading of the later-token part of 4.4 (verify docs model, §2; not necessarily the "
                     "paper's statement). It is false: a certified asymptotically stable equilibrium off span(v) refutes "
                     "it (example:counterexample_4_4_sym); the toolkit never reports it as holding."),
            example=example_44_later,
        ),
        Theorem(
            id="4.4-same-sign", kind="claim", title="Same-sign consensus under positive-definite U (false)",
            setting="causal attention, one head",
            hypotheses=_hypotheses(UPositiveDefinite()),
            conclusion="every token converges to sign(<v, x_1(0)>) v (same-sign consensus)",
            citation=citation + ", Assumption 4.4 (same-sign reading)",
            reading=("A reading of 4.4 considered by this project (verify docs model, §2). False even for positive-definite U: "
                     "U = diag(1, 1/20, 1/20), P = diag(3, 0, 0), beta = 1 has the stable equilibrium (e1, -e1) "
                     "(example:counterexample_same_sign)."),
            example=example_same_sign,
        ),
    )
