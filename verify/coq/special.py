"""Steps whose Coq statement needs the step's data or real analysis: the weight constants (``interval``),
the exact rationals of ``antipode_divergence`` (``lra``/``nra``) and the softmax derivatives (Coquelicot's
``auto_derive``, then ``field``).  Each function returns ``(coq_text, requirements)``; the requirements name
the libraries the file must load (``"interval"``, ``"coquelicot"``).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

import mpmath
import sympy

from theorems.errors import InvalidInput
from theorems.parsing import Grammar, parse

from . import text


def exact_constant(value: Any, field: str) -> sympy.Expr:
    """A constant of the report (``"1"``, ``"3/7"``, ``"1/sqrt(3)"``) read by the project's parser, no ``eval``."""
    if not isinstance(value, str):
        raise InvalidInput(field, "an exact constant written as text", value)
    e = parse(value, Grammar(variables={}), field).expr
    if not e.is_number or e.has(sympy.Float):
        raise InvalidInput(field, "an exact real constant", value)
    return e


def _rat(value: Any, field: str) -> Fraction:
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError) as exc:
        raise InvalidInput(field, "an exact rational 'p/q'", value) from exc


def _precision(lo: sympy.Expr, hi: sympy.Expr) -> int:
    """Bits for ``interval``: enough to separate the two sides, chosen from a float estimate (a hint only:
    a too-low precision makes ``interval`` fail, never succeed wrongly)."""
    with mpmath.workprec(200):
        gap = abs(mpmath.mpf(sympy.N(hi - lo, 60)) / max(mpmath.mpf(sympy.N(abs(hi), 60)), mpmath.mpf("1e-300")))
    bits = 30 if gap == 0 else int(-mpmath.log(gap, 2)) + 20
    bits = min(max(bits, 40), 400)
    return 54 if bits == 53 else bits  # 53 would make interval use primitive floats (docs/coq.md)


WEIGHTS_SOFTMAX = r"""(* the softmax part of the weights lemma: scores s_0..s_n in [-c, c] give weights in
   [exp(-2c)/(n+1), exp(2c)/(n+1)]; with c = beta p this is the lemma once the scores are bounded *)
Definition S_weights_softmax : Prop := forall (c : R) (s : nat -> R) (n j : nat),
  (j <= n)%nat -> (forall l : nat, (l <= n)%nat -> - c <= s l <= c) ->
  exp (- (2 * c)) / INR (S n) <= exp (s j) / sum_f_R0 (fun l => exp (s l)) n <= exp (2 * c) / INR (S n).
Lemma weights_softmax : S_weights_softmax.
Proof.
  unfold S_weights_softmax; intros c s n j Hj Hs.
  assert (Hn : 0 < INR (S n)) by (apply lt_0_INR; lia).
  assert (Hup : sum_f_R0 (fun l => exp (s l)) n <= sum_f_R0 (fun _ => exp c) n).
  { apply sum_Rle; intros l Hl. destruct (Hs l Hl) as [_ H]. destruct (Req_dec (s l) c) as [E|E].
    - rewrite E; lra.
    - left; apply exp_increasing; lra. }
  assert (Hlo : sum_f_R0 (fun _ => exp (- c)) n <= sum_f_R0 (fun l => exp (s l)) n).
  { apply sum_Rle; intros l Hl. destruct (Hs l Hl) as [H _]. destruct (Req_dec (s l) (- c)) as [E|E].
    - rewrite E; lra.
    - left; apply exp_increasing; lra. }
  rewrite sum_cte in Hup, Hlo.
  destruct (Hs j Hj) as [Hj1 Hj2].
  assert (Ej1 : exp (- c) <= exp (s j)) by (destruct (Req_dec (s j) (- c)) as [E|E]; [rewrite E; lra | left; apply exp_increasing; lra]).
  assert (Ej2 : exp (s j) <= exp c) by (destruct (Req_dec (s j) c) as [E|E]; [rewrite E; lra | left; apply exp_increasing; lra]).
  assert (Pc : 0 < exp c) by apply exp_pos.
  assert (Pm : 0 < exp (- c)) by apply exp_pos.
  assert (E2 : exp (- (2 * c)) = exp (- c) / exp c) by (unfold Rdiv; rewrite <- exp_Ropp, <- exp_plus; f_equal; ring).
  assert (E3 : exp (2 * c) = exp c / exp (- c)) by (unfold Rdiv; rewrite <- exp_Ropp, <- exp_plus; f_equal; ring).
  assert (Ps : 0 < sum_f_R0 (fun l => exp (s l)) n) by nra.
  set (Sm := sum_f_R0 (fun l => exp (s l)) n) in *.
  rewrite E2, E3. unfold Rdiv. split.
  - assert (K : exp (- c) * Sm <= exp (s j) * (exp c * INR (S n))).
    { apply Rle_trans with (exp (s j) * Sm); [apply Rmult_le_compat_r | apply Rmult_le_compat_l]; lra. }
    apply (Rmult_le_reg_r (exp c * INR (S n) * Sm)); [apply Rmult_lt_0_compat; [apply Rmult_lt_0_compat|]; lra|].
    replace (exp (- c) * / exp c * / INR (S n) * (exp c * INR (S n) * Sm)) with (exp (- c) * Sm)
      by (field; split; apply Rgt_not_eq; lra).
    replace (exp (s j) * / Sm * (exp c * INR (S n) * Sm)) with (exp (s j) * (exp c * INR (S n)))
      by (field; apply Rgt_not_eq; lra).
    exact K.
  - assert (K : exp (s j) * (exp (- c) * INR (S n)) <= exp c * Sm).
    { apply Rle_trans with (exp c * (exp (- c) * INR (S n))); [apply Rmult_le_compat_r | apply Rmult_le_compat_l]; nra. }
    apply (Rmult_le_reg_r (exp (- c) * INR (S n) * Sm)); [apply Rmult_lt_0_compat; [apply Rmult_lt_0_compat|]; lra|].
    replace (exp (s j) * / Sm * (exp (- c) * INR (S n) * Sm)) with (exp (s j) * (exp (- c) * INR (S n)))
      by (field; apply Rgt_not_eq; lra).
    replace (exp c * / exp (- c) * / INR (S n) * (exp (- c) * INR (S n) * Sm)) with (exp c * Sm)
      by (field; split; apply Rgt_not_eq; lra).
    exact K.
Qed."""
"""The arithmetic of the weights lemma, proved in Coq for every number of keys ``n + 1``; what stays cited is
only that the scores ``beta <x_i, P^h x_j>`` lie in ``[-beta p, beta p]`` (unit tokens, ``||P^h||_2 <= p``)."""


