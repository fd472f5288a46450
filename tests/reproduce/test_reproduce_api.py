"""``verify.reproduce(...)`` is the command as one library call with a real signature (generated
from the option table, like ``verify.depth``), callable whether or not the package
:mod:`verify._reproduce` was imported first; it checks its options before any work."""
from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import verify
from verify.api._table import OptionError
from verify.api.reproduce import COMMAND


def test_the_signature_is_the_option_table():
    import verify._reproduce  # noqa: F401  (the private implementation: importing it never shadows the function)

    assert inspect.isfunction(verify.reproduce)
    names = [o.name for o in COMMAND.options if not o.cli_only]
    assert list(inspect.signature(verify.reproduce).parameters) == names
    assert "progress" in names and "no_progress" not in names


def test_a_notebook_call_writes_the_report(tmp_path):
    seen = []
    r = verify.reproduce(smoke=True, no_llm=True, only=["theorems"], out=tmp_path / "r",
                         progress=lambda fraction, label="": seen.append(fraction))
    assert r.exit_code == 0 and r.record.headline_text().startswith("the toolkit's self-checks (3): 3 agree")
    assert (tmp_path / "r" / "report.md").is_file() and any(str(f).endswith("report.json") for f in r.files)
    assert seen and seen[-1] == 1.0


@pytest.mark.parametrize("kwargs, field", [({"only": "sim-3.3"}, "only"), ({"workers": 0}, "workers"),
                                           ({"device": "gpu"}, "device"), ({"smoke": True, "full": True}, "smoke"),
                                           ({"quick": "yes"}, "quick")])
def test_bad_options_are_refused_naming_them(kwargs, field, tmp_path):
    with pytest.raises(OptionError) as err:
        verify.reproduce(no_llm=True, out=tmp_path / "r", **kwargs)
    assert err.value.field == field and not (tmp_path / "r").exists()


def test_verify_reproduce_resolves_to_the_function_before_the_package_is_imported():
    code = "import inspect, verify; f = verify.reproduce; print(inspect.isfunction(f), 'verify._reproduce' in __import__('sys').modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr[-2000:]
