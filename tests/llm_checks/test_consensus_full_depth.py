"""The paper's depth: ``--passes 1000`` is accepted, runs on a tiny model in the suite's time, and each
per-pass checkpoint costs the same whatever the depth reached (measured on the bytes written, not on
wall time); above the paper's 1000 passes, or above the cell budget, the run is refused naming
``--passes`` before any work."""
from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch", reason="needs the llm extra (torch, transformers): pip install 'consensus-verify[llm]'")

import llm_checks.checkpoint as ckpt  # noqa: E402
from verify.api.consensus import CELL_BUDGET  # noqa: E402
from verify.cli.main import build_parser, main  # noqa: E402

PASSES = 1000


@pytest.fixture
def one_thread():
    """gpt2-tiny's matrices are 6 x 64: torch's thread pool costs more than it saves on a shared machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_1000_passes_with_a_flat_checkpoint_cost(tmp_path, monkeypatch, one_thread, capsys):
    written: list[int] = []
    save = ckpt.save_checkpoint

    def counted(path, state):
        written.append(save(path, state))
        if len(written) in (10, 900):  # the directory holds one file per pass so far, and the state
            assert len(list((tmp_path / "out" / ckpt.NAME).glob("pass-*.npz"))) == len(written)
        return written[-1]

    monkeypatch.setattr(ckpt, "save_checkpoint", counted)
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--weights-mode", "random-fresh", "--prompts", "1", "--tokens",
               "6", "--passes", str(PASSES), "--no-progress", "--out", str(tmp_path / "out"), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["layers"] == PASSES * 4 and len(written) == PASSES
    assert 0.8 < written[899] / written[9] < 1.25  # O(pass): pass 900 writes what pass 10 wrote
    assert max(written) < 20_000  # one pass of 4 blocks and a 6 x 64 state, not the run's 4000 blocks
    assert not (tmp_path / "out" / ckpt.NAME).exists()  # finished: nothing left to resume


def test_the_paper_command_line_is_accepted():
    args = build_parser().parse_args(["consensus", "gpt2-xl", "--random-init", "--passes", "1000", "--device", "cuda"])
    table = args.command_table
    checked = table.check(table.values(args))  # every option's own check, as the API call makes it
    assert (checked["passes"], checked["prompts"], checked["tokens"], checked["device"]) == (1000, 100, 200, "cuda")
    assert checked["prompts"] * checked["passes"] * 48 <= CELL_BUDGET  # GPT-2 XL's 48 blocks fit the budget


def test_more_passes_than_the_paper_are_refused(capsys):
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--passes", "1001", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "--passes" in err and "1000" in err and "Traceback" not in err


def test_the_cell_budget_is_named_when_exceeded(monkeypatch, capsys):
    import verify.api.consensus as api

    monkeypatch.setattr(api, "CELL_BUDGET", 100)
    rc = main(["consensus", "gpt2-tiny", "--random-init", "--prompts", "2", "--tokens", "6", "--passes", "20", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "--passes" in err and "budget" in err and "2 x 20 x 4 = 160" in err, err
