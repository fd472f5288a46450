"""The claims of the paper that ``verify reproduce`` sets beside a measurement.

Each :class:`Claim` quotes its source (a section of docs/model.md, or the authors' replies to
reviewers and the paper's summary page), names the cases that measure it and carries its
decision rule (:mod:`verify._reproduce.rules`).  Measurement names are ``"<case>:<name>"``.
Thresholds: ``1e-8`` for metrics that reach float64 round-off in these horizons, ``1e-6`` for
the Lyapunov function and alignment, ``0.95`` for "consensus is what one sees" shares.

Each claim says whose it is (:class:`~verify._reproduce.records.ClaimKind`): the paper's (quoted
from the authors' replies to reviewers, or from the paper's summary page, a secondary source), this
project's (its reading or finding, docs/model.md), or a self-check of the toolkit; the report counts
them separately, the paper's first.  A paper's claim tested on a stand-in model (label
:data:`OTHER`) is counted apart: the headline's paper count holds only claims tested on the
paper's own models (or simulations).  Every LLM claim of the paper has a row, including the ones
that need trained GPT-2 XL / GPT-Neo 2.7B weights (not testable here, saying why).

Not listed on purpose: the speculation "constant P converges fastest" judged on the *asymptotic*
rate of ``E_pair``.  Under full attention with ``U = I`` every ``a_ij`` tends to ``1/N`` near
consensus whatever ``P`` is, so that rate cannot depend on ``P`` (:mod:`.sim_grid`); the
speculation is judged on the time to reach the threshold and on the early-phase rate instead
(``rate-ordering-time``), and labelled a speculation, as the source calls it.
"""
from __future__ import annotations

from dataclasses import dataclass
from . import rules as R
from .records import OTHER_MODELS, ClaimKind

P_KINDS = ("constant", "periodic", "piecewise")
"""The kinds of ``P`` of the theorem cases (``piecewise``: bounded, discontinuous, cycled)."""
GRID_P = ("constant", "periodic", "random")
"""The kinds of ``P`` of the grid: ``random`` is a fresh random matrix on every unit interval, no cycle."""
PAPER, READING, SELF = ClaimKind.PAPER, ClaimKind.READING, ClaimKind.SELF_CHECK
TYPICAL, RARE = 0.5, 0.25
"""Consensus is *typical* when the lower end of its share's band exceeds 0.5, *rare* when the upper end is below 0.25."""
E_LEVEL = 0.05
"""'Consensus occurs' at this depth: E_first after the last layer below this level on most prompts."""
E_TINY = 1e-6
"""'E converges toward 0' at the paper's depth: below this level on most prompts."""


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    source: str
    cases: tuple[str, ...]
    rule: R.Rule
    kind: ClaimKind = PAPER
    label: str = ""
    """Qualifier shown with the kind: ``speculation`` (the source says so), ``stand-in models``."""
    unavailable: str = ""
    """Why the row is not testable here when a case it reads has no runner in this installation."""
    models: tuple[tuple[str, str], ...] = ()
    """``(case, model)``: the claim is about ``model``; a case that measured another model (the
    smoke scale's test shapes) makes the row "not testable here", with the measurement kept."""

    def __post_init__(self) -> None:
        for q in R.quantities(self.rule):
            case = q.split(":", 1)[0]
            if ":" not in q or case not in self.cases:
                raise ValueError(f"claim {self.id}: measurement {q!r} must be '<case>:<name>' with the case in {self.cases}")


REPLY = "the authors' reply to reviewers"
SUMMARY = "the paper's summary page (a secondary source: an AI-written summary of the paper, which warns that its numbers and claims can be wrong)"
REVIEWER = REPLY + ", quoting a reviewer's point it answers"
TRAINED_CASES = ("llm-gpt2-trained", "llm-neo-trained")
"""Trained-weight GPT-2 XL / GPT-Neo 2.7B cases: no runner here (the weights are not available offline)."""
TRAINED_UNAVAILABLE = ("needs the trained GPT-2 XL and GPT-Neo 2.7B weights, not available offline (the hub cache holds "
                       "neither); the paper's depth (1000 passes) is run on a GPU by benchmarks/gpu/ with random weights")
