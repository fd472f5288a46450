"""Proof obligations (issue 16): every cited step lists what it needs and what discharges it; a theorem
holds only when every obligation holds; the printed ISS constant is the certified one; 4.2 closed."""
from __future__ import annotations

import dataclasses
import json
import re
from fractions import Fraction

import numpy as np
import pytest
import sympy

from theorems.verdict import Status
from verify.cli.main import main
from verify._theorem.check import check_theorem
from verify._theorem.obligations import ob, resolve
from verify._theorem.report import ProofStep, compose

KINDS = {"certificate", "symbolic", "cited", "numerical"}


@pytest.fixture(scope="module")
def report_4_2():
    return check_theorem("4.2", simulate=False)


@pytest.mark.parametrize("tid", ["4.2", "3.2", "4.4-sym", "4.4-hemisphere", "iss-causal", "grad-energy", "weights"])
def test_every_cited_step_has_discharged_obligations(capsys, tid):
    code = main(["theorem", tid, "--no-simulate", "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["verdict"] == "holds"
    ids = [s["id"] for s in payload["steps"]]
    checked = 0
    for k, step in enumerate(payload["steps"]):
        assert step["kind"] in KINDS
        if step["kind"] != "cited":
            assert "obligations" not in step
            continue
        assert step["obligations"], step["id"]
        for o in step["obligations"]:
            assert o["verdict"] == "holds" and o["discharger_kind"] != "numerical", (step["id"], o)
            ref = o["discharged_by"]
            if ref.startswith("hypothesis:"):
                assert ref[len("hypothesis:"):] in {h["name"] for h in payload["hypotheses"]}
            else:
                assert ref in ids[:k], f"{step['id']}: {ref} is not an earlier step"
            checked += 1
    assert checked > 0 or tid == "4.4-sym"


def test_4_2_cites_no_plain_iss_cascade_and_closes_the_antipode(report_4_2):
    ids = [s.id for s in report_4_2.steps]
    assert "iss_cascade" not in ids
    for needed in ("antipode_divergence", "antipode_measure_zero", "dichotomy", "local_stability", "almost_global_consensus"):
        assert needed in ids
    div = next(s for s in report_4_2.steps if s.id == "antipode_divergence")
    assert div.verdict.holds and Fraction(div.data["delta"]) > 0


@pytest.mark.parametrize("index", [0, 3, -1])
def test_mutating_one_obligation_turns_the_theorem_unknown(report_4_2, index):
    cited = [k for k, s in enumerate(report_4_2.steps) if s.kind == "cited" and s.id != "weights"]
    k = cited[index]
    step = report_4_2.steps[k]
    obligations = list(step.obligations)
    obligations[0] = dataclasses.replace(obligations[0], verdict=Status.UNKNOWN)
    steps = list(report_4_2.steps)
    steps[k] = dataclasses.replace(step, obligations=tuple(obligations))
    assert compose(report_4_2.hypotheses, list(report_4_2.steps))[0] is Status.HOLDS
    status, why = compose(report_4_2.hypotheses, steps)
    assert status is Status.UNKNOWN and step.id in why and obligations[0].hypothesis in why


def test_missing_later_or_numerical_dischargers_are_not_accepted(report_4_2):
    hyps = report_4_2.hypotheses
    base = [s for s in report_4_2.steps if s.kind != "cited"]
    sim = ProofStep("simulation", "numerical", "a simulation", report_4_2.steps[1].verdict)
    cases = {
        "nothing": [ob("x", None)],
        "missing step": [ob("x", "no_such_step")],
        "later step": [ob("x", "after")],
        "numerical step": [ob("x", "simulation")],
        "unknown hypothesis": [ob("x", "hypothesis:no_such_predicate")],
        "empty": [],
    }
    for label, obligations in cases.items():
        cited = ProofStep("lemma", "cited", "a cited lemma", None, source="a book", obligations=tuple(obligations))
        after = ProofStep("after", "symbolic", "later", report_4_2.steps[1].verdict)
        steps = resolve(base + [sim, cited, after], hyps.verdicts)
        status, why = compose(hyps, steps)
        assert status is Status.UNKNOWN and "lemma" in why, label


def test_iss_causal_prints_the_certified_constant(capsys):
    """The conclusion's decay constant equals the certificate's: the certified polynomial is exactly
    a_j - g a_i - (kappa (1 - a_i^2) - r - r^2/2) after the polar substitution, with the printed kappa."""
    from verify._sos.certificate import thaw
    from verify._sos.parse import to_exact

    report = check_theorem("iss-causal", simulate=False)
    assert report.status is Status.HOLDS
    conclusion = report.theorem.conclusion
    m = re.search(r"dV_i/dt <= -(\S*?)\s*c_i V_i \(2 - V_i\)", conclusion)
    assert m, conclusion
    kappa = sympy.Rational(m.group(1).rstrip("*") or 1)
    step = next(s for s in report.steps if s.id == "token_i_iss")
    assert f"-{'' if kappa == 1 else str(kappa) + ' '}c_i V_i (2 - V_i)" in step.statement
    a_i, s, r = sympy.symbols("a_i s r")
    a_j, g = 1 - r ** 2 / 2, a_i + r * s
    expected = a_j - g * a_i - (kappa * (1 - a_i ** 2) - r - r ** 2 / 2)
    cert = step.certificate
    assert thaw(cert.polynomial) == to_exact(expected, [sympy.Symbol(v) for v in cert.variables], "expected")
    assert cert.recheck().holds and kappa == 1


def _write(tmp_path, tokens):
    data = {"d": 3, "beta": 1, "mask": "causal", "tokens": tokens,
            "heads": [{"P": [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]], "U": "identity"}]}
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("tokens,expected", [
    ([["2/3", "2/3", "1/3"], ["2/3", "2/3", "1/3"], ["-2/3", "-2/3", "-1/3"], [0, 1, 0]], ["x_3(0) = -x_1(0)"]),
    ([["2/3", "2/3", "1/3"], ["-2/3", "-2/3", "-1/3"], ["-2/3", "-2/3", "-1/3"]], ["x_2(0) = -x_1(0)", "x_3(0) = -x_1(0)"]),
    ([["2/3", "2/3", "1/3"], [0, 1, 0], ["-2/3", "-2/3", "-1/3"]], []),  # x_2 moves: x_3 is pushed off -x_1
])
def test_4_2_exceptional_note_covers_every_certified_exception(tmp_path, capsys, tokens, expected):
    code = main(["theorem", "4.2", "--no-simulate", "--format", "json", "--instance", _write(tmp_path, tokens)])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0
    for text in expected:
        assert text in payload["explanation"]
    assert ("exceptional set" in payload["explanation"]) == bool(expected)


def test_divergence_margin_is_exact_and_positive():
    from theorems.errors import InvalidInput
    from verify.certificates.antipode_divergence import divergence_margin

    for d in (2, 3, 7):
        for B in (Fraction(0), Fraction(1, 3), Fraction(5), Fraction(400)):
            m = divergence_margin(d, 2, B, Fraction(1, 50))
            assert m.bracket >= Fraction(3 * (d - 1), 8) and m.delta > 0
            assert m.E == m.q ** 2 / 2 and m.R == m.q ** 2 / 4
    with pytest.raises(InvalidInput):
        divergence_margin(1, 1, Fraction(1), Fraction(1, 2))


def _token_field(x, earlier, Ps, beta):
    F = np.zeros_like(x)
    for P in Ps:
        scores = np.array([beta * x @ P @ y for y in earlier] + [beta * x @ P @ x])
        a = np.exp(scores - scores.max())
        a /= a.sum()
        F += sum(w * y for w, y in zip(a[:-1], earlier)) + a[-1] * x
    return F - (x @ F) * x


def test_divergence_bound_against_finite_differences():
    """Differential test of the antipode divergence bound: at random points of the certified region the
    finite-difference tangent divergence of token i's field is at least delta (floats: evidence only)."""
    from verify.certificates.antipode_divergence import divergence_margin

    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(40):
        d, H, beta, i = int(rng.integers(2, 5)), int(rng.integers(1, 3)), 1.0, int(rng.integers(2, 5))
        Ps = [rng.normal(size=(d, d)) for _ in range(H)]
        p = max(np.linalg.norm(P, 2) for P in Ps)
        m = divergence_margin(d, H, Fraction(beta * p * 1.001), Fraction(np.exp(-2 * beta * p) * 0.999))
        x1 = rng.normal(size=d)
        x1 /= np.linalg.norm(x1)

        def near(center, radius):
            y = center + rng.normal(size=d) * radius / np.sqrt(d) * rng.uniform(0, 1)
            return y / np.linalg.norm(y)

        earlier = [x1] + [near(x1, float(m.R) * 0.9) for _ in range(i - 2)]
        if any(np.linalg.norm(y - x1) > float(m.R) for y in earlier):
            continue
        x = near(-x1, float(m.E) ** 0.5 * 0.9)
        if np.sum((x + x1) ** 2) > float(m.E):
            continue
        h, J = 1e-6, np.empty((d, d))
        for k in range(d):
            e = np.zeros(d)
            e[k] = h
            J[:, k] = (_token_field(x + e, earlier, Ps, beta) - _token_field(x - e, earlier, Ps, beta)) / (2 * h)
        div = np.trace((np.eye(d) - np.outer(x, x)) @ J)
        assert div >= float(m.delta) * (1 - 1e-6), (d, H, i, div, float(m.delta))
        checked += 1
    assert checked >= 20


def test_divergence_formula_of_the_statement_against_finite_differences():
    """div_S(dx_i/dt) = sum_h [-(d-1) sum_{j<i} a_ij <x,x_j> + sum_{j<i} <Proj x_j, grad a_ij>] at random points."""
    rng = np.random.default_rng(5)
    for _ in range(25):
        d, H, i, beta = int(rng.integers(2, 6)), int(rng.integers(1, 3)), int(rng.integers(2, 6)), float(rng.uniform(0.2, 2))
        Ps = [rng.normal(size=(d, d)) for _ in range(H)]
        unit = lambda y: y / np.linalg.norm(y)  # noqa: E731
        earlier = [unit(rng.normal(size=d)) for _ in range(i - 1)]
        x = unit(rng.normal(size=d))
        h, J = 1e-6, np.empty((d, d))
        for k in range(d):
            e = np.zeros(d)
            e[k] = h
            J[:, k] = (_token_field(x + e, earlier, Ps, beta) - _token_field(x - e, earlier, Ps, beta)) / (2 * h)
        numeric = np.trace((np.eye(d) - np.outer(x, x)) @ J)
        formula = 0.0
        for P in Ps:
            scores = np.array([beta * x @ P @ y for y in earlier] + [beta * x @ P @ x])
            a = np.exp(scores - scores.max())
            a /= a.sum()
            grads = [beta * P @ y for y in earlier] + [beta * (P + P.T) @ x]
            mean = sum(w * g for w, g in zip(a, grads))
            for j, y in enumerate(earlier):
                formula += -(d - 1) * a[j] * (x @ y) + (y - (x @ y) * x) @ (a[j] * (grads[j] - mean))
        assert abs(numeric - formula) < 1e-5 * max(1.0, abs(formula)), (numeric, formula)
