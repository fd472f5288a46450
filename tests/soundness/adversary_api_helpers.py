"""Shared inputs, fixtures and checks of the adversarial API tests (test_adversary_api_*.py).

Every attack is kept as a test that asserts the CORRECT behaviour.  Tests that currently expose a
bug are marked ``xfail(strict=True, reason=...)`` so the suite stays green and each turns into an
XPASS failure once its hole is closed (then drop the mark).

Attacks: false "holds" (tampered certificates, near-unit decimal tokens, poles in P, huge beta,
objects that lie), crashes instead of the project's errors (wrong types for every argument), the
``--format json`` contract (errors and every command), frozen records, output targets, HTML display,
and plots of self-built reports.  Everything runs on tiny instances with ``simulate=False`` where
possible (the whole file takes well under 40 s on 2 cores).
"""
from __future__ import annotations
import contextlib
import copy
import json
import os
import pickle
import signal
import subprocess
import sys
import types
from pathlib import Path
import jsonschema
import pytest
import verify
from theorems.errors import ConsensusVerifyError, InvalidInput, UnknownName
from verify.report import VERDICTS, Report, error_payload, schema_path


ROOT = Path(__file__).resolve().parents[2]


EX = ROOT / "examples"


HF = str(EX / "hemisphere_full.json")


CAUSAL = str(EX / "causal_two_heads.json")


PARRILO = "2*x^4 + 2*x^3*y - x^2*y^2 + 5*y^4"


ERROR_SCHEMA = json.loads(schema_path("error").read_text())


EXIT_OF = {"holds": 0, "fails": 3, "unknown": 4, "certificate_invalid": 5, "not_applicable": 6}


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


def _hf() -> dict:
    return json.loads(Path(HF).read_text())


def _strict_json(text: str):
    """Exactly one JSON document (trailing data, NaN and Infinity refused, as RFC 8259 says)."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def _validate(doc: dict) -> None:
    assert doc.get("schema_version") == verify.SCHEMA_VERSION, doc
    assert "kind" in doc and ("verdict" in doc or "status" in doc or doc["kind"] == "error"), doc
    jsonschema.validate(doc, json.loads(schema_path(doc["kind"]).read_text()))


class _TooSlow(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float):
    """Raise _TooSlow in the main thread after ``seconds`` (pure-Python loops are interrupted)."""
    def fire(*_):
        raise _TooSlow(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _cli(capfd, *argv: str):
    """The ``verify`` command in-process; fd-level capture, so nothing printed anywhere escapes."""
    from verify.cli.main import main

    rc = main([str(a) for a in argv])
    out, err = capfd.readouterr()
    return rc, out, err


@pytest.fixture
def paths(tmp_path):
    """A directory, a missing file, an existing file, a FIFO, a symlink and /dev/null."""
    p = types.SimpleNamespace(dir=str(tmp_path / "d"), missing=str(tmp_path / "missing.json"),
                              file=str(tmp_path / "exists.json"), fifo=str(tmp_path / "fifo"),
                              link=str(tmp_path / "link.json"), devnull="/dev/null", tmp=tmp_path)
    os.mkdir(p.dir)
    Path(p.file).write_text("{}")
    os.mkfifo(p.fifo)
    os.symlink(tmp_path / "target.json", p.link)
    return p


@pytest.fixture(scope="module")
def parrilo():
    """A genuine exact certificate (Parrilo's quartic) and its report."""
    r = verify.sos(PARRILO)
    assert r.verdict == "holds"
    return r, r.record.certificate.to_json()


@pytest.fixture(scope="module")
def reports(parrilo):
    """One real report of most kinds (tiny, fast)."""
    return {
        "assumptions": verify.assumptions("3.2", instance=CAUSAL),
        "theorem": verify.theorem("3.2", simulate=True, t_end=1),
        "sos": parrilo[0],
        "simulate": verify.simulate(t_end=1, points=5, tokens=3),
        "depth": verify.depth("3.2", simulate=False),
        "list": verify.list_results(),
        "recheck": verify.recheck(parrilo[1]),
    }


def _assert_project_error(call, p):
    with pytest.raises(ConsensusVerifyError) as exc:
        call(p)
    e = exc.value
    if isinstance(e, InvalidInput):
        assert e.field and e.expected, (e.field, e.expected)
    jsonschema.validate(error_payload(e), ERROR_SCHEMA)
    assert str(e)
    return e


__all__ = [  # the test modules import all of it, fixtures included
    '_assert_project_error',
    'ROOT',
    'EX',
    'HF',
    'CAUSAL',
    'PARRILO',
    'ERROR_SCHEMA',
    'EXIT_OF',
    'xfail',
    '_hf',
    '_strict_json',
    '_validate',
    '_TooSlow',
    '_deadline',
    '_cli',
    'paths',
    'parrilo',
    'reports',
    'contextlib',
    'copy',
    'json',
    'os',
    'pickle',
    'signal',
    'subprocess',
    'sys',
    'types',
    'Path',
    'jsonschema',
    'pytest',
    'verify',
    'ConsensusVerifyError',
    'InvalidInput',
    'UnknownName',
    'VERDICTS',
    'Report',
    'error_payload',
    'schema_path',
]