LARGE_SHAPES = (("llm-gpt2", "gpt2-xl"), ("llm-neo", "gpt-neo-2.7B"))
OTHER = OTHER_MODELS
"""The label of a paper's claim tested on a stand-in model: counted apart from the paper's claims on the paper's models."""
PROTOCOL = "(100 random-token prompts of 200 tokens re-fed 1000 passes: 48,000 layers of GPT-2 XL, 32,000 of GPT-Neo 2.7B)"

CLAIMS: tuple[Claim, ...] = (
    Claim("thm-3.2", "Theorem 3.2: full attention, U^h = I, each P^h bounded and uniformly continuous, X(0) in an open "
          "hemisphere => consensus (some x* with x_i(t) -> x* for all i)",
          "docs/model.md §2 (3.2); " + SUMMARY + ": 'tokens converge to consensus when starting in an open hemisphere'",
          ("sim-3.2",),
          R.all_of(R.upper_below("sim-3.2:final_E_pair_constant", 1e-8), R.upper_below("sim-3.2:final_E_pair_periodic", 1e-8)), PAPER),
    Claim("hemisphere-invariant", "Open hemispheres are forward invariant: once in one, the tokens cannot leave (the hemisphere margin never decreases)",
          "docs/model.md §2 (3.2); " + REPLY + ": 'We proved that hemispheres are invariant (once the tokens enter one, they cannot leave)'",
          ("sim-3.2",), R.upper_below("sim-3.2:max_margin_decrease", 1e-9), PAPER),
    Claim("late-entry", "Theorem 3.2's conclusion still holds when the tokens start in no hemisphere but enter one later",
          REPLY + ": 'The conclusions of Theorem 3.2 still hold when the tokens don't start in an hemisphere but enter an "
          "hemisphere at some future time ... In our experiments we always observed consensus'",
          ("sim-3.2-late",),
          R.all_of(R.at_least("sim-3.2-late:entered_share", 1.0), R.upper_below("sim-3.2-late:final_E_pair", 1e-8)), PAPER),
    Claim("thm-4.2", "Theorem 4.2: causal attention, U^h = I, P^h bounded => x_1 never moves and every token tends to x_1(0)",
          "docs/model.md §2 (4.2); " + SUMMARY + ": 'consensus set is asymptotically stable with a domain of attraction covering almost all initial conditions'",
          ("sim-4.2",),
          R.all_of(R.upper_below("sim-4.2:max_x1_drift", 1e-9),
                   *(R.upper_below(f"sim-4.2:final_V_{p}", 1e-6) for p in P_KINDS)), PAPER),
    Claim("thm-4.4-align", "4.4-sym (Assumption 4.4: causal, one head, U symmetric, time-invariant, simple top eigenvalue with "
          "eigenvector v) => every token converges to v or -v (alignment, measured with |cos|)",
          "docs/model.md §2 (4.4-sym; spectral hypotheses and alignment-only conclusion are this project's reading)",
          ("sim-4.4",),
          R.all_of(R.upper_below("sim-4.4:final_alignment_diag", 1e-6), R.upper_below("sim-4.4:final_alignment_random", 1e-6)), READING),
    Claim("same-sign-not-implied", "Same-sign consensus is not implied under Assumption 4.4: with U = diag(1, -0.5, -2) runs end with mixed signs",
          "docs/model.md §2 (4.4-sym): 'A sanity simulation with U = diag(1, -0.5, -2) ended with mixed signs'",
          ("sim-4.4",), R.lower_above("sim-4.4:mixed_sign_share_diag", 0.0), READING),
    Claim("consensus-piecewise-P", "Consensus still appears where uniform continuity fails: full attention, U = I, P random "
          "in depth (a fresh random matrix on every unit interval, piecewise constant)",
          REPLY + ": 'When they [the assumptions] are not [satisfied], the experiments show that consensus still holds'; docs/model.md §5",
          ("sim-grid",), R.share_typical("sim-grid:consensus_share_random-identity-full", TYPICAL, RARE), PAPER),
    Claim("consensus-random-U", "Consensus is typical where U = I and Assumption 4.4 fail: random U, every kind of P, full and "
          "causal attention (the authors describe their runs, not a law over every ensemble: the share of runs reaching "
          f"consensus is reported with its band; typical = lower end above {TYPICAL:g}, rare = upper end below {RARE:g})",
          REPLY + ": 'When they are not, the experiments show that consensus still holds'; docs/model.md §5 ('U random (assumption violated)')",
          ("sim-grid",),
          R.all_of(*(R.share_typical(f"sim-grid:consensus_share_{p}-random-{m}", TYPICAL, RARE) for m in ("full", "causal") for p in GRID_P)),
          PAPER),
    Claim("rate-ordering-time", "Speculation: convergence is fastest for constant P, slowest for random P, periodic in between; "
          "measured (U = I, full and causal) by the time until E_pair < 1e-6 (longest for random) and by the early-phase rate "
          "(fitted while E_pair > 1e-2; largest for constant). The late rate cannot depend on P with U = I (every a_ij -> 1/N)",
          REPLY + ": 'One may speculate that the rate of convergence is related to the time derivative of the matrices. "
          "Constant matrices, zero derivative, faster convergence, random matrices, highest derivative, slowest "
          "convergence. The periodic case seems to lie in between'",
          ("sim-grid",),
          R.all_of(*(R.ordered(*(f"sim-grid:time_to_consensus_{p}-identity-{m}" for p in reversed(GRID_P))) for m in ("full", "causal")),
                   *(R.ordered(*(f"sim-grid:early_rate_{p}-identity-{m}" for p in GRID_P)) for m in ("full", "causal"))),
          PAPER, "speculation"),
    *(Claim(f"check-{tid}", f"verify theorem {tid} on its built-in example: every hypothesis holds, every certificate and symbolic "
            "step re-checks exactly (relative to cited steps), and the simulation shows the conclusion",
            f"docs/model.md §2-§3 ({tid})", ("theorems",),
            R.all_of(R.at_least(f"theorems:holds_{tid}", 1.0), R.upper_below(f"theorems:evidence_{tid}", 1e-8)), SELF)
      for tid in ("3.2", "4.2", "4.4-sym")),
    Claim("llm-trained-consensus", "The paper's main experiment: trained GPT-2 XL and GPT-Neo 2.7B " + PROTOCOL + ": E "
          "converges toward 0 across depth with the feedforward layers removed, and still with them present",
          SUMMARY + ": 'GPT-2 XL and GPT-Neo 2.7B layer-wise cosine-consensus error E converges toward 0 across depth when "
          "feedforward layers are removed, and still converges with them present'; docs/model.md §5",
          TRAINED_CASES,
          R.all_of(*(R.most_below(f"{c}:E_first_last_{v}", E_TINY) for c in TRAINED_CASES for v in ("noffn", "ffn"))),
          PAPER, unavailable=TRAINED_UNAVAILABLE),
    Claim("llm-depth-noffn", "GPT-2 XL and GPT-Neo 2.7B shapes with random weight matrices (drawn once), feedforward removed: "
          f"consensus still occurs (E_first after the last layer below {E_LEVEL:g} on significantly more than half of the prompts)",
          SUMMARY + ": 'Consensus still occurs in GPT-2 and GPT-Neo with random weight matrices'",
          ("llm-gpt2", "llm-neo"),
          R.all_of(R.most_below("llm-gpt2:E_first_last_noffn", E_LEVEL), R.most_below("llm-neo:E_first_last_noffn", E_LEVEL)),
          PAPER, models=LARGE_SHAPES),
    Claim("llm-depth-ffn", "GPT-2 XL and GPT-Neo 2.7B shapes with random weight matrices (drawn once), feedforward kept: "
          f"consensus still occurs (E_first after the last layer below {E_LEVEL:g} on significantly more than half of the prompts)",
          SUMMARY + ": 'Consensus still occurs in GPT-2 and GPT-Neo with random weight matrices'",
          ("llm-gpt2", "llm-neo"),
          R.all_of(R.most_below("llm-gpt2:E_first_last_ffn", E_LEVEL), R.most_below("llm-neo:E_first_last_ffn", E_LEVEL)),
          PAPER, models=LARGE_SHAPES),
    Claim("llm-ffn-mixed", "Trained GPT-2 XL and GPT-Neo 2.7B weights: feedforward layers slow convergence in GPT-Neo while "
          "speeding it up in GPT-2 (E at the last layer higher with FFN for GPT-Neo, lower for GPT-2)",
          SUMMARY + ": 'Feedforward layers may slow convergence in GPT-Neo while speeding it up in GPT-2' (measured effects "
          "table, trained GPT-2 XL and GPT-Neo 2.7B: 'Include feedforward layers: Mixed')",
          TRAINED_CASES,
          R.all_of(R.most_greater("llm-neo-trained:E_first_last_ffn", "llm-neo-trained:E_first_last_noffn"),
                   R.most_greater("llm-gpt2-trained:E_first_last_noffn", "llm-gpt2-trained:E_first_last_ffn")),
          PAPER, unavailable=TRAINED_UNAVAILABLE),
    Claim("llm-ffn-random-hurts", "With random weights, including feedforward layers slows convergence (GPT-2 XL and GPT-Neo 2.7B "
          "shapes: E after the last layer higher with the feedforward kept than removed, prompt by prompt)",
          SUMMARY + ": measured effects table, 'with random weight matrices ... Include feedforward layers: Hurt'",
          ("llm-gpt2", "llm-neo"),
          R.all_of(R.most_greater("llm-gpt2:E_first_last_ffn", "llm-gpt2:E_first_last_noffn"),
                   R.most_greater("llm-neo:E_first_last_ffn", "llm-neo:E_first_last_noffn")),
          PAPER, models=LARGE_SHAPES),
    Claim("trained-faster", "Trained weights converge faster than random ones (GPT-2 XL): E at equal depth lower with the "
          "trained weights than with random ones",
          REVIEWER + ": 'Why do the trained weights converge faster than the random ones?'",
          ("llm-gpt2-trained", "llm-gpt2"),
          R.most_greater("llm-gpt2:E_first_last_noffn", "llm-gpt2-trained:E_first_last_noffn"),
          PAPER, unavailable=TRAINED_UNAVAILABLE, models=LARGE_SHAPES[:1]),
    Claim("periodicity-reduces-collapse", "Removing periodicity reduces collapse: with random weights re-drawn every pass "
          "(seed 42+i+1, not periodic in depth) E after the last layer is higher than with random weights drawn once "
          "(periodic), prompt by prompt (GPT-2 XL shape, feedforward removed)",
          REVIEWER + ": 'Collapse is less prominent for random weights/Removing periodicity seems to reduce collapse'",
          ("llm-gpt2",), R.most_greater("llm-gpt2:E_first_last_noffn-fresh", "llm-gpt2:E_first_last_noffn"),
          PAPER, models=LARGE_SHAPES[:1]),
    *(Claim(f"trained-faster-{key}", f"Trained weights converge faster than random ones, on the stand-in {label} (standing in "
            "for GPT-2 XL, whose trained weights are not available offline): E_first after the last layer lower when trained "
            "than with random weights, prompt by prompt, both periodic ones (drawn once) and re-drawn ones (a fresh draw after "
            "every pass, seed 42+i+1)",
            REVIEWER + ": 'Why do the trained weights converge faster than the random ones?'",
            (f"llm-{key}",),
            R.all_of(R.most_greater(f"llm-{key}:E_first_last_random", f"llm-{key}:E_first_last_trained"),
                     R.most_greater(f"llm-{key}:E_first_last_random-fresh", f"llm-{key}:E_first_last_trained")),
            PAPER, OTHER)
      for key, label in (("smollm2", "SmolLM2-135M (causal)"), ("minilm", "all-MiniLM-L6-v2 (BERT, full attention)"))),
    Claim("periodicity-reduces-collapse-minilm", "Removing periodicity reduces collapse, on the stand-in all-MiniLM-L6-v2: E "
          "after the last layer higher with random weights re-drawn every pass than with random weights drawn once, prompt "
          "by prompt",
          REVIEWER + ": 'Collapse is less prominent for random weights/Removing periodicity seems to reduce collapse'",
          ("llm-minilm",), R.most_greater("llm-minilm:E_first_last_random-fresh", "llm-minilm:E_first_last_random"),
          PAPER, OTHER),
)
