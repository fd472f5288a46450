"""JSON form of :class:`~verify._fate.certificate.FateCertificate`, validated field by field
(:func:`fields_from_json` gives the constructor's arguments: this module never imports the class).

Every rational is a string ``"p"`` or ``"p/q"`` (never a float, at most :data:`MAX_DIGITS` digits);
sizes, pivots, signs and the precision are JSON integers in stated ranges.  Anything else raises
:class:`theorems.errors.InvalidInput` naming the field.  ``claim`` is printed, never trusted.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from theorems.errors import InvalidInput
from verify.certificate_fields import MAX_DIGITS, json_int as _int, json_matrix as _matrix, json_object as _obj
from verify.certificate_fields import json_rational as _q, json_vector as _vec

from .basin import KINDS, Basin
from .cap import Cap
from .problem import LIMITS, FateProblem
from .moving import Causal, Moving, Region
from .projective import Projective
from .repulsion import MAX_BOXES, MAX_HARMONICS, Repulsion

FORMAT = "consensus-verify/fate-certificate"
KIND = "fate"
FATES = ("consensus", "non-consensus")
ROUTES = ("hemisphere", "cap", "basin", "contraction", "projective", "moving-consensus", "repulsion")
_TOP = {"format", "version", "kind", "label", "claim", "fate", "route", "entry", "instance", "z", "basin", "cap",
        "projective", "moving", "repulsion", "enclosure"}
ENCLOSURE_NAMES = ("default", "tight", "damped")
"""The names of :data:`verify._fate.flow.ENCLOSURES` (``enclosure`` is optional: older certificates are ``default``)."""
_MOVING = {"G", "g_lo", "g_hi", "mu", "tau2", "unorm", "pnorm", "Dmax", "region", "causal"}
_CAUSAL = {"c", "eta", "lam", "lam_s", "p", "q_lo", "tau3", "ell"}  # p, q_lo, tau3, ell optional (older certificates)
_REGION = {"Q", "gamma", "tau1", "qnorm"}
_INSTANCE = {"name", "beta", "mask", "heads", "tokens", "normalize"}
_BASIN = {"kind", "charts", "mid", "krad", "R", "S", "r", "precision_bits"}
_PROJECTIVE = {"k", "mid", "rad", "rho", "S", "sign", "kv", "vmid", "vrad"}
_REPULSION = {"a", "b", "delta", "boxes"}
_CAP = {"chart", "mid", "krad", "Phi", "eps", "R", "t", "s", "precision_bits"}


def _mat(M) -> list[list[str]]:
    return [[str(v) for v in row] for row in M]


def to_json(cert: Any) -> dict[str, Any]:
    p, b = cert.problem, cert.basin
    return {
        "format": FORMAT, "version": 1, "kind": KIND, "label": cert.label, "claim": cert.claim,
        "fate": cert.fate, "route": cert.route, "entry": str(cert.entry),
        "instance": {"name": p.name, "beta": str(p.beta), "mask": p.mask,
                     "heads": [{"P": _mat(P), "U": _mat(U)} for P, U in p.heads],
                     "tokens": _mat(p.tokens), "normalize": p.normalize},
        "z": None if cert.z is None else [str(v) for v in cert.z],
        "basin": None if b is None else {
            "kind": b.kind, "charts": [{"pivot": k, "sign": s} for k, s in b.charts],
            "mid": [str(v) for v in b.mid], "krad": [str(v) for v in b.krad], "R": [str(v) for v in b.R],
            "S": _mat(b.S), "r": str(b.r), "precision_bits": b.precision},
        **({} if cert.cap is None else {"cap": _cap_json(cert.cap)}),
        **({} if cert.projective is None else {"projective": _projective_json(cert.projective)}),
        **({} if cert.moving is None else {"moving": _moving_json(cert.moving)}),
        **({} if cert.repulsion is None else {"repulsion": _repulsion_json(cert.repulsion)}),
        **({} if cert.enclosure == "default" else {"enclosure": cert.enclosure}),
    }


def _moving_json(m: Moving) -> dict[str, Any]:
    r = m.region
    return {"G": _mat(m.G), "g_lo": str(m.g_lo), "g_hi": str(m.g_hi), "mu": str(m.mu), "tau2": str(m.tau2),
            "unorm": [str(v) for v in m.unorm], "pnorm": [str(v) for v in m.pnorm], "Dmax": str(m.Dmax),
            "region": None if r is None else {"Q": _mat(r.Q), "gamma": str(r.gamma), "tau1": str(r.tau1),
                                              "qnorm": str(r.qnorm)},
            "causal": None if m.causal is None else _causal_json(m.causal)}


def _causal_json(c: Causal) -> dict[str, Any]:
    out: dict[str, Any] = {"c": [str(v) for v in c.c], "eta": str(c.eta), "lam": [str(v) for v in c.lam],
                           "lam_s": str(c.lam_s)}
    if c.p:
        out["p"] = [str(v) for v in c.p]
    if c.q_lo is not None:
        out["q_lo"], out["tau3"] = str(c.q_lo), str(c.tau3)
    if c.ell is not None:
        out["ell"] = [str(v) for v in c.ell]
    return out


def _moving(value: Any, problem: FateProblem) -> Moving:
    obj = _obj(value, "certificate.moving", _MOVING, {"region", "causal"})
    d, H = problem.d, len(problem.heads)
    region = causal = None
    if obj.get("causal") is not None:
        co = _obj(obj["causal"], "certificate.moving.causal", _CAUSAL, {"p", "q_lo", "tau3", "ell"})
        if ("q_lo" in co) != ("tau3" in co):
            raise InvalidInput("certificate.moving.causal", "q_lo and tau3 together", sorted(set(co) & {"q_lo", "tau3"}))
        causal = Causal(_vec(co["c"], "certificate.moving.causal.c", problem.N - 1),
                        _q(co["eta"], "certificate.moving.causal.eta"), _vec(co["lam"], "certificate.moving.causal.lam", H),
                        _q(co["lam_s"], "certificate.moving.causal.lam_s"),
                        _vec(co["p"], "certificate.moving.causal.p", problem.N - 1) if "p" in co else (),
                        _q(co["q_lo"], "certificate.moving.causal.q_lo") if "q_lo" in co else None,
                        _q(co["tau3"], "certificate.moving.causal.tau3") if "tau3" in co else Fraction(0),
                        _vec(co["ell"], "certificate.moving.causal.ell", H) if "ell" in co else None)
    if obj.get("region") is not None:
        ro = _obj(obj["region"], "certificate.moving.region", _REGION)
        region = Region(_matrix(ro["Q"], "certificate.moving.region.Q", d, d), _q(ro["gamma"], "certificate.moving.region.gamma"),
                        _q(ro["tau1"], "certificate.moving.region.tau1"), _q(ro["qnorm"], "certificate.moving.region.qnorm"))
    return Moving(_matrix(obj["G"], "certificate.moving.G", d, d), _q(obj["g_lo"], "certificate.moving.g_lo"),
                  _q(obj["g_hi"], "certificate.moving.g_hi"), _q(obj["mu"], "certificate.moving.mu"),
                  _q(obj["tau2"], "certificate.moving.tau2"), _vec(obj["unorm"], "certificate.moving.unorm", H),
                  _vec(obj["pnorm"], "certificate.moving.pnorm", H), _q(obj["Dmax"], "certificate.moving.Dmax"), region, causal)


def _projective_json(c: Projective) -> dict[str, Any]:
    return {"k": c.k, "mid": [str(v) for v in c.mid], "rad": str(c.rad), "rho": str(c.rho), "S": _mat(c.S),
            "sign": c.sign, "kv": c.kv, "vmid": [str(v) for v in c.vmid], "vrad": str(c.vrad)}


def _projective(value: Any, problem: FateProblem) -> Projective:
    obj = _obj(value, "certificate.projective", _PROJECTIVE)
    d = problem.d
    sign = _int(obj["sign"], "certificate.projective.sign", -1, 1)
    if sign == 0:
        raise InvalidInput("certificate.projective.sign", "1 or -1", 0)
    return Projective(_int(obj["k"], "certificate.projective.k", 0, d - 1), _vec(obj["mid"], "certificate.projective.mid", d),
                      _q(obj["rad"], "certificate.projective.rad"), _q(obj["rho"], "certificate.projective.rho"),
                      _matrix(obj["S"], "certificate.projective.S", d - 1, d - 1), sign,
                      _int(obj["kv"], "certificate.projective.kv", 0, d - 1),
                      _vec(obj["vmid"], "certificate.projective.vmid", d), _q(obj["vrad"], "certificate.projective.vrad"))


def _repulsion_json(r: Repulsion) -> dict[str, Any]:
    return {"a": [str(v) for v in r.a], "b": [str(v) for v in r.b], "delta": str(r.delta), "boxes": r.boxes}


def _repulsion(value: Any) -> Repulsion:
    obj = _obj(value, "certificate.repulsion", _REPULSION)
    a = obj["a"]
    if not isinstance(a, list) or not 1 <= len(a) <= MAX_HARMONICS:
        raise InvalidInput("certificate.repulsion.a", f"a list of 1..{MAX_HARMONICS} rationals", type(a).__name__)
    return Repulsion(_vec(a, "certificate.repulsion.a", len(a)), _vec(obj["b"], "certificate.repulsion.b", len(a)),
                     _q(obj["delta"], "certificate.repulsion.delta"),
                     _int(obj["boxes"], "certificate.repulsion.boxes", 16, MAX_BOXES))


def _cap_json(c: Cap) -> dict[str, Any]:
    return {"chart": {"pivot": c.chart[0], "sign": c.chart[1]}, "mid": [str(v) for v in c.mid],
            "krad": [str(v) for v in c.krad], "Phi": _mat(c.Phi), "eps": str(c.eps), "R": str(c.R),
            "t": [str(v) for v in c.t], "s": _mat(c.s), "precision_bits": c.precision}


def _instance(value: Any) -> FateProblem:
    obj = _obj(value, "certificate.instance", _INSTANCE, {"name"})
    tokens_raw = obj["tokens"]
    if not isinstance(tokens_raw, list) or not 1 <= len(tokens_raw) <= LIMITS["N"] or not isinstance(tokens_raw[0], list):
        raise InvalidInput("certificate.instance.tokens", f"a list of 1..{LIMITS['N']} vectors", tokens_raw)
    d = len(tokens_raw[0])
    if not 2 <= d <= LIMITS["d"]:
        raise InvalidInput("certificate.instance.tokens[0]", f"a vector of dimension 2..{LIMITS['d']}", d)
    heads_raw = obj["heads"]
    if not isinstance(heads_raw, list) or not 1 <= len(heads_raw) <= LIMITS["heads"]:
        raise InvalidInput("certificate.instance.heads", f"a list of 1..{LIMITS['heads']} heads", heads_raw)
    heads = []
    for h, head in enumerate(heads_raw):
        ho = _obj(head, f"certificate.instance.heads[{h}]", {"P", "U"})
        heads.append((_matrix(ho["P"], f"certificate.instance.heads[{h}].P", d, d),
                      _matrix(ho["U"], f"certificate.instance.heads[{h}].U", d, d)))
    if obj["mask"] not in ("full", "causal"):
        raise InvalidInput("certificate.instance.mask", "'full' or 'causal'", obj["mask"])
    if not isinstance(obj["normalize"], bool):
        raise InvalidInput("certificate.instance.normalize", "true or false", obj["normalize"])
    name = obj.get("name", "instance")
    if not isinstance(name, str) or len(name) > 200:
        raise InvalidInput("certificate.instance.name", "a string of at most 200 characters", type(name).__name__)
    beta = _q(obj["beta"], "certificate.instance.beta")
    tokens = _matrix(tokens_raw, "certificate.instance.tokens", len(tokens_raw), d)
    try:
        return FateProblem(beta, obj["mask"], tuple(heads), tokens, obj["normalize"], name)
    except InvalidInput as exc:  # the instance's own checks, named by their path in the file
        got = exc.got if not isinstance(exc.got, (Fraction, tuple)) else _text(exc.got)
        raise InvalidInput(f"certificate.instance.{exc.field}", exc.expected, got, exc.hint) from None


def _text(value):
    """A Fraction, or a tuple of them, as the strings the file holds."""
    return str(value) if isinstance(value, Fraction) else [_text(v) for v in value]


def _basin(value: Any, problem: FateProblem) -> Basin:
    obj = _obj(value, "certificate.basin", _BASIN)
    n = problem.N * (problem.d - 1)
    if obj["kind"] not in KINDS:
        raise InvalidInput("certificate.basin.kind", f"one of {KINDS}", obj["kind"])
    charts_raw = obj["charts"]
    if not isinstance(charts_raw, list) or len(charts_raw) != problem.N:
        raise InvalidInput("certificate.basin.charts", f"a list of {problem.N} charts", charts_raw)
    charts = []
    for i, ch in enumerate(charts_raw):
        co = _obj(ch, f"certificate.basin.charts[{i}]", {"pivot", "sign"})
        sign = _int(co["sign"], f"certificate.basin.charts[{i}].sign", -1, 1)
        if sign == 0:
            raise InvalidInput(f"certificate.basin.charts[{i}].sign", "1 or -1", 0)
        charts.append((_int(co["pivot"], f"certificate.basin.charts[{i}].pivot", 0, problem.d - 1), sign))
    return Basin(obj["kind"], tuple(charts), _vec(obj["mid"], "certificate.basin.mid", n),
                 _vec(obj["krad"], "certificate.basin.krad", n), _vec(obj["R"], "certificate.basin.R", n),
                 _matrix(obj["S"], "certificate.basin.S", n, n), _q(obj["r"], "certificate.basin.r"),
                 _int(obj["precision_bits"], "certificate.basin.precision_bits", 64, 2048))


def _chart(value: Any, field: str, d: int) -> tuple[int, int]:
    co = _obj(value, field, {"pivot", "sign"})
    sign = _int(co["sign"], f"{field}.sign", -1, 1)
    if sign == 0:
        raise InvalidInput(f"{field}.sign", "1 or -1", 0)
    return _int(co["pivot"], f"{field}.pivot", 0, d - 1), sign


def _cap(value: Any, problem: FateProblem) -> Cap:
    obj = _obj(value, "certificate.cap", _CAP)
    N, m = problem.N, problem.d - 1
    return Cap(_chart(obj["chart"], "certificate.cap.chart", problem.d), _vec(obj["mid"], "certificate.cap.mid", m),
               _vec(obj["krad"], "certificate.cap.krad", m), _matrix(obj["Phi"], "certificate.cap.Phi", N * m, N * m),
               _q(obj["eps"], "certificate.cap.eps"), _q(obj["R"], "certificate.cap.R"),
               _vec(obj["t"], "certificate.cap.t", N), _matrix(obj["s"], "certificate.cap.s", N, N),
               _int(obj["precision_bits"], "certificate.cap.precision_bits", 64, 2048))


def fields_from_json(data: Mapping[str, Any]) -> tuple:
    top = _obj(data, "certificate", _TOP, {"label", "claim", "cap", "projective", "moving", "repulsion", "enclosure"})
    if top["format"] != FORMAT or top["kind"] != KIND or top["version"] != 1:
        raise InvalidInput("certificate", f"format {FORMAT!r}, kind {KIND!r}, version 1",
                           [top["format"], top["kind"], top["version"]])
    label = top.get("label", "")
    if not isinstance(label, str) or len(label) > 500:
        raise InvalidInput("certificate.label", "a string of at most 500 characters", type(label).__name__)
    if top["fate"] not in FATES:
        raise InvalidInput("certificate.fate", f"one of {FATES}", top["fate"])
    if top["route"] not in ROUTES:
        raise InvalidInput("certificate.route", f"one of {ROUTES}", top["route"])
    problem = _instance(top["instance"])
    z = None if top["z"] is None else _vec(top["z"], "certificate.z", problem.d)
    basin = None if top["basin"] is None else _basin(top["basin"], problem)
    cap = None if top.get("cap") is None else _cap(top["cap"], problem)
    projective = None if top.get("projective") is None else _projective(top["projective"], problem)
    moving = None if top.get("moving") is None else _moving(top["moving"], problem)
    repulsion = None if top.get("repulsion") is None else _repulsion(top["repulsion"])
    enclosure = top.get("enclosure", "default")
    if not isinstance(enclosure, str) or enclosure not in ENCLOSURE_NAMES:
        raise InvalidInput("certificate.enclosure", f"one of {ENCLOSURE_NAMES}", enclosure)
    return (problem, top["fate"], top["route"], _q(top["entry"], "certificate.entry"), z, basin, label, cap, projective,
            moving, enclosure, repulsion)


__all__ = ["ENCLOSURE_NAMES", "FATES", "FORMAT", "KIND", "ROUTES", "fields_from_json", "to_json"]
