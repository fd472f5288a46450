"""``import llm_checks`` works without torch; using it raises MissingDependency with the command."""
from __future__ import annotations

import subprocess
import sys
import textwrap


def test_import_and_missing_dependency_without_torch():
    code = textwrap.dedent(
        """
        import builtins, sys
        real = builtins.__import__
        def blocked(name, *a, **k):
            if name.split('.')[0] in ('torch', 'transformers'):
                raise ImportError('blocked ' + name)
            return real(name, *a, **k)
        builtins.__import__ = blocked
        import llm_checks, llm_checks.audit, llm_checks.consensus, llm_checks.render, llm_checks.measured_hemisphere
        from theorems.errors import MissingDependency
        assert 'torch' not in sys.modules and 'transformers' not in sys.modules
        try:
            llm_checks.load_model('gpt2-tiny', random_init=True)
        except MissingDependency as exc:
            print('MISSING', exc.install)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "MISSING pip install 'consensus-verify[llm]'"