def weights_constants(data: Mapping[str, Any]) -> str:
    """``lo <= exp(-2 beta p)`` and ``exp(2 beta p) <= hi`` (``interval``, exact ``beta``, ``p``, ``lo``, ``hi``)."""
    beta = exact_constant(data.get("beta"), "weights.data.beta")
    p = sympy.Rational(str(_rat(data.get("p"), "weights.data.p")))
    lo = _rat(data.get("exp(-2 beta p) >="), "weights.data.lo")
    hi = _rat(data.get("exp(2 beta p) <="), "weights.data.hi")
    x = 2 * beta * p
    prec = max(_precision(sympy.Rational(lo.numerator, lo.denominator), sympy.exp(-x)),
               _precision(sympy.exp(x), sympy.Rational(hi.numerator, hi.denominator)))
    bp = f"(2 * {text.expr(beta)} * {text.rational(Fraction(str(p)))})"
    return "\n".join([
        f"Definition S_weights_constants : Prop := {text.rational(lo)} <= exp (- {bp}) /\\ exp {bp} <= {text.rational(hi)}.",
        "Lemma weights_constants : S_weights_constants.",
        f"Proof. unfold S_weights_constants; split; interval with (i_prec {prec}). Qed."])


def antipode_divergence(data: Mapping[str, Any], weights: Mapping[str, Any]) -> str:
    """The exact rationals of the divergence bound and the scalar inequalities that combine the certificates."""
    d, H = data.get("d"), data.get("H")
    if not isinstance(d, int) or not isinstance(H, int) or d < 2 or H < 1:
        raise InvalidInput("antipode_divergence.data", "integers d >= 2 and H >= 1", (d, H))
    B = _rat(data.get("B used (rounded up)"), "antipode_divergence.B")
    q = _rat(data.get("q"), "antipode_divergence.q")
    E = _rat(data.get("E (|x_i + x_1|^2 <=)"), "antipode_divergence.E")
    Rr = _rat(data.get("R (r_j <=)"), "antipode_divergence.R")
    bracket = _rat(data.get("bracket (d-1)(1 - q^2/2) - 4 B q"), "antipode_divergence.bracket")
    delta = _rat(data.get("delta"), "antipode_divergence.delta")
    lo = _rat(data.get("lo (<= exp(-2 beta p))"), "antipode_divergence.lo")
    beta = exact_constant(weights.get("beta"), "weights.data.beta")
    p = _rat(weights.get("p"), "weights.data.p")
    r = text.rational
    qq = f"({r(q)} ^ 2)"
    region = (f"forall v_e2 v_r v_g : R, 0 <= v_e2 -> v_e2 <= {r(E)} -> 0 <= v_r -> v_r <= {r(Rr)} -> "
              f"1 - v_e2 / 2 - v_r <= - v_g -> 1 - v_g ^ 2 <= v_e2 + 2 * v_r -> "
              f"1 - {qq} / 2 <= - v_g /\\ 1 - v_g ^ 2 <= {qq}")
    termwise = (f"forall v_a v_g v_t : R, 0 <= v_a -> 1 - {qq} / 2 <= - v_g -> - (4 * {r(B)} * {r(q)} * v_a) <= v_t -> "
                f"v_a * {r(bracket)} <= - ({d - 1}) * v_a * v_g + v_t")
    heads = (f"forall v_A : R, {r(lo)} / 2 <= v_A -> {r(delta)} <= {H} * v_A * {r(bracket)}")
    constants = (f"{text.expr(beta)} * {r(p)} <= {r(B)} /\\ {r(E)} = {qq} / 2 /\\ {r(Rr)} = {qq} / 4 /\\ "
                 f"{r(bracket)} = ({d - 1}) * (1 - {qq} / 2) - 4 * {r(B)} * {r(q)} /\\ 0 < {r(bracket)} /\\ 0 < {r(delta)}")
    return "\n".join([
        f"Definition S_antipode_divergence_constants : Prop := {constants}.",
        "Lemma antipode_divergence_constants : S_antipode_divergence_constants.",
        "Proof. unfold S_antipode_divergence_constants; repeat split; first [lra | interval with (i_prec 64)]. Qed.",
        f"Definition S_antipode_divergence_region : Prop := {region}.",
        "Lemma antipode_divergence_region : S_antipode_divergence_region.",
        "Proof. unfold S_antipode_divergence_region; intros; split; nra. Qed.",
        f"Definition S_antipode_divergence_termwise : Prop := {termwise}.",
        "Lemma antipode_divergence_termwise : S_antipode_divergence_termwise.",
        "Proof. unfold S_antipode_divergence_termwise; intros; nra. Qed.",
        f"Definition S_antipode_divergence_heads : Prop := {heads}.",
        "Lemma antipode_divergence_heads : S_antipode_divergence_heads.",
        "Proof. unfold S_antipode_divergence_heads; intros; nra. Qed.",
        "Definition S_antipode_divergence : Prop := S_antipode_divergence_constants /\\ S_antipode_divergence_region /\\ "
        "S_antipode_divergence_termwise /\\ S_antipode_divergence_heads.",
        "Lemma antipode_divergence : S_antipode_divergence.",
        "Proof. exact (conj antipode_divergence_constants (conj antipode_divergence_region (conj "
        "antipode_divergence_termwise antipode_divergence_heads))). Qed."])


