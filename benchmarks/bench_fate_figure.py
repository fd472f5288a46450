"""Summary and figure of ``bench_fate.py`` runs (JSON lines, one per instance).

    python benchmarks/bench_fate_figure.py RESULTS.jsonl [MORE.jsonl ...] --png OUT.png [--summary OUT.json]

The summary counts certified fates (overall, per route, per mask and number of heads), the reasons of
the unknown ones, the oracle agreements (a ``repulsion`` row: the smallest ratio of the oracle's pair distance
to the certified bound, ``>= 1`` to agree) and the wall times; the figure shows the outcome per instance
class, the wall time against ``N d`` and the oracle's disagreement against the entry time.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections import Counter

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))


def _why(row: dict) -> str:
    r = row["reason"]
    if row["fate"] != "unknown":
        return row["route"]
    if "not settled" in r:
        return "unknown: no settled limit (rotation / slow)"
    if r.startswith("certified (") or r.startswith("basin certified ("):
        return "unknown: region certified, enclosure never inside (width)"
    if "too wide" in r or "wide" in r:
        return "unknown: enclosure too wide"
    if "no certified region" in r or "t_max" in r or "reached by" in r:
        return "unknown: region not entered by t_max"
    if "not asymptotically stable" in r or "not stable" in r:
        return "unknown: unstable limit"
    return "unknown: no region certified"


def load(paths) -> list[dict]:
    rows = {}
    for path in paths:
        for line in pathlib.Path(path).read_text().splitlines():
            row = json.loads(line)
            if "seed" in row:
                rows[row["seed"]] = row
    return [rows[k] for k in sorted(rows)]


def summary(rows: list[dict]) -> dict:
    cert = [r for r in rows if r["fate"] != "unknown"]
    checked = [r for r in cert if "agrees" in r]
    walls = sorted(r["wall_s"] for r in rows)
    cwalls = sorted(r["wall_s"] for r in cert)
    settled = [r for r in rows if "not settled" not in r["reason"]]
    return {"instances": len(rows), "certified": len(cert), "share": round(len(cert) / max(len(rows), 1), 4),
            "settled_instances": len(settled),
            "certified_among_settled": round(sum(r["fate"] != "unknown" for r in settled) / max(len(settled), 1), 4),
            "fates": dict(Counter(r["fate"] for r in rows)), "outcomes": dict(Counter(_why(r) for r in rows)),
            "by_class": {f"{m}, {h} head(s)": f"{sum(r['fate'] != 'unknown' for r in rows if r['mask'] == m and r['heads'] == h)}"
                         f"/{sum(r['mask'] == m and r['heads'] == h for r in rows)}"
                         for m in ("full", "causal") for h in (1, 2)},
            "oracle_checked": len(checked), "oracle_agree": sum(r["agrees"] for r in checked),
            "oracle_max_disagreement": max((r["oracle_disagreement"] for r in checked if "oracle_disagreement" in r),
                                           default=None),
            "oracle_repulsion_min_ratio": min((r["oracle_min_ratio"] for r in checked if "oracle_min_ratio" in r),
                                              default=None),
            "wall_median_s": walls[len(walls) // 2] if walls else None,
            "wall_certified_median_s": cwalls[len(cwalls) // 2] if cwalls else None,
            "wall_max_s": walls[-1] if walls else None,
            "certified_within_10s": sum(r["wall_s"] <= 10 for r in cert)}


def figure(rows: list[dict], title: str):
    from numerics.support.png import new_figure

    fig = new_figure((13, 4), layout="constrained")
    a, b, c = fig.subplots(1, 3)
    outcomes = Counter(_why(r) for r in rows)
    names = sorted(outcomes, key=lambda k: (k.startswith("unknown"), k))
    a.barh(range(len(names)), [outcomes[k] for k in names],
           color=["#2ca02c" if not k.startswith("unknown") else "#7f7f7f" for k in names])
    a.set_yticks(range(len(names)), names, fontsize=7)
    a.invert_yaxis()
    a.set_xlabel("instances")
    a.set_title(f"{title}: {sum(r['fate'] != 'unknown' for r in rows)}/{len(rows)} certified", fontsize=9)
    for r in rows:
        col = {"consensus": "#2ca02c", "non-consensus": "#1f77b4"}.get(r["fate"], "#7f7f7f")
        b.scatter(r["N"] * r["d"], r["wall_s"], c=col, s=12, marker="o" if r["mask"] == "full" else "^")
    b.axhline(10, color="k", lw=0.6, ls="--")
    b.set_yscale("log")
    b.set_xlabel("N d")
    b.set_ylabel("wall time (s, shared cores)")
    b.set_title("time per instance (o full, ^ causal; grey unknown)", fontsize=9)
    pts = [r for r in rows if "oracle_disagreement" in r]
    for moving, marker, label in ((False, "o", "distance to the certified limit"),
                                  (True, "s", "moving consensus: diameter max |x_i - x_j|")):
        sel = [r for r in pts if (r.get("oracle_measure") == "diameter") == moving]
        c.scatter([max(r["entry"], 1e-3) for r in sel], [max(r["oracle_disagreement"], 1e-16) for r in sel], s=12,
                  marker=marker, c=["#2ca02c" if r["fate"] == "consensus" else "#1f77b4" for r in sel], label=label)
    c.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 0.1))
    c.axhline(1e-3, color="r", lw=0.6, ls="--")
    c.set_xscale("log")
    c.set_yscale("log")
    c.set_xlabel("entry time T")
    c.set_ylabel("at max(10T, 60), 50 digits (floor 1e-16)")
    c.set_title("oracle agreement (threshold 1e-3)", fontsize=9)
    return fig


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--png", required=True)
    ap.add_argument("--summary", default=None)
    ap.add_argument("--title", default="random instances")
    args = ap.parse_args(argv)
    from numerics.support.png import figure_png

    rows = load(args.results)
    s = summary(rows)
    pathlib.Path(args.png).write_bytes(figure_png(figure(rows, args.title), dpi=130))
    if args.summary:
        pathlib.Path(args.summary).write_text(json.dumps(s, indent=1) + "\n")
    print(json.dumps(s, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
