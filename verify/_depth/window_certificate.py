"""The depth-window certificate (kind ``"depth-window"``): what ``verify recheck`` needs to re-prove
a window ``[T_low, T_high]`` (or ``[L_low, L_high]``) of :mod:`.tight` without trusting the file.

It stores the exact data only (result, model, ``beta``, every ``P^h``, mask, rational tokens,
``eps``, ``tau``, the horizon or the number of layers, the arb precision) and the claimed ends.
:meth:`WindowCertificate.recheck` re-runs the validated enclosure (:mod:`verify.validated`) on those
data and holds when the recomputed window implies the claim: recomputed ``T_high <= `` claimed
``T_high`` and recomputed ``T_low >= `` claimed ``T_low``.  A tampered end that claims more than the
enclosure proves, tampered data (a changed token, ``P``, ``beta`` or ``eps``: the recomputation no
longer proves the claimed end) or a malformed file is rejected; a weaker claim (a later ``T_high``)
stays a true claim.  Not guaranteed: that a different machine repeats the float proposals (step
sizes, frames) bit for bit; a re-check that proves less says so (``certificate_invalid``), it
never certifies more.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final

from theorems.errors import InvalidInput
from theorems.verdict import Verdict, fails, holds

KIND = "depth-window"
FORMAT = "consensus-verify/depth-window-certificate"
MAX_HORIZON = Fraction(500)
MAX_DIGITS = 400
_KEYS = {"format", "version", "kind", "theorem", "model", "beta", "mask", "P", "tokens", "eps", "tau", "horizon",
         "layers", "T_low", "T_high", "claim", "label"}


def _q(value: Any, field: str, positive: bool = False) -> Fraction:
    if not isinstance(value, str) or len(value) > MAX_DIGITS:
        raise InvalidInput(field, f"a rational as a string of at most {MAX_DIGITS} characters", value)
    try:
        q = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise InvalidInput(field, "a rational such as '3/7'", value) from None
    if positive and q <= 0:
        raise InvalidInput(field, "a positive rational", value)
    return q


def _matrix(value: Any, field: str, rows: int | None, cols: int) -> tuple[tuple[Fraction, ...], ...]:
    if not isinstance(value, list) or not value or (rows is not None and len(value) != rows):
        raise InvalidInput(field, f"a list of {rows or 'N >= 1'} rows", value)
    out = []
    for i, row in enumerate(value):
        if not isinstance(row, list) or len(row) != cols:
            raise InvalidInput(f"{field}[{i}]", f"a row of {cols} rationals", row)
        out.append(tuple(_q(v, f"{field}[{i}][{j}]") for j, v in enumerate(row)))
    return tuple(out)


@final
@dataclass(frozen=True)
class WindowCertificate:
    theorem: str
    model: str
    beta: Fraction
    mask: str
    P: tuple[tuple[tuple[Fraction, ...], ...], ...]
    tokens: tuple[tuple[Fraction, ...], ...]
    eps: Fraction
    tau: Fraction | None
    horizon: Fraction | None
    layers: int | None
    T_low: Fraction | None
    T_high: Fraction
    label: str = ""

    @property
    def claim(self) -> str:
        unit = "t" if self.model == "ode" else "layer k"
        metric = "max_ij (1 - <x_i, x_j>)" if self.theorem == "3.2" else "max_i (1 - <x_1, x_i>)"
        low = "" if self.T_low is None else f"; {metric} > {self.eps} at {unit} = {self.T_low}"
        return (f"eq. {'5 (ODE)' if self.model == 'ode' else f'4 (layer map, tau = {self.tau})'}, {self.mask} attention, "
                f"U^h = I, beta = {self.beta}, the {len(self.P)} stored P^h, the {len(self.tokens)} stored tokens "
                f"(normalised): {metric} <= {self.eps} for every {unit} >= {self.T_high}{low}")

    def recheck(self) -> Verdict:
        from verify.validated import Field, Tokens

        from .window_proof import layers_window, ode_window

        field = Field(self.beta, self.P, None, self.mask)
        unit = all(sum(v * v for v in row) == 1 for row in self.tokens)
        init = Tokens(self.tokens, Fraction(0), normalize=not unit)
        if self.model == "ode":
            low, high = ode_window(self.theorem, field, init, self.horizon, self.eps)[:2]
        else:
            low, high = layers_window(self.theorem, field, init, self.tau, self.layers, self.eps)[:2]
        witness = {"recomputed_T_low": None if low is None else str(low), "recomputed_T_high": None if high is None
                   else str(high)}
        if high is None or high > self.T_high:
            return fails(KIND, f"the re-run enclosure does not prove the metric <= eps from {self.T_high} on "
                         f"(recomputed: {high})", witness)
        if self.T_low is not None and (low is None or low < self.T_low):
            return fails(KIND, f"the re-run enclosure does not prove the metric > eps at {self.T_low} "
                         f"(recomputed: {low})", witness)
        return holds(KIND, "re-run validated enclosure (arb) proves the claimed window", witness)

    def to_json(self) -> dict[str, Any]:
        s = lambda q: None if q is None else str(q)  # noqa: E731
        return {"format": FORMAT, "version": 1, "kind": KIND, "theorem": self.theorem, "model": self.model,
                "beta": str(self.beta), "mask": self.mask, "P": [[[str(v) for v in r] for r in m] for m in self.P],
                "tokens": [[str(v) for v in r] for r in self.tokens], "eps": str(self.eps), "tau": s(self.tau),
                "horizon": s(self.horizon), "layers": self.layers, "T_low": s(self.T_low), "T_high": str(self.T_high),
                "claim": self.claim, "label": self.label}

    @staticmethod
    def from_json(data: Mapping[str, Any], field: str = "certificate") -> "WindowCertificate":
        from .window_proof import MAX_LAYERS, MAX_STATES

        if not isinstance(data, Mapping):
            raise InvalidInput(field, "a JSON object", type(data).__name__)
        extra = sorted(set(data) - _KEYS)
        if extra:
            raise InvalidInput(f"{field}.{extra[0]}", "no such key in a depth-window certificate", extra[0])
        if data.get("format") != FORMAT or data.get("version") != 1 or data.get("kind") != KIND:
            raise InvalidInput(field, f"format {FORMAT!r}, version 1, kind {KIND!r}",
                               [data.get("format"), data.get("version"), data.get("kind")])
        theorem, model, mask = data.get("theorem"), data.get("model"), data.get("mask")
        if theorem not in ("3.2", "4.2") or model not in ("ode", "layers"):
            raise InvalidInput(f"{field}.theorem", "'3.2' or '4.2' with model 'ode' or 'layers'", [theorem, model])
        if mask != ("full" if theorem == "3.2" else "causal"):
            raise InvalidInput(f"{field}.mask", "'full' for 3.2, 'causal' for 4.2", mask)
        tokens = _matrix(data.get("tokens"), f"{field}.tokens", None, len(data["tokens"][0])
                         if isinstance(data.get("tokens"), list) and data["tokens"] and isinstance(data["tokens"][0], list)
                         else 0)
        N, d = len(tokens), len(tokens[0])
        if N * d > MAX_STATES or d < 1:
            raise InvalidInput(f"{field}.tokens", f"N d <= {MAX_STATES}", f"N = {N}, d = {d}")
        if any(not any(r) for r in tokens):
            raise InvalidInput(f"{field}.tokens", "nonzero tokens", "a zero token")
        heads = data.get("P")
        if not isinstance(heads, list) or not 1 <= len(heads) <= 8:
            raise InvalidInput(f"{field}.P", "a list of 1 to 8 matrices", heads)
        P = tuple(_matrix(m, f"{field}.P[{h}]", d, d) for h, m in enumerate(heads))
        eps = _q(data.get("eps"), f"{field}.eps", True)
        if eps >= 1:
            raise InvalidInput(f"{field}.eps", "a rational in (0, 1)", data.get("eps"))
        tau = horizon = layers = None
        if model == "ode":
            horizon = _q(data.get("horizon"), f"{field}.horizon", True)
            if horizon > MAX_HORIZON:
                raise InvalidInput(f"{field}.horizon", f"a horizon <= {MAX_HORIZON}", data.get("horizon"))
        else:
            tau = _q(data.get("tau"), f"{field}.tau", True)
            layers = data.get("layers")
            if isinstance(layers, bool) or not isinstance(layers, int) or not 1 <= layers <= MAX_LAYERS:
                raise InvalidInput(f"{field}.layers", f"an integer in [1, {MAX_LAYERS}]", layers)
        T_low = None if data.get("T_low") is None else _q(data["T_low"], f"{field}.T_low")
        T_high = _q(data.get("T_high"), f"{field}.T_high")
        label = data.get("label", "")
        if not isinstance(label, str) or len(label) > 200:
            raise InvalidInput(f"{field}.label", "a string of at most 200 characters", label)
        return WindowCertificate(theorem, model, _q(data.get("beta"), f"{field}.beta", True), mask, P, tokens, eps,
                                 tau, horizon, layers, T_low, T_high, label)


__all__ = ["FORMAT", "KIND", "WindowCertificate"]
