"""Adversarial tests of the Python API and the JSON contract: 4. Frozen records; 5. Output targets: refused before any work, nothing written half-way; 6. HTML (and Markdown) display; 7. Plots of reports built or tampered by the caller.

Each attack asserts the correct behaviour; shared inputs and fixtures: adversary_api_helpers.py.
"""
from __future__ import annotations

from adversary_api_helpers import *  # noqa: F401,F403


def _containers(value, path="payload"):
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            yield from _containers(v, f"{path}.{k}")
    elif isinstance(value, list):
        yield path, value
        for i, v in enumerate(value):
            yield from _containers(v, f"{path}[{i}]")


DICT_MUTATIONS = {
    "setitem": lambda d: d.__setitem__("verdict", "holds"), "delitem": lambda d: d.__delitem__(next(iter(d))),
    "update": lambda d: d.update(verdict="holds"), "setdefault": lambda d: d.setdefault("zz", 1),
    "pop": lambda d: d.pop(next(iter(d))), "popitem": lambda d: d.popitem(), "clear": lambda d: d.clear(),
    "ior": lambda d: d.__ior__({"verdict": "holds"}),
}


LIST_MUTATIONS = {
    "setitem": lambda x: x.__setitem__(0, "holds"), "slice": lambda x: x.__setitem__(slice(None), []),
    "delitem": lambda x: x.__delitem__(0), "append": lambda x: x.append(1), "extend": lambda x: x.extend([1]),
    "insert": lambda x: x.insert(0, 1), "pop": lambda x: x.pop(), "remove": lambda x: x.remove(x[0]),
    "clear": lambda x: x.clear(), "sort": lambda x: x.sort(), "reverse": lambda x: x.reverse(),
    "iadd": lambda x: x.__iadd__([1]), "imul": lambda x: x.__imul__(0),
}


def test_every_nested_container_of_a_real_payload_is_read_only(reports):
    for r in reports.values():
        before = r.to_json()
        for path, c in _containers(r.payload):
            table = DICT_MUTATIONS if isinstance(c, dict) else LIST_MUTATIONS
            for how, mutate in table.items():
                if not c:
                    continue
                with pytest.raises(TypeError):
                    mutate(c)
        assert r.to_json() == before
        with pytest.raises(AttributeError):
            r.payload = {}
        with pytest.raises(AttributeError):
            r.files = ()
        assert isinstance(r.files, tuple) and all(isinstance(f, str) for f in r.files)


def test_to_json_shares_no_container_with_the_report(reports):
    for r in reports.values():
        fresh = r.to_json()
        ids = {id(c) for _, c in _containers(r.payload)}
        for path, c in _containers(fresh):
            assert id(c) not in ids, path
            assert type(c) in (dict, list), path
        fresh["verdict"] = "holds"
        fresh.clear()
        assert r.to_json() != fresh


def test_the_record_of_a_proof_is_frozen(reports):
    rec = reports["sos"].record
    with pytest.raises(AttributeError):
        rec.status = "holds"
    with pytest.raises(AttributeError):
        rec.certificate.sos_terms = ()


def test_a_self_built_report_is_frozen_and_validated():
    body = {"verdict": "fails", "hypotheses": [{"name": "x", "witness": {"z": [1, 2]}}]}
    r = Report("assumptions", body, "verdict: fails", 3)
    body["verdict"] = "holds"
    body["hypotheses"][0]["witness"]["z"].append(3)
    assert r.verdict == "fails" and r.payload["hypotheses"][0]["witness"]["z"] == [1, 2]
    for bad in ({"verdict": "true"}, {"steps": []}):
        with pytest.raises(ValueError):
            Report("theorem", bad, "")


