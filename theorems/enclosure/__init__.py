"""The one rigorous enclosure engine of the toolkit (python-flint ``arb`` balls, exact rationals).

* :mod:`.box` — closed intervals with exact binary endpoints and infinite ends;
* :mod:`.walk` — enclosure of an expression in ``t`` over an interval, with domain conditions;
* :mod:`.halfline` — enclosures and domain-condition proofs over ``t in [0, oo)``;
* :mod:`.constants` — rational enclosures of constants.

Every predicate, the weight bounds of the certificates and the instance reader use this engine;
no float, ``evalf`` or padded mpmath value is on any path that can end in "holds".
"""
from .box import Iv
from .constants import constant_interval, enclose_constant
from .halfline import (Condition, abs_sup, check_condition, covering, defined_on_halfline, halfline_range,
                       smooth_on_halfline)
from .walk import T, enclose

__all__ = ["Condition", "Iv", "T", "abs_sup", "check_condition", "constant_interval", "covering",
           "defined_on_halfline", "enclose", "enclose_constant", "halfline_range", "smooth_on_halfline"]
