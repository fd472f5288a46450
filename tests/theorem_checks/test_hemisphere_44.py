"""``4.4-hemisphere``: certified on its example, refuted when a hypothesis fails, predicates exact,
and the statement checked by simulation (numerical evidence, never part of a proof)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from theorems.catalogue import get
from theorems.predicates.top_eigen_sign import TopEigenvaluePositive, VHemisphere
from theorems.system_build import simple_system
from theorems.verdict import Status
from verify.cli.main import main

P = [[1, "1/2", 0], [0, "1/2", "-1/3"], ["1/4", 0, 1]]
U = [[1, "1/2", 0], ["1/2", 1, 0], [0, 0, "-1/2"]]  # lambda = 3/2, 1/2, -1/2; v = (1, 1, 0)/sqrt(2)
TOKENS = [["2/3", "2/3", "1/3"], [1, 0, 0], [0, "3/5", "4/5"]]


def _run(tmp_path, capsys, U_=U, tokens=TOKENS):
    path = tmp_path / "inst.json"
    path.write_text(json.dumps({"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": P, "U": U_}], "tokens": tokens}))
    code = main(["theorem", "4.4-hemisphere", "--no-simulate", "--format", "json", "--instance", str(path)])
    return code, json.loads(capsys.readouterr().out)


def test_example_satisfies_every_hypothesis_and_is_certified(capsys):
    th = get("4.4-hemisphere")
    assert th.check().status is Status.HOLDS
    assert main(["theorem", "4.4-hemisphere", "--t-end", "40"]) == 0
    out = capsys.readouterr().out
    assert "verdict: holds" in out and "[certificate] token_i_iss (holds)" in out


@pytest.mark.parametrize("U_,tokens,failing", [
    (U, TOKENS + [["-2/3", "-1/3", "2/3"]], "v_hemisphere"),  # x_1 + x_2 < 0: outside
    (U, TOKENS + [["1/3", "-1/3", "1/3"]], None),  # not a unit vector: bad input (exit 2)
    (U, TOKENS + [[0, 0, 1]], "v_hemisphere"),  # exactly on v^perp
    ([[-1, "1/2", 0], ["1/2", -1, 0], [0, 0, -3]], TOKENS, "lambda_1_positive"),  # lambda_1 = -1/2
    ([[0, 0, 0], [0, -1, 0], [0, 0, -2]], [[1, 0, 0], ["3/5", "4/5", 0]], "lambda_1_positive"),  # lambda_1 = 0
])
def test_violations_exit_6_not_applicable(tmp_path, capsys, U_, tokens, failing):
    if failing is None:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": P, "U": U_}], "tokens": tokens}))
        assert main(["theorem", "4.4-hemisphere", "--no-simulate", "--instance", str(path)]) == 2
        return
    code, payload = _run(tmp_path, capsys, U_, tokens)
    verdicts = {h["name"]: h["verdict"] for h in payload["hypotheses"]}
    assert code == 6 and verdicts[failing] == "fails" and payload["verdict"] == "not_applicable" and payload["steps"] == []


def test_predicates_decide_irrational_eigenvectors_exactly():
    """lambda_1 irrational: the Davis-Kahan path decides the side of every token in exact rationals."""
    U2 = [[1, "1/3", 0], ["1/3", "1/2", "1/5"], [0, "1/5", -1]]
    ok = simple_system("zero", U2, TOKENS, beta=1, mask="causal")
    v = VHemisphere().evaluate(ok)
    assert v.holds and v.exact and "sin2_theta_upper" in v.witness
    bad = simple_system("zero", U2, TOKENS + [["-2/3", "1/3", "-2/3"]], beta=1, mask="causal")
    assert VHemisphere().evaluate(bad).status is Status.FAILS
    assert TopEigenvaluePositive().evaluate(ok).holds


def test_vhemisphere_adversarial_random_instances():
    """Random rational instances with the truth known from a wide float margin: the predicate never
    holds on an instance with a token on the wrong side, and decides the clear cases."""
    rng = np.random.default_rng(3)
    decided = 0
    for _ in range(40):
        A = rng.integers(-6, 7, size=(3, 3))
        S = (A + A.T).tolist()
        w, V = np.linalg.eigh(np.array(S, float))
        if w[-1] - w[-2] < 0.5:
            continue
        v = V[:, -1]
        pts = []
        for _ in range(3):
            q = rng.integers(-5, 6, size=2)
            m, n = int(q[0]), int(q[1])  # rational point of S^2 by inverse stereographic projection
            den = m * m + n * n + 1
            pts.append([f"{2 * m}/{den}", f"{2 * n}/{den}", f"{m * m + n * n - 1}/{den}"])
        inner = np.array([[eval(c) for c in p] for p in pts]) @ v  # noqa: S307 (our own strings)
        system = simple_system("zero", S, pts, beta=1, mask="causal")
        verdict = VHemisphere().evaluate(system)
        truth = bool((inner > 0).all() or (inner < 0).all())
        if verdict.holds:
            assert truth
        if np.abs(inner).min() > 1e-3:
            assert verdict.status is (Status.HOLDS if truth else Status.FAILS)
            decided += 1
    assert decided >= 15


def _instance(rng, lam_sign=1, outside_first=False, N=4):
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    lam1 = lam_sign * rng.uniform(0.5, 2.0)
    Um = Q @ np.diag([lam1, *(lam1 - rng.uniform(0.5, 1.5, size=2))]) @ Q.T
    Um = (Um + Um.T) / 2
    v = np.linalg.eigh(Um)[1][:, -1]
    tokens = []
    while len(tokens) < N:
        x = rng.normal(size=3)
        x /= np.linalg.norm(x)
        want_negative = outside_first and not tokens
        if (x @ v < -0.1) if want_negative else (x @ v > 0.1):
            tokens.append(x.tolist())
    Pm = rng.uniform(-0.5, 0.5, size=(3, 3))
    return simple_system(Pm.tolist(), Um.tolist(), tokens, beta=1, mask="causal"), v


def _converged(items, t_end=60.0):
    from numerics.dop853 import DOP853

    traj = DOP853().integrate([s for s, _ in items], t_end, samples=2)
    inner = np.array([traj.final[k] @ v for k, (_, v) in enumerate(items)])
    return (inner > 1 - 1e-3).all(axis=1)


def test_simulation_agrees_on_60_random_instances_and_fails_without_the_hypotheses():
    rng = np.random.default_rng(0)
    good = [_instance(rng) for _ in range(60)]
    th = get("4.4-hemisphere")
    for system, _ in good[:6]:  # the hypotheses hold exactly on the float data (the binary rationals they hold)
        statuses = {v.name: v.status for v in th.check(system).verdicts}
        assert statuses["lambda_1_positive"] is Status.HOLDS and statuses["v_hemisphere"] is Status.HOLDS
    assert _converged(good).all()
    negative = [_instance(rng, lam_sign=-1) for _ in range(20)]
    outside = [_instance(rng, outside_first=True) for _ in range(20)]
    assert _converged(negative).sum() <= 2  # lambda_1 < 0: tokens do not all end at v
    assert _converged(outside).sum() == 0  # x_1 starts with <v, x_1> < 0 and converges to -v
    for system, _ in outside[:3]:
        assert {v.name: v.status for v in th.check(system).verdicts}["v_hemisphere"] is Status.FAILS


def test_shipped_example_file_is_the_builtin_example(capsys):
    from pathlib import Path

    from theorems.catalogue.theorem_44_hemisphere import _P, _TOKENS, _U

    path = Path(__file__).resolve().parents[2] / "examples" / "hemisphere_4_4.json"
    data = json.loads(path.read_text())
    assert data["heads"][0]["P"] == _P and data["heads"][0]["U"] == _U and data["tokens"] == _TOKENS
    assert main(["theorem", "4.4-hemisphere", "--no-simulate", "--instance", str(path)]) == 0
    capsys.readouterr()


def test_lambda_1_positive_adversarial_random_instances():
    """Random integer symmetric matrices, truth from float eigenvalues with a margin: lambda_1 > 0 never
    holds when lambda_1 < 0, and the clear cases are decided both ways."""
    rng = np.random.default_rng(11)
    seen = {Status.HOLDS: 0, Status.FAILS: 0}
    for _ in range(60):
        A = rng.integers(-5, 6, size=(3, 3))
        S = (A + A.T - int(rng.integers(0, 12)) * np.eye(3, dtype=int)).tolist()
        top = np.linalg.eigvalsh(np.array(S, float))[-1]
        verdict = TopEigenvaluePositive().evaluate(simple_system("zero", S, [[1, 0, 0]], beta=1, mask="causal"))
        if verdict.holds:
            assert top > 0
        if abs(top) > 1e-6:
            assert verdict.status is (Status.HOLDS if top > 0 else Status.FAILS)
            seen[verdict.status] += 1
    assert min(seen.values()) >= 10
