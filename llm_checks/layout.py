"""The canonical attention layout every architecture adapter produces.

Conventions (row vectors, as the checkpoints store them): for a token state ``x`` (length ``D``)
the block normalizes ``n = norm(x)`` with scale ``g`` and shift ``b`` and head ``h`` computes

    q = n W_Q^h + b_Q^h,   k = n W_K^h + b_K^h,   v = n W_V^h + b_V^h,
    score_ij = temperature * q_i . k_j,     out_i = sum_j a_ij v_j W_O^h  (+ b_O once per layer).

Shapes: ``W_Q, W_V`` are ``(H, D, d_head)``, ``W_K`` is ``(H_kv, D, d_head)`` (grouped-query
attention shares one key/value head among ``H / H_kv`` query heads; :meth:`LayerAttention.kv_index`
maps a query head to its key/value head), ``W_O`` is ``(H, d_head, D)``.  Arrays are read-only
views of the model's parameters where the checkpoint layout allows it (no copies of a 7 GiB model).

Architecture facts that change the paper's model are fields, not folklore: ``temperature`` (GPT-Neo
has none), ``norm`` (``layernorm`` centres, ``rmsnorm`` does not), ``positions`` (``rope`` makes the
bilinear form position-dependent), ``mask`` and per-layer ``window`` (GPT-Neo's local layers).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from theorems.errors import InvalidInput

MASKS = ("causal", "full")
NORMS = ("layernorm", "rmsnorm")
POSITIONS = ("absolute", "rope")


def frozen_array(value) -> np.ndarray | None:
    """A read-only numpy view (or ``None``); torch tensors are detached and moved to CPU first."""
    if value is None:
        return None
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    array = np.asarray(value)
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class LayerAttention:
    """One attention layer in the canonical layout (see the module docstring for conventions)."""

    index: int
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray
    b_Q: np.ndarray | None
    b_K: np.ndarray | None
    b_V: np.ndarray | None
    b_O: np.ndarray | None
    norm_scale: np.ndarray
    norm_shift: np.ndarray | None
    temperature: float
    window: int | None = None

    def __post_init__(self) -> None:
        H, D, dh = self.W_Q.shape
        H_kv = self.W_K.shape[0]
        checks = {
            "W_K": (self.W_K.shape, (H_kv, D, dh)),
            "W_V": (self.W_V.shape, (H_kv, D, dh)),
            "W_O": (self.W_O.shape, (H, dh, D)),
            "norm_scale": (self.norm_scale.shape, (D,)),
        }
        for name, (got, want) in checks.items():
            if tuple(got) != want:
                raise InvalidInput(f"layers[{self.index}].{name}", f"shape {want}", tuple(got))
        if H % H_kv:
            raise InvalidInput(f"layers[{self.index}].W_K", f"a number of key/value heads dividing {H}", H_kv)
        if not np.isfinite(self.temperature) or self.temperature <= 0:
            raise InvalidInput(f"layers[{self.index}].temperature", "a positive finite number", self.temperature)

    @property
    def n_heads(self) -> int:
        return int(self.W_Q.shape[0])

    @property
    def n_kv_heads(self) -> int:
        return int(self.W_K.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.W_Q.shape[1])

    @property
    def d_head(self) -> int:
        return int(self.W_Q.shape[2])

    def kv_index(self, head: int) -> int:
        """The key/value head that query head ``head`` reads (identity without GQA)."""
        return head // (self.n_heads // self.n_kv_heads)


@dataclass(frozen=True)
class ModelLayout:
    """All attention layers of a model plus the architecture facts the theorems care about.

    ``pre_norm`` is True for pre-LN blocks (``x + Attn(LN(x))``); for post-LN encoders (BERT) the
    normalization folded into layer ``k`` is the one that *produced* its input (the embedding LN
    for layer 0, the previous layer's output LN otherwise).  ``notes`` records adapter facts in
    words for the report.
    """

    architecture: str
    layers: tuple[LayerAttention, ...]
    mask: str
    norm: str
    positions: str
    pre_norm: bool
    has_feedforward: bool = True
    notes: tuple[str, ...] = field(default_factory=tuple)
    refeed_layer0: LayerAttention | None = None
    """Layer 0 as it runs from the second re-fed pass on, when that differs from the first pass
    (post-LN BERT: its input is then produced by the last layer's output LayerNorm, not by the
    embedding LayerNorm).  ``None`` when every pass runs the same layer 0 (pre-LN models)."""

    def __post_init__(self) -> None:
        if not self.layers:
            raise InvalidInput("layers", "at least one attention layer", 0)
        for name, value, allowed in (("mask", self.mask, MASKS), ("norm", self.norm, NORMS), ("positions", self.positions, POSITIONS)):
            if value not in allowed:
                raise InvalidInput(name, f"one of {allowed}", value)
        shapes = {(l.n_heads, l.n_kv_heads, l.d_model, l.d_head) for l in self.layers}
        if len(shapes) != 1:
            raise InvalidInput("layers", "the same head shapes in every layer", sorted(shapes))

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def n_heads(self) -> int:
        return self.layers[0].n_heads

    @property
    def d_model(self) -> int:
        return self.layers[0].d_model

    @property
    def d_head(self) -> int:
        return self.layers[0].d_head

    @property
    def windows(self) -> tuple[int | None, ...]:
        return tuple(layer.window for layer in self.layers)

    def summary(self) -> dict:
        return {
            "architecture": self.architecture,
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "n_kv_heads": self.layers[0].n_kv_heads,
            "d_model": self.d_model,
            "d_head": self.d_head,
            "mask": self.mask,
            "local_windows": {str(l.index): l.window for l in self.layers if l.window is not None},
            "norm": self.norm,
            "positions": self.positions,
            "pre_norm": self.pre_norm,
            "temperature": sorted({l.temperature for l in self.layers}),
            "notes": list(self.notes),
        }