def softmax_gradient() -> str:
    """``d a_j / d s_k = a_j (delta_jk - a_k)`` for three scores, as ``is_derive`` facts (Coquelicot)."""
    s = ["v_s1", "v_s2", "v_s3"]
    Z = "(exp v_s1 + exp v_s2 + exp v_s3)"
    lines, names = [], []
    for j in range(3):
        for k in range(3):
            scores = [("t" if m == k else s[m]) for m in range(3)]
            f = f"(fun t => exp {scores[j]} / (exp {scores[0]} + exp {scores[1]} + exp {scores[2]}))"
            a_j, a_k = f"(exp {s[j]} / {Z})", f"(exp {s[k]} / {Z})"
            name = f"softmax_gradient_{j + 1}{k + 1}"
            names.append(name)
            lines += [f"Definition S_{name} : Prop := forall v_s1 v_s2 v_s3 : R, is_derive {f} {s[k]} "
                      f"({a_j} * ({1 if j == k else 0} - {a_k})).",
                      f"Lemma {name} : S_{name}.",
                      f"Proof. unfold S_{name}; intros v_s1 v_s2 v_s3. assert (Hz : {Z} <> 0) by (apply Rgt_not_eq; "
                      "pose proof (exp_pos v_s1); pose proof (exp_pos v_s2); pose proof (exp_pos v_s3); lra). "
                      "auto_derive; [exact Hz | field; exact Hz]. Qed."]
    lines.append(f"Definition S_softmax_gradient : Prop := {text.conjunction([f'S_{n}' for n in names])}.")
    lines.append("Lemma softmax_gradient : S_softmax_gradient.")
    lines.append(f"Proof. exact {conj_term(names)}. Qed.")
    return "\n".join(lines)


