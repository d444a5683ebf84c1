"""pytest's entry point for ds-gate (``pytest11``), a module outside the ``ds_gate`` package.

PYTEST_DONT_REWRITE

pytest rewrites the assertions of the modules of every distribution that registers a
``pytest11`` entry point, so that a plugin's own ``assert`` reports well. ds-gate asserts
nothing a test would report, and rewriting its ~100 modules slows the first session of every
fresh environment (each CI job), and every session where pytest cannot keep its rewritten
``.pyc`` (bench/RESULTS.md, import costs). Which names pytest marks depends on how ds-gate
is installed:

- an editable install lists no Python files, so pytest marks the entry point's outermost
  package: for this module, only this module (whose docstring says not to rewrite it);
- a wheel lists its files, so pytest marks every top-level package in them: ``ds_gate`` too.
  This module takes that one mark back from pytest's import hook before it imports anything
  of ``ds_gate`` (``_must_rewrite``, a private attribute: if a pytest lacks it, ds-gate is
  rewritten as before, which changes nothing but the time).

The plugin itself is ``ds_gate.pytest.plugin``; this module only re-exports its hooks and
fixtures. ``-p ds_gate_pytest`` loads it when plugin autoloading is off.
"""

from __future__ import annotations

import sys

PACKAGE = "ds_gate"


def _unmark() -> None:
    """Take ``ds_gate`` off the names pytest's assertion-rewriting import hook rewrites."""
    for finder in sys.meta_path:
        must = getattr(finder, "_must_rewrite", None)
        if type(finder).__name__ == "AssertionRewritingHook" and isinstance(must, set) and PACKAGE in must:
            must.discard(PACKAGE)
            cache = getattr(finder, "_marked_for_rewrite_cache", None)
            if isinstance(cache, dict):
                cache.clear()


_unmark()

from ds_gate.pytest.plugin import (  # noqa: E402  (after the mark is taken back)
    ds_gate_quest,
    ds_gate_report,
    pytest_addoption,
    pytest_configure,
    pytest_load_initial_conftests,
)

__all__ = ["ds_gate_quest", "ds_gate_report", "pytest_addoption", "pytest_configure", "pytest_load_initial_conftests"]
