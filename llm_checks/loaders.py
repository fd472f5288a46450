"""Load a model for auditing or measurement, offline, with clear errors instead of tracebacks.

Sources: a local Hugging Face directory (``config.json`` plus safetensors), a GGUF file through
transformers, random initialization from a named config (seeded), or the real models shipped by
packages (see :mod:`llm_checks.registry`).  Pickle checkpoints (``*.bin``, ``*.pt``) can execute
code when unpickled, so they are refused unless ``allow_pickle=True``; even then they are read with
``torch.load(weights_only=True)``.  Every model is built with eager attention (SDPA returns no
attention maps) in evaluation mode, and a checkpoint that leaves any parameter uninitialized is
rejected rather than silently completed with random values.
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from theorems.errors import InvalidInput, UnknownName

from ._deps import require_torch, require_transformers
from .registry import MODELS, get_spec

log = logging.getLogger(__name__)

_PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")
_PREFIXES = ("transformer.", "model.", "bert.")


@dataclass(frozen=True)
class LoadedModel:
    """A model ready for :func:`llm_checks.adapters.adapt`, with where it came from."""

    name: str
    family: str
    model: Any = field(repr=False)
    source: str
    seed: int | None
    dtype: str
    path: str | None = None
    origin: tuple[tuple[str, Any], ...] = ()
    """Further provenance facts as ``(key, value)`` pairs: ``hub`` (repository id, revision, snapshot)
    for a hub id or cache path, ``in_memory`` (class, weights sha256, ...) and ``weights`` for objects."""

    def provenance(self) -> dict[str, Any]:
        """What identifies the weights: the label (the registry name only when the loaded shape is
        that name's shape), architecture and shape as loaded, absolute weight files with sha256,
        ``weights``: "random init (seed S)", "loaded from file" or "given in memory" (never
        "trained" for an init), and the ``origin`` facts (``hub``: repo id, revision, snapshot)."""
        torch = require_torch()
        transformers = require_transformers()
        from .identity import file_records, shape_of

        shape = shape_of(self.model.config)
        facts = dict(self.origin)
        out = {
            "model": _label(self.name, shape),
            "requested": self.name,
            "family": self.family,
            "architecture": shape["architecture"],
            "shape": shape,
            "source": self.source,
            "weights": f"random init (seed {self.seed})" if self.seed is not None else facts.pop("weights", "loaded from file"),
            "files": file_records(self.path) if self.seed is None else [],
            "seed": self.seed,
            "dtype": self.dtype,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        }
        out.update(facts)
        return out


def _label(name: str, shape: dict) -> str:
    spec = MODELS.get(name)
    if spec is None or spec.shipped:
        return name
    from .identity import shape_of

    expected = shape_of(spec.build_config())
    if expected == shape:
        return name
    return (f"{shape['architecture']} {shape['n_layers']} layers x {shape['n_heads']} heads, D={shape['d_model']} "
            f"(given as {name!r}, whose shape is {expected['n_layers']} x {expected['n_heads']}, D={expected['d_model']})")


@contextlib.contextmanager
def _quiet_transformers():
    """Scoped: no tqdm bars from transformers while loading (the library never prints)."""
    hf_logging = require_transformers().utils.logging
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _finish(model, dtype: str, device: str = "cpu"):
    torch = require_torch()
    if device != "cpu" and not (device.startswith("cuda") and torch.cuda.is_available()):
        raise InvalidInput("device", "cpu or an available CUDA device", device,
                           hint="this torch build sees no GPU" if device.startswith("cuda") else "")
    model = model.to(device=device, dtype=getattr(torch, dtype)).eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


def random_model(config, seed: int, dtype: str = "float32"):
    """A model built from ``config`` with the architecture's own initialization, seeded."""
    torch = require_torch()
    transformers = require_transformers()
    # fork_rng scopes the seed: the caller's global torch RNG stream is left untouched
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        with _quiet_transformers():
            model = transformers.AutoModel.from_config(config, attn_implementation="eager")
    return _finish(model, dtype)


def _check_complete(info: dict, where: str, model=None) -> None:
    """Every parameter read from the checkpoint.  One exception: a BERT checkpoint saved from a task
    model (``BertForMaskedLM`` ...) has no pooler, which no audit or measurement reads; the pooler is
    then removed instead of being left random (the task model's own ``bert`` has none either)."""
    missing = list(info.get("missing_keys", []))
    if missing and model is not None and getattr(model.config, "model_type", "") == "bert" \
            and all(k.startswith("pooler.") for k in missing) and getattr(model, "pooler", None) is not None:
        model.pooler = None
        missing = []
    if missing:
        raise InvalidInput(
            where,
            "a checkpoint holding every parameter of the model",
            f"{len(missing)} missing, e.g. {missing[:3]}",
            hint="the file is incomplete or belongs to another architecture",
        )


def _read_config(directory: Path):
    transformers = require_transformers()
    config_file = directory / "config.json"
    if not config_file.is_file():
        raise InvalidInput("weights", "a Hugging Face directory with config.json", str(directory),
                           hint="save the model with save_pretrained() or point to a .gguf file")
    try:
        json.loads(config_file.read_text())
        return transformers.AutoConfig.from_pretrained(str(directory), local_files_only=True)
    except Exception as exc:  # corrupt JSON, unknown model_type, ...
        raise InvalidInput(str(config_file), "a readable transformers config", f"{type(exc).__name__}: {exc}") from None


def _check_safetensors(files: list[Path]) -> None:
    from safetensors import safe_open

    for path in files:
        try:
            with safe_open(str(path), framework="pt") as handle:
                keys = list(handle.keys())
                if keys:
                    handle.get_slice(keys[-1])
        except Exception as exc:
            raise InvalidInput(str(path), "a readable safetensors file", f"{type(exc).__name__}: {exc}",
                               hint="the file is truncated or not safetensors; re-export it") from None


def _load_pickle(directory: Path, config, files: list[Path], dtype: str):
    torch = require_torch()
    transformers = require_transformers()
    with _quiet_transformers():
        model = transformers.AutoModel.from_config(config, attn_implementation="eager")
    state: dict = {}
    for path in files:
        try:
            state.update(torch.load(str(path), map_location="cpu", weights_only=True))
        except Exception as exc:
            raise InvalidInput(str(path), "a checkpoint readable with torch.load(weights_only=True)",
                               f"{type(exc).__name__}: {exc}") from None
    own = set(model.state_dict())
    renamed = {}
    for key, value in state.items():
        candidates = [key] + [key[len(p):] for p in _PREFIXES if key.startswith(p)]
        match = next((c for c in candidates if c in own), None)
        if match is not None:
            renamed[match] = value
    try:
        result = model.load_state_dict(renamed, strict=False)
    except RuntimeError as exc:  # shape mismatches
        raise InvalidInput(str(directory), "weights matching config.json", str(exc).splitlines()[0]) from None
    _check_complete({"missing_keys": list(result.missing_keys)}, str(directory), model)
    return _finish(model, dtype)


def load_directory(path: str | Path, *, allow_pickle: bool = False, dtype: str = "float32"):
    """Load a local Hugging Face directory or a ``.gguf`` file; returns ``(model, source)``."""
    transformers = require_transformers()
    target = Path(path)
    if not target.exists():
        raise InvalidInput("weights", "an existing directory or .gguf file", str(target))
    if target.is_file() and target.suffix == ".gguf":
        return _load_gguf(target, dtype), f"gguf {target}"
    if not target.is_dir():
        raise InvalidInput("weights", "a directory (config.json + *.safetensors) or a .gguf file", str(target))
    ggufs = sorted(target.glob("*.gguf"))
    if not (target / "config.json").exists() and len(ggufs) == 1:
        return _load_gguf(ggufs[0], dtype), f"gguf {ggufs[0]}"
    config = _read_config(target)
    tensors = sorted(target.glob("*.safetensors"))
    if tensors:
        _check_safetensors(tensors)
        try:
            with _quiet_transformers():
                model, info = transformers.AutoModel.from_pretrained(
                    str(target), local_files_only=True, use_safetensors=True,
                    attn_implementation="eager", output_loading_info=True,
                )
        except Exception as exc:
            raise InvalidInput(str(target), "safetensors weights matching config.json", f"{type(exc).__name__}: {exc}") from None
        _check_complete(info, str(target), model)
        return _finish(model, dtype), f"safetensors {target}"
    pickles = sorted(p for p in target.iterdir() if p.suffix in _PICKLE_SUFFIXES)
    if pickles and not allow_pickle:
        raise InvalidInput(
            "weights", "safetensors files", f"pickle checkpoint {pickles[0].name}",
            hint="pickle files can run code when loaded: convert to safetensors, or opt in with "
                 "--allow-pickle (loaded with torch.load(weights_only=True))",
        )
    if pickles:
        log.warning("loading pickle checkpoint(s) %s with weights_only=True", [p.name for p in pickles])
        return _load_pickle(target, config, pickles, dtype), f"pickle(weights_only) {target}"
    raise InvalidInput("weights", "*.safetensors files next to config.json", f"none in {target}")


def _load_gguf(path: Path, dtype: str):
    transformers = require_transformers()
    captured = io.StringIO()  # the GGUF de-quantizer draws a raw tqdm bar on stderr
    try:
        with _quiet_transformers(), contextlib.redirect_stderr(captured):
            model, info = transformers.AutoModel.from_pretrained(
                str(path.parent), gguf_file=path.name, local_files_only=True,
                attn_implementation="eager", output_loading_info=True,
            )
    except ImportError as exc:
        from theorems.errors import MissingDependency

        raise MissingDependency("gguf", "pip install 'consensus-verify[llm]'") from exc
    except Exception as exc:
        raise InvalidInput(str(path), "a GGUF file transformers can de-quantize", f"{type(exc).__name__}: {exc}") from None
    log.debug("GGUF loader output: %s", captured.getvalue()[-500:])
    _check_complete(info, str(path))
    return _finish(model, dtype)


def load_model(
    name: str,
    *,
    weights: str | Path | None = None,
    random_init: bool = False,
    seed: int = 0,
    allow_pickle: bool = False,
    dtype: str = "float32",
    device: str = "cpu",
    on_event: Callable[[str], None] | None = None,
) -> LoadedModel:
    """Resolve ``name`` (a registry name or a path) and load it.

    ``weights`` loads a local directory / GGUF file whose architecture must match the named
    family; ``random_init`` builds the named config (or a shipped model's config) with seed
    ``seed``; with neither, only shipped models (``minilm``, ``smollm2``) and paths load.
    ``device`` (``cpu`` or ``cuda[:N]``) and ``dtype`` are applied here once and recorded.
    Hugging Face ids (``org/name[@rev]`` or legacy ids such as ``gpt2``, as ``name`` or ``weights``)
    and paths inside a hub cache resolve offline through :mod:`llm_checks.hub`; provenance then
    records the repository, revision and file hashes.  A registry shape with a hub id
    (``gpt2-xl``, ``gpt-neo-2.7B``) loads the cached real weights when neither ``weights`` nor
    ``random_init`` is given.  ``on_event(message)`` receives progress messages (loading, the
    memory estimate before a random init); the library itself never prints.
    """
    if dtype not in ("float32", "float64", "float16", "bfloat16"):
        raise InvalidInput("dtype", "float32, float64, float16 or bfloat16", dtype)
    if not (device == "cpu" or device.startswith("cuda")):
        raise InvalidInput("device", "cpu or cuda[:N]", device)
    if weights is not None and random_init:
        raise InvalidInput("weights", "either a weights directory or random_init, not both", str(weights))
    say = on_event or (lambda message: None)
    say(f"loading {name}" + (f" with weights {weights}" if weights is not None else "") + (" (random init)" if random_init else ""))
    loaded = _load_named(name, weights, random_init, seed, allow_pickle, dtype, say)
    if device != "cpu":
        say(f"moving the model to {device}")
        _finish(loaded.model, dtype, device)
    return loaded


def _locate(text: str, option: str):
    """``(local path, HubSnapshot or None)`` for a path, a hub-cache path or a hub id; ``(None, None)`` otherwise."""
    from . import hub

    if Path(text).exists():
        snapshot = hub.from_cache_path(text)
        return (str(snapshot.path) if snapshot else text), snapshot
    if hub.is_hub_id(text):
        snapshot = hub.resolve(text, option)
        return str(snapshot.path), snapshot
    return None, None


def _hub_origin(snapshot) -> tuple:
    return (("hub", snapshot.provenance()),) if snapshot is not None else ()


def _init(config, seed, dtype, say):
    from .identity import memory_estimate

    est = memory_estimate(config, dtype)
    say(f"initialising a random {config.model_type} (seed {seed}): {est['parameters'] / 1e6:.1f} M parameters, "
        f"about {est['bytes'] / 2**30:.2f} GiB of memory during the init")
    return random_model(config, seed, dtype)


def _abs(path) -> str:
    return str(Path(path).resolve())


def _load_named(name, weights, random_init, seed, allow_pickle, dtype, say=lambda m: None) -> LoadedModel:
    if name not in MODELS:
        path, snapshot = _locate(name, "model")
        if path is None and name.endswith(".gguf"):
            path = name  # load_directory names the missing file
        if path is None:
            raise UnknownName("model", name, list(MODELS) + list(hub_ids()))
        model, source = load_directory(path, allow_pickle=allow_pickle, dtype=dtype)
        family = str(model.config.model_type)
        if random_init:
            config = model.config
            del model
            model, source = _init(config, seed, dtype, say), f"random init (seed {seed}) from the config of {_abs(path)}"
        return LoadedModel(name, family, model, source, seed if random_init else None, dtype,
                           None if random_init else _abs(path), _hub_origin(snapshot))
    spec = get_spec(name)
    if weights is None and not random_init and not spec.shipped and spec.hub_id:
        try:  # the registry shape's real weights, from the local hub cache
            _locate(spec.hub_id, "model")
        except InvalidInput as exc:
            raise InvalidInput("model", exc.expected, exc.got, hint=f"{exc.hint}; or --random-init for {name}'s shape "
                               "with random weights") from None
        weights = spec.hub_id
    if weights is not None:
        path, snapshot = _locate(str(weights), "weights")
        if path is None:
            raise InvalidInput("weights", "an existing directory or .gguf file, or a cached Hugging Face id", str(weights))
        model, source = load_directory(path, allow_pickle=allow_pickle, dtype=dtype)
        got = str(model.config.model_type)
        if got != spec.family:
            raise InvalidInput("weights", f"a {spec.family} checkpoint for model {name!r}", got)
        return LoadedModel(name, spec.family, model, source, None, dtype, _abs(path), _hub_origin(snapshot))
    if random_init:
        if spec.shipped:
            shipped, _ = load_directory(spec.weights_path(), dtype=dtype)
            config = shipped.config
            del shipped
        else:
            config = spec.build_config()
        return LoadedModel(name, spec.family, _init(config, seed, dtype, say), f"random init (seed {seed})", seed, dtype)
    if not spec.shipped:
        raise InvalidInput("model", f"weights for {name!r}", "no weights given",
                           hint="pass --weights DIR (a local Hugging Face directory) or --random-init")
    model, source = load_directory(spec.weights_path(), dtype=dtype)
    return LoadedModel(name, spec.family, model, source, None, dtype, _abs(spec.weights_path()))


def hub_ids() -> tuple[str, ...]:
    """Hub ids offered as close matches for an unknown name (legacy ids and the registry's hub ids)."""
    from .hub import LEGACY_IDS

    return tuple(LEGACY_IDS) + tuple(s.hub_id for s in MODELS.values() if s.hub_id)


def tokenizer_factory(loaded: LoadedModel):
    """A zero-argument callable loading ``loaded``'s own tokenizer, or None for a random init."""
    from .identity import tokenizer_loader

    return tokenizer_loader(loaded.path) if loaded.seed is None else None
