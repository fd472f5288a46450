"""Adversarial tests of the Python API: bad options of the LLM façades (verify.audit, verify.consensus) are
refused with the project's errors before any model is loaded (skipped without torch).

Each attack asserts the correct behaviour; shared inputs and fixtures: adversary_api_helpers.py.
"""
from __future__ import annotations

from adversary_api_helpers import *  # noqa: F401,F403


@pytest.fixture
def torch_env(monkeypatch):
    pytest.importorskip("torch", reason="needs the llm extra (torch, transformers)")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def _refuse_loading(monkeypatch):
    import llm_checks.loaders

    def refuse(*a, **k):
        raise AssertionError("the model was loaded before the options were checked")
    monkeypatch.setattr(llm_checks.loaders, "load_model", refuse)


@pytest.fixture
def no_load(torch_env, monkeypatch):
    _refuse_loading(monkeypatch)


def _png(p) -> str:
    png = p.tmp / "existing.png"
    png.write_bytes(b"old")
    return str(png)


def _cons(**kw):
    return verify.consensus("gpt2-tiny", **({"random_init": True, "prompts": 2, "tokens": 8} | kw))


def _audit(**kw):
    return verify.audit("gpt2-tiny", **({"random_init": True, "theorem": ["4.2"], "hemisphere_tokens": 8} | kw))


LLM_BAD = {
    "audit model None": lambda p: verify.audit(None),
    "audit model int": lambda p: verify.audit(5),
    "audit theorem unknown": lambda p: _audit(theorem=["9.9"]),
    "audit seed -1": lambda p: _audit(seed=-1),
    "audit seed True": lambda p: _audit(seed=True),
    "audit hemisphere_tokens 1": lambda p: _audit(hemisphere_tokens=1),
    "audit plot /dev/null": lambda p: _audit(plot=p.devnull),
    "audit plot dir": lambda p: _audit(plot=p.dir),
    "audit plot existing": lambda p: _audit(plot=_png(p)),
    "consensus prompts 0": lambda p: _cons(prompts=0),
    "consensus prompts huge": lambda p: _cons(prompts=10 ** 9),
    "consensus prompts 'abc'": lambda p: _cons(prompts="abc"),
    "consensus prompts dir": lambda p: _cons(prompts=p.dir),
    "consensus prompts fifo": lambda p: _cons(prompts=p.fifo),
    "consensus tokens True": lambda p: _cons(tokens=True),
    "consensus tokens huge": lambda p: _cons(tokens=10 ** 9),
    "consensus passes 0": lambda p: _cons(passes=0),
    "consensus anchor bogus": lambda p: _cons(anchor="bogus"),
    "consensus batch_size 0": lambda p: _cons(batch_size=0),
    "consensus seed -1": lambda p: _cons(seed=-1),
    "consensus weights_mode bogus": lambda p: _cons(weights_mode="bogus"),
    "consensus out /dev/null": lambda p: _cons(out=p.devnull),
    "consensus out symlink": lambda p: _cons(out=p.link),
    "consensus plot .txt": lambda p: _cons(plot=str(p.tmp / "x.txt")),
    "consensus plot existing": lambda p: _cons(plot=_png(p)),
    "consensus resume without out": lambda p: _cons(resume=True),
}


LLM_XFAIL = {
    "audit theorem int": (lambda p: _audit(theorem=5), "llm_checks/audit.py resolve_theorems: TypeError"),
    "audit theorem [int]": (lambda p: _audit(theorem=[5]), "resolve_theorems -> catalogue get(): AttributeError"),
    "audit weights int": (lambda p: _audit(weights=5, random_init=False), "llm_checks/loaders.py: TypeError (Path(5))"),
    "audit seed 2^70": (lambda p: _audit(seed=2 ** 70), "verify/api/audit.py check_options: no upper bound; torch.manual_seed "
                        "ValueError after loading (CLI: internal error, exit 1, nothing on stdout under --format json)"),
    "audit hemisphere_prompts 1e9": (lambda p: _audit(hemisphere_prompts=10 ** 9), "verify/api/audit.py check_options: no "
                                     "upper bound; MemoryError (60 GiB) after loading the model (patched out here)"),
    "consensus prompts None": (lambda p: _cons(prompts=None), "verify/api/consensus.py check_options Path(None): TypeError"),
    "consensus prompts True": (lambda p: _cons(prompts=True), "verify/api/consensus.py check_options: TypeError"),
    "consensus prompts 2.5": (lambda p: _cons(prompts=2.5), "verify/api/consensus.py check_options: TypeError"),
    "consensus tokens '8'": (lambda p: _cons(tokens="8"), "verify/limits.py check_range: TypeError"),
    "consensus passes '1'": (lambda p: _cons(passes="1"), "verify/limits.py check_range: TypeError"),
    "consensus device int": (lambda p: _cons(device=5), "device not checked before loading; loader AttributeError"),
    "consensus seed 2^70": (lambda p: _cons(seed=2 ** 70), "verify/api/consensus.py check_options: no upper bound; "
                            "ValueError after loading (CLI: internal error, exit 1)"),
    "consensus out int": (lambda p: _cons(out=5), "verify/api/consensus.py check_options Path(5): TypeError"),
}


@pytest.mark.parametrize("name", sorted(LLM_BAD))
def test_llm_facades_refuse_bad_options_before_loading(no_load, paths, name):
    _assert_project_error(LLM_BAD[name], paths)


@pytest.mark.parametrize("name", sorted(LLM_XFAIL))
def test_llm_facades_refuse_bad_options_not_a_crash(torch_env, monkeypatch, paths, name):
    if "hemisphere_prompts" in name:  # would allocate 60 GiB after loading: the refusal must come before
        _refuse_loading(monkeypatch)
    _assert_project_error(LLM_XFAIL[name][0], paths)