def test_payload_cannot_be_reinitialised():
    r = Report("assumptions", {"verdict": "fails", "hypotheses": [{"name": "x"}]}, "verdict: fails", 3)
    with contextlib.suppress(TypeError):
        r.payload.__init__(verdict="holds")
    with contextlib.suppress(TypeError):
        r.payload["hypotheses"].__init__([])
    assert r.verdict == "fails" and len(r.payload["hypotheses"]) == 1


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_of_a_report_stay_frozen(how):
    r = Report("assumptions", {"verdict": "fails", "hypotheses": [{"name": "x"}]}, "verdict: fails", 3)
    r2 = copy.deepcopy(r) if how == "deepcopy" else pickle.loads(pickle.dumps(r))
    assert r2 == r
    with pytest.raises(TypeError):
        r2.payload["verdict"] = "holds"
    with pytest.raises(TypeError):
        r2.payload["hypotheses"].append({})


def test_report_exit_code_must_match_its_verdict():
    for verdict, code in (("holds", 3), ("fails", 0), ("unknown", 0), ("certificate_invalid", 0)):
        with pytest.raises(ValueError):
            Report("theorem" if verdict != "certificate_invalid" else "recheck", {"verdict": verdict}, "", code)


@pytest.fixture
def no_work(monkeypatch):
    """Every expensive step raises: a refusal must come before any of them."""
    import verify._depth
    import verify._sos.lyapunov
    import verify._sos.prove
    import verify._theorem.check

    def boom(*a, **k):
        raise AssertionError("work started before the output target was checked")
    monkeypatch.setattr(verify._sos.prove, "prove_nonnegative", boom)
    monkeypatch.setattr(verify._sos.lyapunov, "find_lyapunov", boom)
    monkeypatch.setattr(verify._theorem.check, "check_theorem", boom)
    monkeypatch.setattr(verify._depth, "certify_depth", boom)
    import verify.simulation

    monkeypatch.setattr(verify.simulation, "integrate", boom)


def _targets(p):
    existing_png = p.tmp / "old.png"
    existing_png.write_bytes(b"old")
    link_png = p.tmp / "link.png"
    os.symlink(p.tmp / "victim.png", link_png)
    fifo_png = p.tmp / "fifo.png"
    os.mkfifo(fifo_png)
    dir_png = p.tmp / "dir.png"
    dir_png.mkdir()
    return {"existing": str(existing_png), "symlink": str(link_png), "fifo": str(fifo_png), "dir": str(dir_png)}


@pytest.mark.parametrize("kind", ["existing", "symlink", "fifo", "dir", "/dev/null"])
def test_file_targets_are_refused_before_any_work(no_work, paths, kind):
    t = _targets(paths)
    png = "/dev/null" if kind == "/dev/null" else t[kind]
    js = {"existing": paths.file, "symlink": paths.link, "fifo": paths.fifo, "dir": paths.dir, "/dev/null": "/dev/null"}[kind]
    calls = [lambda: verify.sos("x^2 + 1", save=js), lambda: verify.lyapunov("-x, -y", vars="x,y", save=js),
             lambda: verify.simulate(t_end=1, json_out=js), lambda: verify.simulate(t_end=1, plot=png),
             lambda: verify.simulate(t_end=1, plot=str(paths.tmp / "new.png"), json_out=js)]
    for call in calls:
        with pytest.raises(InvalidInput):
            call()
    assert Path(paths.file).read_text() == "{}" and Path(t["existing"]).read_bytes() == b"old"
    assert not (paths.tmp / "target.json").exists() and not (paths.tmp / "victim.png").exists()
    assert not (paths.tmp / "new.png").exists()


