"""Benchmark: exact SOS certificates up to Gram 300+ (issue "Performance IV"), side by side with the peer.

Every figure is one exact certificate search, :func:`verify._sos.prove.prove_exact` through its
exact re-check, in a fresh subprocess per (problem, contender), so that the peak resident memory
(``ru_maxrss`` of that child, from ``os.wait4``) and the CPU time (user + system of that child) are
the search's own; wall time is measured around the child.  The 1-minute load average is recorded
before and after every run (the machine is shared: compare CPU times when walls are noisy).

Contenders, run back to back for each problem (alternating order between problems):

* ``new``: the defaults (first-order SCS margin solve from Gram 80, ``verify._sos.engine.FIRST_ORDER_FROM``, term
  sparsity, the congruence PSD witnesses of the re-check);
* ``peer``: the previous search path, ``first_order=False, term_sparsity=False`` (Clarabel's
  interior-point margin solve through CVXPY for every program); the same exact rounding and
  re-check.  Skipped (with the reason) when Clarabel's dense Newton blocks would exceed
  ``--peer-max-entries`` (about 53 bytes per entry were measured: Gram 136 peaked at 4.6 GB, Gram 165
  ran out of memory).

The family ("planted"): ``p = m^T (B B^T + I) m`` with ``m`` every monomial of degree ``<= k`` in
``n`` variables and ``B`` a random integer ``|m| x 4`` matrix: a random SOS plus the sum of squares
of the basis monomials, so a strictly interior Gram point exists and the Newton basis is all of
``m`` (Gram size ``C(n + k, k)``).  ``sym``: the same with ``B`` supported on the monomials of one
parity class per column (``p`` is even in every variable), which term sparsity splits into blocks;
for it a third contender, ``dense`` (``term_sparsity=False``: the first-order search on the one
dense block), shows what the split saves.

``--theorem``: the theorem family instead (:mod:`sos_theorem_family`: the 4.4-sym first-token
inequality, 7 variables, degree 8, Gram 330, whose Gram matrices are all singular): contenders
``thm-plain`` (no zeros, no split), ``thm-zeros`` (the facial reduction by 25 exact zeros,
:mod:`verify._sos.facial_zeros`, no split), ``thm-split`` (zeros and the default term sparsity,
which finds nothing to split: the sphere multiplier reaches every pair of the block) and
``thm-rotated`` (zeros, rotated coordinates: no sign symmetry; at degree 6, Gram 120, and 8).
The ``gram`` field of these rows is the degree.

    python benchmarks/bench_sos_scale.py [--sizes 56,84,136,165,330] [--sym] [--psd] [--theorem]
                                         [--timeout 600] [--mem-limit-gb 10] [--format text|json]

``--psd``: the exact PSD decision on one rounded Gram block per size, side by side: the
re-check's congruence witness (:mod:`verify._sos.psd_congruence`), the pure-Python fraction-free
LDL^T reference (:mod:`verify._sos.exact_psd`, up to Gram 165: about a minute at 330) and flint's
characteristic polynomial (:mod:`theorems.psd_flint`, the rounding side up to Gram 100).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LADDER = {56: (5, 3), 84: (6, 3), 136: (15, 2), 165: (8, 3), 210: (6, 4), 330: (7, 4), 364: (11, 3)}
"""Gram size -> (variables n, half degree k): ``C(n + k, k)`` monomials of degree ``<= k``."""


def planted(size: int, sym: bool = False, seed: int = 0, rank: int = 4):
    """``(p, names)``: the planted family above, as exact polynomial dicts."""
    from verify._sos import poly

    n, k = LADDER[size]
    basis = poly.monomials_up_to(n, 0, k)
    if len(basis) != size:
        raise ValueError(f"Gram {size}: C({n}+{k},{k}) = {len(basis)}")
    rng = random.Random(seed)
    if sym:
        parities = sorted({tuple(e % 2 for e in m) for m in basis})
        chosen = [rng.choice(parities) for _ in range(rank)]
        B = [[rng.randint(-2, 2) if tuple(e % 2 for e in m) == chosen[c] else 0 for c in range(rank)] for m in basis]
    else:
        B = [[rng.randint(-2, 2) for _ in range(rank)] for _ in basis]
    p: dict = {}
    for i, mi in enumerate(basis):
        for j, mj in enumerate(basis):
            q = sum(a * b for a, b in zip(B[i], B[j])) + (1 if i == j else 0)
            if q:
                mono = poly.mono_mul(mi, mj)
                p[mono] = p.get(mono, 0) + Fraction(q)
    return {m: c for m, c in p.items() if c}, tuple(f"x{i}" for i in range(n))


def child(size: int, sym: bool, contender: str, out: str, mem_limit_gb: float) -> None:
    """One search in this process; writes its record to ``out`` (JSON).  The address space is
    capped at ``mem_limit_gb`` so that a contender that needs more fails alone (a crashed row)
    instead of pushing a shared machine into swap."""
    import resource

    limit = int(mem_limit_gb * 2 ** 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from verify._sos.options import SOSOptions
    from verify._sos.prove import prove_exact

    eqs, zeros = (), None
    if contender.startswith("thm-"):  # the theorem family (sos_theorem_family.py): size is the degree
        from sos_theorem_family import sym44

        p, sphere, zeros, names = sym44(7, rotated="rotated" in contender)
        eqs = (sphere,)
    else:
        p, names = planted(size, sym)
    options = {"new": SOSOptions(refute=False), "dense": SOSOptions(refute=False, term_sparsity=False),
               "peer": SOSOptions(refute=False, first_order=False, term_sparsity=False),
               "thm-plain": SOSOptions(degree=size, refute=False, term_sparsity=False),
               "thm-zeros": SOSOptions(degree=size, refute=False, term_sparsity=False, zeros=zeros),
               "thm-split": SOSOptions(degree=size, refute=False, zeros=zeros),
               "thm-rotated": SOSOptions(degree=size, refute=False, zeros=zeros)}[contender]
    start = time.perf_counter()
    result = prove_exact(p, names, (), eqs, options=options)
    wall = time.perf_counter() - start
    s = result.stats
    cert = result.certificate
    Path(out).write_text(json.dumps({
        "verdict": result.status.value, "reason": result.verdict.reason[:300], "search_wall_s": wall,
        "margin_solve_s": s.margin_solve_s, "float_solve_s": s.float_solve_s, "rounding_and_recheck_s": s.rounding_s,
        "margin_solves": list(s.margin_solves), "program_blocks": len(s.gram_blocks),
        "largest_program_block": max(s.gram_blocks or (0,)), "unknowns": s.unknowns,
        "certificate_blocks": list(cert.gram_sizes()) if cert is not None else None}))


def newton_entries(size: int) -> int:
    """Clarabel's dense Newton entries for the peer (which never splits: one block of ``size``)."""
    return (size * (size + 1) // 2) ** 2


def run_child(size: int, sym: bool, contender: str, timeout: int, mem_limit_gb: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        cmd = [sys.executable, __file__, "--child", f"{size},{int(sym)},{contender},{out},{mem_limit_gb}"]
        load0 = os.getloadavg()[0]
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = start + timeout
        while True:  # poll with wait4 so that the child's own rusage comes back
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")[-300:] if proc.stderr else ""
        record = {"gram": size, "sym": sym, "contender": contender, "wall_s": wall,
                  "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024,
                  "load_1min": [load0, os.getloadavg()[0]], "exit": proc.returncode}
        if os.path.exists(out):
            record.update(json.loads(Path(out).read_text()))
        else:
            record["verdict"] = "timeout" if wall > timeout else "crashed"
            record["reason"] = err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}"
        return record


def psd_rows(sizes) -> list[dict]:
    """The exact PSD decision of one rounded interior Gram block per size, three ways."""
    import numpy as np

    from theorems.psd_flint import psd_decision
    from verify._sos.exact_psd import check_psd
    from verify._sos.psd_congruence import decide_psd

    rows = []
    for size in sizes:
        rng = np.random.default_rng(size)
        A = rng.standard_normal((size, size))
        G = A @ A.T / size + 0.05 * np.eye(size)
        D = 2 ** 26
        M = [[Fraction(round(float(G[min(i, j), max(i, j)]) * D), D) for j in range(size)] for i in range(size)]
        row = {"gram": size, "load_1min": os.getloadavg()[0]}
        for name, decide, limit in (("congruence", lambda m: decide_psd(m).ok, 10 ** 9),
                                    ("reference_ldlt", lambda m: check_psd(m).ok, 165),
                                    ("flint_charpoly", lambda m: psd_decision(m).psd, 330)):
            if size > limit:
                row[name] = None
                continue
            wall, cpu = time.perf_counter(), time.process_time()
            verdict = decide(M)
            row[name] = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu, "psd": verdict}
        rows.append(row)
    return rows


