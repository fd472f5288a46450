"""``export_theorem`` / ``export_report``: write the ``.v`` file of a proof (the library calls behind
``verify theorem ID --export-coq DIR``).

``export_theorem`` proves the result in Python first (:func:`verify._theorem.check.check_theorem`, no
simulation) and exports the report it returns; ``export_report`` exports a report saved by
``verify theorem ID --save DIR`` (``<id>__report.json``), an untrusted file: with ``recheck=True`` every
certificate must pass its exact Python re-check first, with ``recheck=False`` the data go to Coq as they are
and ``coqc`` alone decides (used by the soundness tests).  Existing files are replaced only with ``force``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from theorems.errors import InvalidInput
from verify.instances import resolve_instance

from .compose import build, module_name
from .records import ExportRecord


def export_theorem(theorem_id: str, directory: str | Path, instance: Any = None, force: bool = False) -> ExportRecord:
    """Prove ``theorem_id`` on ``instance`` (default: its example) and write ``DIR/theorem_<id>.v``.

    ``instance``: a path, a JSON-like dict or an ``AttentionSystem``.  Only a report whose verdict is
    ``holds`` is exported (a proof that does not hold in Python has nothing to hand to Coq)."""
    from theorems.catalogue import get
    from verify._theorem.check import check_theorem

    if not isinstance(theorem_id, str):
        raise InvalidInput("theorem_id", "a result id as text, such as '4.2'", theorem_id)
    from verify.outputs import Target, check_dir, check_targets

    theorem = get(theorem_id)
    directory = Path(directory)
    check_dir("export_coq", directory)  # before the proof: a bad directory or an existing file fails fast
    check_targets([Target("export_coq", directory / f"{module_name(theorem.id)}.v")], force)
    system = resolve_instance(instance, theorem.example)
    report = check_theorem(theorem.id, system, simulate=False)
    payload = report.to_json()
    if payload["verdict"] != "holds":
        raise InvalidInput("theorem_id", "a result whose proof holds on the instance", payload["verdict"],
                           f"{payload['explanation']}; nothing to export")
    return _write(payload, directory, force, recheck=True)


def export_report(report: str | Path | Mapping[str, Any], directory: str | Path, force: bool = False,
                  recheck: bool = True) -> ExportRecord:
    """Export a saved theorem report (a path to ``<id>__report.json`` or its parsed payload).

    With ``recheck`` only a report whose verdict is ``holds`` is exported, as by :func:`export_theorem`."""
    payload = _load(report)
    if recheck and payload.get("verdict") != "holds":
        raise InvalidInput("report.verdict", "holds (a proof to export)", payload.get("verdict"),
                           "only a proof that holds in Python is exported; recheck=False lets coqc decide")
    return _write(payload, Path(directory), force, recheck=recheck)


def _load(report: str | Path | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(report, Mapping):
        return report
    if not isinstance(report, (str, Path)):
        raise InvalidInput("report", "a path to a saved theorem report or its payload", type(report).__name__)
    path = Path(report)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput("report", "a readable JSON theorem report (verify theorem ID --save DIR)", str(path)) from exc
    if not isinstance(data, dict):
        raise InvalidInput("report", "a JSON object", type(data).__name__)
    return data.get("payload", data) if isinstance(data.get("payload"), dict) else data


def _write(payload: Mapping[str, Any], directory: Path, force: bool, recheck: bool) -> ExportRecord:
    from verify.outputs import Target, check_dir, write_all

    source = build(payload, recheck=recheck)
    check_dir("export_coq", directory)
    path = directory / f"{source.module}.v"
    write_all([(Target("export_coq", path), source.text)], force)
    return ExportRecord(str(payload["theorem"]["id"]), path, source, str(payload.get("verdict")), recheck)
