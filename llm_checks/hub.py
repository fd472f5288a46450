"""Hugging Face ids, resolved offline through huggingface_hub's cache API; nothing is downloaded.

An id is ``org/name`` or a legacy un-namespaced id (``gpt2``, ``gpt2-medium``, ``gpt2-xl``,
``distilgpt2``, ``bert-base-uncased``, ...), optionally ``@revision`` (a branch, tag or commit).
The hub moved the legacy ids into organisations (``gpt2`` is now ``openai-community/gpt2``) and a
download lands in the folder of the id it was asked for, so both spellings are looked up.

Cache directories, in order: ``cache_dir`` when given; else the one huggingface_hub itself uses,
read from the environment at call time (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else
``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``), then the other three of
those locations.  In each, :func:`huggingface_hub.snapshot_download` with ``local_files_only=True``
resolves the revision (``refs/<revision>`` or a commit) to a snapshot and refuses a snapshot its
cached file listing shows incomplete.  A repository folder without ``refs/main`` but with exactly
one snapshot resolves to that snapshot (``ref`` is then ``None``).

A model that is not cached raises :class:`InvalidInput` (CLI exit 2) whose hint is the command that
would fetch it (:func:`fetch_command`) and the folders looked in.  Paths inside a cache (a
``models--org--name`` folder or one of its ``snapshots/<commit>``) are recognised by
:func:`from_cache_path`, so provenance records the repository and revision for them too.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from theorems.errors import InvalidInput, MissingDependency

LEGACY_IDS = {
    "gpt2": "openai-community/gpt2",
    "gpt2-medium": "openai-community/gpt2-medium",
    "gpt2-large": "openai-community/gpt2-large",
    "gpt2-xl": "openai-community/gpt2-xl",
    "distilgpt2": "distilbert/distilgpt2",
    "bert-base-uncased": "google-bert/bert-base-uncased",
    "bert-base-cased": "google-bert/bert-base-cased",
    "bert-large-uncased": "google-bert/bert-large-uncased",
    "bert-large-cased": "google-bert/bert-large-cased",
}
"""Un-namespaced ids the hub still answers, and the organisation repository they moved to."""

FETCH_PATTERNS = ("*.json", "*.safetensors", "*.txt", "*.model")
"""What :func:`fetch_command` downloads: config, safetensors weights (and index), tokenizer files."""

_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*(?:@[\w./-]+)?$")


@dataclass(frozen=True)
class HubSnapshot:
    """One cached revision of a hub repository."""

    repo_id: str
    revision: str
    ref: str | None
    path: Path
    cache: Path

    def provenance(self) -> dict:
        """``repo_id``, ``revision`` (the commit of the snapshot), ``ref`` (the branch or tag that
        named it, ``None`` when only the folder did) and the snapshot and cache paths."""
        return {"repo_id": self.repo_id, "revision": self.revision, "ref": self.ref,
                "snapshot": str(self.path), "cache": str(self.cache)}


def _hub():
    try:
        import huggingface_hub
    except ImportError as exc:  # pragma: no cover - transformers depends on it
        raise MissingDependency("huggingface_hub", "pip install 'consensus-verify[llm]'") from exc
    return huggingface_hub


def cache_dirs(cache_dir: str | Path | None = None) -> list[Path]:
    """Where cached repositories are looked for (module docstring), without duplicates."""
    env = os.environ
    home = Path(env["HF_HOME"]) / "hub" if env.get("HF_HOME") else None
    xdg = Path(env["XDG_CACHE_HOME"]) / "huggingface" / "hub" if env.get("XDG_CACHE_HOME") else None
    hub_own = Path(env["HF_HUB_CACHE"]) if env.get("HF_HUB_CACHE") else (home or xdg or Path.home() / ".cache" / "huggingface" / "hub")
    order = [Path(cache_dir)] if cache_dir is not None else []
    order += [hub_own, home, xdg, Path.home() / ".cache" / "huggingface" / "hub"]
    out: list[Path] = []
    for root in order:
        if root is not None and root.expanduser() not in out:
            out.append(root.expanduser())
    return out


def split_revision(text: str) -> tuple[str, str | None]:
    """``"org/name@rev"`` -> ``("org/name", "rev")``; no ``@``: revision ``None`` (the ``main`` ref)."""
    repo, _, revision = str(text).partition("@")
    return repo, (revision or None)


def canonical(repo_id: str) -> str:
    """The organisation id a legacy id moved to (itself otherwise)."""
    return LEGACY_IDS.get(repo_id, repo_id)


def spellings(repo_id: str) -> list[str]:
    """Every cache folder name the repository may have been downloaded under."""
    out = [repo_id, canonical(repo_id)]
    out += [old for old, new in LEGACY_IDS.items() if new == repo_id]
    return list(dict.fromkeys(out))


def _folder(repo_id: str) -> str:
    return "models--" + repo_id.replace("/", "--")


def is_hub_id(text: str, cache_dir: str | Path | None = None) -> bool:
    """``org/name[@rev]`` that is not an existing path, a legacy id, or an un-namespaced name cached locally."""
    text = str(text)
    if not _ID.match(text) or Path(text).exists():
        return False
    repo, _ = split_revision(text)
    if "/" in repo or repo in LEGACY_IDS:
        return True
    return any((root / _folder(repo)).is_dir() for root in cache_dirs(cache_dir))


def fetch_command(repo_id: str, revision: str | None = None) -> str:
    """The shell command that downloads what the loaders read into huggingface_hub's cache."""
    include = " ".join(f"--include '{p}'" for p in FETCH_PATTERNS)
    rev = f" --revision {revision}" if revision else ""
    return f"HF_HUB_OFFLINE=0 hf download {canonical(repo_id)}{rev} {include}"


