"""Search statistics: wall times of the three phases and problem sizes (solver-free module)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import final


@final
@dataclass(frozen=True)
class SearchStats:
    """Wall times (seconds) of the three phases and the problem sizes.

    ``margin_solves`` lists the accuracy of every margin solve in order: on programs with a block of
    :data:`verify._sos.engine.FIRST_ORDER_FROM` monomials or more the first-order SCS solves first
    (``"scs-loose"``, then ``"scs-tight"`` only when that point did not round); then the
    interior-point ones (``"loose"``, then ``"default"`` only when the loose point did not round);
    ``margin_status`` and ``margin`` describe the last one.  ``gram_blocks`` are the program's
    blocks after the term-sparsity split (:mod:`verify._sos.sparsity`).  ``margin_iterations`` / ``float_iterations`` are the solver's
    interior-point iterations summed over the margin / plain solves (0 when it reported none).
    """

    float_solve_s: float = 0.0
    margin_solve_s: float = 0.0
    rounding_s: float = 0.0
    solver: str = ""
    float_status: str = ""
    margin_status: str = ""
    margin: float | None = None
    denominator: int | None = None
    rounding_attempts: int = 0
    facial_reductions: int = 0
    gram_blocks: tuple[int, ...] = ()
    unknowns: int = 0
    equations: int = 0
    margin_solves: tuple[str, ...] = ()
    margin_iterations: int = 0
    float_iterations: int = 0

    def to_json(self) -> dict:
        return dataclasses.asdict(self) | {"gram_blocks": list(self.gram_blocks),
                                           "margin_solves": list(self.margin_solves)}
