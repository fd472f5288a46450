"""Packages that are also the API function of the same name (``verify.theorem``, ``verify.sos``, ``verify.depth``).

``verify.sos`` is both the SOS package (``verify.sos.prove_nonnegative``) and the façade call
``verify.sos("x^2 + 1")``: whichever is imported first, the attribute ``verify.sos`` is the package
module, so the module itself is made callable (its class becomes :class:`CallablePackage`), and the
call goes to ``verify.api.<name>.<name>``. Nothing else about the package changes.
"""
from __future__ import annotations

import importlib
import sys
import types


class CallablePackage(types.ModuleType):
    """A package module whose call is its façade function (see the module docstring)."""

    def __call__(self, *args, **kwargs):
        return self.__api_function__()(*args, **kwargs)

    def __api_function__(self):
        module, name = self.__dict__["__api_target__"]
        return getattr(importlib.import_module(module), name)


def make_callable(package: str, api_module: str, api_name: str) -> None:
    """Turn the already-imported ``package`` into a :class:`CallablePackage` calling ``api_module.api_name``."""
    module = sys.modules[package]
    module.__class__ = CallablePackage
    module.__api_target__ = (api_module, api_name)