def _snapshot(hub, repo_id: str, revision: str | None, root: Path) -> HubSnapshot | None:
    errors = hub.errors
    try:
        found = hub.snapshot_download(repo_id, revision=revision, cache_dir=str(root), local_files_only=True,
                                      allow_patterns=["config.json", "*.safetensors", "*.safetensors.index.json"])
    except getattr(errors, "IncompleteSnapshotError", ()) as exc:
        raise InvalidInput("model", f"a complete cached snapshot of {repo_id!r}", "incomplete snapshot",
                           hint=f"{str(exc).split(' Re-run')[0]} Fetch it with: {fetch_command(repo_id, revision)}") from None
    except errors.LocalEntryNotFoundError:
        snapshots = root / _folder(repo_id) / "snapshots"
        only = sorted(p for p in snapshots.iterdir() if p.is_dir()) if snapshots.is_dir() and revision is None else []
        if len(only) != 1 or (root / _folder(repo_id) / "refs" / "main").is_file():
            return None
        return HubSnapshot(repo_id, only[0].name, None, only[0], root)
    path = Path(found)
    return HubSnapshot(repo_id, path.name, None if revision == path.name else (revision or "main"), path, root)


def resolve(text: str, option: str = "model", cache_dir: str | Path | None = None) -> HubSnapshot:
    """The cached snapshot of hub id ``text`` (``org/name[@rev]`` or a legacy id); InvalidInput when
    it is not cached, whose hint is the command that fetches it and the folders looked in."""
    hub = _hub()
    repo_id, revision = split_revision(text)
    looked = []
    for root in cache_dirs(cache_dir):
        for name in spellings(repo_id):
            looked.append(str(root / _folder(name)))
            try:
                found = _snapshot(hub, name, revision, root)
            except InvalidInput as exc:
                raise InvalidInput(option, exc.expected, exc.got, hint=exc.hint) from None
            if found is not None:
                return found
    what = f"{repo_id!r}" + (f" at revision {revision!r}" if revision else "")
    raise InvalidInput(option, f"the Hugging Face model {what} in the local cache (offline: nothing is downloaded)",
                       "not cached", hint=f"fetch it with: {fetch_command(repo_id, revision)}; looked in " + ", ".join(looked)
                       + "; or set HF_HUB_CACHE, or pass a local directory")


def from_cache_path(path: str | Path) -> HubSnapshot | None:
    """The snapshot a local path names when it lies in a hub cache: a repository folder
    ``.../models--org--name`` (resolved through ``refs/main``) or ``.../models--org--name/snapshots/<commit>``."""
    target = Path(path).absolute()
    if target.name.startswith("models--") and (target / "snapshots").is_dir():
        repo_id = target.name[len("models--"):].replace("--", "/")
        found = _snapshot(_hub(), repo_id, None, target.parent)
        if found is None:
            raise InvalidInput("model", f"a snapshot named by refs/main in {target}", "none",
                               hint=f"pass {target}/snapshots/<commit>, or fetch it with: {fetch_command(repo_id)}")
        return found
    if target.parent.name == "snapshots" and target.parent.parent.name.startswith("models--") and target.is_dir():
        repo = target.parent.parent
        refs = repo / "refs"
        named = sorted(r.name for r in refs.iterdir() if r.is_file() and r.read_text().strip() == target.name) if refs.is_dir() else []
        return HubSnapshot(repo.name[len("models--"):].replace("--", "/"), target.name,
                           "main" if "main" in named else (named[0] if named else None), target, repo.parent)
    return None