ENERGY_DERIVATIVE = r"""(* symbolic energy_derivative: N = 2 tokens x_i = (cos t_i, sin t_i), P = [[p11, p12], [p12, p22]] symmetric:
   sum_i dE/dt_i * dt_i/dt = 2 beta sum_i Z_i (dt_i/dt)^2 with dt_i/dt = <perp_i, F_i> = W_i / Z_i *)
Definition ge_q (b p11 p12 p22 s t : R) : R :=
  b * (cos s * (p11 * cos t + p12 * sin t) + sin s * (p12 * cos t + p22 * sin t)).
Definition ge_E (b p11 p12 p22 t1 t2 : R) : R := exp (ge_q b p11 p12 p22 t1 t1) + exp (ge_q b p11 p12 p22 t1 t2)
  + exp (ge_q b p11 p12 p22 t2 t1) + exp (ge_q b p11 p12 p22 t2 t2).
Definition ge_Z (b p11 p12 p22 s t : R) : R := exp (ge_q b p11 p12 p22 s s) + exp (ge_q b p11 p12 p22 s t).
Definition ge_W (b p11 p12 p22 s t : R) : R :=
  exp (ge_q b p11 p12 p22 s s) * (- sin s * (p11 * cos s + p12 * sin s) + cos s * (p12 * cos s + p22 * sin s))
  + exp (ge_q b p11 p12 p22 s t) * (- sin s * (p11 * cos t + p12 * sin t) + cos s * (p12 * cos t + p22 * sin t)).
Definition S_energy_derivative : Prop := forall b p11 p12 p22 t1 t2 : R,
  Derive (fun t => ge_E b p11 p12 p22 t t2) t1 * (ge_W b p11 p12 p22 t1 t2 / ge_Z b p11 p12 p22 t1 t2)
  + Derive (fun t => ge_E b p11 p12 p22 t1 t) t2 * (ge_W b p11 p12 p22 t2 t1 / ge_Z b p11 p12 p22 t2 t1)
  = 2 * b * (ge_Z b p11 p12 p22 t1 t2 * (ge_W b p11 p12 p22 t1 t2 / ge_Z b p11 p12 p22 t1 t2) ^ 2
             + ge_Z b p11 p12 p22 t2 t1 * (ge_W b p11 p12 p22 t2 t1 / ge_Z b p11 p12 p22 t2 t1) ^ 2).
Lemma energy_derivative : S_energy_derivative.
Proof.
  unfold S_energy_derivative; intros b p11 p12 p22 t1 t2.
  assert (Hq : ge_q b p11 p12 p22 t2 t1 = ge_q b p11 p12 p22 t1 t2) by (unfold ge_q; ring).
  assert (HZ1 : ge_Z b p11 p12 p22 t1 t2 <> 0) by (unfold ge_Z; apply Rgt_not_eq;
    pose proof (exp_pos (ge_q b p11 p12 p22 t1 t1)); pose proof (exp_pos (ge_q b p11 p12 p22 t1 t2)); lra).
  assert (HZ2 : ge_Z b p11 p12 p22 t2 t1 <> 0) by (unfold ge_Z; apply Rgt_not_eq;
    pose proof (exp_pos (ge_q b p11 p12 p22 t2 t2)); pose proof (exp_pos (ge_q b p11 p12 p22 t2 t1)); lra).
  assert (D1 : is_derive (fun t => ge_E b p11 p12 p22 t t2) t1 (2 * b * ge_W b p11 p12 p22 t1 t2)).
  { pose proof (f_equal exp Hq) as He. unfold ge_E, ge_W, ge_q in *. auto_derive; [exact I |]. rewrite He. ring. }
  assert (D2 : is_derive (fun t => ge_E b p11 p12 p22 t1 t) t2 (2 * b * ge_W b p11 p12 p22 t2 t1)).
  { pose proof (f_equal exp Hq) as He. unfold ge_E, ge_W, ge_q in *. auto_derive; [exact I |]. rewrite He. ring. }
  replace (Derive (fun t => ge_E b p11 p12 p22 t t2) t1) with (2 * b * ge_W b p11 p12 p22 t1 t2)
    by (symmetry; apply is_derive_unique; exact D1).
  replace (Derive (fun t => ge_E b p11 p12 p22 t1 t) t2) with (2 * b * ge_W b p11 p12 p22 t2 t1)
    by (symmetry; apply is_derive_unique; exact D2).
  field; split; assumption.
Qed."""
"""``symbolic.energy_derivative`` (the ``N = 2`` cross-check of ``grad-energy``) with Coquelicot's derivatives:
the chain rule is ``Derive`` of ``E`` in each angle, computed by ``auto_derive`` and closed by ``ring``/``field``."""


def conj_term(names: list[str]) -> str:
    """The proof term of ``A1 /\\ (A2 /\\ ...)`` from proofs of the ``Ai``."""
    if len(names) == 1:
        return names[0]
    return f"(conj {names[0]} {conj_term(names[1:])})"
