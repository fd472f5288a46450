"""Checkpoints are checked before a resumed run reports or computes anything: every tampering edit
below makes ``verify consensus --out DIR --resume`` exit 2 naming the checkpoint field, with no
traceback and nothing written; an untouched checkpoint resumes to the fresh run's numbers, bit for bit.

The run: gpt2-tiny (4 blocks, D = 64), 3 prompts x 6 tokens, 3 passes, batches of 2 prompts, so
the checkpoints come after passes (batch, next_pass) = (0, 1), (0, 2), (1, 0), (1, 1), (1, 2).
``mid`` is interrupted after (1, 1) (the state ``x`` of prompt 2 is stored), ``edge`` after (1, 0).
The checkpoint (format version 3) is a directory: ``state.npz`` and one ``pass-B-P.npz`` per pass.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

import llm_checks.checkpoint as ckpt  # noqa: E402
from llm_checks.metrics import METRICS  # noqa: E402
from theorems.errors import InvalidInput  # noqa: E402
from verify.cli.main import main  # noqa: E402

ARGS = ["consensus", "gpt2-tiny", "--random-init", "--weights-mode", "random-fresh", "--prompts", "3", "--tokens", "6",
        "--passes", "3", "--batch-size", "2", "--no-progress"]
SAVES = {"mid": 4, "edge": 3}  # checkpoints written before the interrupt
VOLATILE = ("run", "seconds", "cli_options", "files")


def _interrupted(out, saves):
    """Run the CLI into ``out`` and press Ctrl-C (KeyboardInterrupt) right after checkpoint number ``saves``."""
    save = ckpt.save_checkpoint
    count = {"n": 0}

    def save_then_stop(path, state):
        written = save(path, state)
        count["n"] += 1
        if count["n"] == saves:
            raise KeyboardInterrupt
        return written

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ckpt, "save_checkpoint", save_then_stop)
        assert main([*ARGS, "--out", str(out)]) == 1  # interrupted: the crash exit code
    assert count["n"] == saves and (out / ckpt.NAME / ckpt.STATE).is_file() and not (out / "consensus.json").exists()
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    assert main([*ARGS, "--out", str(root / "fresh")]) == 0
    return {"fresh": root / "fresh", **{k: _interrupted(root / k, n) for k, n in SAVES.items()}}


def _copy(runs, base, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(runs[base], out)
    return out


def _read(path):
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _save(path, arrays):
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def _state(edit):
    """Apply ``edit(arrays, meta)`` to state.npz (plain numpy + JSON, as a person would)."""
    def apply(root):
        arrays = _read(root / ckpt.STATE)
        meta = json.loads(arrays.pop("meta").tobytes())
        edit(arrays, meta)
        _save(root / ckpt.STATE, {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays})
    return apply


def _pass(batch, p, edit):
    """Apply ``edit(arrays)`` to the file of pass ``p`` of batch ``batch``."""
    def apply(root):
        arrays = _read(root / ckpt.pass_file(batch, p))
        edit(arrays)
        _save(root / ckpt.pass_file(batch, p), arrays)
    return apply


def _new_pass(batch, p, name, index, value, rows=1):
    """Add a pass file of zeros, nothing marked done, with one cell of ``name`` set to ``value``."""
    def apply(root):
        arrays = {n: np.zeros((rows, 4)) for n in METRICS}
        arrays["done"] = np.zeros((rows, 4), dtype=bool)
        arrays[name][index] = value
        _save(root / ckpt.pass_file(batch, p), arrays)
    return apply


def _set(key, value):
    return _state(lambda arrays, meta: (meta if not isinstance(value, np.ndarray) else arrays).__setitem__(key, value))


def _cell(batch, p, name, index, value):
    return _pass(batch, p, lambda arrays: arrays[name].__setitem__(index, value))


def _state_cell(index, value):
    return _state(lambda arrays, meta: arrays["x"].__setitem__(index, value))


def _drop(key):
    return _state(lambda arrays, meta: (meta if key in meta else arrays).pop(key))


def _unversioned(arrays, meta):  # the header before checkpoints had a version
    for key in ("format", "version"):
        meta.pop(key)


def _clear_done(root):
    for file in root.glob("pass-*.npz"):
        arrays = _read(file)
        arrays["done"].fill(False)
        _save(file, arrays)


def _truncate(root):
    path = root / ckpt.STATE
    path.write_bytes(path.read_bytes()[:300])


def _garbage(root):
    (root / ckpt.STATE).write_bytes(b"not a checkpoint\n" * 20)


def _bad_meta(root):
    arrays = {k: v for k, v in _read(root / ckpt.STATE).items() if k != "meta"}
    _save(root / ckpt.STATE, {"meta": np.frombuffer(b"{oops", np.uint8), **arrays})


def _flip_payload_byte(root):  # inside the first stored array of a pass file: its zip CRC no longer matches
    path = root / ckpt.pass_file(0, 1)
    data = bytearray(path.read_bytes())
    data[data.index(b"\x93NUMPY") + 140] ^= 0xFF
    path.write_bytes(bytes(data))


def _stray_file(root):
    (root / "notes.txt").write_text("a file no run writes\n")


# Cells: prompt i, block k of the (prompts, passes x blocks) record lie in batch i // 2, row i % 2, pass
# k // 4, column k % 4.  (case, base run, edit of the checkpoint directory, field named in the message)
CASES = [
    ("E set to 7", "mid", _cell(0, 0, "E_first", (0, 3), 7.0), "checkpoint.E_first"),
    ("E negative", "mid", _cell(0, 1, "E_pair", (1, 1), -0.25), "checkpoint.E_pair"),
    ("E_first_abs above its range [0, 1]", "mid", _cell(1, 0, "E_first_abs", (0, 1), 1.5), "checkpoint.E_first_abs"),
    ("NaN in a done cell", "mid", _cell(0, 0, "E_first", (0, 0), np.nan), "checkpoint.E_first"),
    ("NaN in E_pair alone", "edge", _cell(0, 2, "E_pair", (1, 3), np.nan), "checkpoint.E_pair"),
    ("inf in a done cell", "mid", _cell(0, 0, "E_first_abs", (1, 2), np.inf), "checkpoint.E_first_abs"),
    ("nonzero in a not-done cell", "mid", _new_pass(1, 2, "E_first", (0, 0), 0.5), "checkpoint.E_first"),
    ("NaN in a not-done cell", "edge", _new_pass(1, 1, "E_pair", (0, 0), np.nan), "checkpoint.E_pair"),
    ("wrong shape", "mid", _pass(0, 0, lambda a: a.update(E_first=a["E_first"][:, :3].copy())), "checkpoint.E_first"),
    ("broadcastable shape", "mid", _pass(0, 1, lambda a: a.update(E_pair=a["E_pair"][:1].copy())), "checkpoint.E_pair"),
    ("wrong dtype", "mid", _pass(0, 0, lambda a: a.update(E_first=a["E_first"].astype(np.float32))), "checkpoint.E_first"),
    ("later next_pass than done cells justify", "edge", _set("next_pass", 1), "checkpoint.next_pass"),
    ("later next_pass, mid-batch", "mid", _set("next_pass", 2), "checkpoint.next_pass"),
    ("next_pass out of range", "mid", _set("next_pass", 3), "checkpoint.next_pass"),
    ("next_pass negative", "edge", _set("next_pass", -1), "checkpoint.next_pass"),
    ("batch out of range", "mid", _set("batch", 3), "checkpoint.batch"),
    ("batch negative", "mid", _set("batch", -1), "checkpoint.batch"),
    ("earlier batch than done cells justify", "mid", _set("batch", 0), "checkpoint.batch"),
    ("batch of the wrong type", "mid", _set("batch", "1"), "checkpoint.batch"),
    ("next_pass a bool", "mid", _set("next_pass", True), "checkpoint.next_pass"),
    ("done mask with a gap", "mid", _cell(0, 1, "done", (0, 1), False), "checkpoint.done"),
    ("done mask one cell too many", "mid", _new_pass(1, 2, "done", (0, 0), True), "checkpoint.done"),
    ("done mask cleared", "mid", _clear_done, "checkpoint.batch"),
    ("done mask of the wrong dtype", "mid", _pass(0, 0, lambda a: a.update(done=a["done"].astype(np.uint8))), "checkpoint.done"),
    ("missing key next_pass", "mid", _drop("next_pass"), "checkpoint.next_pass"),
    ("missing array E_pair", "mid", _pass(0, 0, lambda a: a.pop("E_pair")), "checkpoint.E_pair"),
    ("missing done mask", "edge", _pass(0, 0, lambda a: a.pop("done")), "checkpoint.done"),
    ("unknown version", "mid", _set("version", 99), "checkpoint.version"),
    ("unknown format", "mid", _set("format", "something-else"), "checkpoint.format"),
    ("unversioned (older) checkpoint", "mid", _state(_unversioned), "checkpoint.format"),
    ("unknown extra entry", "mid", _set("extra", np.zeros(2)), "checkpoint.extra"),
    ("x with the wrong shape", "mid", _set("x", np.zeros((2, 6, 64), np.float32)), "checkpoint.x"),
    ("x of the wrong dtype", "mid", _state(lambda a, m: a.update(x=a["x"].astype(np.float16))), "checkpoint.x"),
    ("x not finite", "mid", _state_cell((0, 2, 7), np.inf), "checkpoint.x"),
    ("x missing mid-batch", "mid", _drop("x"), "checkpoint.x"),
    ("x present at a batch start", "edge", _set("x", np.zeros((1, 6, 64), np.float32)), "checkpoint.x"),
    ("dtype of another run", "mid", _set("dtype", "torch.float64"), "checkpoint.dtype"),
    ("fingerprint of another run", "mid", _set("fingerprint", "0" * 64), "checkpoint.fingerprint"),
    ("truncated file", "mid", _truncate, "checkpoint"),
    ("not an archive", "edge", _garbage, "checkpoint"),
    ("corrupt payload byte", "mid", _flip_payload_byte, "checkpoint"),
    ("meta not JSON", "mid", _bad_meta, "checkpoint.meta"),
    ("missing pass file", "mid", lambda root: (root / ckpt.pass_file(0, 1)).unlink(), "checkpoint.done"),
    ("pass file outside the run", "edge", _new_pass(4, 0, "done", (0, 0), False), "checkpoint.done"),
    ("extra entry in a pass file", "mid", _pass(0, 2, lambda a: a.update(extra=np.zeros(2))), "checkpoint.extra"),
    ("stray file in the directory", "edge", _stray_file, "checkpoint.notes.txt"),
]


def _files(out):
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case,base,edit,field", CASES, ids=[c[0] for c in CASES])
def test_tampered_checkpoint_is_refused_naming_the_field(case, base, edit, field, runs, tmp_path, capsys):
    out = _copy(runs, base, tmp_path)
    edit(out / ckpt.NAME)
    before = _files(out)
    capsys.readouterr()
    rc = main([*ARGS, "--out", str(out), "--resume"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"error: {field}:" in err and "Traceback" not in err and "force" in err, err
    assert len(err.strip().splitlines()) == 1, err  # one clear line, no progress or "resuming at" message
    assert _files(out) == before  # nothing written, the checkpoint kept


def test_the_table_covers_every_field():
    fields = {c[3] for c in CASES}
    assert len(CASES) >= 12 and {f"checkpoint.{n}" for n in (*METRICS, "done", "x", "batch", "next_pass", "version",
                                                                 "fingerprint", "format", "dtype")} <= fields
    assert set(ckpt.RANGES) == set(METRICS)  # a new metric needs its range stated


RUN = ((0, 2), (2, 3))


def _shape(state):
    return ckpt.RunShape(state["fingerprint"], "torch.float32", 3, 4, RUN, (6, 6), 64)


def test_checkpoint_holds_the_documented_format(runs):
    state = ckpt.load_checkpoint(runs["mid"] / ckpt.NAME)
    assert (state["format"], state["version"], state["batch"], state["next_pass"]) == (ckpt.FORMAT, 3, 1, 1)
    assert sorted(state["passes"]) == [(0, 0), (0, 1), (0, 2), (1, 0)]  # one file per pass measured
    assert all(seg["done"].shape == seg["E"]["E_first"].shape == ((2 if b == 0 else 1), 4)
               for (b, _), seg in state["passes"].items())
    assert state["x"].shape == (1, 6, 64) and state["x"].dtype == np.float32
    full = ckpt.check_checkpoint(state, _shape(state))
    assert full["done"].shape == (3, 12) and int(full["done"].sum()) == 2 * 12 + 4
    edge = ckpt.load_checkpoint(runs["edge"] / ckpt.NAME)
    assert (edge["batch"], edge["next_pass"], edge["x"]) == (1, 0, None) and len(edge["passes"]) == 3
    assert int(ckpt.check_checkpoint(edge, _shape(edge))["done"].sum()) == 24
    for name in METRICS:
        assert full["E"][name].dtype == np.float64 and np.all(full["E"][name][~full["done"]] == 0)
        lo, hi = ckpt.RANGES[name]
        assert np.all((lo <= full["E"][name][full["done"]]) & (full["E"][name][full["done"]] <= hi))


def test_nan_as_a_measurement_gives_it_is_accepted(runs):
    """A zero or non-finite state makes E_first and E_first_abs NaN together: a real run can write that."""
    state = ckpt.load_checkpoint(runs["mid"] / ckpt.NAME)
    assert ckpt.check_checkpoint(state, _shape(state))["batch"] == 1
    for name in METRICS:
        state["passes"][(1, 0)]["E"][name][0, 3] = np.nan
    state["x"][0, 1, 5] = np.nan  # the state of that prompt overflowed: its metrics are NaN
    assert ckpt.check_checkpoint(state, _shape(state))["next_pass"] == 1
    state["passes"][(1, 0)]["E"]["E_first_abs"][0, 3] = 0.5
    with pytest.raises(InvalidInput, match="checkpoint.E_first:"):
        ckpt.check_checkpoint(state, _shape(state))


def test_a_pass_file_written_just_before_an_interrupt_is_ignored(runs, tmp_path, capsys):
    """The pass file at the resume point, written before the state that counts it, is rewritten on resume."""
    out = _copy(runs, "mid", tmp_path)
    shutil.copy(out / ckpt.NAME / ckpt.pass_file(1, 0), out / ckpt.NAME / ckpt.pass_file(1, 1))
    assert main([*ARGS, "--out", str(out), "--resume"]) == 0, capsys.readouterr().err
    assert _stable(out / "consensus.json") == _stable(runs["fresh"] / "consensus.json")


def _stable(path):
    doc = json.loads(path.read_text())
    return {k: v for k, v in doc.items() if k not in VOLATILE}


@pytest.mark.parametrize("base,point", [("mid", {"batch": 1, "pass": 1}), ("edge", {"batch": 1, "pass": 0})])
def test_interrupted_and_resumed_run_equals_the_fresh_run_bit_for_bit(base, point, runs, tmp_path, capsys):
    out = _copy(runs, base, tmp_path)
    assert main([*ARGS, "--out", str(out), "--resume"]) == 0, capsys.readouterr().err
    resumed = json.loads((out / "consensus.json").read_text())
    assert resumed["run"]["resumed_at"] == point and not (out / ckpt.NAME).exists()
    assert _stable(out / "consensus.json") == _stable(runs["fresh"] / "consensus.json")  # report numbers included
    with np.load(out / "consensus.npz") as a, np.load(runs["fresh"] / "consensus.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            if key != "meta":
                assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes(), key
