"""What identifies weights: sha256 of weight files (checked against hub-cache blob names), the shape
as loaded, a memory estimate before a large random init, and the tokenizer stored with the weights."""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

from theorems.errors import InvalidInput

from ._deps import require_torch, require_transformers

WEIGHT_SUFFIXES = (".safetensors", ".gguf", ".bin", ".pt", ".pth", ".ckpt")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_records(target: str | Path | None) -> list[dict]:
    """``[{path (absolute), bytes, sha256}]`` for the weight file(s) at ``target`` (file or directory).
    A file of a hub cache whose blob is named by a sha256 (large files) must have that sha256."""
    if target is None:
        return []
    base = Path(target).resolve()
    files = [base] if base.is_file() else sorted(p for p in base.iterdir() if p.suffix in WEIGHT_SUFFIXES and p.is_file())
    out = []
    for f in files:
        st = f.stat()
        digest = _sha256(str(f), st.st_size, st.st_mtime_ns)
        blob = Path(f).resolve().name  # a hub cache stores a large file as blobs/<its sha256>
        if f.is_symlink() and _SHA256.match(blob) and blob != digest:
            raise InvalidInput(str(f), f"the file whose sha256 its cache blob names ({blob})", f"sha256 {digest}",
                               hint="the cached file is corrupt or truncated: delete it and fetch it again")
        out.append({"path": str(f), "bytes": st.st_size, "sha256": digest})
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
