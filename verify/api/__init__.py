"""The library calls behind the ``verify`` commands, one module per command, each generated from its option
table (:mod:`verify.api._table`), exported lazily by :mod:`verify` and returning a :class:`verify.report.Report`.
Nothing here prints; bad input raises :class:`theorems.errors.InvalidInput` naming the field, what was
expected and what arrived."""

__all__: list[str] = []  # one module per command; the calls are exported by :mod:`verify`
