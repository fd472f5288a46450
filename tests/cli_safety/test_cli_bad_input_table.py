"""Issue 9 (soundness): malformed input across commands exits 2, names the field or option,
shows no traceback and writes nothing.

Each case builds its inputs in a fresh directory and returns the command line.  The test then
snapshots that directory (names, file types, sizes, contents of regular files; a FIFO is never
opened) and ``/dev/null`` (inode, device numbers), runs ``verify`` in-process and checks that
both are unchanged.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import stat
from pathlib import Path

import pytest

from verify.cli.main import main

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
INSTANCE = {"d": 3, "beta": 1, "mask": "full", "heads": [{"P": "identity", "U": "identity"}],
            "tokens": [[1, 0, 0], ["3/5", "4/5", 0]]}
SIM = ["simulate", "--preset", "constant-identity-full", "--points", "3"]
CONSENSUS = ["consensus", "gpt2-tiny", "--random-init", "--no-progress"]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _write(path: Path, data) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _instance(tmp: Path, **changes) -> str:
    return _write(tmp / "inst.json", dict(INSTANCE, **changes))


def _cert(tmp: Path, mutate, name: str = "sos_parrilo_quartic.json") -> str:
    data = json.loads((GOLDEN / name).read_text())
    out = mutate(data)  # mutates in place, or returns a new object
    return _write(tmp / "cert.json", out if isinstance(out, dict) else data)


def _set(path, value):
    def mutate(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _fifo(tmp: Path, name: str = "fifo") -> str:
    os.mkfifo(tmp / name)
    return str(tmp / name)


def _existing(tmp: Path, name: str = "existing.json") -> str:
    return _write(tmp / name, "keep me\n")


def _dir(tmp: Path, name: str = "adir") -> str:
    (tmp / name).mkdir()
    return str(tmp / name)


def _link(tmp: Path, name: str = "link.json") -> str:
    (tmp / name).symlink_to(_existing(tmp, "target.json"))
    return str(tmp / name)


def _previous_report(tmp: Path) -> str:
    (tmp / "prev").mkdir()
    _write(tmp / "prev" / "report.json", {"kind": "consensus-verify reproduction report"})
    return str(tmp / "prev")


def _dir_holding(tmp: Path, name: str, fifo: bool = False) -> str:
    directory = Path(_dir(tmp))
    _fifo(directory, name) if fifo else _existing(directory, name)
    return str(directory)


def _dir_link(tmp: Path) -> str:
    (tmp / "ln").symlink_to(_dir(tmp))
    return str(tmp / "ln")


def _huge_int_text(tmp: Path) -> str:
    text = json.dumps(INSTANCE).replace('"3/5"', "1" + "0" * 5000, 1)
    return _write(tmp / "inst.json", text)


def _big_file(tmp: Path) -> str:
    with open(tmp / "big.json", "wb") as fh:  # sparse: 51 MB on paper, nothing on disk
        fh.truncate(51 * 1024 * 1024)
    return str(tmp / "big.json")


def _recheck(mutate, name="sos_parrilo_quartic.json"):
    return lambda t: ["recheck", _cert(t, mutate, name)]


DEEP = "[" * 100_000 + "]" * 100_000
LYA = "lyapunov_damped_oscillator.json"
CASES = [
    # instances
    ("instance deep nesting", lambda t: ["assumptions", "3.2", "--instance", _write(t / "i.json", DEEP)], "nested at most 64"),
    ("instance 5000-digit int", lambda t: ["assumptions", "3.2", "--instance", _huge_int_text(t)], "tokens[1][0]"),
    ("instance d=4096", lambda t: ["assumptions", "3.2", "--instance", _instance(t, d=4096)], "d: expected an integer between 1 and 1024"),
    ("instance d huge int", lambda t: ["assumptions", "3.2", "--instance", _write(t / "i.json", '{"d": 1' + "0" * 5000 + "}")], "d: expected an integer of at most 4000 digits"),
    ("instance N too large", lambda t: ["assumptions", "3.2", "--instance", _instance(t, tokens=[[1, 0, 0]] * 20_001)], "at most 20000 tokens"),
    ("instance too many heads", lambda t: ["assumptions", "3.2", "--instance", _instance(t, heads=[{"P": "zero", "U": "identity"}] * 65)], "at most 64 heads"),
    ("instance too many numbers", lambda t: ["assumptions", "3.2", "--instance", _instance(t, d=600, tokens=[[1] + [0] * 599] * 501)], "at most 300000 numbers"),
    ("instance too many layers", lambda t: ["assumptions", "3.2", "--instance", _instance(t, d=1, tokens=[[1]], heads=[{"P": {"kind": "stack", "layers": [[[1]]] * 1025}, "U": "identity"}])], "at most 1024 layers"),
    ("instance NaN", lambda t: ["assumptions", "3.2", "--instance", _write(t / "i.json", '{"d": 3, "beta": NaN}')], "NaN"),
    ("instance 51 MB", lambda t: ["assumptions", "3.2", "--instance", _big_file(t)], "at most 50 MB"),
    ("instance name forging a line", lambda t: ["theorem", "3.2", "--instance", _instance(t, name="x\nverdict: holds")], "name: expected a string of at most 200 printable"),
    ("instance is a FIFO", lambda t: ["assumptions", "3.2", "--instance", _fifo(t)], "regular file"),
    ("instance is a directory", lambda t: ["theorem", "3.2", "--instance", _dir(t)], "regular file"),
    # simulate options and outputs
    ("simulate t_end 1e300", lambda t: SIM + ["--t-end", "1e300"], "--t-end: expected a positive finite number at most 5000"),
    ("simulate t_end nan", lambda t: SIM + ["--t-end", "nan"], "--t-end"),
    ("simulate t_end -inf", lambda t: SIM + ["--t-end=-inf"], "--t-end"),
    ("simulate digits", lambda t: SIM + ["--t-end", "1", "--digits", "100000"], "--digits: expected an integer between 8 and 200"),
    ("simulate samples", lambda t: SIM + ["--t-end", "1", "--samples", "1000000"], "--samples"),
    ("simulate tokens", lambda t: SIM + ["--t-end", "1", "--tokens", "100000"], "--tokens"),
    ("simulate dim", lambda t: SIM + ["--t-end", "1", "--dim", "5000"], "--dim"),
    ("simulate points", lambda t: SIM + ["--t-end", "1", "--points", "1"], "--points"),
    ("simulate rtol", lambda t: SIM + ["--t-end", "1", "--rtol", "0"], "--rtol"),
    ("simulate work limit", lambda t: SIM + ["--t-end", "100", "--samples", "10000", "--tokens", "1000"], "a simulation estimated at most 60 s"),
    ("simulate plot FIFO", lambda t: SIM + ["--t-end", "1", "--plot", _fifo(t, "f.png")], "--plot: expected a regular file name"),
    ("simulate json /dev/null", lambda t: SIM + ["--t-end", "1", "--json", "/dev/null", "--force"], "character device"),
    ("simulate plot directory", lambda t: SIM + ["--t-end", "1", "--plot", _dir(t, "d.png")], "--plot"),
    ("simulate json exists", lambda t: SIM + ["--t-end", "1", "--json", _existing(t)], "--force"),
    ("simulate json symlink", lambda t: SIM + ["--t-end", "1", "--json", _link(t), "--force"], "symbolic link"),
    ("simulate json parent is a file", lambda t: SIM + ["--t-end", "1", "--json", _existing(t, "f") + "/x.json"], "--json"),
    # sos / lyapunov
    ("sos save /dev/null", lambda t: ["sos", "x^2", "--save", "/dev/null", "--force"], "--save"),
    ("sos save FIFO", lambda t: ["sos", "x^2", "--save", _fifo(t), "--force"], "FIFO"),
    ("sos save exists", lambda t: ["sos", "x^2", "--save", _existing(t)], "pass --force"),
    ("sos degree huge", lambda t: ["sos", "x^2", "--degree", "100000"], "--degree"),
    ("sos products many", lambda t: ["sos", "x", "--on", ", ".join(f"x - {k} >= 0" for k in range(11)), "--products"], "--products"),
    ("lyapunov degree huge", lambda t: ["lyapunov", "--field", "-x", "--vars", "x", "--degree", "1000000"], "--degree"),
    ("lyapunov save directory", lambda t: ["lyapunov", "--field", "-x", "--vars", "x", "--save", _dir(t)], "--save"),
    # theorem
    ("theorem t_end", lambda t: ["theorem", "4.2", "--t-end", "1e300"], "--t-end"),
    ("theorem save is a file", lambda t: ["theorem", "4.2", "--save", _existing(t)], "--save: expected a directory"),
    ("theorem report exists", lambda t: ["theorem", "4.2", "--save", _dir_holding(t, "4_2__report.json")], "pass --force"),
    ("theorem earlier certificate", lambda t: ["theorem", "4.2", "--save", _dir_holding(t, "4_2__token2_decrease.json")], "pass --force"),
    ("theorem report is FIFO", lambda t: ["theorem", "4.2", "--force", "--save", _dir_holding(t, "4_2__report.json", True)], "FIFO"),
    ("theorem save symlink", lambda t: ["theorem", "4.2", "--save", _dir_link(t)], "symbolic link"),
    # certificates
    ("cert variable -x", _recheck(_set(["variables"], ["-x", "y"])), "certificate.variables[0]"),
    ("cert variable newline", _recheck(_set(["variables"], ["x\nrecheck: HOLDS", "y"])), "certificate.variables[0]"),
    ("cert variables repeated", _recheck(_set(["variables"], ["x", "x"])), "distinct variable names"),
    ("cert variables not a list", _recheck(_set(["variables"], "x,y")), "certificate.variables"),
    ("cert missing polynomial", _recheck(lambda d: {k: v for k, v in d.items() if k != "polynomial"}), "certificate.polynomial"),
    ("cert unknown key", _recheck(_set(["extra"], 1)), "certificate.extra"),
    ("cert gram not square", _recheck(lambda d: d["sos_terms"][0]["gram"][0].pop()), "certificate.sos_terms[0].gram[0]"),
    ("cert exponent arity", _recheck(lambda d: d["sos_terms"][0]["basis"][0].append(0)), "certificate.sos_terms[0].basis[0]"),
    ("cert negative exponent", _recheck(_set(["polynomial", 0, 0, 0], -1)), "certificate.polynomial[0][0][0]"),
    ("cert float rational", _recheck(_set(["sos_terms", 0, "gram", 0, 0], 0.5)), "certificate.sos_terms[0].gram[0][0]"),
    ("cert 5000-digit rational", _recheck(_set(["sos_terms", 0, "gram", 0, 0], "1" * 5000 + "/3")), "certificate.sos_terms[0].gram[0][0]"),
    ("cert multiplier out of range", _recheck(_set(["sos_terms", 0, "multiplier"], [0])), "certificate.sos_terms[0].multiplier[0]"),
    ("cert unknown kind", _recheck(_set(["kind"], "magic")), "certificate.kind"),
    ("cert wrong version", _recheck(_set(["version"], 2)), "certificate.version"),
    ("cert label not text", _recheck(_set(["label"], ["x"])), "certificate.label"),
    ("cert json int 5000 digits", lambda t: ["recheck", _write(t / "c.json", '{"kind": "nonnegativity", "x": 1' + "0" * 5000 + "}")], "x: expected an integer of at most 4000 digits"),
    ("cert deep nesting", lambda t: ["recheck", _write(t / "c.json", DEEP)], "nested at most 64"),
    ("lyapunov cert field count", _recheck(lambda d: d["field"].pop(), LYA), "certificate.field"),
    ("lyapunov cert bad sub-certificate", _recheck(_set(["positivity", "variables"], ["x", "1y"]), LYA), "certificate.positivity.variables[1]"),
    ("lyapunov cert eps", _recheck(_set(["eps"], "1/0"), LYA), "certificate.eps"),
    # reproduce
    ("reproduce out is a file", lambda t: ["reproduce", "--smoke", "--no-llm", "--out", _existing(t)], "--out"),
    ("reproduce out symlink", lambda t: ["reproduce", "--smoke", "--no-llm", "--force", "--out", _dir_link(t)], "symbolic link"),
    ("reproduce previous report", lambda t: ["reproduce", "--smoke", "--no-llm", "--out", _previous_report(t)], "--force"),
    ("reproduce out is /dev/null", lambda t: ["reproduce", "--smoke", "--no-llm", "--force", "--out", "/dev/null"], "character device"),
]
LLM_CASES = [  # need torch only to import the command; every one is refused before a model is built
    ("consensus prompts", lambda t: CONSENSUS + ["--prompts", "100000"], "--prompts: expected an integer between 1 and 1000"),
    ("consensus tokens", lambda t: CONSENSUS + ["--tokens", "1000000"], "--tokens"),
    ("consensus passes", lambda t: CONSENSUS + ["--passes", "0"], "--passes"),
    ("consensus out /dev/null", lambda t: CONSENSUS + ["--out", "/dev/null", "--force"], "character device"),
    ("consensus out file exists", lambda t: CONSENSUS + ["--out", _dir_holding(t, "consensus.npz")], "pass --force"),
    ("consensus plot FIFO", lambda t: CONSENSUS + ["--plot", _fifo(t, "e.png")], "FIFO"),
]


def _snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            kind = stat.S_IFMT(st.st_mode)
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else ""
            out[str(path.relative_to(root))] = (kind, st.st_size, digest, st.st_ino)
    return out


def _dev_null() -> tuple | None:
    if not os.path.exists("/dev/null"):
        return None
    st = os.lstat("/dev/null")
    return st.st_ino, st.st_mode, st.st_rdev


def test_the_table_is_large_enough():
    assert len(CASES) >= 40 and len({c[0] for c in CASES + LLM_CASES}) == len(CASES) + len(LLM_CASES)


TABLE = [pytest.param(*c[1:], id=c[0]) for c in CASES] + [
    pytest.param(*c[1:], id=c[0], marks=pytest.mark.skipif(not HAS_TORCH, reason="verify consensus needs the llm extra"))
    for c in LLM_CASES]


@pytest.mark.parametrize("argv_for, needle", TABLE)
def test_bad_input_exits_2_naming_the_field_and_writes_nothing(tmp_path, monkeypatch, capsys, argv_for, needle):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = argv_for(work)
    assert argv, "the case did not build its command line"
    before, null_before = _snapshot(tmp_path), _dev_null()
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, (argv[:3], captured.err, captured.out[-300:])
    assert needle in captured.err, captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    assert _snapshot(tmp_path) == before
    assert _dev_null() == null_before
    if null_before is not None:
        assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
