"""``verify fate --instance FILE``: the command over :func:`verify._fate.driver.certify_fate`.

The same-sign counterexample is certified non-consensus (exit 0) and its saved certificate
re-checks (``verify recheck``, exit 0) while a tampered one does not (exit 5); a hemisphere instance
with ``U = I`` is certified consensus; the JSON follows the published schema; bad input exits 2
and writes nothing."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema

import verify
from verify.cli.main import main
from verify.report import schema_path

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads(schema_path("fate").read_text())


def test_same_sign_counterexample_is_certified_non_consensus(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["fate", "--instance", str(ROOT / "examples" / "counterexample_same_sign.json"), "--save", str(out),
                 "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    jsonschema.validate(payload, SCHEMA)
    assert code == 0 and payload["verdict"] == "holds" and payload["fate"] == "non-consensus"
    cert = next(out.glob("*__fate.json"))
    assert main(["recheck", str(cert)]) == 0
    data = json.loads(cert.read_text())
    data["entry"] = "0"  # the tokens are not in the basin at t = 0
    cert.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["recheck", str(cert)]) == 5


def test_hemisphere_with_identity_is_consensus():
    report = verify.fate(instance={"d": 3, "beta": 1, "mask": "full", "heads": [{"P": "identity", "U": "identity"}],
                                   "tokens": [[1, 0, 0], [0, 1, 0], ["3/5", "4/5", 0]]})
    assert report.exit_code == 0 and report.to_json()["fate"] == "consensus"
    jsonschema.validate(report.to_json(), SCHEMA)


def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["fate", "--instance", str(tmp_path / "missing.json"), "--save", str(out)]) == 2
    assert main(["fate", "--instance", str(ROOT / "examples" / "late_entry.json"), "--t-max", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--instance" in err and "--t-max" in err
    assert not out.exists() or not any(out.iterdir())


def _toy_map():
    from verify._fate.head_map import HeadFate, HeadFateMap

    heads = (HeadFate(0, 0, "consensus", "projective contraction: ...", 4, {}, 0.0),
             HeadFate(0, 1, "unknown", "the eigenvalue of U of largest modulus is complex (1+1j)", 4, {}, 0.0),
             HeadFate(1, 0, "consensus", "projective contraction: ...", 4, {}, 0.0),
             HeadFate(1, 1, "unknown", "the tokens lie on both sides of ker w (2 of 3)", 4, {}, 0.0))
    return HeadFateMap("toy", "causal", ("a", "b", "c"), heads, {"wall_time_s": 0.1}, {"prompt": "a b c"})


def test_audit_fate_flag_writes_map_json_and_figure(tmp_path, capsys, monkeypatch):
    import verify.api.fate_heads as fh

    seen = {}

    def fake(model, *, prompt=None, prompts=None, weights=None, on_event=None, **_):
        seen.update(model=model, prompt=prompt, prompts=prompts)
        return _toy_map()

    monkeypatch.setattr(fh, "audit_fate", fake)
    png = tmp_path / "fate.png"
    code = main(["audit", "toy-model", "--fate", "--prompt", "a b c", "--plot", str(png), "--format", "json"])
    payload = json.loads(capsys.readouterr().out)
    jsonschema.validate(payload, SCHEMA)
    assert code == 4 and payload["verdict"] == "unknown" and payload["scope"] == "heads"
    assert payload["certified"] == 2 and payload["total"] == 4 and payload["share"] == 0.5
    assert seen == {"model": "toy-model", "prompt": "a b c", "prompts": None}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("\nfirst line\nsecond\n")
    assert main(["audit", "toy-model", "--fate", "--prompts", str(prompts)]) == 4
    assert "certified 2 / 4" in capsys.readouterr().out and seen["prompts"] == str(prompts)


def test_audit_prompt_without_fate_is_a_usage_error(capsys):
    assert main(["audit", "toy-model", "--prompt", "hello"]) == 2
    assert "--fate" in capsys.readouterr().err


def test_audit_fate_of_a_random_init_model_uses_random_token_ids(capsys):
    import pytest

    pytest.importorskip("torch", reason="needs the llm extra (torch, transformers)")
    payloads = []
    for _ in range(2):
        code = main(["audit", "gpt2-tiny", "--random-init", "--fate", "--seed", "3", "--format", "json"])
        payloads.append(json.loads(capsys.readouterr().out))
        jsonschema.validate(payloads[-1], SCHEMA)
        assert code in (0, 4)
    first, again = payloads
    assert first["provenance"]["prompt"] == "random token ids (seed 3)" and len(first["tokens"]) == 8
    assert all(t.isdigit() for t in first["tokens"]) and first["tokens"] == again["tokens"]
    assert first["observed_counts"]["simulated"] == first["total"] == 16
    assert main(["audit", "gpt2-tiny", "--random-init", "--fate", "--prompt", "hello"]) == 2
    err = capsys.readouterr().err
    assert "--prompt" in err and "--random-init" in err and "Traceback" not in err


def test_the_enclosure_options_belong_to_fate_and_are_checked(capsys):
    for extra in (["--fate-budget", "10"], ["--fate-workers", "2"]):
        assert main(["audit", "toy-model", *extra]) == 2
        err = capsys.readouterr().err
        assert extra[0] in err and "--fate" in err and "Traceback" not in err
    for extra in (["--fate-budget", "-1"], ["--fate-budget", "nan"], ["--fate-workers", "0"], ["--fate-budget", "1e9"]):
        assert main(["audit", "toy-model", "--fate", *extra]) == 2
        err = capsys.readouterr().err
        assert extra[0] in err and "Traceback" not in err


def test_audit_fate_refuses_the_options_of_the_hypothesis_audit(capsys):
    for extra in (["--theorem", "4.2"], ["--no-tables"], ["--hemisphere-prompts", "3"], ["--hemisphere-tokens", "8"]):
        assert main(["audit", "toy-model", "--fate", *extra]) == 2
        err = capsys.readouterr().err
        assert extra[0] in err and "--fate" in err and "Traceback" not in err


def test_audit_fate_reports_progress_after_each_head():
    import pytest

    pytest.importorskip("torch", reason="needs the llm extra (torch, transformers)")
    calls = []
    report = verify.audit("gpt2-tiny", random_init=True, fate=True, fate_budget=0,
                          progress=lambda f, label: calls.append((f, label)))
    assert len(calls) == len(report.record.heads) == 16
    assert [f for f, _ in calls] == sorted(f for f, _ in calls) and calls[-1][0] == 1.0
    assert calls[0][1].startswith("layer 0 head 0: ")
    # with the enclosure pass (default budget): the first pass is the first half, then one call per planned
    # head of the pass, then 1.0 with the count
    calls.clear()
    report = verify.audit("gpt2-tiny", random_init=True, fate=True, progress=lambda f, label: calls.append((f, label)))
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[15] == 0.5 and calls[-1] == (
        1.0, f"{report.record.certified} of 16 heads certified")
    planned = report.record.stats["enclosure_candidates"]
    assert len(calls) == 16 + planned + 1
    assert all(label.startswith("enclosure of layer ") for _, label in calls[16:-1])


def test_audit_fate_with_weights_but_no_tokenizer_names_the_tokenizer(tmp_path, capsys):
    """A weights directory without tokenizer files: the error names the missing tokenizer (it used to be the
    consensus command's "--prompts ... give token ids as a JSON list" message)."""
    import pytest

    pytest.importorskip("torch", reason="needs the llm extra (torch, transformers)")
    from llm_checks.loaders import load_model

    load_model("gpt2-tiny", random_init=True, seed=5).model.save_pretrained(tmp_path)
    assert main(["audit", "gpt2-tiny", "--weights", str(tmp_path), "--fate", "--fate-budget", "0"]) == 2
    err = capsys.readouterr().err
    assert "tokenizer" in err and "prompt" in err and "JSON list" not in err and "Traceback" not in err
