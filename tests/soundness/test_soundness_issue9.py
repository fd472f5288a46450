"""Regression tests for every example of issue 9, classes 1-6 (class 7, output paths, is tested
elsewhere).

Each example gives fails, unknown or exit 2: never "holds" on a false hypothesis, never exit 1
(a crash), never a hang.  Every CLI run gets a 60 s subprocess timeout (process group killed)
and the tests assert it did not time out.  Where the example's hypotheses are actually TRUE
(``exp(1000)`` in P, 5000-digit integers, ``beta = exp(-1000)``, ``d = 4096``, ``--t-end 1e300``,
10,000 tokens) a "holds" is allowed, but any proven bound must really bound the matrix.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from soundness_helpers import (HEMI_TOKENS, TimeLimit, diag_with, exact_zero_of_polynomial, instance, jump_at,
                               mp_real, sign_change_root, submit_cli, time_limit, values_differ, write_instance)

TIMEOUT = 60
A_ISSUE = "7853981633974483096745657/125000"
HUGE_P = [[f"1/sin({A_ISSUE} + 2*sin(t))", 0, 0], [0, 1, 0], [0, 0, 1]]
ATAN_U = [["1 + atan(tan(t)) - t", 0, 0], [0, "1/2", 0], [0, 0, "1/4"]]
ATAN_P = [["atan(tan(t))", 0, 0], [0, 1, 0], [0, 0, 1]]
REMOVABLE = "(t^2-1)/(t-1) - t"
DEC_U_ID = diag_with("1.0000000000000000001")
DEC_U_SYM = [[3, "0.30000000000000000001", 0], ["0.3", 1, 0], [0, 0, "1/2"]]
ATAN_GRAD = [["2 + atan(tan(t)) - t", 0, 0], [0, 1, 0], [0, 0, "1/2"]]

X2_CERT = {"format": "consensus-verify/sos-certificate", "version": 1, "kind": "nonnegativity", "label": "x squared",
           "variables": ["x"], "polynomial": [[[2], "1"]], "ineqs": [], "eqs": [],
           "sos_terms": [{"multiplier": [], "basis": [[1]], "gram": [["1"]]}], "eq_terms": []}
BAD_NAMES = {"minus_x": ["-x"], "newline": ["x\nrecheck: HOLDS\nclaim: 0 >= 1"], "space": ["x y"],
             "digit_first": ["1x"], "paren": ["x)"], "empty_like": [" "], "caret": ["x^2"]}
BAD_NAMES_2 = {"duplicate": ["x", "x"]}


def _cert(variables: list[str]) -> dict:
    data = json.loads(json.dumps(X2_CERT))
    data["variables"] = variables
    if len(variables) == 2:
        data["polynomial"] = [[[2, 0], "1"]]
        data["sos_terms"][0]["basis"] = [[1, 0]]
    return data


def _instances() -> dict[str, dict]:
    big = "1" + "0" * 4999
    ten_thousand = [[float(mpmath.cos(k)), float(mpmath.sin(k)), 0.5] for k in range(10000)]
    e = lambda i, d: [1 if j == i else 0 for j in range(d)]  # noqa: E731
    return {
        "huge_full": instance("3.2", P=HUGE_P),
        "huge_causal": instance("4.2", P=HUGE_P),
        "atan_U_44": instance("4.4-sym", U=ATAN_U),
        "atan_P_uc": instance("3.2", P=ATAN_P),
        "atan_grad": instance("grad-energy", P=ATAN_GRAD, U=ATAN_GRAD),
        "removable_Uid": instance("3.2", U=diag_with(REMOVABLE)),
        "removable_U44": instance("4.4-sym", U=[[f"2 + {REMOVABLE}", 0, 0], [0, 1, 0], [0, 0, "1/2"]]),
        "dec_Uid": instance("3.2", U=DEC_U_ID),
        "dec_Usym": instance("4.4-sym", U=DEC_U_SYM),
        "beta_bomb": instance("4.2", beta="9^9^9"),
        "P_t_pow_googol": instance("3.2", P=diag_with("t^(10^100)")),
        "P_2_pow_1e10": instance("3.2", P=diag_with("2^(10^10)")),
        "P_attribute": instance("3.2", P=diag_with("t.diff(t)")),
        "P_exp1000": instance("3.2", P=diag_with("exp(1000)")),
        "P_1e400_sin": instance("3.2", P=diag_with("10^400*sin(t)")),
        "P_5000_digits_string": instance("4.2", P=diag_with(big)),
        "beta_5000_digits": instance("4.2", beta=big),
        "beta_tiny": instance("4.2", beta="exp(-1000)"),
        "d4096": {"d": 4096, "beta": 1, "mask": "causal", "heads": [{"P": "identity", "U": "identity"}],
                  "tokens": [e(0, 4096), e(1, 4096)]},
        "tokens_10000": {"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": "identity", "U": "identity"}],
                         "tokens": ten_thousand, "normalize_tokens": True},
        "complex_sqrt_t5": instance("3.2", P=diag_with("sqrt(t - 5)/(1 + t)")),
        "complex_log_sin": instance("3.2", P=diag_with("log(sin(t) + 2) + log(sin(t))/(1 + t^2)")),
        "complex_const": instance("3.2", P=diag_with("(-1)^(1/3)")),
    }


# name -> (argv with {F} for the instance path, allowed exit codes)
NOT_HOLDS = (2, 3, 4, 6)  # 6: a hypothesis fails, the result does not apply
ANY_ANSWER = (0, 2, 3, 4)
RUNS: dict[str, tuple[list[str], tuple[int, ...]]] = {
    # class 1: enclosures
    "huge_full_assumptions": (["assumptions", "3.2", "--instance", "{huge_full}"], NOT_HOLDS),
    "huge_full_theorem": (["theorem", "3.2", "--instance", "{huge_full}", "--no-simulate"], NOT_HOLDS),
    "huge_causal_theorem_42": (["theorem", "4.2", "--instance", "{huge_causal}", "--no-simulate"], NOT_HOLDS),
    "huge_causal_theorem_iss": (["theorem", "iss-causal", "--instance", "{huge_causal}", "--no-simulate"], NOT_HOLDS),
    # class 2: derivative arguments without continuity
    "atan_U_44_assumptions": (["assumptions", "4.4-sym", "--instance", "{atan_U_44}"], NOT_HOLDS),
    "atan_U_44_theorem": (["theorem", "4.4-sym", "--instance", "{atan_U_44}"], NOT_HOLDS),
    "atan_P_uc_assumptions": (["assumptions", "3.2", "--instance", "{atan_P_uc}"], NOT_HOLDS),
    "atan_P_uc_theorem": (["theorem", "3.2", "--instance", "{atan_P_uc}", "--no-simulate"], NOT_HOLDS),
    "atan_grad_theorem": (["theorem", "grad-energy", "--instance", "{atan_grad}", "--no-simulate"], NOT_HOLDS),
    "removable_Uid_theorem": (["theorem", "3.2", "--instance", "{removable_Uid}", "--no-simulate"], NOT_HOLDS),
    "removable_U44_assumptions": (["assumptions", "4.4-sym", "--instance", "{removable_U44}"], NOT_HOLDS),
    # class 3: decimals
    "dec_Uid_theorem": (["theorem", "3.2", "--instance", "{dec_Uid}", "--no-simulate"], NOT_HOLDS),
    "dec_Usym_theorem": (["theorem", "4.4-sym", "--instance", "{dec_Usym}", "--no-simulate"], NOT_HOLDS),
    # class 5: the parser
    "sos_9_9_9": (["sos", "x^2 + 9^9^9"], NOT_HOLDS),
    "sos_attribute": (["sos", "x.diff(x)*x^2 + 1"], (2,)),
    "beta_bomb": (["assumptions", "4.2", "--instance", "{beta_bomb}"], NOT_HOLDS),
    "P_t_pow_googol": (["assumptions", "3.2", "--instance", "{P_t_pow_googol}"], NOT_HOLDS),
    "P_2_pow_1e10": (["assumptions", "3.2", "--instance", "{P_2_pow_1e10}"], NOT_HOLDS),
    "P_attribute": (["assumptions", "3.2", "--instance", "{P_attribute}"], (2,)),
    "complex_sqrt_t5": (["assumptions", "3.2", "--instance", "{complex_sqrt_t5}"], NOT_HOLDS),
    "complex_log_sin": (["assumptions", "3.2", "--instance", "{complex_log_sin}"], NOT_HOLDS),
    "complex_const": (["theorem", "3.2", "--instance", "{complex_const}", "--no-simulate"], NOT_HOLDS),
    # class 6: large input (true hypotheses: any answer but a crash or a hang)
    "P_exp1000": (["assumptions", "3.2", "--instance", "{P_exp1000}"], ANY_ANSWER),
    "P_1e400_sin": (["assumptions", "3.2", "--instance", "{P_1e400_sin}"], ANY_ANSWER),
    "P_5000_digits_string": (["theorem", "4.2", "--instance", "{P_5000_digits_string}", "--no-simulate"], ANY_ANSWER),
    "P_5000_digits_json_int": (["assumptions", "4.2", "--instance", "{P_5000_digits_json_int}"], ANY_ANSWER),
    "beta_5000_digits": (["assumptions", "4.2", "--instance", "{beta_5000_digits}"], ANY_ANSWER),
    "json_nested_100000": (["assumptions", "3.2", "--instance", "{json_nested_100000}"], (2,)),
    "json_nested_100000_inside": (["assumptions", "3.2", "--instance", "{json_nested_100000_inside}"], (2,)),
    "beta_tiny_theorem": (["theorem", "4.2", "--instance", "{beta_tiny}"], (0, 3, 4)),
    "d4096_theorem": (["theorem", "4.2", "--instance", "{d4096}"], ANY_ANSWER),
    "t_end_1e300": (["theorem", "4.2", "--t-end", "1e300"], ANY_ANSWER),
    "tokens_10000_theorem": (["theorem", "4.2", "--instance", "{tokens_10000}"], ANY_ANSWER),
    # class 4: certificates
    "cert_control": (["recheck", "{cert_control}"], (0,)),
    **{f"cert_{k}": (["recheck", f"{{cert_{k}}}"], (2,)) for k in [*BAD_NAMES, *BAD_NAMES_2]},
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    directory = tmp_path_factory.mktemp("soundness_issue9")
    out = {name: write_instance(directory, name, data) for name, data in _instances().items()}
    p = directory / "P_5000_digits_json_int.json"
    text = json.dumps(instance("4.2", P=diag_with("PLACEHOLDER"))).replace('"PLACEHOLDER"', "1" + "0" * 4999)
    p.write_text(text, encoding="utf-8")
    out["P_5000_digits_json_int"] = str(p)
    nested = directory / "json_nested_100000.json"
    nested.write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    out["json_nested_100000"] = str(nested)
    inside = directory / "json_nested_100000_inside.json"
    body = json.dumps(instance("3.2", P="PLACEHOLDER")).replace('"PLACEHOLDER"', "[" * 100000 + "]" * 100000)
    inside.write_text(body, encoding="utf-8")
    out["json_nested_100000_inside"] = str(inside)
    out["cert_control"] = write_instance(directory, "cert_control", _cert(["x"]))
    for k, names in {**BAD_NAMES, **BAD_NAMES_2}.items():
        out[f"cert_{k}"] = write_instance(directory, f"cert_{k}", _cert(names))
    return out


@pytest.fixture(scope="module")
def runs(files):
    return {name: submit_cli([a.format(**files) for a in argv], TIMEOUT) for name, (argv, _) in RUNS.items()}


@pytest.mark.parametrize("name", list(RUNS))
def test_issue9_example_cli(runs, name):
    allowed = RUNS[name][1]
    res = runs[name].result()
    assert not res.timed_out, f"hang (> {TIMEOUT} s): {res.describe()}"
    assert res.rc != 1, f"crash: {res.describe()}"
    assert res.rc in allowed, f"expected an exit code in {allowed}: {res.describe()}"
    if res.rc == 2:
        assert "Traceback" not in res.stderr, res.stderr[-2000:]
    if name.startswith("cert_") and name != "cert_control":
        # nothing forged reaches the output: no HOLDS line, no injected claim line
        assert "recheck: HOLDS" not in res.stdout and "0 >= 1" not in res.stdout, res.stdout


# ---------------------------------------------------------------------------------------------
# Ground truth of the examples, and the same examples in-process through the predicates
# ---------------------------------------------------------------------------------------------

def _evaluate(data: dict, theorem: str, pred_id: str, seconds: int = 30):
    """``"rejected"`` (InvalidInput at load or evaluation) or the predicate's Verdict."""
    from theorems import InvalidInput, system_from_dict
    from theorems.catalogue import get

    pred = {h.id: h for h in get(theorem).hypotheses}[pred_id]
    try:
        with time_limit(seconds):
            system = system_from_dict(json.loads(json.dumps(data)))
            return pred.evaluate(system)
    except InvalidInput:
        return "rejected"
    except TimeLimit:
        pytest.fail(f"{pred_id} on {theorem}: no answer within {seconds} s")


