"""Mask type, one head and equal layer-norm scales."""
import pytest

from theorems import InvalidInput, simple_system
from theorems.predicates import EqualLNScales, MaskIs, OneHead
from theorems.system_json import system_from_dict
from theorems.verdict import Status

TOKENS = [[1, 0], [0, 1]]


def test_mask_predicates():
    causal = simple_system("identity", "identity", TOKENS, mask="causal")
    assert MaskIs("causal").id == "mask_causal" and MaskIs("full").id == "mask_full"
    assert MaskIs("causal").evaluate(causal).status is Status.HOLDS
    v = MaskIs("full").evaluate(causal)
    assert v.status is Status.FAILS and v.witness == {"mask": "causal", "required": "full"}
    with pytest.raises(InvalidInput, match="mask"):
        MaskIs("local")


def test_one_head():
    assert OneHead().evaluate(simple_system("identity", "identity", TOKENS)).status is Status.HOLDS
    two = simple_system([[[1, 0], [0, 1]], [[2, 0], [0, 1]]], "identity", TOKENS)
    v = OneHead().evaluate(two)
    assert v.status is Status.FAILS and v.witness["H"] == 2


def _ln(scale, shift=None):
    data = {"d": 2, "beta": 1, "mask": "full", "tokens": TOKENS,
            "heads": [{"P": "identity", "U": "identity"}], "layer_norm": {"scale": scale}}
    if shift is not None:
        data["layer_norm"]["shift"] = shift
    return system_from_dict(data)


@pytest.mark.parametrize("scale, status", [
    (["3/2", "3/2"], Status.HOLDS),
    ([0.75, 0.75], Status.HOLDS),
    (["sqrt(2)", "2/sqrt(2)"], Status.HOLDS),
    (["1", "2"], Status.FAILS),
    ([0.1, 0.1 + 2.0 ** -55], Status.FAILS),
    (["0", "0"], Status.FAILS),
])
def test_equal_ln_scales(scale, status):
    v = EqualLNScales().evaluate(_ln(scale, ["1", "-1"]))
    assert v.status is status
    if status is Status.FAILS and scale[0] != "0":
        assert v.witness["relative_spread"] > 0


def test_no_layer_norm_holds_with_the_reason():
    v = EqualLNScales().evaluate(simple_system("identity", "identity", TOKENS))
    assert v.status is Status.HOLDS and "no layer normalisation" in v.reason


def test_symbolic_scale_is_malformed():
    with pytest.raises(InvalidInput, match=r"layer_norm\.scale\[1\]"):
        EqualLNScales().evaluate(_ln(["1", "t"]))


def test_energy_predicates_prove_nonzero_or_say_unknown():
    from theorems.predicates.energy import PSymmetric, PTimeInvariant
    from theorems.verdict import Status as S

    tricky = simple_system([[1, "cos(pi/7) - cos(2*pi/7) + cos(3*pi/7)"], ["1/2", 1]], "identity", [[1, 0]])
    assert PSymmetric().evaluate(tricky).status is S.UNKNOWN  # true identity SymPy cannot simplify: not "fails"
    tiny = simple_system([[1.0, 5e-324], [0.0, 1.0]], "identity", [[1, 0]])
    assert PSymmetric().evaluate(tiny).status is S.FAILS  # an underflowing norm never hides a deviation
    const = simple_system([["sin(t)^2 + cos(t)^2", 0], [0, 1]], "identity", [[1, 0]])
    assert PTimeInvariant().evaluate(const).status is S.HOLDS
    varying = simple_system([["sin(t)", 0], [0, 1]], "identity", [[1, 0]])
    assert PTimeInvariant().evaluate(varying).status is S.FAILS
