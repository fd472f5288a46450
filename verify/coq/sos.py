"""An SOS certificate (:class:`verify._sos.certificate.Certificate`) as a Coq lemma the kernel checks.

For ``p >= 0`` on ``{g_k >= 0, h_l = 0}`` with ``p = sum_S g_S m_S^T Q_S m_S + sum_l lambda_l h_l`` the file states

    S_step := forall vars, 0 <= G0 vars -> ... -> H0 vars = 0 -> ... -> 0 <= P vars

and proves it by (1) the polynomial identity ``P = sum_S G_S * (sum_k D_k * Rsqr (row_k . m_S)) + sum_l lambda_l H_l``
with the exact LDL^T factors of every ``Q_S`` (``field``: exact rational arithmetic in the kernel), (2)
``H_l = 0`` rewritten away, (3) positivity by the tactic ``sos_nonneg`` of the preamble: sums and products of
assumed-nonnegative constraints and ``D_k * Rsqr _`` with ``0 <= D_k`` decided by ``lra``.  Nothing is taken from
the Python re-check: a wrong rational, a dropped term or a flipped constraint makes one of (1)-(3) fail.
"""
from __future__ import annotations

from verify._sos.certificate import Certificate, thaw

from . import text
from .ldl import ldl


def _args(names: list[str]) -> str:
    return (" " + " ".join(names)) if names else ""


def _binder(names: list[str]) -> str:
    return f"({' '.join(names)} : R)" if names else ""


def _block(term, names: list[str]) -> str:
    """``sum_k D_k * Rsqr (sum_j L_jk m_j)``, or the raw form ``sum q_ij m_i m_j`` when no LDL^T exists."""
    monos = [text.monomial(m, names) for m in term.basis]
    f = ldl(term.gram)
    if not f.ok:
        raw = [f"{text.rational(q)} * (({monos[i]}) * ({monos[j]}))"
               for i, row in enumerate(term.gram) for j, q in enumerate(row) if q]
        return _nest(raw)
    squares = []
    for k, (col, d) in enumerate(zip(f.columns, f.pivots)):
        if d == 0:
            continue
        lin = [f"{text.rational(c)} * ({monos[k + i]})" for i, c in enumerate(col) if c]
        squares.append(f"{text.rational(d)} * Rsqr ({' + '.join(lin)})")
    return _nest(squares)


def _nest(terms: list[str]) -> str:
    """``a + (b + (c + ...))``: the shape ``sos_nonneg`` walks."""
    if not terms:
        return "0"
    out = terms[-1]
    for t in reversed(terms[:-1]):
        out = f"{t} + ({out})"
    return out


def certificate_lemma(step: str, cert: Certificate) -> str:
    """The Coq text (definitions, statement ``S_<step>``, lemma ``<step>``) for one certificate."""
    names = [text.var(v) for v in cert.variables]
    args, binder = _args(names), _binder(names)
    out = [f"(* certificate {step}: {_comment(cert.claim)} *)",
           f"Definition P_{step} {binder} : R := {text.polynomial(thaw(cert.polynomial), names)}."]
    g_names = [f"G{k}_{step}" for k in range(len(cert.ineqs))]
    h_names = [f"H{k}_{step}" for k in range(len(cert.eqs))]
    for n, g in zip(g_names, cert.ineqs):
        out.append(f"Definition {n} {binder} : R := {text.polynomial(thaw(g), names)}.")
    for n, h in zip(h_names, cert.eqs):
        out.append(f"Definition {n} {binder} : R := {text.polynomial(thaw(h), names)}.")
    premises = [f"0 <= {n}{args}" for n in g_names] + [f"{n}{args} = 0" for n in h_names]
    quant = f"forall {' '.join(names)} : R, " if names else ""
    body = " -> ".join(premises + [f"0 <= P_{step}{args}"])
    out.append(f"Definition S_{step} : Prop := {quant}{body}.")
    pos_terms = []
    for term in cert.sos_terms:
        inner = _block(term, names)
        for i in reversed(term.multiplier):
            inner = f"{g_names[i]}{args} * ({inner})"
        pos_terms.append(inner)
    eq_terms = [f"({text.polynomial(thaw(t.multiplier), names)}) * {h_names[t.constraint]}{args}" for t in cert.eq_terms]
    pos = _nest(pos_terms)
    hyps = [f"Hg{k}" for k in range(len(g_names))] + [f"Hh{k}" for k in range(len(h_names))]
    unfold = ", ".join([f"P_{step}"] + g_names + h_names)
    rhs = f"({pos})" + (f" + ({' + '.join(eq_terms)})" if eq_terms else "")
    proof = [f"Lemma {step} : S_{step}.", "Proof.",
             f"  unfold S_{step}; intros{_args(names + hyps)}.",
             f"  replace (P_{step}{args}) with ({rhs})",
             f"    by (unfold {unfold}, Rsqr; field)."]
    if eq_terms:
        used = sorted({t.constraint for t in cert.eq_terms})
        rewrites = ", ".join(f"Hh{i}" for i in used)
        proof += [f"  assert (Heq : {' + '.join(eq_terms)} = 0) by (rewrite {rewrites}; ring).",
                  "  rewrite Heq, Rplus_0_r."]
    proof += ["  sos_nonneg.", "Qed."]
    return "\n".join(out + proof)


def _comment(s: str) -> str:
    """Free text inside a Coq comment: ``(*`` and ``*)`` cannot occur."""
    return s.replace("(*", "( *").replace("*)", "* )")


