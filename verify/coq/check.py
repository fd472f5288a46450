"""``check_coq``: compile exported ``.v`` files with ``coqc`` and report a verdict per file.

Each file is copied into a fresh temporary directory (nothing is written next to it), followed by
``Print Assumptions`` on the final theorem named in its header between two markers holding a random nonce
drawn after the file was read (so the file cannot print a fake list), and compiled.  A file is ``accepted`` only when both compile and every
assumption is (a) an axiom of Coq's standard real numbers (:data:`STANDARD_AXIOMS`), (b) a proposition
name (a ``Parameter _ : Prop``: a name, not a claim), or (c) an axiom the file declares in its header line
``(* DECLARED-AXIOMS: ... *)`` (the cited theorems), by its exact printed name.  The allowed library axioms
count only when their module is the library's own (:data:`GENUINE_MODULES`, checked with ``Locate Module``).  What is not guaranteed: that a declared axiom is true;
those are the cited theorems, listed with where each is discharged (docs/coq.md).
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from theorems.errors import InvalidInput, MissingDependency

from .records import CoqCheck, FileCheck

INSTALL = "apt-get update && apt-get install -y coq libcoq-interval"
STANDARD_AXIOMS = frozenset({
    "ClassicalDedekindReals.sig_not_dec", "ClassicalDedekindReals.sig_forall_dec",
    "FunctionalExtensionality.functional_extensionality_dep", "Classical_Prop.classic",
    "PropExtensionality.propositional_extensionality", "ProofIrrelevance.proof_irrelevance",
})
"""Axioms of Coq's classical real numbers (``Reals``) and of the libraries it loads (Coquelicot uses excluded
middle and functional extensionality).  Nothing proof-specific."""
PRIMITIVE_INTEGERS = ("Uint63.", "PrimInt63.")
"""The kernel's primitive 63-bit integers and the axioms stating their specification (exact integer
arithmetic; Coq.Interval's big-number floats are built on them).  Primitive *floats* (``PrimFloat``,
``FloatAxioms``) are not allowed: the exporter never asks ``interval`` for precision 53, where it would use them."""
GENUINE_MODULES = {
    "Uint63": "Coq.Numbers.Cyclic.Int63.Uint63", "PrimInt63": "Coq.Numbers.Cyclic.Int63.PrimInt63",
    "Classical_Prop": "Coq.Logic.Classical_Prop", "ClassicalDedekindReals": "Coq.Reals.ClassicalDedekindReals",
    "FunctionalExtensionality": "Coq.Logic.FunctionalExtensionality",
    "PropExtensionality": "Coq.Logic.PropExtensionality", "ProofIrrelevance": "Coq.Logic.ProofIrrelevance",
}
"""Where the modules of the allowed assumptions must live.  ``Print Assumptions`` prints short names, so a
file could define its own ``Module Uint63`` holding ``Axiom cheat : False`` and have it print as
``Uint63.cheat``.  The check therefore also runs ``Locate Module`` on each of these basenames: the first
module it names is the one the short name refers to, and an allowed assumption counts only when that is
the standard library's."""
_DECLARED = re.compile(r"^\(\* DECLARED-AXIOMS:([^*]*)\*\)$", re.M)
_FINAL = re.compile(r"^\(\* FINAL-THEOREM: ([A-Za-z][A-Za-z0-9_]*) \*\)$", re.M)
_MODULE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def coqc_path() -> str:
    path = shutil.which("coqc")
    if path is None:
        raise MissingDependency("coqc (the Coq proof assistant, with Coq.Interval)", INSTALL)
    return path


def coqc_version() -> str:
    out = subprocess.run([coqc_path(), "--version"], capture_output=True, text=True, timeout=60, check=False)
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else "unknown"


