"""One option table per command: the argparse parser, the API signature and the checks of a call.

Each command declares its options once (:class:`Option` s in a :class:`Command`): :func:`api` makes the public
function (a real ``__signature__``, the options in its docstring, picklable by name) that checks every value by
its kind (:meth:`Option.check`) before the implementation runs; :meth:`Command.add_parser` makes the ``verify
<command>`` sub-parser with the same keywords; :func:`for_cli` renames the options of an error to the CLI's flags
(``t_end`` -> ``--t-end``).  An error that refers to another option writes it as ``{name}``.
"""
from __future__ import annotations

import inspect
import math
import numbers
import os
import string
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Literal, Mapping

from theorems.errors import InvalidInput

REQUIRED = inspect.Parameter.empty
"""The default of an option the caller must give (``simulate``'s ``t_end``)."""
KINDS = ("bool", "int", "seed", "number", "rational", "choice", "text", "path", "callable", "any")
"""``seed``: an integer below ``2**high``; ``rational``: :func:`theorems.rational.parse_rational`'s; ``path``: a
``str`` or ``os.PathLike``, returned as ``str`` (``""``: not given); ``callable``: API only; ``any``: checked by
the implementation (instances, models, certificate sources)."""
ANNOTATIONS: Mapping[str, Any] = {
    "bool": bool, "int": int, "seed": int, "number": float, "rational": str | int | float | Fraction, "choice": str,
    "text": str, "path": str | os.PathLike[str], "callable": Callable[..., Any], "any": Any}
"""What the API accepts for each kind (the generated signature's annotations)."""


class OptionError(InvalidInput):
    """Bad option value; ``expected`` and ``hint`` may name other options as ``{name}``.  ``conflict=True``:
    an option that cannot be combined with another (or has no effect in this mode); the message says why
    and ``expected`` is ``"<option> left out"``."""

    def __init__(self, field: str, expected: str, got: object = None, hint: str = "", *, conflict: bool = False,
                 names: Mapping[str, str] | None = None) -> None:
        self.templates, self.conflict = (field, expected, hint), conflict
        shown = _Names(names or {})
        text, hint = (string.Formatter().vformat(t, (), shown) for t in (expected, hint))
        field = rename(field, shown)
        super().__init__(field, f"{field} left out" if conflict else text, got, hint)
        if conflict:
            self.args = (f"{field}: {text}",)

    def named(self, names: Mapping[str, str]) -> "OptionError":
        """The same error with the options spelled by ``names`` (keyword -> flag)."""
        field, expected, hint = self.templates
        return OptionError(field, expected, self.got, hint, conflict=self.conflict, names=names)


class _Names(dict):
    def __missing__(self, key: str) -> str:
        return key


def rename(field: str, names: Mapping[str, str]) -> str:
    """``field`` with each word that is an option keyword spelled by ``names`` (``polynomial or on``)."""
    return " ".join(names.get(word, word) for word in field.split(" "))


def for_cli(exc: BaseException, flags: Mapping[str, str]) -> BaseException:
    """``exc`` with its option keywords renamed to the CLI's flags, word by word (``field component 2``,
    ``polynomial or on``); errors about the data of a file (``exc.option_field = False``) are not."""
    if isinstance(exc, OptionError):
        return exc.named(flags)
    if not isinstance(exc, InvalidInput) or not isinstance(exc.field, str) or not getattr(exc, "option_field", True) \
            or exc.field.split(" ")[0] not in flags:
        return exc
    new = type(exc).__new__(type(exc))  # copy.copy would call __init__ with the message only
    new.__dict__.update(exc.__dict__)
    new.field, text = rename(exc.field, flags), str(exc)
    new.args = (new.field + text[len(exc.field):] if text.startswith(exc.field) else text,)
    return new


def is_bool(value: Any) -> bool:
    """``True`` / ``False`` or a NumPy ``bool_`` (only possible when NumPy is loaded)."""
    np = sys.modules.get("numpy")
    return isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))


def is_int(value: Any) -> bool:
    """An integer (``int`` or a NumPy integer), not a bool."""
    return isinstance(value, numbers.Integral) and not is_bool(value)