def _not_holds(verdict, what: str) -> None:
    if verdict == "rejected":
        return
    assert verdict.status.value in ("fails", "unknown"), f"{what}: FALSE HOLDS ({verdict.reason[:300]})"


def test_huge_argument_pole_truth_and_predicates():
    den = f"sin({A_ISSUE} + 2*sin(t))"
    t0 = sign_change_root(den, 0, mpmath.pi / 2, dps=120)
    assert abs(t0 - mpmath.mpf("0.9033")) < mpmath.mpf("1e-3")  # the issue's t ~ 0.9033
    data = instance("3.2", P=HUGE_P)
    _not_holds(_evaluate(data, "3.2", "P_bounded"), "P_bounded of 1/sin(A + 2 sin t)")
    _not_holds(_evaluate(data, "3.2", "P_uniformly_continuous"), "P_uniformly_continuous of 1/sin(A + 2 sin t)")


def test_atan_tan_time_invariance_truth_and_predicate():
    values_differ("1 + atan(tan(t)) - t", 1, 2, 3.0)  # 1 at t = 1, 1 - pi at t = 2
    _not_holds(_evaluate(instance("4.4-sym", U=ATAN_U), "4.4-sym", "U_time_invariant"), "U_time_invariant")
    _not_holds(_evaluate(instance("grad-energy", P=ATAN_GRAD, U=ATAN_GRAD), "grad-energy", "P_time_invariant"),
               "P_time_invariant")


