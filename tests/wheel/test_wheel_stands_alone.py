"""The built wheel stands alone (issue 24): outside the clone, every README console block that names
an example runs as the README shows, through the packaged examples (and so does every command of
docs/*.md that names one).

The wheel is built once (``pip wheel --no-deps --no-build-isolation`` on a copy of the sources, so
no ``build/`` appears in the clone and nothing is fetched) and installed with ``--no-deps`` into a
fresh virtual environment made ``--without-pip``.  That environment sees its dependencies (NumPy,
SymPy, ...) through one ``.pth`` line naming this interpreter's ``site-packages``: a plain path line,
so the ``.pth`` files there (this project's editable-install hook among them) are not run, and
neither the clone nor ``PYTHONPATH`` is on its path (checked).  Commands run from a temporary
directory; outputs and exit codes are compared with :mod:`tests.docs.console`'s rules.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.docs.console import Block, Command, console_blocks, mismatch

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("theorems", "verify", "numerics", "llm_checks")
SOURCES = (*PACKAGES, "pyproject.toml", "README.md", "LICENSE")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CLONE_PATHS = ("examples/", "docs/")


def _names_an_example(command: Command) -> bool:
    return any(w.startswith("example:") or w == "examples" or w.startswith(CLONE_PATHS)
               for argv in command.steps for w in argv[1:])


def _selected(block: Block) -> Block | None:
    """A README block naming an example, whole (a later command may read what an earlier one wrote);
    of a docs/*.md block, the commands that name one (the others are tests/docs' business)."""
    if not any(_names_an_example(c) for c in block.commands):
        return None
    if block.source.startswith("README.md"):
        return block
    return Block(block.source, tuple(c for c in block.commands if _names_an_example(c)))


BLOCKS = [s for p in DOCS for b in console_blocks(p, str(p.relative_to(ROOT))) for s in [_selected(b)] if s]


pytestmark = pytest.mark.slow  # about 35 s on 2 cores: one wheel build, one venv, a handful of commands


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1", PYTHONUNBUFFERED="1", MPLBACKEND="Agg")
    return env


def _build(tmp: Path, env: dict[str, str]) -> None:
    """Copy the sources, build the wheel, make the venv, install the wheel, point it at the dependencies."""
    from importlib.metadata import version

    major = int(version("setuptools").split(".")[0])
    assert major >= 77, f"setuptools {version('setuptools')} cannot build this project offline: pip install '.[test]'"
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, src / name)

    def run(*argv: str | Path) -> None:
        done = subprocess.run([str(a) for a in argv], cwd=tmp, env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"

    run(sys.executable, "-m", "pip", "wheel", src, "--no-deps", "--no-build-isolation", "-q", "-w", tmp / "dist")
    run(sys.executable, "-m", "venv", "--without-pip", tmp / "venv")
    wheel = next((tmp / "dist").glob("consensus_verify-*.whl"))
    run(sys.executable, "-m", "pip", "--python", tmp / "venv" / "bin" / "python", "install", "--no-deps", "--no-index",
        "-q", wheel)
    deps = sysconfig.get_paths()["purelib"]
    assert Path(deps).resolve() != ROOT.resolve()  # dependencies only, never the clone's packages
    (_purelib(tmp) / "_consensus_verify_deps.pth").write_text(deps + "\n")


def _purelib(tmp: Path) -> Path:
    python = tmp / "venv" / "bin" / "python"
    return Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory) -> dict:
    """Built once per session: pytest-xdist workers share this session's base directory and a lock."""
    import fcntl

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # this session's directory, common to its workers (not to other sessions)
    tmp, env = shared / "wheel-stands-alone", _environment()
    with open(shared / "wheel-stands-alone.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (tmp / "ready").exists():
            shutil.rmtree(tmp, ignore_errors=True)  # a build that failed half-way
            tmp.mkdir()
            _build(tmp, env)
            (tmp / "ready").touch()
    work = tmp_path_factory.mktemp("work")
    return {"tmp": tmp, "wheel": next((tmp / "dist").glob("consensus_verify-*.whl")),
            "python": tmp / "venv" / "bin" / "python", "verify": tmp / "venv" / "bin" / "verify",
            "purelib": _purelib(tmp), "work": work, "env": env}


def _verify(wheel_env, argv: tuple[str, ...], cwd: Path) -> tuple[int, str]:
    done = subprocess.run([str(wheel_env["verify"]), *argv[1:]], cwd=cwd, env=wheel_env["env"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300, check=False)
    return done.returncode, done.stdout


def test_the_wheel_carries_examples_docs_and_type_markers(wheel_env) -> None:
    names = set(zipfile.ZipFile(wheel_env["wheel"]).namelist())
    assert {f"{p}/py.typed" for p in PACKAGES} <= names
    examples = {n for n in names if n.startswith("verify/data/examples/") and n.endswith(".json")}
    assert {Path(n).stem for n in examples} == {p.stem for p in (ROOT / "examples").glob("*.json")}
    assert "verify/data/docs/format.md" in names and "verify/schemas/examples.schema.json" in names
    assert "examples/tour.ipynb" not in names


def test_every_console_script_of_the_wheel_resolves(wheel_env) -> None:
    """pyproject's [project.scripts] name only functions that exist (no ``llm_checks.install_models``)."""
    import configparser

    wheel = zipfile.ZipFile(wheel_env["wheel"])
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt"))
    parser = configparser.ConfigParser()
    parser.read_string(wheel.read(name).decode())
    scripts = dict(parser["console_scripts"])
    assert scripts == {"verify": "verify.cli.main:entry"}
    for target in scripts.values():
        module, _, attr = target.partition(":")
        subprocess.run([str(wheel_env["python"]), "-c", f"import {module}; callable({module}.{attr}) or exit(1)"],
                       cwd=wheel_env["work"], env=wheel_env["env"], check=True, timeout=120)


def test_the_installed_package_is_the_wheel_not_the_clone(wheel_env) -> None:
    code = ("import sys, verify, theorems, numerics, llm_checks; "
            "print(*[m.__file__ for m in (verify, theorems, numerics, llm_checks)], sep='\\n'); print(*sys.path, sep='\\n')")
    done = subprocess.run([str(wheel_env["python"]), "-c", code], cwd=wheel_env["work"], env=wheel_env["env"],
                          capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    files, path = lines[:4], lines[4:]
    assert all(Path(f).is_relative_to(wheel_env["purelib"]) for f in files), files
    assert not any(p and Path(p).resolve() == ROOT.resolve() for p in path), path


def test_the_readme_blocks_naming_examples_are_found() -> None:
    readme = [b for b in BLOCKS if b.source.startswith("README.md")]
    assert len(readme) >= 3, [b.id for b in BLOCKS]
    used = [w for b in BLOCKS for c in b.commands for argv in c.steps for w in argv if w.startswith(CLONE_PATHS)]
    assert not used, f"a command names a file of the clone, which a wheel user does not have: {used}"


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs_from_the_installed_wheel(block: Block, wheel_env, tmp_path) -> None:
    """Each block in its own empty directory outside the clone; every command as the block shows it."""
    checked = 0
    for cmd in block.commands:
        code, text = 0, ""
        for argv in cmd.steps:
            assert argv[0] == "verify", cmd.line
            code, out = _verify(wheel_env, argv, tmp_path)
            text += out
            if code != 0:
                break
        assert code == cmd.exit_code, f"{block.source}: `{cmd.line}` exited {code}, the block says {cmd.exit_code}:\n{text}"
        if cmd.expected:
            problem = mismatch(cmd.expected, text)
            assert problem is None, f"{block.source}: `{cmd.line}`: {problem}"
        checked += 1
    assert checked == len(block.commands)