def int_range(low: int, high: int | None) -> str:
    """The words of an integer range in an error: ``an integer between 1 and 64``."""
    return f"an integer >= {low}" if high is None else f"an integer between {low} and {high}"


def _choices(choices: tuple) -> str:
    shown = [repr(c) for c in choices]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


@dataclass(frozen=True)
class Option:
    """One option of one command, declared once.  ``flag``: the CLI's spelling (default ``--name-with-dashes``,
    ``--no-name`` for a bool whose default is ``True``; without a leading ``-``: a positional shown by that
    name).  ``positional``: positional in the API too.  ``cli_only`` / ``api_only``: on one side only.
    ``group``: a mutually exclusive group.  ``cli``: further ``add_argument`` keywords.  ``expected``: the
    words of the check's error when the kind's are not specific enough; ``hint``: what to try, added to a
    ``choice``'s error.  A ``rational``'s bounds are included when ``closed``; ``decimals=False``: exact
    ``p/q`` only (no ``0.01``)."""

    name: str
    kind: str = "any"
    default: Any = None
    help: str = ""
    low: Any = None
    high: Any = None
    choices: tuple = ()
    flag: str | None = None
    metavar: str | None = None
    positional: bool = False
    cli_only: bool = False
    api_only: bool = False
    group: str | None = None
    cli: Mapping[str, Any] = field(default_factory=dict)
    expected: str = ""
    closed: bool = False
    hint: str = ""
    decimals: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"option {self.name}: unknown kind {self.kind!r}")

    @property
    def spelling(self) -> str:
        """How the CLI names this option (``--t-end``, ``--no-simulate``, ``ID``)."""
        if self.flag:
            return self.flag
        negated = self.kind == "bool" and self.default is True
        return ("--no-" if negated else "--") + self.name.replace("_", "-")

    @property
    def api_type(self) -> Any:
        """The annotation of this option in the API's signature (``| None`` when ``None`` is its default)."""
        base = Literal[self.choices] if self.kind == "choice" and self.choices else ANNOTATIONS[self.kind]
        return base | None if self.default is None and base is not Any else base

    def check(self, value: Any) -> Any:
        """``value`` checked by its kind (``None`` passes when the default is ``None``)."""
        if value is None and self.default is None:
            return None
        kind, low, high, name = self.kind, self.low, self.high, self.name
        if kind == "rational":
            from theorems.rational import parse_rational

            try:
                return parse_rational(value, name, low, high, self.closed, self.decimals)
            except InvalidInput as exc:
                raise OptionError(name, exc.expected, exc.got) from None
        if kind == "path":
            return check_path(name, value)
        got = value
        if kind == "bool":
            ok, words = is_bool(value), "True or False"
        elif kind == "seed":  # an integer below 2**high
            bits = 64 if high is None else high
            ok, words = is_int(value) and 0 <= value < 2 ** bits, f"an integer between 0 and 2^{bits} - 1"
        elif kind == "int":
            ok = is_int(value) and (low is None or value >= low) and (high is None or value <= high)
            words = "an integer" if low is None else int_range(low, high)
        elif kind == "number":
            ok = isinstance(value, numbers.Real) and not is_bool(value) and math.isfinite(float(value)) and (
                low is None or value > low) and (high is None or value <= high)
            words = "a finite number"
        elif kind == "choice":
            ok, words = isinstance(value, str) and value in self.choices, _choices(self.choices)
        elif kind == "text":
            ok, words = isinstance(value, str) and bool(value), "text (a str)"
        elif kind == "callable":
            ok, words, got = callable(value), "a callable, or None", type(value).__name__
        else:  # any: checked by the implementation
            return value
        if not ok:
            raise OptionError(name, self.expected or words, got, self.hint)
        if kind in ("bool", "int", "seed"):
            return bool(value) if kind == "bool" else int(value)
        return float(value) if kind == "number" and not isinstance(value, (int, float)) else value


def check_path(name: str, value: Any) -> str | None:
    """``value`` as a path string (:func:`verify.outputs.path_text`); ``None`` and ``""`` mean not given."""
    from verify.outputs import path_text

    return None if value is None or (isinstance(value, str) and not value) else path_text(name, value)


