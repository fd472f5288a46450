"""Imports flow one way (STYLE.md §10): a walk over every import statement of the packages.

``theorems`` is the base (it imports none of the others, nor plotting or BLAS control);
``numerics`` builds on ``theorems``; ``verify`` on both; only ``llm_checks`` imports torch or
transformers at module level; nothing imports ``llm_checks`` except the CLI commands that
dispatch to it; :mod:`verify._reproduce` never imports :mod:`verify.cli`.  Imports inside
functions count too (a lazy import is still a dependency); the few lazy imports of an optional
heavy dependency outside ``llm_checks`` are listed below with their reason.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("theorems", "numerics", "verify", "llm_checks")
HEAVY = ("torch", "transformers", "safetensors", "gguf", "accelerate")

MAY_IMPORT = {
    "theorems": {"theorems"},
    "numerics": {"theorems", "numerics"},
    "verify": {"theorems", "numerics", "verify"},
    "llm_checks": {"theorems", "numerics", "llm_checks"},
}
CLI = "verify/cli/"
"""The CLI commands dispatch to :mod:`llm_checks` (``audit``, ``consensus``, the LLM cases of ``reproduce``)."""
API_DISPATCH = ("verify/api/audit.py", "verify/api/consensus.py", "verify/api/fate_heads.py")
"""The façade calls ``verify.audit`` / ``verify.consensus`` import :mod:`llm_checks` inside the call only;
``verify/api/fate_heads.py`` (``verify audit MODEL --fate``) reads weights and hidden states the same way."""
LAZY_HEAVY = {
    "numerics/torch_backend.py": "optional torch integrator backend; torch imported inside a function, "
                                 "MissingDependency when absent",
}
"""Function-level imports of a heavy dependency outside llm_checks, each with its reason."""
BASE_FORBIDDEN = ("matplotlib", "threadpoolctl", "tqdm")


def _modules() -> list[Path]:
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    assert len(files) > 100, "the walk found too few modules"
    return files


def _imports(path: Path) -> list[tuple[str, bool]]:
    """``(absolute module name, at module level)`` of every import in ``path``."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    top = {id(n) for n in tree.body} | {id(n) for node in tree.body if isinstance(node, (ast.If, ast.Try))
                                        for n in ast.walk(node)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((name, id(node) in top))
    return out


def _edges():
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        for name, at_top in _imports(path):
            yield rel, rel.split("/")[0], name, name.split(".")[0], at_top


def test_packages_import_only_what_they_build_on():
    assert any(root == "llm_checks" and rel.startswith(CLI) for rel, _, _, root, _ in _edges())  # the rule bites
    bad = [f"{rel} imports {name}" for rel, pkg, name, root, top in _edges()
           if root in PACKAGES and root not in MAY_IMPORT[pkg]
           and not (root == "llm_checks" and (rel.startswith(CLI) or (rel in API_DISPATCH and not top)))]
    assert not bad, bad


def test_only_llm_checks_imports_torch_and_transformers():
    at_top = [f"{rel} imports {name}" for rel, pkg, name, root, top in _edges()
              if root in HEAVY and pkg != "llm_checks" and top]
    assert not at_top, at_top
    lazy = {rel for rel, pkg, name, root, top in _edges() if root in HEAVY and pkg != "llm_checks"}
    assert lazy <= set(LAZY_HEAVY), sorted(lazy - set(LAZY_HEAVY))


def test_the_base_package_stays_light():
    bad = [f"{rel} imports {name}" for rel, pkg, name, root, top in _edges() if pkg == "theorems" and root in BASE_FORBIDDEN]
    assert not bad, bad


def test_reproduce_does_not_import_the_cli():
    bad = [f"{rel} imports {name}" for rel, _, name, _, _ in _edges()
           if rel.startswith("verify/_reproduce/") and (name == "verify.cli" or name.startswith("verify.cli."))]
    assert not bad, bad


def _cycles(packages: tuple[str, ...]) -> list[str]:
    """Import cycles (lazy imports included) through plain modules of ``packages`` (a package
    ``__init__`` that re-exports lazily is skipped: importing it does not import the others)."""
    graph: dict[str, set[str]] = {}
    for top in packages:
        for path in sorted((ROOT / top).rglob("*.py")):
            mod = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            graph[mod] = {name for name, _ in _imports(path) if name.split(".")[0] in packages}
    found, seen, stack = [], set(), []

    def visit(node: str) -> None:
        if node in stack:
            cycle = stack[stack.index(node):] + [node]
            if not any((ROOT / Path(*m.split("."))).is_dir() for m in cycle):
                found.append(" -> ".join(cycle))
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()

    for mod in sorted(graph):
        visit(mod)
    return found


def test_no_import_cycle():
    assert _cycles(PACKAGES) == []


def test_no_string_registry_names_a_module():
    """Registries point down: no ``"package.module:attribute"`` string resolved at run time."""
    import re

    ref = re.compile(r"""["'](?:theorems|numerics|verify|llm_checks)\.[\w.]+:[A-Za-z_]\w*["']""")
    bad = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _modules() for m in ref.finditer(p.read_text())]
    assert not bad, bad


def test_importing_every_non_llm_module_loads_no_heavy_dependency():
    names = [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for p in _modules()
             if p.parts[len(ROOT.parts)] != "llm_checks"]
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]", out.stdout
