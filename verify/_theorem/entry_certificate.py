"""The hemisphere-entry certificate (kind ``"hemisphere-entry"``): tokens that start in no open
hemisphere are proved to lie in the open hemisphere of ``z`` at ``t0`` (eq. 5, ``U^h = I``).

It stores the exact data only (``beta``, every constant ``P^h``, the mask, the rational token
directions, the horizon of the validated run) and the claim (``t0``, ``z``, ``margin``).
:meth:`EntryCertificate.recheck` re-runs the validated enclosure (:mod:`verify.validated`) on those
data and holds when the enclosure at ``t0`` proves ``<z, x_i(t0)> >= margin > 0`` for every token.
A tampered ``z``, ``t0``, margin or datum the enclosure does not support is rejected
(``certificate_invalid``); a malformed file is an input error naming the field.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, final

from theorems.errors import InvalidInput
from theorems.verdict import Verdict, fails, holds

KIND = "hemisphere-entry"
FORMAT = "consensus-verify/hemisphere-entry-certificate"
MAX_HORIZON = Fraction(64)
_KEYS = {"format", "version", "kind", "beta", "mask", "P", "tokens", "horizon", "t0", "z", "margin", "claim", "label"}


@final
@dataclass(frozen=True)
class EntryCertificate:
    beta: Fraction
    mask: str
    P: tuple[tuple[tuple[Fraction, ...], ...], ...]
    tokens: tuple[tuple[Fraction, ...], ...]
    horizon: Fraction
    t0: Fraction
    z: tuple[Fraction, ...]
    margin: Fraction
    label: str = ""

    @property
    def claim(self) -> str:
        return (f"eq. 5, {self.mask} attention, U^h = I, beta = {self.beta}, the {len(self.P)} stored P^h, the "
                f"{len(self.tokens)} stored tokens (normalised): <z, x_i(t0)> >= {self.margin} > 0 for every i at "
                f"t0 = {self.t0} (an open hemisphere)")

    def recheck(self) -> Verdict:
        from verify.validated import Field, Tokens, ValidatedOptions, integrate_validated
        from verify.validated.entry import proves_margin

        if not 0 <= self.t0 <= self.horizon or self.margin <= 0:
            return fails(KIND, f"t0 = {self.t0} outside [0, {self.horizon}] or margin {self.margin} <= 0")
        unit = all(sum(v * v for v in row) == 1 for row in self.tokens)
        traj = integrate_validated(Field(self.beta, self.P, None, self.mask),
                                   Tokens(self.tokens, Fraction(0), normalize=not unit), self.horizon,
                                   options=ValidatedOptions(max_steps=4000))
        if traj.reached < self.t0:
            return fails(KIND, f"the re-run enclosure stopped at t = {traj.reached} < t0 = {self.t0} ({traj.message})")
        box = traj.enclosure_at(self.t0)
        if not proves_margin(box, self.z, self.margin, traj.options.prec):
            return fails(KIND, f"the re-run enclosure at t0 = {self.t0} does not prove <z, x_i> >= {self.margin}",
                         {"t0": str(self.t0)})
        return holds(KIND, "re-run validated enclosure (arb) proves every token in the open hemisphere of z at t0",
                     {"t0": str(self.t0), "z": [str(v) for v in self.z], "margin": str(self.margin)})

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": 1, "kind": KIND, "beta": str(self.beta), "mask": self.mask,
                "P": [[[str(v) for v in r] for r in m] for m in self.P],
                "tokens": [[str(v) for v in r] for r in self.tokens], "horizon": str(self.horizon),
                "t0": str(self.t0), "z": [str(v) for v in self.z], "margin": str(self.margin),
                "claim": self.claim, "label": self.label}

    @staticmethod
    def from_json(data: Mapping[str, Any], field: str = "certificate") -> "EntryCertificate":
        from verify._depth.window_certificate import _matrix, _q
        from verify.validated.from_system import MAX_STATES

        if not isinstance(data, Mapping):
            raise InvalidInput(field, "a JSON object", type(data).__name__)
        extra = sorted(set(data) - _KEYS)
        if extra:
            raise InvalidInput(f"{field}.{extra[0]}", "no such key in a hemisphere-entry certificate", extra[0])
        if data.get("format") != FORMAT or data.get("version") != 1 or data.get("kind") != KIND:
            raise InvalidInput(field, f"format {FORMAT!r}, version 1, kind {KIND!r}",
                               [data.get("format"), data.get("version"), data.get("kind")])
        mask = data.get("mask")
        if mask not in ("full", "causal"):
            raise InvalidInput(f"{field}.mask", "'full' or 'causal'", mask)
        raw = data.get("tokens")
        d = len(raw[0]) if isinstance(raw, list) and raw and isinstance(raw[0], list) else 0
        tokens = _matrix(raw, f"{field}.tokens", None, d)
        N = len(tokens)
        if N * d > MAX_STATES or d < 1 or any(not any(r) for r in tokens):
            raise InvalidInput(f"{field}.tokens", f"nonzero tokens with N d <= {MAX_STATES}", f"N = {N}, d = {d}")
        heads = data.get("P")
        if not isinstance(heads, list) or not 1 <= len(heads) <= 8:
            raise InvalidInput(f"{field}.P", "a list of 1 to 8 matrices", heads)
        P = tuple(_matrix(m, f"{field}.P[{h}]", d, d) for h, m in enumerate(heads))
        horizon = _q(data.get("horizon"), f"{field}.horizon", True)
        if horizon > MAX_HORIZON:
            raise InvalidInput(f"{field}.horizon", f"a horizon <= {MAX_HORIZON}", data.get("horizon"))
        z = data.get("z")
        if not isinstance(z, list) or len(z) != d:
            raise InvalidInput(f"{field}.z", f"a list of {d} rationals", z)
        label = data.get("label", "")
        if not isinstance(label, str) or len(label) > 200:
            raise InvalidInput(f"{field}.label", "a string of at most 200 characters", label)
        return EntryCertificate(_q(data.get("beta"), f"{field}.beta", True), mask, P, tokens, horizon,
                                _q(data.get("t0"), f"{field}.t0"), tuple(_q(v, f"{field}.z[{k}]") for k, v in enumerate(z)),
                                _q(data.get("margin"), f"{field}.margin"), label)


__all__ = ["EntryCertificate", "FORMAT", "KIND"]
