"""``verify simulate --samples K --workers N``: the initial conditions split over a Dask LocalCluster
give exactly the serial batch (each instance's steps do not depend on the others)."""
import json

import numpy as np
import pytest

from numerics.batch_parts import join_parts, simulate_part
from numerics.dop853 import DOP853
from numerics.presets import preset, with_random_tokens
from theorems.system_json import system_to_dict
from verify.cli.main import main


def test_parts_joined_are_the_whole_batch_bit_for_bit():
    system = preset("constant-identity-full", N=6, d=3, seed=1)
    whole = DOP853(rtol=1e-9, atol=1e-11).integrate(with_random_tokens(system, 5, 7), 3.0, samples=9)
    data = system_to_dict(system)
    parts = [simulate_part(data, 5, 7, lo, hi, 3.0, 9, 1e-9, 1e-11) for lo, hi in ((0, 2), (2, 3), (3, 5))]
    joined = join_parts(parts, 3)
    np.testing.assert_array_equal(joined.states, whole.states)
    np.testing.assert_array_equal(joined.times, whole.times)
    assert joined.stats.steps == whole.stats.steps and joined.stats.evaluations == whole.stats.evaluations


def test_cli_local_cluster_equals_the_serial_run(capsys):
    pytest.importorskip("distributed", reason="needs the cluster extra (dask distributed)")
    argv = ["simulate", "--preset", "constant-identity-full", "--t-end", "4", "--samples", "6", "--format", "json"]
    assert main(argv) == 0
    serial = json.loads(capsys.readouterr().out)
    assert main(argv + ["--workers", "2"]) == 0
    dask = json.loads(capsys.readouterr().out)
    assert dask["batch"] == serial["batch"]
    assert dask["integrator"]["stats"]["steps"] == serial["integrator"]["stats"]["steps"]


@pytest.mark.parametrize("extra, needle", [(["--workers", "2"], "--samples"),
                                           (["--samples", "4", "--workers", "0"], "--workers"),
                                           (["--samples", "4", "--workers", "2", "--scheduler", "tcp://x:1"], "cannot be combined")])
def test_bad_cluster_options_exit_2(capsys, extra, needle):
    assert main(["simulate", "--preset", "constant-identity-full", "--t-end", "2", *extra]) == 2
    assert needle in capsys.readouterr().err
