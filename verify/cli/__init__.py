"""The ``verify`` command line: :mod:`verify.cli.main` parses, calls the library and prints the report."""

__all__: list[str] = []  # modules only (verify.cli.main.main is the entry point)