def check_coq(path: str | Path, timeout_s: float = 300.0) -> CoqCheck:
    """Compile ``path`` (a ``.v`` file, or every ``.v`` file of a directory, sorted) with ``coqc``.

    Raises :class:`~theorems.errors.MissingDependency` (with the ``apt-get`` command) when ``coqc`` is absent
    and :class:`~theorems.errors.InvalidInput` for a path that is neither."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".v" and p.is_file())
        if not files:
            raise InvalidInput("path", "a .v file or a directory holding .v files", str(path))
    elif path.is_file() and path.suffix == ".v":
        files = [path]
    else:
        raise InvalidInput("path", "a .v file or a directory holding .v files", str(path))
    coqc_path()
    started = time.perf_counter()
    checks = tuple(_check_file(f, timeout_s) for f in files)
    return CoqCheck(checks, time.perf_counter() - started, coqc_version())


def _run(args: list[str], cwd: Path, timeout_s: float) -> tuple[int | None, str, str, float]:
    """``(exit code or None on timeout, stdout, stderr, CPU seconds of coqc)``: the child is reaped with
    ``os.wait4`` so that its own CPU time is measured, whatever else runs on the machine."""
    with open(cwd / ".out", "w+") as out, open(cwd / ".err", "w+") as err:
        proc = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err)
        timer = threading.Timer(timeout_s, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        code = None if proc.returncode < 0 else proc.returncode
        return code, out.read(), err.read(), usage.ru_utime + usage.ru_stime


def _check_file(source: Path, timeout_s: float) -> FileCheck:
    text = source.read_text(encoding="utf-8", errors="replace")
    module = source.stem
    declared = tuple(_DECLARED.search(text).group(1).split()) if _DECLARED.search(text) else ()
    final = _FINAL.search(text)
    started = time.perf_counter()
    if not _MODULE.match(module) or final is None:
        why = ("the file name is not a Coq module name" if not _MODULE.match(module)
               else "no '(* FINAL-THEOREM: name *)' header line")
        return FileCheck(source, "rejected", 0.0, why, (), declared)
    nonce = secrets.token_hex(16)
    locate = "".join(f"Locate Module {m}.\n" for m in GENUINE_MODULES)
    probe = (f"\n(* appended by verify.coq.check *)\nGoal True. idtac \"BEGIN-{nonce}\". exact I. Qed.\n"
             f"Print Assumptions {final.group(1)}.\nGoal True. idtac \"LOCATE-{nonce}\". exact I. Qed.\n"
             f"{locate}Goal True. idtac \"END-{nonce}\". exact I. Qed.\n")
    with tempfile.TemporaryDirectory(prefix="coq_check_") as tmp:
        work = Path(tmp)
        (work / f"{module}.v").write_text(text + probe, encoding="utf-8")
        rc, out, err, cpu = _run([coqc_path(), "-q", f"{module}.v"], work, timeout_s)
    seconds = time.perf_counter() - started
    if rc is None or rc != 0:
        return FileCheck(source, "timeout" if rc is None else "rejected", seconds, _tail(err), (), declared,
                         cpu_seconds=cpu)
    begin, middle, end = out.find(f"BEGIN-{nonce}"), out.find(f"LOCATE-{nonce}"), out.find(f"END-{nonce}")
    if begin < 0 or not begin < middle < end:
        return FileCheck(source, "rejected", seconds, "the appended Print Assumptions did not run (an unclosed "
                         "comment or section at the end of the file?)", (), declared, cpu_seconds=cpu)
    assumptions = parse_assumptions(out[begin:middle])
    genuine = genuine_modules(out[middle:end])

    def allowed(name: str, typ: str) -> bool:
        if typ == "Prop" or name in declared:
            return True
        if name in STANDARD_AXIOMS or name.startswith(PRIMITIVE_INTEGERS):
            return genuine.get(name.split(".")[0], False)
        return False

    undeclared = tuple(a for a, typ in assumptions if not allowed(a, typ))
    names = tuple(a for a, _ in assumptions)
    return FileCheck(source, "rejected" if undeclared else "accepted", seconds,
                     _tail(err) + (f"undeclared assumptions: {', '.join(undeclared)}" if undeclared else ""),
                     names, declared, undeclared, cpu)


def genuine_modules(stdout: str) -> dict[str, bool]:
    """For each basename of :data:`GENUINE_MODULES`: whether the module that ``Locate Module`` names first (the
    one its short name refers to) is the standard library's.  A basename not located at all is not genuine."""
    first: dict[str, str] = {}
    for line in stdout.splitlines():
        words = line.split()
        if len(words) == 2 and words[0] == "Module":
            base = words[1].rsplit(".", 1)[-1]
            first.setdefault(base, words[1])
    return {m: first.get(m) == path for m, path in GENUINE_MODULES.items()}


def parse_assumptions(stdout: str) -> list[tuple[str, str]]:
    """``(name, type)`` pairs of ``Print Assumptions`` output (types folded onto one line)."""
    if "Closed under the global context" in stdout:
        return []
    body = stdout.split("Axioms:", 1)[1] if "Axioms:" in stdout else ""
    out: list[tuple[str, str]] = []
    for line in body.splitlines():
        if not line.strip():
            continue
        if line[0].isspace() and out:
            name, typ = out[-1]
            out[-1] = (name, f"{typ} {line.strip()}".strip())
            continue
        name, _, typ = line.partition(" : ")
        out.append((name.strip(), typ.strip()))
    return out


def _tail(stderr: str, limit: int = 4000) -> str:
    lines = [ln for ln in stderr.splitlines() if "ambiguous-paths" not in ln and "New coercion path" not in ln]
    s = "\n".join(lines).strip()
    return s[-limit:]
