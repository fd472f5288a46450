"""The ``verify`` command line: ``main`` parses, one ``cmd_<name>`` module per command renders a report."""

__all__: list[str] = []  # modules only (verify.cli.main.main is the entry point)
