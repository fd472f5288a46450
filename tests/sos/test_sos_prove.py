"""prove_nonnegative: known SOS decompositions proved exactly, Motzkin not, constrained problems."""
from fractions import Fraction as F

import pytest
import sympy

from theorems.errors import InvalidInput
from theorems.verdict import Status
from verify._sos import Certificate, prove_nonnegative
from verify._sos import poly

x, y, z = sympy.symbols("x y z")


def test_textbook_quartic_proved_exactly():
    """Parrilo's example 2x^4 + 2x^3y - x^2y^2 + 5y^4 (an SOS of three squares)."""
    p = 2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4
    result = prove_nonnegative(p, [x, y])
    assert result.status is Status.HOLDS
    cert = result.certificate
    assert cert is not None and cert.recheck().holds
    assert cert.gram_sizes() == (3,)  # Newton polytope: basis x^2, xy, y^2
    assert all(isinstance(v, F) for row in cert.sos_terms[0].gram for v in row)
    # margin SDP first: the plain SDP is skipped once the interior point rounds (issue 14)
    assert result.stats.float_solve_s == 0 and result.stats.margin_solve_s > 0 and result.stats.rounding_s > 0
    assert result.stats.margin is not None and result.stats.margin > 1e-3


def test_motzkin_is_not_proved():
    p = x**4 * y**2 + x**2 * y**4 - 3 * x**2 * y**2 + 1
    result = prove_nonnegative(p, [x, y])
    assert result.status is Status.UNKNOWN
    assert result.certificate is None
    assert "no exact certificate" in result.verdict.reason and "degree 6" in result.verdict.reason


def test_motzkin_times_norm_is_proved_at_degree_8():
    """(x^2 + y^2 + 1) * Motzkin is SOS: the classic fix, which also exercises larger Gram blocks."""
    p = sympy.expand((x**2 + y**2 + 1) * (x**4 * y**2 + x**2 * y**4 - 3 * x**2 * y**2 + 1))
    result = prove_nonnegative(p, [x, y])
    assert result.status is Status.HOLDS, result.verdict.reason
    assert result.certificate.recheck().holds


def test_tight_sos_with_zeros_is_proved():
    p = (x - y) ** 2 * (x + 2 * y) ** 2 + (x * y - 1) ** 2
    result = prove_nonnegative(p, [x, y])
    assert result.status is Status.HOLDS, result.verdict.reason


def test_constrained_putinar_and_products():
    # x*y >= 0 on the positive quadrant needs the product of the two constraints
    putinar = prove_nonnegative(x * y, [x, y], ineqs=[x, y], degree=2, refute=False)
    assert putinar.status is Status.UNKNOWN
    products = prove_nonnegative(x * y, [x, y], ineqs=[x, y], degree=2, products=True)
    assert products.status is Status.HOLDS
    assert products.certificate.sos_terms[-1].multiplier == (0, 1)
    # 1 - x^2 - y^2 >= 0 implies 1 - x >= 0 (Putinar, degree 2)
    disc = prove_nonnegative(1 - x, [x, y], ineqs=[1 - x**2 - y**2], degree=2)
    assert disc.status is Status.HOLDS


def test_equality_constraints_on_sphere():
    p = x**2 + y**2 + z**2 - x * y - y * z - z * x + sympy.Rational(1, 2) * (x + y + z) ** 2 - sympy.Rational(1, 2)
    result = prove_nonnegative(p, [x, y, z], eqs=[x**2 + y**2 + z**2 - 1], degree=2)
    assert result.status is Status.HOLDS, result.verdict.reason
    assert len(result.certificate.eq_terms) == 1


def test_refutation_returns_exact_witness():
    p = x**2 + y**2 - 2 * x * y - sympy.Rational(1, 10)
    result = prove_nonnegative(p, [x, y])
    assert result.status is Status.FAILS and result.certificate is None
    point = tuple(F(result.verdict.witness["point"][v]) for v in ("x", "y"))
    value = poly.evaluate({(2, 0): F(1), (0, 2): F(1), (1, 1): F(-2), (0, 0): F(-1, 10)}, point)
    assert value < 0 and str(value) == result.verdict.witness["value"]


