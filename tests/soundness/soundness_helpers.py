"""Shared machinery of the soundness suite (issue 9): ground truth with mpmath, bounded runs.

Everything here is independent of the code under test: expressions are evaluated by mpmath from
the same strings the instance carries (numbers become exact ``mpf`` literals at the working
precision, never Python floats), and decimals are compared with :class:`fractions.Fraction`.

The tool is touched only through its public interfaces: ``theorems.system_from_dict``, the
catalogue's predicate objects (``theorems.catalogue.get(ID).hypotheses``, ``.evaluate``) and the
``verify`` command (``verify.cli.main.main`` or a subprocess).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable

import mpmath

REPO = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------------
# Bounded runs
# ---------------------------------------------------------------------------------------------


class TimeLimit(BaseException):
    """Raised by :func:`time_limit`; a BaseException so that no ``except Exception`` in the code
    under test can swallow it and report a verdict after the deadline."""


@contextlib.contextmanager
def time_limit(seconds: int):
    """SIGALRM-based wall-clock limit for in-process calls (main thread, POSIX only).

    Pure-Python loops (SymPy) are interrupted; a single long C call (a huge integer power) is not,
    which is why the parser-bomb examples run in a subprocess instead."""
    def _fire(signum, frame):
        raise TimeLimit(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, _fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@dataclass(frozen=True)
class CliResult:
    argv: tuple[str, ...]
    rc: int | None          # None: killed at the timeout
    stdout: str
    stderr: str
    timed_out: bool

    def describe(self) -> str:
        what = "TIMEOUT" if self.timed_out else f"exit {self.rc}"
        tail = (self.stderr.strip().splitlines() or [""])[-1][:300]
        return f"verify {' '.join(self.argv)[:200]} -> {what}; stderr: {tail}"


def run_cli(argv: list[str], timeout: float = 60.0, cwd: Path | None = None) -> CliResult:
    """``python -m verify.cli.main ARGV`` in a fresh process group, killed (group) at ``timeout``."""
    cmd = [sys.executable, "-c", "import sys; from verify.cli.main import main; sys.exit(main(sys.argv[1:]))", *argv]
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.Popen(cmd, cwd=str(cwd or REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
        return CliResult(tuple(argv), proc.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return CliResult(tuple(argv), None, out or "", err or "", True)


# ---------------------------------------------------------------------------------------------
# Independent evaluation with mpmath
# ---------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![A-Za-z_])(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def _to_python(expr: str) -> str:
    return _NUMBER.sub(lambda m: f"_q('{m.group(1)}')", expr.replace("^", "**"))


def _namespace() -> dict:
    mp = mpmath.mp
    return {"sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan, "exp": mpmath.exp, "log": mpmath.log,
            "sqrt": mpmath.sqrt, "tanh": mpmath.tanh, "atan": mpmath.atan, "sinh": mpmath.sinh,
            "cosh": mpmath.cosh, "abs": abs, "Abs": abs, "pi": mp.pi, "E": mp.e, "_q": mpmath.mpf}


def mp_eval(expr: str | int, t, dps: int = 60):
    """Value of the instance string ``expr`` at ``t`` (an mpf, an exact string or a Fraction),
    computed by mpmath at ``dps`` digits; complex where the principal branch is complex."""
    with mpmath.workdps(dps):
        if isinstance(t, Fraction):
            t = mpmath.mpf(t.numerator) / t.denominator
        ns = _namespace()
        ns["t"] = mpmath.mpf(t)
        return eval(compile(_to_python(str(expr)), "<instance>", "eval"), {"__builtins__": {}}, ns)  # noqa: S307


def mp_real(expr: str, t, dps: int = 60):
    value = mp_eval(expr, t, dps)
    assert isinstance(value, mpmath.mpf), f"{expr} is not real at t = {t}: {value}"
    return value


def sign_change_root(den: str, lo, hi, dps: int = 60, steps: int = 400):
    """A zero ``t0`` of the continuous function ``den`` in ``[lo, hi]``: a grid sign change, then
    bisection to ``dps`` digits.  Asserts the sign change and ``|den(t0)| < 10^-(dps // 2)``."""
    with mpmath.workdps(dps):
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        prev_t, prev_v = lo, mp_real(den, lo, dps)
        a = b = None
        for k in range(1, steps + 1):
            tk = lo + (hi - lo) * k / steps
            vk = mp_real(den, tk, dps)
            if prev_v == 0:
                return prev_t
            if prev_v * vk < 0:
                a, b = prev_t, tk
                break
            prev_t, prev_v = tk, vk
        assert a is not None, f"no sign change of {den} on [{lo}, {hi}]"
        fa = mp_real(den, a, dps)
        for _ in range(4 * dps):
            m = (a + b) / 2
            fm = mp_real(den, m, dps)
            if fm == 0:
                a = b = m
                break
            if fa * fm < 0:
                b = m
            else:
                a, fa = m, fm
        t0 = (a + b) / 2
        assert mp_real(den, a, dps) * mp_real(den, b, dps) <= 0
        assert abs(mp_real(den, t0, dps)) < mpmath.mpf(10) ** (-(dps // 2))
        assert t0 >= 0
        return t0


def jump_at(expr: str, t0, min_jump: float, dps: int = 60) -> None:
    """``|f(t0 - e) - f(t0 + e)| > min_jump`` for e = 1e-12, 1e-20, 1e-30: a jump discontinuity at
    ``t0`` (the difference does not shrink with e, so no continuous f fits)."""
    with mpmath.workdps(dps):
        t0 = mpmath.mpf(t0)
        assert t0 > 0
        for e in ("1e-12", "1e-20", "1e-30"):
            left, right = mp_real(expr, t0 - mpmath.mpf(e), dps), mp_real(expr, t0 + mpmath.mpf(e), dps)
            assert abs(left - right) > min_jump, (expr, t0, e, left, right)


def values_differ(expr: str, t1, t2, min_gap: float, dps: int = 60) -> None:
    a, b = mp_real(expr, t1, dps), mp_real(expr, t2, dps)
    assert abs(a - b) > min_gap, (expr, t1, t2, a, b)


def complex_at(expr: str, t0, dps: int = 60) -> None:
    """``expr(t0)`` has an imaginary part far above the working precision (10^-(dps/3))."""
    value = mp_eval(expr, t0, dps)
    with mpmath.workdps(dps):
        assert isinstance(value, mpmath.mpc) and abs(value.imag) > mpmath.mpf(10) ** -(dps // 3), (expr, t0, value)


def grows(expr: str, times, min_last: float, dps: int = 80) -> None:
    """``|f|`` strictly increases along ``times`` and ends above ``min_last``."""
    vals = [abs(mp_real(expr, tk, dps)) for tk in times]
    assert all(b > a for a, b in zip(vals, vals[1:])), (expr, vals)
    assert vals[-1] > min_last, (expr, vals)


# ---------------------------------------------------------------------------------------------
# Instances and cases
# ---------------------------------------------------------------------------------------------

HEMI_TOKENS = [[1, 0, 0], ["3/5", "4/5", 0], [0, "3/5", "4/5"], ["2/3", "1/3", "2/3"]]


def diag_with(entry, diag=(1, 1, 1), at=(0, 0)) -> list[list]:
    """The diagonal matrix ``diag`` with ``entry`` placed at position ``at``."""
    d = len(diag)
    m = [[(diag[i] if i == j else 0) for j in range(d)] for i in range(d)]
    m[at[0]][at[1]] = entry
    return m


def instance(theorem: str, P=None, U=None, **extra) -> dict:
    """A valid instance for ``theorem`` with every hypothesis true, then ``P``/``U`` replaced."""
    if theorem in ("3.2",):
        base = {"d": 3, "beta": 1, "mask": "full", "heads": [{"P": "identity", "U": "identity"}], "tokens": HEMI_TOKENS}
    elif theorem in ("4.2", "iss-causal"):
        base = {"d": 3, "beta": 1, "mask": "causal", "heads": [{"P": "identity", "U": "identity"}], "tokens": HEMI_TOKENS}
    elif theorem == "4.4-sym":
        base = {"d": 3, "beta": 1, "mask": "causal",
                "heads": [{"P": "identity", "U": [[3, 0, 0], [0, 1, 0], [0, 0, "1/2"]]}], "tokens": HEMI_TOKENS}
    elif theorem == "grad-energy":
        m = [[2, 0, 0], [0, 1, 0], [0, 0, "1/2"]]
        base = {"d": 3, "beta": 1, "mask": "full", "heads": [{"P": m, "U": m}], "tokens": HEMI_TOKENS}
    else:
        raise ValueError(theorem)
    base = json.loads(json.dumps(base))
    if P is not None:
        base["heads"][0]["P"] = P
    if U is not None:
        base["heads"][0]["U"] = U
    base.update(extra)
    return base


@dataclass(frozen=True)
class Case:
    """One false instance: ``false_predicates`` are hypotheses of ``theorem`` that are false on
    ``data``; ``witness()`` establishes that independently (asserting) and returns a sentence.
    ``must_reject``: the only acceptable answer is InvalidInput at load time (no predicate
    covers the defect, e.g. a non-unit token or a complex beta)."""

    id: str
    cls: str
    theorem: str
    false_predicates: tuple[str, ...]
    data: dict
    witness: Callable[[], str]
    must_reject: bool = False
    note: str = ""
    extra: dict = field(default_factory=dict)
    # Bound checks: hypotheses that may hold, but whose proven constants must be valid.
    # ``lower_bounds()`` returns {"p": L, "lipschitz_bound": S} (mpf): any proven sup bound p must
    # satisfy p >= L (L = |P_ij(t*)| <= ||P(t*)||_2) and any Lipschitz bound must be >= S (a
    # difference quotient of one entry).
    bounded_predicates: tuple[str, ...] = ()
    lower_bounds: Callable[[], dict] | None = None


def exact_zero_of_polynomial(poly: str, at: Fraction) -> bool:
    """``poly`` (a polynomial string in t with rational literals) evaluated exactly at ``at``."""
    code = _NUMBER.sub(lambda m: f"_F('{m.group(1)}')", poly.replace("^", "**"))
    return eval(code, {"__builtins__": {}}, {"_F": Fraction, "t": at}) == 0  # noqa: S307


def evaluate_case(case: Case, seconds: int = 20, load: Callable[[dict], object] | None = None) -> dict:
    """Load (``load``: the instance reader by default) and evaluate the false predicates of ``case``.  Returns a record:
    ``{"load": "ok" | "rejected" | "crash: ..." | "timeout", "verdicts": {pred_id: status | "crash: ..." |
    "timeout"}, "message": str}``."""
    from theorems import InvalidInput, system_from_dict
    from theorems.catalogue import get

    theorem = get(case.theorem)
    by_id = {h.id: h for h in theorem.hypotheses}
    record: dict = {"load": None, "verdicts": {}, "message": ""}
    try:
        with time_limit(seconds):
            system = (load or system_from_dict)(json.loads(json.dumps(case.data)))
    except InvalidInput as exc:
        record["load"] = "rejected"
        record["message"] = str(exc)[:300]
        return record
    except TimeLimit:
        record["load"] = "timeout"
        return record
    except Exception as exc:  # a crash is a finding (the CLI would exit 1)
        record["load"] = f"crash: {type(exc).__name__}: {str(exc)[:200]}"
        return record
    record["load"] = "ok"
    record["constants"] = {}
    for pid in case.bounded_predicates:
        try:
            with time_limit(seconds):
                verdict = by_id[pid].evaluate(system)
            record["verdicts"][pid] = verdict.status.value
            if verdict.status.value == "holds":
                record["constants"][pid] = {k: verdict.witness.get(k) for k in ("p", "lipschitz_bound")}
        except InvalidInput as exc:
            record["verdicts"][pid] = "rejected"
            record["message"] += f"{pid}: InvalidInput {str(exc)[:150]}; "
        except TimeLimit:
            record["verdicts"][pid] = "timeout"
        except Exception as exc:
            record["verdicts"][pid] = f"crash: {type(exc).__name__}: {str(exc)[:200]}"
    for pid in case.false_predicates:
        pred = by_id[pid]
        try:
            with time_limit(seconds):
                verdict = pred.evaluate(system)
            record["verdicts"][pid] = verdict.status.value
            if verdict.status.value == "holds":
                record["message"] += f"{pid}: {verdict.reason[:200]}; "
        except InvalidInput as exc:
            record["verdicts"][pid] = "rejected"
            record["message"] += f"{pid}: InvalidInput {str(exc)[:150]}; "
        except TimeLimit:
            record["verdicts"][pid] = "timeout"
        except Exception as exc:
            record["verdicts"][pid] = f"crash: {type(exc).__name__}: {str(exc)[:200]}"
    return record


def record_problems(case: Case, record: dict) -> list[str]:
    """Every way ``record`` breaks the soundness contract for ``case`` (empty: sound)."""
    problems = []
    if record["load"] == "rejected":
        return problems
    if case.must_reject:
        problems.append(f"loaded without InvalidInput (load: {record['load']})")
    if record["load"] != "ok":
        problems.append(f"load {record['load']}")
        return problems
    for pid, status in record["verdicts"].items():
        if status == "holds" and pid in case.false_predicates:
            problems.append(f"FALSE HOLDS {pid}")
        elif status not in ("holds", "fails", "unknown", "rejected"):
            problems.append(f"{pid}: {status}")
    if case.lower_bounds is not None and record.get("constants"):
        need = case.lower_bounds()
        for pid, consts in record["constants"].items():
            for key, lower in need.items():
                value = consts.get(key)
                if value is None:
                    continue
                claimed = Fraction(str(value))
                with mpmath.workdps(60):
                    got = mpmath.mpf(claimed.numerator) / claimed.denominator
                    if got < lower:
                        problems.append(f"FALSE HOLDS {pid}: {key} = {mpmath.nstr(got, 8)} < "
                                        f"{mpmath.nstr(lower, 8)}, a value the matrix attains")
    return problems


_POOL = None


def submit_cli(argv: list[str], timeout: float = 60.0):
    """Queue ``run_cli(argv)`` on a shared two-worker pool (the suite targets 2 cores); returns a
    future.  Modules submit all their runs up front so that hangs overlap instead of adding up."""
    global _POOL
    if _POOL is None:
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="soundness-cli")
    return _POOL.submit(run_cli, list(argv), timeout)


def write_instance(directory: Path, name: str, data: dict) -> str:
    path = Path(directory) / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)
