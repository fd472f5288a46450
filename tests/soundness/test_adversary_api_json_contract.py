"""Adversarial tests of the Python API and the JSON contract: 3. The JSON contract of the CLI.

Each attack asserts the correct behaviour; shared inputs and fixtures: adversary_api_helpers.py.
"""
from __future__ import annotations

from adversary_api_helpers import *  # noqa: F401,F403


CLI_ERRORS = {
    "format json before the command": ["--format", "json", "theorem", "3.2", "--t-end", "abc"],
    "format json, no command": ["--format", "json"],
    "missing ID": ["theorem", "--format", "json"],
    "bad float": ["theorem", "3.2", "--format", "json", "--t-end", "abc"],
    "--format=json": ["theorem", "3.2", "--format=json", "--t-end", "abc"],
    "last --format wins": ["theorem", "3.2", "--format", "text", "--format", "json", "--t-end", "abc"],
    "unknown option": ["theorem", "3.2", "--format", "json", "--bogus"],
    "close option": ["theorem", "3.2", "--format", "json", "--t-ed", "5"],
    "misspelt command": ["theorm", "3.2", "--format", "json"],
    "unknown theorem": ["theorem", "3.3", "--format", "json", "--no-simulate"],
    "t_end above limit": ["theorem", "3.2", "--format", "json", "--t-end", "1e9"],
    "instance /dev/null": ["theorem", "3.2", "--format", "json", "--instance", "/dev/null"],
    "instance dir": ["theorem", "3.2", "--format", "json", "--instance", "{dir}"],
    "instance fifo": ["assumptions", "3.2", "--format", "json", "--instance", "{fifo}"],
    "instance without value": ["theorem", "3.2", "--format", "json", "--instance"],
    "debug after": ["theorem", "3.2", "--format", "json", "--debug", "--instance", "{missing}"],
    "debug before": ["--debug", "theorem", "3.2", "--format", "json", "--instance", "{missing}"],
    "sos parse error": ["sos", "x^2 +", "--format", "json"],
    "sos products not int": ["sos", "x^2", "--products", "abc", "--format", "json"],
    "sos save symlink": ["sos", "x^2", "--save", "{link}", "--format", "json"],
    "sos save existing": ["sos", "x^2", "--save", "{file}", "--format", "json"],
    "lyapunov missing vars": ["lyapunov", "--field", "-x", "--format", "json"],
    "lyapunov odd degree": ["lyapunov", "--field", "-x", "--vars", "x", "--degree", "3", "--format", "json"],
    "recheck fifo": ["recheck", "{fifo}", "--format", "json"],
    "recheck bad JSON": ["recheck", "{garbage}", "--format", "json"],
    "simulate no t_end": ["simulate", "--format", "json"],
    "simulate no-effect option": ["simulate", "--t-end", "1", "--tokens", "3", "--instance", HF, "--format", "json"],
    "simulate exclusive": ["simulate", "--t-end", "1", "--preset", "x", "--instance", "y", "--format", "json"],
    "simulate unknown preset": ["simulate", "--t-end", "1", "--preset", "nope", "--format", "json"],
    "simulate json /dev/null": ["simulate", "--t-end", "1", "--json", "/dev/null", "--format", "json"],
    "depth unknown id": ["depth", "5.5", "--format", "json"],
    "depth bad model": ["depth", "3.2", "--model", "bad", "--format", "json"],
    "depth eps out of range": ["depth", "3.2", "--eps", "2", "--format", "json"],
    "audit no model": ["audit", "--format", "json"],
    "consensus no model": ["consensus", "--format", "json"],
    "reproduce exclusive": ["reproduce", "--format", "json", "--quick", "--full"],
    "list extra": ["list", "--format", "json", "extra"],
    "double dash": ["theorem", "3.2", "--format", "json", "--", "--x"],
}


def _fill(argv, p):
    garbage = p.tmp / "garbage.json"
    garbage.write_text("{not json")
    names = {"dir": p.dir, "fifo": p.fifo, "missing": p.missing, "link": p.link, "file": p.file, "garbage": str(garbage)}
    return [a.format(**names) for a in argv]


@pytest.mark.parametrize("name", sorted(CLI_ERRORS))
def test_cli_errors_are_one_json_document_with_exit_2(capfd, paths, name):
    rc, out, err = _cli(capfd, *_fill(CLI_ERRORS[name], paths))
    assert rc == 2, (rc, out, err)
    doc = _strict_json(out)
    jsonschema.validate(doc, ERROR_SCHEMA)
    assert doc["error"]["message"] and "Traceback" not in err
    assert Path(paths.file).read_text() == "{}" and not (paths.tmp / "target.json").exists()


@pytest.mark.parametrize("argv", [["theorem", "3.2", "--t-end", "nan"], ["theorem", "3.2", "--t-end", "inf"],
                                  ["simulate", "--t-end", "1", "--rtol", "nan"]])
def test_cli_error_with_a_non_finite_value_is_strict_json(capfd, argv):
    rc, out, _ = _cli(capfd, *argv, "--format", "json")
    assert rc == 2
    jsonschema.validate(_strict_json(out), ERROR_SCHEMA)


