"""Hugging Face ids through huggingface_hub's cache API, offline: legacy un-namespaced ids (gpt2,
gpt2-xl) and namespaced ones (EleutherAI/gpt-neo-2.7B), revisions, cache folders given as paths;
provenance with repository, revision and file hashes (checked against the blob names); a model
that is not cached gives exit 2 and the command that fetches it, without any network access."""
from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")
transformers = pytest.importorskip("transformers")

from llm_checks import hub  # noqa: E402
from llm_checks.loaders import load_model  # noqa: E402
from theorems.errors import InvalidInput, UnknownName  # noqa: E402
from verify.cli.main import main  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def cache_repo(root: Path, repo_id: str, model, commit: str = COMMIT, ref: str | None = "main") -> Path:
    """The layout huggingface_hub writes: blobs named by content hash, snapshot symlinks, refs/<ref>."""
    repo = root / ("models--" + repo_id.replace("/", "--"))
    saved = root / "_saved" / repo_id / commit
    model.save_pretrained(saved)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir(exist_ok=True)
    for f in sorted(saved.iterdir()):
        data = f.read_bytes()
        name = hashlib.sha256(data).hexdigest() if f.suffix == ".safetensors" else hashlib.sha1(data).hexdigest()
        (repo / "blobs" / name).write_bytes(data)
        os.symlink(Path("..") / ".." / "blobs" / name, snapshot / f.name)
    if ref:
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / ref).write_text(commit)
    return snapshot


def gpt2_small(seed=0, n_layer=2):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return transformers.GPT2Model(transformers.GPT2Config(n_layer=n_layer, n_embd=32, n_head=4, vocab_size=50,
                                                             n_positions=16))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "hub"
    root.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return root


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_legacy_ids_resolve_under_either_spelling(cache, no_network):
    cache_repo(cache, "openai-community/gpt2", gpt2_small(1))
    loaded = load_model("gpt2")
    prov = loaded.provenance()
    assert prov["hub"]["repo_id"] == "openai-community/gpt2" and prov["hub"]["revision"] == COMMIT
    assert prov["hub"]["ref"] == "main" and prov["weights"] == "loaded from file" and prov["requested"] == "gpt2"
    blob = Path(prov["files"][0]["path"]).resolve()
    assert prov["files"][0]["sha256"] == hashlib.sha256(blob.read_bytes()).hexdigest() == blob.name
    cache_repo(cache, "gpt2-medium", gpt2_small(2))  # downloaded under the legacy name
    assert load_model("openai-community/gpt2-medium").provenance()["hub"]["repo_id"] == "gpt2-medium"


def test_a_registry_shape_loads_its_cached_real_weights_and_random_init_still_builds_the_shape(cache, no_network):
    cache_repo(cache, "openai-community/gpt2-xl", gpt2_small(3))
    loaded = load_model("gpt2-xl")
    assert loaded.provenance()["hub"]["repo_id"] == "openai-community/gpt2-xl"
    assert "given as 'gpt2-xl'" in loaded.provenance()["model"]  # the cached checkpoint's real shape is reported
    neo = transformers.GPTNeoModel(transformers.GPTNeoConfig(num_layers=2, hidden_size=32, num_heads=4, vocab_size=50,
                                                             max_position_embeddings=16, attention_types=[[["global"], 2]]))
    cache_repo(cache, "EleutherAI/gpt-neo-2.7B", neo)
    assert load_model("EleutherAI/gpt-neo-2.7B").family == "gpt_neo"
    assert load_model("gpt-neo-2.7B").provenance()["hub"]["repo_id"] == "EleutherAI/gpt-neo-2.7B"


def test_revisions_and_cache_paths(cache, no_network):
    old = "f" * 40
    cache_repo(cache, "acme/tiny", gpt2_small(4), commit=old, ref=None)
    new_snapshot = cache_repo(cache, "acme/tiny", gpt2_small(5))
    assert load_model("acme/tiny").provenance()["hub"]["revision"] == COMMIT
    pinned = load_model(f"acme/tiny@{old}").provenance()["hub"]
    assert pinned["revision"] == old and pinned["ref"] is None
    from_folder = load_model(str(cache / "models--acme--tiny")).provenance()["hub"]
    assert from_folder["repo_id"] == "acme/tiny" and from_folder["revision"] == COMMIT
    from_snapshot = load_model(str(new_snapshot)).provenance()["hub"]
    assert from_snapshot["revision"] == COMMIT and from_snapshot["ref"] == "main"
    # one snapshot and no refs/main (a download by commit): that snapshot
    cache_repo(cache, "acme/pinned", gpt2_small(6), commit=old, ref=None)
    assert load_model("acme/pinned").provenance()["hub"] == dict(
        repo_id="acme/pinned", revision=old, ref=None, snapshot=str(cache / "models--acme--pinned" / "snapshots" / old),
        cache=str(cache))


def test_a_corrupt_cached_blob_is_refused(cache):
    snapshot = cache_repo(cache, "acme/tiny", gpt2_small())
    blob = (snapshot / "model.safetensors").resolve()
    data = bytearray(blob.read_bytes())
    data[-1] ^= 0xFF  # the weights change, the file still parses
    blob.write_bytes(bytes(data))
    with pytest.raises(InvalidInput, match="corrupt"):
        load_model("acme/tiny").provenance()


def test_a_missing_model_gives_exit_2_and_the_fetch_command(cache, no_network, capsys):
    with pytest.raises(InvalidInput) as info:
        load_model("gpt2")
    assert "HF_HUB_OFFLINE=0 hf download openai-community/gpt2 " in info.value.hint
    assert str(cache / "models--gpt2") in info.value.hint and str(cache / "models--openai-community--gpt2") in info.value.hint
    with pytest.raises(InvalidInput) as info:
        load_model("gpt2-xl")
    assert "hf download openai-community/gpt2-xl" in info.value.hint and "--random-init" in info.value.hint
    rc = main(["audit", "EleutherAI/gpt-neo-2.7B@main", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "hf download EleutherAI/gpt-neo-2.7B --revision main" in err and "Traceback" not in err
    with pytest.raises(UnknownName, match="gpt2"):
        load_model("gpt2-xxl")  # not a hub id we know and not cached: a typo, with close matches


def test_fetch_command_and_id_rules():
    assert hub.fetch_command("gpt2-xl").startswith("HF_HUB_OFFLINE=0 hf download openai-community/gpt2-xl ")
    assert "--include '*.safetensors'" in hub.fetch_command("acme/x")
    assert hub.split_revision("acme/x@v1.0") == ("acme/x", "v1.0") and hub.split_revision("gpt2") == ("gpt2", None)
    assert hub.is_hub_id("gpt2") and hub.is_hub_id("EleutherAI/gpt-neo-2.7B") and not hub.is_hub_id("not an id")
    assert not hub.is_hub_id("unknown-name-not-cached")
    assert hub.spellings("openai-community/gpt2") == ["openai-community/gpt2", "gpt2"]