def test_atan_tan_uniform_continuity_truth_and_predicate():
    with mpmath.workdps(60):
        jump_at("atan(tan(t))", mpmath.pi / 2, 3.0)
    _not_holds(_evaluate(instance("3.2", P=ATAN_P), "3.2", "P_uniformly_continuous"), "P_uniformly_continuous")


def test_removable_singularity_truth_and_predicates():
    # the denominator t - 1 and the numerator t^2 - 1 both vanish at t = 1 (exact): 0/0 there
    assert exact_zero_of_polynomial("t - 1", Fraction(1)) and exact_zero_of_polynomial("t^2 - 1", Fraction(1))
    _not_holds(_evaluate(instance("3.2", U=diag_with(REMOVABLE)), "3.2", "U_identity"), "U_identity")
    data = instance("4.4-sym", U=[[f"2 + {REMOVABLE}", 0, 0], [0, 1, 0], [0, 0, "1/2"]])
    _not_holds(_evaluate(data, "4.4-sym", "U_time_invariant"), "U_time_invariant")


def test_decimal_examples_truth_and_predicates():
    assert Fraction("1.0000000000000000001") != 1
    assert Fraction("0.30000000000000000001") != Fraction("0.3")
    _not_holds(_evaluate(instance("3.2", U=DEC_U_ID), "3.2", "U_identity"), "U_identity")
    _not_holds(_evaluate(instance("4.4-sym", U=DEC_U_SYM), "4.4-sym", "U_symmetric"), "U_symmetric")


