"""A ``transformers.PreTrainedModel`` given in memory, measured exactly like the same weights loaded
from a directory, without modifying the caller's object.

The measurement needs eager attention (SDPA returns no attention maps and rounds differently),
evaluation mode (no dropout) and the bare transformer (``GPT2LMHeadModel.transformer``,
``BertForMaskedLM.bert``, ...), which is what the path loader builds with ``AutoModel``.  Setting
these on the caller's model would change it, so :func:`shared_view` builds a second module tree
with ``copy.deepcopy`` whose memo maps every parameter and buffer to itself: the modules and the
config are new (eager, eval), the tensors are the caller's own (no memory is copied).  When a
``dtype`` or ``device`` other than the model's is asked for, the memo maps each tensor to a converted
copy instead; the caller's parameters are never cast or moved.

Not guaranteed: a caller who changes the weights in place while a measurement runs changes what
it measures (the tensors are shared).  Models split across devices or offloaded (parameters on the
``meta`` device) and quantized weights (integer dtypes) are refused.
"""
from __future__ import annotations

import copy
import hashlib
from typing import Any, Callable

from theorems.errors import InvalidInput

from ._deps import require_torch, require_transformers

DTYPES = ("float32", "float64", "float16", "bfloat16")


def is_pretrained(model: Any) -> bool:
    """True for a ``transformers.PreTrainedModel`` (imports transformers only when it is loaded already)."""
    import sys

    if "transformers" not in sys.modules:
        return False
    return isinstance(model, sys.modules["transformers"].PreTrainedModel)


def placement(model) -> tuple[str, str]:
    """``(dtype, device)`` shared by every parameter; InvalidInput for mixed, meta or integer tensors."""
    seen = {(str(p.dtype).replace("torch.", ""), str(p.device)) for p in model.parameters()}
    if len(seen) != 1:
        raise InvalidInput("model", "parameters of one floating dtype on one device", sorted(seen)[:4],
                           hint="models split across devices, offloaded or partly quantized are not supported: "
                                "load it on one device")
    dtype, device = seen.pop()
    if device == "meta" or dtype not in DTYPES:
        raise InvalidInput("model", f"parameters in memory of dtype {', '.join(DTYPES)}", f"{dtype} on {device}",
                           hint="dequantize it or load it without device_map / offloading")
    return dtype, device


def check_target(dtype: str | None, device: str | None) -> None:
    if dtype is not None and dtype not in DTYPES:
        raise InvalidInput("dtype", ", ".join(DTYPES), dtype)
    if device is not None and not (device == "cpu" or str(device).startswith("cuda")):
        raise InvalidInput("device", "cpu or cuda[:N]", device)
    torch = require_torch()
    if device is not None and str(device).startswith("cuda") and not torch.cuda.is_available():
        raise InvalidInput("device", "cpu or an available CUDA device", device, hint="this torch build sees no GPU")


def shared_view(module, dtype: str | None = None, device: str | None = None):
    """A new module tree over ``module``'s tensors (converted copies where ``dtype`` / ``device`` differ),
    in eval mode with eager attention; ``module`` itself is left exactly as it was."""
    torch = require_torch()
    target_dtype = getattr(torch, dtype) if dtype else None
    memo: dict[int, Any] = {}
    for tensor in list(module.parameters()) + list(module.buffers()):
        if id(tensor) in memo:
            continue
        same = (target_dtype is None or tensor.dtype == target_dtype or not tensor.is_floating_point()) and \
               (device is None or tensor.device == torch.device(device))
        if same:
            memo[id(tensor)] = tensor
        else:
            moved = tensor.detach().to(device=device or tensor.device,
                                       dtype=target_dtype if tensor.is_floating_point() and target_dtype else tensor.dtype)
            memo[id(tensor)] = torch.nn.Parameter(moved, requires_grad=False) if isinstance(tensor, torch.nn.Parameter) else moved
    view = copy.deepcopy(module, memo)
    if hasattr(view, "set_attn_implementation"):
        view.set_attn_implementation("eager")
    else:  # pragma: no cover - older transformers
        view.config._attn_implementation = "eager"
    return view.eval()


def weights_digest(model) -> str:
    """sha256 over every parameter and buffer (name, dtype, shape, bytes): what identifies in-memory weights."""
    torch = require_torch()
    digest = hashlib.sha256()
    with torch.no_grad():
        for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
            digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
            digest.update(tensor.detach().contiguous().cpu().reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def _core(model):
    """The bare transformer of a task model (``base_model``), as the path loader's ``AutoModel`` builds."""
    return getattr(model, "base_model", model)


def from_pretrained_object(model, *, dtype: str | None = None, device: str | None = None,
                           on_event: Callable[[str], None] | None = None, origin: dict | None = None):
    """A :class:`~llm_checks.loaders.LoadedModel` measuring ``model`` (module docstring).  ``origin``
    adds provenance facts (used for models converted from TransformerLens)."""
    from .adapters import SUPPORTED
    from .loaders import LoadedModel
    from .stacks import FAMILIES

    require_transformers()
    family = str(getattr(model.config, "model_type", "?"))
    supported = sorted(set(SUPPORTED) & set(FAMILIES))
    if family not in supported:
        raise InvalidInput("model", f"a model of one of the architectures {supported}", f"{type(model).__name__} ({family})")
    check_target(dtype, device)
    own_dtype, own_device = placement(model)
    core = _core(model)
    say = on_event or (lambda message: None)
    say(f"measuring the in-memory {type(model).__name__} ({family}) on its own tensors"
        + ("" if (dtype in (None, own_dtype) and device in (None, own_device)) else f", converted to {dtype or own_dtype} on {device or own_device}"))
    view = shared_view(core, dtype, device)
    used_dtype, used_device = placement(view)
    origin = dict(origin or {})
    label = origin.pop("label", None) or f"{type(model).__name__} ({family}, in memory)"
    facts = {
        "weights": "given in memory",
        "in_memory": dict({"class": type(model).__qualname__, "module": type(model).__module__,
                           "name_or_path": str(getattr(model.config, "_name_or_path", "") or ""),
                           "dtype": own_dtype, "device": own_device, "weights_sha256": weights_digest(core)},
                          **origin),
    }
    return LoadedModel(label, family, view, f"in memory: {type(model).__name__}", None, used_dtype, None,
                       origin=tuple(facts.items()))
