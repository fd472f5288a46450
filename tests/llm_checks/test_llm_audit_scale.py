"""The scale of P on the unit sphere, the weights lemma's bounds against real MiniLM attention,
the BERT layer-0 LayerNorm under re-feeding, and the trivial-hemisphere note."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

from llm_checks.adapters import adapt  # noqa: E402
from llm_checks.audit import audit, weights_lemma  # noqa: E402
from llm_checks.measure import measure  # noqa: E402
from theorems.verdict import Status  # noqa: E402


@pytest.fixture(scope="module")
def minilm_measured(minilm_loaded):
    layout = adapt(minilm_loaded.model)
    return layout, measure(layout)


def test_every_measured_minilm_weight_lies_inside_the_stated_bounds(minilm_loaded, minilm_measured):
    layout, m = minilm_measured
    stated = weights_lemma(layout, m)
    p_lemma = np.asarray(stated["p_lemma"])
    p_ln = m.heads["p"]
    ids = torch.randint(0, 30000, (3, 40), generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        attentions = minilm_loaded.model(input_ids=ids, output_attentions=True).attentions
    assert len(attentions) == layout.n_layers
    checked = violated_ln_form = 0
    for k, a in enumerate(attentions):  # (B, H, N, N), full attention: |M(i)| = N
        log_a = torch.log(a.double()).numpy()
        N = a.shape[-1]
        for h in range(layout.n_heads):
            lo, hi = -2 * p_lemma[k, h] - np.log(N), 2 * p_lemma[k, h] - np.log(N)
            assert np.all(log_a[:, h] >= lo) and np.all(log_a[:, h] <= hi), (k, h)
            np.testing.assert_allclose(np.exp(log_a[:, h]).sum(-1), 1.0, rtol=0, atol=1e-5)
            checked += log_a[:, h].size
            violated_ln_form += int(np.sum(log_a[:, h] < -2 * p_ln[k, h] - np.log(N)))
    assert checked == 3 * 6 * 12 * 40 * 40
    assert violated_ln_form > 0  # the LN-scale ||P|| would state bounds that real weights break
    ratio = m.heads["p_sphere"] / m.heads["p"]
    np.testing.assert_allclose(ratio, layout.d_model, rtol=1e-12)


def test_bert_layer0_under_refeeding_uses_the_last_output_layernorm(minilm_loaded, minilm_measured):
    layout, m = minilm_measured
    model = minilm_loaded.model
    first = model.encoder.layer[0].attention.self
    D, H = layout.d_model, layout.n_heads
    dh = D // H
    Wq = first.query.weight.detach().double().numpy().T
    Wk = first.key.weight.detach().double().numpy().T
    beta = dh ** -0.5

    def dense_max(norm):
        g = norm.weight.detach().double().numpy()
        return max(np.linalg.norm(beta * (g[:, None] * Wq[:, h * dh:(h + 1) * dh]) @ (g[:, None] * Wk[:, h * dh:(h + 1) * dh]).T, 2)
                   for h in range(H))

    pass1 = dense_max(model.embeddings.LayerNorm)
    later = dense_max(model.encoder.layer[-1].output.LayerNorm)
    assert later == pytest.approx(2.546, abs=1e-3) and pass1 == pytest.approx(2.242, abs=1e-3)
    assert m.heads["p"][0].max() == pytest.approx(max(pass1, later), rel=1e-10)
    assert m.first_pass_layer0["p"].max() == pytest.approx(pass1, rel=1e-10)
    report = audit(minilm_loaded, theorems=["3.2"])
    bounded = {v.name: v for v in report.theorems[0].hypotheses}["P_bounded"]
    assert bounded.witness["p"] == pytest.approx(2.546, abs=1e-3)
    assert bounded.witness["p_sphere"] == pytest.approx(384 * bounded.witness["p"], rel=1e-12)


def test_hemisphere_says_when_it_holds_trivially(minilm_loaded):
    from llm_checks.prompts import random_prompts

    report = audit(minilm_loaded, theorems=["3.2"], prompts=random_prompts(1, 16, 30000, 0))
    hemi = {v.name: v for v in report.theorems[0].hypotheses}["open_hemisphere"]
    assert hemi.status is Status.HOLDS and hemi.witness["trivial"] is True and "trivially" in hemi.reason


def test_rope_uses_the_offset_bound(smollm2_loaded):
    layout = adapt(smollm2_loaded.model)
    m = measure(layout)
    assert np.all(m.heads["p_sphere"] >= layout.d_model * m.heads["p"] * (1 - 1e-12))
    assert np.all(m.heads["score_bias"] == 0)  # SmolLM2 has no query bias and RMSNorm has no shift


def test_cli_audit_plot_writes_a_png(tmp_path, capsys):
    from verify.cli.main import main

    out = tmp_path / "x.png"
    rc = main(["audit", "bert-tiny", "--random-init", "--plot", str(out), "--hemisphere-prompts", "0"])
    captured = capsys.readouterr()
    assert rc == 6 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "measuring every layer and head" in captured.err and "unit sphere" in captured.out
    assert main(["audit", "bert-tiny", "--random-init", "--plot", str(out)]) == 2  # exists: needs --force
    assert "--plot" in capsys.readouterr().err