def test_refutation_respects_the_set():
    # x - 1 >= 0 is false on R but true on {x - 1 >= 0}; the witness must lie in the set
    result = prove_nonnegative(x - 1, [x], ineqs=[x - 2], degree=2)
    assert result.status is Status.HOLDS


def test_float_optimal_but_false_is_unknown():
    """A false claim the solver accepts within tolerance: the exact pipeline must reject it."""
    p = (x - y) ** 2 - sympy.Rational(1, 10**10)
    result = prove_nonnegative(p, [x, y], refute=False)
    assert result.status is Status.UNKNOWN
    assert result.stats.float_status in ("optimal", "optimal_inaccurate")


def test_scs_solver_option():
    p = 2 * x**4 + 2 * x**3 * y - x**2 * y**2 + 5 * y**4
    result = prove_nonnegative(p, [x, y], solver="scs")
    assert result.stats.solver == "SCS"
    assert result.status is Status.HOLDS, result.verdict.reason


def test_variables_matched_by_name_and_strings():
    result = prove_nonnegative("x^2 - 2*x + 1", ["x"])
    assert result.status is Status.HOLDS
    assert result.certificate.variables == ("x",)


@pytest.mark.parametrize("kwargs, field", [
    ({"p": x**2 + sympy.Float(0.5), "variables": [x]}, "p"),
    ({"p": sympy.sin(x), "variables": [x]}, "p"),
    ({"p": x * y, "variables": [x]}, "p"),
    ({"p": x**2, "variables": [x], "degree": 1}, "degree"),
    ({"p": x**2, "variables": [x], "solver": "mosek"}, "solver"),
    ({"p": x**2, "variables": [x, x]}, "variables"),
    ({"p": x**2, "variables": [x], "products": 1}, "products"),
    ({"p": x**2, "variables": [x], "denominators": []}, "denominators"),
])
def test_invalid_input_names_the_argument(kwargs, field):
    with pytest.raises(InvalidInput) as info:
        prove_nonnegative(**kwargs)
    assert info.value.field.startswith(field)


def test_result_json_has_top_level_verdict():
    data = prove_nonnegative(x**2 + 1, [x]).to_json()
    assert data["verdict"] == "holds"
    assert Certificate.from_json(data["certificate"]).recheck().holds
    assert set(data["stats"]) >= {"float_solve_s", "margin_solve_s", "rounding_s", "gram_blocks"}
    assert data["provenance"]["options"]["solver"] == "CLARABEL" and data["provenance"]["options"]["degree"] == 2
    assert data["provenance"]["packages"]["cvxpy"]


def test_oversized_problems_are_refused_with_exit_2(capsys):
    from verify.cli.main import main

    assert main(["sos", "x^4000 + 1"]) == 2
    assert "Limit: exponent size" in capsys.readouterr().err
    assert main(["sos", "x^800 + 1"]) == 2
    assert "Gram blocks" in capsys.readouterr().err
    assert main(["lyapunov", "--field", "-x, -y", "--vars", "x,y", "--degree", "400"]) == 2
    assert "--degree" in capsys.readouterr().err
    assert main(["lyapunov", "--field", "-x, -y", "--vars", "x,y", "--degree", "150"]) == 2
    assert "Gram blocks" in capsys.readouterr().err


def test_a_field_starting_with_a_minus_sign(capsys):
    from verify.cli.main import main

    assert main(["lyapunov", "--field", "-x", "--vars", "x"]) == 0
    assert "HOLDS" in capsys.readouterr().out


def test_options_are_one_validated_frozen_record():
    import dataclasses

    from theorems.errors import InvalidInput
    from verify._sos.options import SOSOptions

    opts = SOSOptions(solver="scs", denominators=[256])
    assert opts.solver == "SCS" and opts.denominators == (256,)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.degree = 4
    for bad in ({"solver": "mosek"}, {"products": 1}, {"denominators": []}, {"degree": True}, {"refute": "yes"}):
        with pytest.raises(InvalidInput):
            SOSOptions(**bad)
