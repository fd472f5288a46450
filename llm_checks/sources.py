"""Where weights come from, and what identifies them: local Hugging Face cache look-up (offline),
sha256 of weight files, a memory estimate before a large random init, the model's tokenizer.

Hugging Face ids (``org/name``) are resolved only from a local cache, never downloaded.  The cache
roots searched, in order: ``$HF_HUB_CACHE``, ``$HF_HOME/hub``, ``$XDG_CACHE_HOME/huggingface/hub``,
``~/.cache/huggingface/hub``.  A repository ``org/name`` lives in ``models--org--name``; its
snapshot is the commit named by ``refs/main`` (or the only snapshot when there is no ref).
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

from theorems.errors import InvalidInput

from ._deps import require_torch, require_transformers

_HF_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
WEIGHT_SUFFIXES = (".safetensors", ".gguf", ".bin", ".pt", ".pth", ".ckpt")


def looks_like_hf_id(text: str) -> bool:
    return bool(_HF_ID.match(str(text))) and not Path(text).exists()


def cache_roots() -> list[Path]:
    env = os.environ
    roots = []
    if env.get("HF_HUB_CACHE"):
        roots.append(Path(env["HF_HUB_CACHE"]))
    if env.get("HF_HOME"):
        roots.append(Path(env["HF_HOME"]) / "hub")
    if env.get("XDG_CACHE_HOME"):
        roots.append(Path(env["XDG_CACHE_HOME"]) / "huggingface" / "hub")
    roots.append(Path.home() / ".cache" / "huggingface" / "hub")
    seen, out = set(), []
    for r in roots:
        if str(r) not in seen:
            seen.add(str(r))
            out.append(r)
    return out


def resolve_hf_id(repo_id: str, option: str = "weights") -> Path:
    """The local snapshot directory of ``repo_id``; InvalidInput naming every place looked at."""
    folder = "models--" + repo_id.replace("/", "--")
    looked = []
    for root in cache_roots():
        repo = root / folder
        looked.append(str(repo))
        snapshots = repo / "snapshots"
        if not snapshots.is_dir():
            continue
        ref = repo / "refs" / "main"
        if ref.is_file():
            candidate = snapshots / ref.read_text().strip()
            if candidate.is_dir():
                return candidate.resolve()
        found = sorted(p for p in snapshots.iterdir() if p.is_dir())
        if len(found) == 1:
            return found[0].resolve()
    raise InvalidInput(option, f"the Hugging Face model {repo_id!r} in the local cache (offline: nothing is downloaded)",
                       "not found", hint="looked in " + ", ".join(looked) + "; set HF_HUB_CACHE or pass a local directory")


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_records(target: str | Path | None) -> list[dict]:
    """``[{path (absolute), bytes, sha256}]`` for the weight file(s) at ``target`` (file or directory)."""
    if target is None:
        return []
    base = Path(target).resolve()
    files = [base] if base.is_file() else sorted(p for p in base.iterdir() if p.suffix in WEIGHT_SUFFIXES and p.is_file())
    out = []
    for f in files:
        st = f.stat()
        out.append({"path": str(f), "bytes": st.st_size, "sha256": _sha256(str(f), st.st_size, st.st_mtime_ns)})
    return out


def shape_of(config) -> dict:
    """Architecture and shape as loaded (``model_type``, layers, width, heads)."""
    get = lambda *names: next((getattr(config, n) for n in names if getattr(config, n, None) is not None), None)  # noqa: E731
    return {"architecture": str(getattr(config, "model_type", "?")),
            "n_layers": get("num_hidden_layers", "n_layer", "num_layers"),
            "d_model": get("hidden_size", "n_embd"),
            "n_heads": get("num_attention_heads", "n_head", "num_heads")}


def memory_estimate(config, dtype: str) -> dict:
    """Parameters and bytes of a model built from ``config`` (counted on the meta device, no memory)."""
    torch = require_torch()
    transformers = require_transformers()
    with torch.device("meta"):
        model = transformers.AutoModel.from_config(config)
    count = sum(p.numel() for p in model.parameters())
    size = torch.empty((), dtype=getattr(torch, dtype)).element_size()
    # the init draws in float32 before any cast: that is the peak
    return {"parameters": int(count), "bytes": int(count * max(size, 4)), "dtype": dtype}


def tokenizer_loader(path: str | Path | None):
    """A zero-argument callable loading the tokenizer stored with the weights at ``path``, or None."""
    if path is None:
        return None
    target = Path(path)

    def load():
        transformers = require_transformers()
        try:
            if target.is_file() and target.suffix == ".gguf":
                return transformers.AutoTokenizer.from_pretrained(str(target.parent), gguf_file=target.name, local_files_only=True)
            return transformers.AutoTokenizer.from_pretrained(str(target), local_files_only=True)
        except Exception as exc:
            raise InvalidInput("--prompts", "a model with its tokenizer for a text prompts file", f"{target}: {type(exc).__name__}",
                               hint="give token ids as a JSON list of lists instead") from None
    return load
