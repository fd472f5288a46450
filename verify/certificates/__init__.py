"""Exact SOS certificates for the paper's inequalities in Gram coordinates (docs/model.md §3).

One module per inequality; each function takes exact rational parameters and returns a
:class:`verify._sos.SOSResult` whose ``certificate`` re-checks in exact arithmetic.  Independent of
the theorem catalogue, which composes them.
"""
from .first_token_44 import certify_first_token_alignment
from .hemisphere_invariance import certify_hemisphere_invariance
from .token2 import certify_token2_decrease
from .token_iss import certify_token_iss
from .weights import attention_weight_bounds, exp_bounds

__all__ = ["attention_weight_bounds", "certify_first_token_alignment", "certify_hemisphere_invariance",
           "certify_token2_decrease", "certify_token_iss", "exp_bounds"]