@pytest.mark.parametrize("kind", ["existing report", "existing certificate", "report is a directory", "report is a symlink"])
def test_directory_targets_are_refused_before_any_work(no_work, tmp_path, kind):
    save = tmp_path / "save"
    save.mkdir()
    names = {"theorem": "3_2__report.json" if kind != "existing certificate" else "3_2__someproof.json",
             "depth": "3_2__depth_ode__report.json" if kind != "existing certificate" else "3_2__depth_ode.json"}
    for what, call in (("theorem", lambda: verify.theorem("3.2", simulate=False, save=save)),
                       ("depth", lambda: verify.depth("3.2", simulate=False, save=save))):
        target = save / names[what]
        if kind == "report is a directory":
            target.mkdir()
        elif kind == "report is a symlink":
            os.symlink(tmp_path / "victim.json", target)
        else:
            target.write_text("old")
        with pytest.raises(InvalidInput):
            call()
        assert not (tmp_path / "victim.json").exists()
        if kind.startswith("existing"):
            assert target.read_text() == "old"
        assert [p.name for p in save.iterdir()] == [target.name]  # nothing else written, no temporary left
        if target.is_dir():
            target.rmdir()
        else:
            target.unlink()


def test_a_save_into_a_link_to_a_directory_is_refused(no_work, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "alias")
    for call in (lambda: verify.theorem("3.2", simulate=False, save=tmp_path / "alias"),
                 lambda: verify.depth("3.2", simulate=False, save=tmp_path / "alias")):
        with pytest.raises(InvalidInput):
            call()
    assert list(real.iterdir()) == []


def test_forced_writes_replace_only_regular_files_and_report_them(tmp_path):
    c = tmp_path / "c.json"
    c.write_text("old")
    r = verify.sos("x^2 + 1", save=c, force=True)
    assert r.files == (str(c),) and json.loads(c.read_text())["kind"] == "nonnegativity"
    assert verify.recheck(c).verdict == "holds"
    link = tmp_path / "l.json"
    os.symlink(c, link)
    with pytest.raises(InvalidInput):
        verify.sos("x^2 + 1", save=link, force=True)
    r = verify.sos("x^4*y^2 + x^2*y^4 - 3*x^2*y^2 + 1", save=tmp_path / "none.json")  # no certificate: nothing written
    assert r.verdict == "unknown" and r.files == () and not (tmp_path / "none.json").exists()


MARKUP = "<img src=x onerror=alert(1)><script>alert('x')</script>&amp;"


def _assert_escaped(html_text: str, shown: bool = True) -> None:
    assert "<script" not in html_text and "<img" not in html_text, html_text
    if shown:
        assert "&lt;script&gt;" in html_text or "&lt;img" in html_text, html_text


def test_markup_in_instance_names_is_escaped_in_html():
    data = _hf() | {"name": MARKUP, "description": MARKUP}
    for r in (verify.theorem("3.2", data, simulate=False), verify.assumptions("3.2", instance=data),
              verify.depth("3.2", instance=data, simulate=False), verify.simulate(instance=data, t_end=1, points=3)):
        html_text = r._repr_html_()
        _assert_escaped(html_text, shown=r.kind != "depth")
        assert MARKUP not in r._repr_markdown_().split("```text")[0]


def test_markup_in_certificate_labels_and_self_built_reports_is_escaped(parrilo):
    cert = copy.deepcopy(parrilo[1])
    cert["label"] = MARKUP
    _assert_escaped(verify.recheck(cert)._repr_html_())
    r = Report("simulate", {"status": MARKUP}, MARKUP + "\n```\n" + MARKUP)
    _assert_escaped(r._repr_html_())
    md = r._repr_markdown_()
    assert md.count("```") == 2  # the text cannot close the code fence


