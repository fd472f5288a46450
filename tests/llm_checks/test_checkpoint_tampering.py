"""Checkpoints are checked before a resumed run reports or computes anything: every tampering edit
below makes ``verify consensus --out DIR --resume`` exit 2 naming the checkpoint field, with no
traceback and nothing written; an untouched checkpoint resumes to the fresh run's numbers, bit for bit.

The run: gpt2-tiny (4 blocks, D = 64), 3 prompts x 6 tokens, 3 passes, batches of 2 prompts, so
the checkpoints come after passes (batch, next_pass) = (0, 1), (0, 2), (1, 0), (1, 1), (1, 2).
``mid`` is interrupted after (1, 1) (the state ``x`` of prompt 2 is stored), ``edge`` after (1, 0).
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
    assert count["n"] == saves and (out / ckpt.NAME).is_file() and not (out / "consensus.json").exists()
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


def _rewrite(path, edit):
    """Apply ``edit(arrays, meta)`` to the checkpoint at ``path`` (plain numpy + JSON, as a person would)."""
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(arrays.pop("meta").tobytes())
    edit(arrays, meta)
    with open(path, "wb") as handle:
        np.savez(handle, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)


def _set(key, value, where="meta"):
    def edit(arrays, meta):
        (meta if where == "meta" else arrays)[key] = value
    return edit


def _cell(name, index, value):
    def edit(arrays, meta):
        arrays[name][index] = value
    return edit


def _drop(key):
    def edit(arrays, meta):
        (meta if key in meta else arrays).pop(key)
    return edit


def _unversioned(arrays, meta):  # the layout before checkpoints had a version
    for key in ("format", "version"):
        meta.pop(key)
    for name in METRICS:
        arrays[f"E_{name}"] = arrays.pop(name)
    arrays.pop("done")


def _truncate(path):
    path.write_bytes(path.read_bytes()[:300])


def _garbage(path):
    path.write_bytes(b"not a checkpoint\n" * 20)


def _bad_meta(path):
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files if k != "meta"}
    with open(path, "wb") as handle:
        np.savez(handle, meta=np.frombuffer(b"{oops", np.uint8), **arrays)


def _flip_payload_byte(path):  # inside the first stored array: its zip CRC no longer matches
    data = bytearray(path.read_bytes())
    data[data.index(b"\x93NUMPY") + 140] ^= 0xFF
    path.write_bytes(bytes(data))


# (case, base run, edit of (arrays, meta) or of the file, field named in the message)
CASES = [
    ("E set to 7", "mid", _cell("E_first", (0, 3), 7.0), "checkpoint.E_first"),
    ("E negative", "mid", _cell("E_pair", (1, 5), -0.25), "checkpoint.E_pair"),
    ("E_first_abs above its range [0, 1]", "mid", _cell("E_first_abs", (2, 1), 1.5), "checkpoint.E_first_abs"),
    ("NaN in a done cell", "mid", _cell("E_first", (0, 0), np.nan), "checkpoint.E_first"),
    ("NaN in E_pair alone", "edge", _cell("E_pair", (1, 11), np.nan), "checkpoint.E_pair"),
    ("inf in a done cell", "mid", _cell("E_first_abs", (1, 2), np.inf), "checkpoint.E_first_abs"),
    ("nonzero in a not-done cell", "mid", _cell("E_first", (2, 4), 0.5), "checkpoint.E_first"),
    ("NaN in a not-done cell", "edge", _cell("E_pair", (2, 0), np.nan), "checkpoint.E_pair"),
    ("wrong shape", "mid", lambda a, m: a.update(E_first=a["E_first"][:, :11].copy()), "checkpoint.E_first"),
    ("broadcastable shape", "mid", lambda a, m: a.update(E_pair=a["E_pair"][:1].copy()), "checkpoint.E_pair"),
    ("wrong dtype", "mid", lambda a, m: a.update(E_first=a["E_first"].astype(np.float32)), "checkpoint.E_first"),
    ("later next_pass than done cells justify", "edge", _set("next_pass", 1), "checkpoint.next_pass"),
    ("later next_pass, mid-batch", "mid", _set("next_pass", 2), "checkpoint.next_pass"),
    ("next_pass out of range", "mid", _set("next_pass", 3), "checkpoint.next_pass"),
    ("next_pass negative", "edge", _set("next_pass", -1), "checkpoint.next_pass"),
    ("batch out of range", "mid", _set("batch", 3), "checkpoint.batch"),
    ("batch negative", "mid", _set("batch", -1), "checkpoint.batch"),
    ("earlier batch than done cells justify", "mid", _set("batch", 0), "checkpoint.batch"),
    ("batch of the wrong type", "mid", _set("batch", "1"), "checkpoint.batch"),
    ("next_pass a bool", "mid", _set("next_pass", True), "checkpoint.next_pass"),
    ("done mask with a gap", "mid", _cell("done", (0, 5), False), "checkpoint.done"),
    ("done mask one cell too many", "mid", _cell("done", (2, 4), True), "checkpoint.done"),
    ("done mask cleared", "mid", lambda a, m: a["done"].fill(False), "checkpoint.batch"),
    ("done mask of the wrong dtype", "mid", lambda a, m: a.update(done=a["done"].astype(np.uint8)), "checkpoint.done"),
    ("missing key next_pass", "mid", _drop("next_pass"), "checkpoint.next_pass"),
    ("missing array E_pair", "mid", _drop("E_pair"), "checkpoint.E_pair"),
    ("missing done mask", "edge", _drop("done"), "checkpoint.done"),
    ("unknown version", "mid", _set("version", 3), "checkpoint.version"),
    ("unknown format", "mid", _set("format", "something-else"), "checkpoint.format"),
    ("unversioned (older) checkpoint", "mid", _unversioned, "checkpoint.format"),
    ("unknown extra entry", "mid", _set("extra", np.zeros(2), where="arrays"), "checkpoint.extra"),
    ("x with the wrong shape", "mid", lambda a, m: a.update(x=np.zeros((2, 6, 64), np.float32)), "checkpoint.x"),
    ("x of the wrong dtype", "mid", lambda a, m: a.update(x=a["x"].astype(np.float16)), "checkpoint.x"),
    ("x not finite", "mid", _cell("x", (0, 2, 7), np.inf), "checkpoint.x"),
    ("x missing mid-batch", "mid", _drop("x"), "checkpoint.x"),
    ("x present at a batch start", "edge", _set("x", np.zeros((1, 6, 64), np.float32), where="arrays"), "checkpoint.x"),
    ("dtype of another run", "mid", _set("dtype", "torch.float64"), "checkpoint.dtype"),
    ("fingerprint of another run", "mid", _set("fingerprint", "0" * 64), "checkpoint.fingerprint"),
    ("truncated file", "mid", _truncate, "checkpoint"),
    ("not an archive", "edge", _garbage, "checkpoint"),
    ("corrupt payload byte", "mid", _flip_payload_byte, "checkpoint"),
    ("meta not JSON", "mid", _bad_meta, "checkpoint.meta"),
]
FILE_EDITS = (_truncate, _garbage, _flip_payload_byte, _bad_meta)


@pytest.mark.parametrize("case,base,edit,field", CASES, ids=[c[0] for c in CASES])
def test_tampered_checkpoint_is_refused_naming_the_field(case, base, edit, field, runs, tmp_path, capsys):
    out = _copy(runs, base, tmp_path)
    path = out / ckpt.NAME
    if edit in FILE_EDITS:
        edit(path)
    else:
        _rewrite(path, edit)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    rc = main([*ARGS, "--out", str(out), "--resume"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert f"error: {field}:" in err and "Traceback" not in err and "force" in err, err
    assert len(err.strip().splitlines()) == 1, err  # one clear line, no progress or "resuming at" message
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing written, the checkpoint kept


def test_the_table_covers_every_field():
    fields = {c[3] for c in CASES}
    assert len(CASES) >= 12 and {f"checkpoint.{n}" for n in (*METRICS, "done", "x", "batch", "next_pass", "version",
                                                                 "fingerprint", "format", "dtype")} <= fields
    assert set(ckpt.RANGES) == set(METRICS)  # a new metric needs its range stated


def test_checkpoint_holds_the_documented_format(runs):
    state = ckpt.load_checkpoint(runs["mid"] / ckpt.NAME)
    assert (state["format"], state["version"], state["batch"], state["next_pass"]) == (ckpt.FORMAT, 2, 1, 1)
    assert state["done"].shape == (3, 12) and int(state["done"].sum()) == 2 * 12 + 4
    assert state["x"].shape == (1, 6, 64) and state["x"].dtype == np.float32
    edge = ckpt.load_checkpoint(runs["edge"] / ckpt.NAME)
    assert (edge["batch"], edge["next_pass"], edge["x"]) == (1, 0, None) and int(edge["done"].sum()) == 24
    for name in METRICS:
        assert state["E"][name].dtype == np.float64 and np.all(state["E"][name][~state["done"]] == 0)
        lo, hi = ckpt.RANGES[name]
        assert np.all((lo <= state["E"][name][state["done"]]) & (state["E"][name][state["done"]] <= hi))


def test_nan_as_a_measurement_gives_it_is_accepted(runs):
    """A zero or non-finite state makes E_first and E_first_abs NaN together: a real run can write that."""
    state = ckpt.load_checkpoint(runs["mid"] / ckpt.NAME)
    run = ckpt.RunShape(state["fingerprint"], "torch.float32", 3, 4, ((0, 2), (2, 3)), (6, 6), 64)
    assert ckpt.check_checkpoint(state, run) is state
    for name in METRICS:
        state["E"][name][2, 3] = np.nan
    state["x"][0, 1, 5] = np.nan  # the state of that prompt overflowed: its metrics are NaN
    assert ckpt.check_checkpoint(state, run) is state
    state["E"]["E_first_abs"][2, 3] = 0.5
    with pytest.raises(InvalidInput, match="checkpoint.E_first:"):
        ckpt.check_checkpoint(state, run)


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