def _fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="56,84,136,165,330")
    parser.add_argument("--sym", action="store_true", help="also the parity-structured family (term sparsity)")
    parser.add_argument("--theorem", action="store_true",
                        help="only the theorem family (4.4-sym first token, 7 variables, degree 8: Gram 330; JSON)")
    parser.add_argument("--psd", action="store_true", help="also the exact PSD decisions side by side")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per child")
    parser.add_argument("--peer-max-entries", type=float, default=1.0e8,
                        help="skip the peer beyond this many dense Newton entries (Gram 136: 8.7e7)")
    parser.add_argument("--mem-limit-gb", type=float, default=10.0,
                        help="address-space cap of every child (a contender needing more crashes alone)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        size, sym, contender, out, mem = args.child.split(",")
        child(int(size), sym == "1", contender, out, float(mem))
        return 0
    sizes = [int(v) for v in args.sizes.split(",") if v.strip()]
    if any(s not in LADDER for s in sizes):
        parser.error(f"--sizes: from {sorted(LADDER)}")
    rows = []
    if args.theorem:
        for degree, who in ((8, "thm-plain"), (8, "thm-zeros"), (8, "thm-split"), (6, "thm-rotated"),
                            (8, "thm-rotated")):
            rows.append(run_child(degree, False, who, args.timeout, args.mem_limit_gb))
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    cases = [(s, False) for s in sizes] + ([(s, True) for s in sizes if s >= 165] if args.sym else [])
    for index, (size, sym) in enumerate(cases):
        order = ("new", "peer") if index % 2 == 0 else ("peer", "new")
        if sym:
            order = order + ("dense",)
        for contender in order:
            if contender == "peer" and newton_entries(size) > args.peer_max_entries:
                rows.append({"gram": size, "sym": sym, "contender": "peer", "verdict": "not run",
                             "reason": f"Clarabel's dense Newton blocks: {newton_entries(size):.2g} entries "
                                       f"(> {args.peer_max_entries:.2g}; Gram 136 = 8.7e7 peaked at 4.6 GB)"})
                continue
            rows.append(run_child(size, sym, contender, args.timeout, args.mem_limit_gb))
    psd = psd_rows(sizes) if args.psd else []
    if args.format == "json":
        sys.stdout.write(json.dumps({"ladder": rows, "psd": psd}, indent=2) + "\n")
        return 0
    head = (f"{'Gram':>5s} {'family':7s} {'who':5s} {'verdict':8s} {'wall s':>7s} {'cpu s':>7s} {'RSS MB':>7s} "
            f"{'margin s':>9s} {'exact s':>8s} {'blocks':>14s} {'solves':>22s} {'load':>9s}")
    sys.stdout.write(head + "\n" + "-" * len(head) + "\n")
    by_key = {(r["gram"], r["sym"], r["contender"]): r for r in rows}
    for r in rows:
        blocks = r.get("certificate_blocks")
        shown = "-" if not blocks else (f"{len(blocks)} <= {max(blocks)}" if len(blocks) > 1 else str(blocks[0]))
        load = "-".join(f"{v:.1f}" for v in r.get("load_1min", ())) or "-"
        sys.stdout.write(f"{r['gram']:5d} {'sym' if r['sym'] else 'planted':7s} {r['contender']:5s} "
                         f"{r['verdict']:8s} {_fmt(r.get('wall_s')):>7s} {_fmt(r.get('cpu_s')):>7s} "
                         f"{_fmt(r.get('peak_rss_mb'), '.0f'):>7s} {_fmt(r.get('margin_solve_s')):>9s} "
                         f"{_fmt(r.get('rounding_and_recheck_s')):>8s} {shown:>14s} "
                         f"{'+'.join(r.get('margin_solves', ())) or '-':>22s} {load:>9s}\n")
        if r["verdict"] not in ("holds",):
            sys.stdout.write(f"      reason: {r.get('reason', '')[:160]}\n")
    sys.stdout.write("\nratios (wall, cpu, RSS):\n")
    for (size, sym, who), r in by_key.items():
        for name in ("peer", "dense"):
            other = by_key.get((size, sym, name))
            if who != "new" or other is None or "wall_s" not in other or other["verdict"] != "holds":
                continue
            sys.stdout.write(f"  Gram {size}{' sym' if sym else ''}, {name} / new: {other['wall_s'] / r['wall_s']:.2f}x wall, "
                             f"{other['cpu_s'] / r['cpu_s']:.2f}x cpu, {other['peak_rss_mb'] / r['peak_rss_mb']:.2f}x RSS\n")
    if psd:
        sys.stdout.write(f"\n{'exact PSD of a rounded Gram block':34s} {'congruence s':>13s} {'LDL^T ref s':>12s} "
                         f"{'charpoly s':>11s} {'load':>5s}\n")
        for r in psd:
            cells = [_fmt((r[k] or {}).get("wall_s"), ".3f") if r[k] else "-" for k in
                     ("congruence", "reference_ldlt", "flint_charpoly")]
            agree = {r[k]["psd"] for k in ("congruence", "reference_ldlt", "flint_charpoly") if r[k]}
            sys.stdout.write(f"  Gram {r['gram']:<27d} {cells[0]:>13s} {cells[1]:>12s} {cells[2]:>11s} "
                             f"{r['load_1min']:5.1f}  {'agree' if len(agree) == 1 else 'DISAGREE'}\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    raise SystemExit(main())
