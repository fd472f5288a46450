"""Runs one metamorphic case through the toolkit (issue 20) and compares it with the ground truth.

For a :class:`metamorphic_cases.Case`: ``verify.assumptions(case.theorem, instance)`` on the instance
and on its all-exact twin, every hypothesis compared with :func:`metamorphic_truth.truth`; optionally
``verify.theorem`` (with the exceptional-start notes of 4.2 and 4.4-sym) and ``verify.depth``; every
verdict labelled exact re-checked by :mod:`metamorphic_witness`.  The record is plain JSON (rows of
``check / project / truth / twin``) so that pytest-xdist workers can share it.
"""
from __future__ import annotations

import traceback
from typing import Any

import verify

import metamorphic_truth as T
from metamorphic_cases import Case, twin
from metamorphic_witness import depth_certificate_problems, recheck

NOT_HOLDS = T.NOT_HOLDS


def _call(fn, *args, **kwargs) -> tuple[Any, str | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as exc:  # a crash or a refusal of a valid instance is a finding, not a test error
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return None, f"{type(exc).__name__}: {str(exc)[:200]} ({where.filename.split('/')[-1]}:{where.lineno})"


def _note_generic(theorem_id: str, payload: dict) -> str:
    """``holds`` when the report does not flag an exceptional start, ``fails`` when it does."""
    text = " ".join(str(payload.get(k, "")) for k in ("explanation", "note", "remark", "remarks")).lower()
    if theorem_id == "4.2":
        flagged = "exceptional set" in text
    else:
        flagged = "<v, x_1(0)> = 0" in text or "exceptional start" in text
    return "fails" if flagged else "holds"


def classify(row: dict) -> list[str]:
    """Flags of one comparison: agree, unknown, false_hold, false_fail, twin_mismatch, error."""
    p, t, tw = row["project"], row["truth"], row["twin"]
    flags = []
    if p is None or p.startswith("error"):
        flags.append("error")
    elif p == "holds" and t in ("fails", "n/a", NOT_HOLDS):
        flags.append("false_hold")
    elif p == "fails" and t == "holds":
        flags.append("false_fail")
    elif p == "unknown" and t in ("holds", "fails"):
        flags.append("unknown")
    else:
        flags.append("agree")
    if tw == "holds" and t in ("fails", "n/a", NOT_HOLDS):
        flags.append("twin_false_hold")
    elif tw == "fails" and t == "holds":
        flags.append("twin_false_fail")
    if tw is not None and tw != p:
        flags.append("twin_mismatch")
    return flags


def _witnesses(verdicts: list[dict], data: dict, where: str, out: dict) -> None:
    for v in verdicts:
        try:
            n, problems = recheck(v, data)
        except Exception as exc:  # an unreadable witness is reported, never skipped silently
            n, problems = 1, [f"{v.get('name')}: witness not re-checkable ({type(exc).__name__}: {exc})"]
        out["witnesses"] += n
        out["witness_problems"] += [f"{where} {p}" for p in problems]


def _hypotheses(theorem_id: str, data: dict) -> tuple[dict[str, dict] | None, str | None]:
    rep, err = _call(verify.assumptions, theorem_id, instance=data)
    if err:
        return None, err
    return {h["name"]: h for h in rep.to_json()["hypotheses"]}, None


def evaluate(case: Case, truth: dict[str, str] | None = None) -> dict:
    """The JSON record of one case (see the module doc)."""
    truth = truth or T.truth(case.data)
    other = twin(case.data)
    rec: dict[str, Any] = {"id": case.id, "relation": case.relation, "rows": [], "witnesses": 0,
                           "witness_problems": [], "errors": []}
    mine, err = _hypotheses(case.theorem, case.data)
    theirs, err_twin = _hypotheses(case.theorem, other)
    if err:
        rec["errors"].append(f"assumptions {case.theorem}: {err}")
    if err_twin:
        rec["errors"].append(f"assumptions {case.theorem} (twin): {err_twin}")
    for name in T.HYPOTHESES[case.theorem]:
        p = mine[name]["verdict"] if mine and name in mine else ("error" if err else "missing")
        tw = theirs[name]["verdict"] if theirs and name in theirs else ("error" if err_twin else "missing")
        rec["rows"].append({"check": name, "kind": "predicate", "project": p, "truth": truth[name], "twin": tw})
    if mine:
        _witnesses(list(mine.values()), case.data, f"[{case.id}]", rec)
    if theirs:
        _witnesses(list(theirs.values()), other, f"[{case.id} twin]", rec)
    if case.theorem_level:
        _theorem(case, truth, other, rec)
    if case.depth:
        _depth(case, truth, other, rec)
    for row in rec["rows"]:
        row["flags"] = classify(row)
    return rec


def _theorem(case: Case, truth: dict, other: dict, rec: dict) -> None:
    tid = case.theorem_level
    expected = T.theorem_truth(tid, truth)
    mine, err = _call(verify.theorem, tid, case.data, simulate=False)
    theirs, err_twin = _call(verify.theorem, tid, other, simulate=False)
    for e, label in ((err, ""), (err_twin, " (twin)")):
        if e:
            rec["errors"].append(f"theorem {tid}{label}: {e}")
    p = mine.verdict if mine else "error"
    tw = theirs.verdict if theirs else "error"
    rec["rows"].append({"check": f"theorem {tid}", "kind": "theorem", "project": p, "truth": expected, "twin": tw})
    for rep, data, label in ((mine, case.data, ""), (theirs, other, " twin")):
        if rep is not None:
            payload = rep.to_json()
            steps = [s["verdict"] for s in payload.get("steps", []) if isinstance(s.get("verdict"), dict)]
            _witnesses(payload.get("hypotheses", []) + steps, data, f"[{case.id}{label} theorem {tid}]", rec)
    if tid in ("4.2", "4.4-sym") and p == "holds":
        if tid == "4.2":
            generic = "fails" if T.antipodal_tokens(case.data) else "holds"
        else:
            generic = "fails" if T.v_orthogonal_first(case.data) else "holds"
        tw_note = _note_generic(tid, theirs.to_json()) if theirs is not None and tw == "holds" else None
        rec["rows"].append({"check": f"theorem {tid}: start not exceptional", "kind": "note",
                            "project": _note_generic(tid, mine.to_json()), "truth": generic, "twin": tw_note})


def _depth(case: Case, truth: dict, other: dict, rec: dict) -> None:
    tid = case.depth
    expected = T.depth_truth(tid, case.data, truth)
    mine, err = _call(verify.depth, tid, instance=case.data, simulate=False, window=False)  # the closed form's domain
    theirs, err_twin = _call(verify.depth, tid, instance=other, simulate=False, window=False)
    for e, label in ((err, ""), (err_twin, " (twin)")):
        if e:
            rec["errors"].append(f"depth {tid}{label}: {e}")
    p = mine.verdict if mine else "error"
    tw = theirs.verdict if theirs else "error"
    rec["rows"].append({"check": f"depth {tid}", "kind": "depth", "project": p, "truth": expected, "twin": tw})
    for rep, data, label in ((mine, case.data, ""), (theirs, other, " twin")):
        cert = getattr(getattr(rep, "record", None), "certificate", None)
        if rep is not None and rep.verdict == "holds" and cert is not None:
            n, problems = depth_certificate_problems(cert.tokens, cert.p, data)
            rec["witnesses"] += n
            rec["witness_problems"] += [f"[{case.id}{label} depth {tid}] {x}" for x in problems]


BAD = ("false_hold", "false_fail", "twin_false_hold", "twin_false_fail", "twin_mismatch", "error")


def problems(rec: dict) -> list[str]:
    """Human lines for everything that breaks the contract in a record."""
    out = []
    for row in rec["rows"]:
        bad = [f for f in row["flags"] if f in BAD]
        if bad:
            out.append(f"{'/'.join(bad)}: {row['check']} on {rec['id']}: project {row['project']}, "
                       f"truth {row['truth']}, twin {row['twin']}")
    out += [f"witness: {p}" for p in rec["witness_problems"]]
    out += [f"error: {e}" for e in rec["errors"]]
    return out