@dataclass(frozen=True)
class Command:
    """A command's name, its API function's name, its help texts and its option table; ``doc`` is the API
    function's docstring (None: the docstring of the module defining the command)."""

    name: str
    function: str
    help: str
    description: str | Callable[[], str] | None
    doc: str | None
    options: tuple[Option, ...]
    parser: Mapping[str, Any] = field(default_factory=dict)
    """Further ``add_parser`` keywords (``epilog``, ``formatter_class``)."""

    def __post_init__(self) -> None:
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: an option is declared twice: {names}")

    @property
    def flags(self) -> dict[str, str]:
        """keyword -> CLI spelling, for :func:`for_cli`."""
        return {o.name: o.spelling for o in self.options if not o.api_only}

    def signature(self) -> inspect.Signature:
        P = inspect.Parameter
        from verify.report import Report  # every generated call returns one

        return inspect.Signature([P(o.name, P.POSITIONAL_OR_KEYWORD if o.positional else P.KEYWORD_ONLY,
                                    default=o.default, annotation=o.api_type) for o in self.options if not o.cli_only],
                                 return_annotation=Report)

    def check(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Every value checked by its option (in table order)."""
        table = {o.name: o for o in self.options}
        return {key: table[key].check(value) for key, value in arguments.items()}

    def docstring(self, doc: str) -> str:
        lines = [doc.strip(), "", "Options (the CLI's flag in brackets):", ""]
        for o in self.options:
            if not o.cli_only:
                shown = "required" if o.default is REQUIRED else f"default {o.default!r}"
                cli = "" if o.api_only else f" [{o.spelling}]"
                lines.append(f"* ``{o.name}``{cli} ({shown}): {o.help.replace('%%', '%')}")
        return "\n".join(lines) + "\n"

    def add_parser(self, sub) -> Any:
        p = sub.add_parser(self.name, help=self.help, description=self.description, **self.parser)
        groups: dict[str, Any] = {}
        for o in self.options:
            if o.api_only:
                continue
            if o.group is not None and o.group not in groups:
                groups[o.group] = p.add_mutually_exclusive_group()
            target = p if o.group is None else groups[o.group]
            keywords: dict[str, Any] = {"help": o.help}
            if o.metavar:
                keywords["metavar"] = o.metavar
            if not o.spelling.startswith("-"):
                target.add_argument(o.name, metavar=o.spelling, **keywords, **o.cli)
                continue
            if o.kind == "bool":
                keywords["action"] = "store_false" if o.spelling.startswith("--no-") and o.default else "store_true"
            elif o.choices:
                keywords["choices"] = o.choices
            elif o.kind in ("int", "seed", "number"):
                keywords["type"] = int if o.kind != "number" else float
            if o.default is REQUIRED:
                keywords["required"] = True
            else:
                keywords["default"] = o.default
            target.add_argument(o.spelling, **{"dest": o.name, **keywords, **o.cli})
        p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
        p.set_defaults(command_table=self)
        return p

    def values(self, namespace: Any) -> dict[str, Any]:
        """The API call's keywords from a parsed command line."""
        return {o.name: getattr(namespace, o.name) for o in self.options if not (o.cli_only or o.api_only)}


FORCE = Option("force", "bool", False, help="replace output files that already exist (never a directory, device, FIFO "
                                           "or symbolic link)")
"""The ``force`` option of every command that writes files."""


class Values(dict):
    """The checked options of one call, read as attributes too (``opts.t_end``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def api(command: Command, implementation: Callable[..., Any], module: str) -> Callable[..., Any]:
    """The public function of ``command``: bind, check every option, call ``implementation``; ``module``
    names the module that binds it to ``command.function`` (pickle finds it by name)."""
    signature = command.signature()

    def call(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)  # an unknown keyword is a TypeError, as for any function
        bound.apply_defaults()
        return implementation(**command.check(bound.arguments))

    call.__name__ = call.__qualname__ = command.function
    call.__module__ = module
    call.__doc__ = command.docstring(command.doc or sys.modules[module].__doc__ or "")
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = {**{name: p.annotation for name, p in signature.parameters.items()},
                            "return": signature.return_annotation}
    call.command = command  # type: ignore[attr-defined]
    return call