def test_cli_abbreviated_format_json_errors_are_json_too(capfd):
    rc, out, _ = _cli(capfd, "list", "--form", "json")
    assert rc == 0 and _strict_json(out)["kind"] == "list"  # the run honours the abbreviation...
    rc, out, _ = _cli(capfd, "theorem", "3.2", "--form", "json", "--t-end", "abc")
    assert rc == 2
    jsonschema.validate(_strict_json(out), ERROR_SCHEMA)  # ...so must the error


def test_cli_format_before_the_command_runs_or_names_format(capfd):
    rc, out, _ = _cli(capfd, "--format", "json", "list")
    doc = _strict_json(out)
    if rc == 0:
        assert doc["kind"] == "list"
    else:
        assert doc["error"]["field"] == "--format" or "--format" in doc["error"]["message"], doc


CLI_RUNS = {  # name -> (argv, expected exit code)
    "list": (["list"], 0),
    "assumptions fails": (["assumptions", "3.2", "--instance", CAUSAL], 6),
    "assumptions LN1": (["assumptions", "LN1"], 0),
    "theorem counterexample": (["theorem", "4.4-sym-later", "--instance", str(EX / "counterexample_4_4_sym.json"),
                                "--no-simulate"], 3),
    "theorem certified rate": (["theorem", "3.2", "--no-simulate", "--certified-rate"], 0),
    "theorem evidence": (["theorem", "4.2", "--t-end", "1"], 0),
    "theorem save": (["theorem", "3.2", "--no-simulate", "--save", "{out}/th"], 0),
    "sos motzkin": (["sos", "x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1"], 4),
    "sos refuted": (["sos", "x - 1", "--on", "x >= 0"], 3),
    "sos no refute": (["sos", "x - 1", "--on", "x >= 0", "--no-refute"], 4),
    "sos products": (["sos", "x*y", "--on", "x >= 0, y >= 0", "--products", "2"], 0),
    "sos equality": (["sos", "x^2", "--on", "x*y == 1"], 0),
    "sos save": (["sos", "x^2 + 1", "--save", "{out}/c.json"], 0),
    "sos negative --on": (["sos", "x^2", "--on", "-x >= 0"], 0),
    "lyapunov fails": (["lyapunov", "--field", "1, -y", "--vars", "x,y"], 3),
    "lyapunov decay save": (["lyapunov", "--field", "-x, -y", "--vars", "x,y", "--decay", "1/2", "--save", "{out}/l.json"], 0),
    "recheck": (["recheck", "{cert}"], 0),
    "recheck invalid": (["recheck", "{badcert}"], 5),
    "depth layers": (["depth", "3.2", "--model", "layers", "--tau", "1/2", "--no-simulate"], 0),
    "depth fails": (["depth", "4.2", "--instance", HF, "--no-simulate"], 6),
    "depth save": (["depth", "4.2", "--no-simulate", "--save", "{out}/d"], 0),
    "simulate digits": (["simulate", "--t-end", "0.5", "--points", "3", "--digits", "8"], 0),
    "simulate samples": (["simulate", "--t-end", "1", "--points", "3", "--samples", "2", "--tokens", "3"], 0),
    "simulate abs causal": (["simulate", "--t-end", "1", "--points", "3", "--preset", "constant-identity-causal",
                             "--variant", "abs"], 0),
    "simulate outputs + progress": (["simulate", "--t-end", "1", "--points", "3", "--plot", "{out}/s.png",
                                     "--json", "{out}/s.json", "--progress"], 0),
}


@pytest.fixture(scope="module")
def cert_files(tmp_path_factory, parrilo):
    d = tmp_path_factory.mktemp("certs")
    (d / "ok.json").write_text(json.dumps(parrilo[1]))
    bad = copy.deepcopy(parrilo[1])
    bad["sos_terms"][0]["gram"][0][0] = "3"
    (d / "bad.json").write_text(json.dumps(bad))
    return d


@pytest.mark.parametrize("name", sorted(CLI_RUNS))
def test_cli_json_output_follows_the_contract(capfd, tmp_path, cert_files, name):
    argv, code = CLI_RUNS[name]
    names = {"out": str(tmp_path), "cert": str(cert_files / "ok.json"), "badcert": str(cert_files / "bad.json")}
    argv = [a.format(**names) for a in argv]
    rc, out, err = _cli(capfd, *argv, "--format", "json")
    assert rc == code, (rc, err)
    doc = _strict_json(out)  # nothing but one JSON document: no progress, no "saved ..." line
    _validate(doc)
    assert doc["kind"] == argv[0]
    if "verdict" in doc:
        assert EXIT_OF[doc["verdict"]] == rc
    for written in [a for a in argv if a.startswith(str(tmp_path))]:
        assert Path(written).exists(), written


def test_cli_stdout_of_a_real_process_is_only_json(tmp_path):
    """Import-time prints, warnings and progress lines of a fresh process stay off stdout."""
    r = subprocess.run([sys.executable, "-m", "verify.cli.main", "simulate", "--t-end", "1", "--points", "3",
                        "--json", str(tmp_path / "s.json"), "--progress", "--format", "json", "--debug"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    _validate(_strict_json(r.stdout))
    assert json.loads((tmp_path / "s.json").read_text())["kind"] == "simulate"


def test_api_reports_match_their_schema_and_exit_codes(reports):
    for kind, r in reports.items():
        doc = _strict_json(json.dumps(r.to_json()))
        _validate(doc)
        assert doc["kind"] == kind == r.kind
        if r.verdict is not None:
            assert r.exit_code == EXIT_OF[r.verdict]