@pytest.mark.parametrize("name", ["$x^$", "$\\frac{$", "$\\undefinedmacro$"])
def test_tex_markup_in_instance_names_is_drawn_literally(tmp_path, name):
    import matplotlib

    matplotlib.use("Agg")
    r = verify.simulate(instance=_hf() | {"name": name}, t_end=1, points=3, plot=tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0
    r.plot().savefig(tmp_path / "again.png")


def _sim_report(**body):
    return Report("simulate", {"status": "completed", **body}, "")


PLOT_BAD = {
    "series of strings": lambda: _sim_report(series={"t": ["a"], "E_pair": [1]}).plot(),
    "series t scalar": lambda: _sim_report(series={"t": 5, "E_pair": 5}).plot(),
    "series nested": lambda: _sim_report(series={"t": [[0, 1]], "E_pair": [[1, 2]]}).plot(),
    "batch without mean": lambda: _sim_report(batch={"t": [0, 1], "E_pair": {"x": 1}}).plot(),
    "title not text": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1, 0.5]}).plot(title=object()),
    "variant unknown": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1, 0.5]}).plot(variant="zzz"),
    "consensus without n_blocks": lambda: Report("consensus", {"status": "completed",
                                                               "metrics": {"E": {"per_prompt": [[1, 2]]}}}, "").plot(),
    "consensus metrics list": lambda: Report("consensus", {"status": "completed", "metrics": [1]}, "").plot(),
    "consensus per_prompt text": lambda: Report("consensus", {"status": "completed", "n_blocks": 1,
                                                              "metrics": {"E": {"per_prompt": "abc"}}}, "").plot(),
    "audit d_model text": lambda: Report("audit", {"verdict": "fails", "heads": {"x": 1}, "layout": {"d_model": "a"}},
                                         "").plot(),
    "depth bound text": lambda: Report("depth", {"verdict": "holds", "bound": "abc", "observed": 1}, "").plot(),
}


@pytest.mark.parametrize("name", ["series mismatch", "no series", "list", "sos", "theorem without evidence",
                                  "theorem without record", "depth empty", "audit without tables", "unknown option"])
def test_plots_of_unusable_reports_raise_invalid_input(name):
    calls = {
        "series mismatch": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1]}).plot(),
        "no series": lambda: _sim_report(final={"E_pair": 1}).plot(),
        "list": lambda: Report("list", {"status": "ok"}, "").plot(),
        "sos": lambda: Report("sos", {"verdict": "holds"}, "").plot(),
        "theorem without evidence": lambda: Report("theorem", {"verdict": "holds"}, "").plot(),
        "theorem without record": lambda: Report("theorem", {"verdict": "holds", "numerical_evidence": {"x": 1}}, "").plot(),
        "depth empty": lambda: Report("depth", {"verdict": "holds"}, "").plot(),
        "audit without tables": lambda: Report("audit", {"verdict": "fails"}, "").plot(),
        "unknown option": lambda: _sim_report(series={"t": [0, 1], "E_pair": [1, 0.5]}).plot(foo=1),
    }
    with pytest.raises(InvalidInput):
        calls[name]()


@pytest.mark.parametrize("name", sorted(PLOT_BAD))
def test_plots_of_malformed_self_built_reports_raise_invalid_input(name):
    import matplotlib

    matplotlib.use("Agg")
    with pytest.raises(InvalidInput):
        PLOT_BAD[name]()


@pytest.mark.parametrize("key,value", [("t_end", 1e9), ("samples", 10 ** 9)])
def test_theorem_plot_does_not_trust_a_tampered_horizon(reports, monkeypatch, key, value):
    import numerics.dop853 as dop

    import copy
    import dataclasses

    real = reports["theorem"]
    assert real.payload["numerical_evidence"]
    evidence = copy.deepcopy(real.record.evidence)  # the figure is drawn from the record: tamper with its evidence
    evidence["integrator"][key] = value
    forged = Report("theorem", real.to_json(), real.text, real.exit_code,
                    record=dataclasses.replace(real.record, evidence=evidence))

    def spy(self, systems, t_end, **kw):
        raise AssertionError(f"integrated to t_end={t_end} with {kw}")
    monkeypatch.setattr(dop.DOP853, "integrate", spy)
    with pytest.raises(InvalidInput):
        forged.plot()


def test_theorem_plot_refuses_a_record_of_another_instance(reports):
    import matplotlib

    matplotlib.use("Agg")
    other = verify.theorem("4.2", t_end=1)
    forged = Report("theorem", reports["theorem"].to_json(), "", 0, record=other.record)
    with pytest.raises(InvalidInput):
        forged.plot()