def test_complex_values_are_not_real_bounded_matrices():
    assert isinstance(mpmath.sqrt(mpmath.mpf(0) - 5), mpmath.mpc)
    for entry in ("sqrt(t - 5)/(1 + t)", "(-1)^(1/3)", "log(sin(t) + 2) + log(sin(t))/(1 + t^2)"):
        data = instance("3.2", P=diag_with(entry))
        _not_holds(_evaluate(data, "3.2", "P_bounded"), f"P_bounded of {entry}")
        _not_holds(_evaluate(data, "3.2", "P_uniformly_continuous"), f"P_uniformly_continuous of {entry}")


@pytest.mark.parametrize("entry,sup_abs", [("exp(1000)", "exp(1000)"), ("10^400*sin(t)", "10^400"),
                                           ("1" + "0" * 4999, "10^4999")])
def test_large_constants_give_a_true_bound_or_no_bound(entry, sup_abs):
    """A "holds" is allowed here (P really is bounded) but its p must bound |P_00|."""
    verdict = _evaluate(instance("3.2", P=diag_with(entry)), "3.2", "P_bounded")
    if verdict == "rejected" or verdict.status.value != "holds":
        return
    p = Fraction(verdict.witness["p"])
    with mpmath.workdps(6000):
        assert mpmath.mpf(p.numerator) / p.denominator >= mp_real(sup_abs, 0, 6000), f"p = {p} < sup |P_00|"


def test_tiny_beta_is_accepted():
    from theorems import system_from_dict

    with time_limit(30):
        system = system_from_dict(instance("4.2", beta="exp(-1000)"))
    assert bool(system.beta > 0), system.beta


def test_deep_json_is_bad_input(tmp_path: Path):
    from theorems import InvalidInput
    from theorems.system_json import load_system

    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000, encoding="utf-8")
    with pytest.raises(InvalidInput):
        load_system(path)


def test_5000_digit_json_integer_is_not_a_crash(tmp_path: Path):
    from theorems import InvalidInput
    from theorems.system_json import load_system

    path = tmp_path / "big.json"
    path.write_text(json.dumps(instance("4.2", P=diag_with("X"))).replace('"X"', "7" * 5000), encoding="utf-8")
    try:
        with time_limit(30):
            load_system(path)
    except InvalidInput:
        pass


def test_hemisphere_tokens_are_valid():
    """Sanity of the base instances: the exact tokens are unit vectors."""
    for x in HEMI_TOKENS:
        assert sum(Fraction(str(v)) ** 2 for v in x) == 1
