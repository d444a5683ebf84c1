"""pytest's entry point for ds-gate (``pytest11``), a module outside the ``ds_gate`` package.

PYTEST_DONT_REWRITE

pytest rewrites the assertions of every module of a distribution with a ``pytest11`` entry point,
which slows the first session of every fresh environment (bench/RESULTS.md, import costs), and
ds-gate asserts nothing a test would report. An editable install marks only this module (whose
docstring says not to rewrite it); a wheel marks every top-level package, ``ds_gate`` too, so this
module takes that mark back (``_must_rewrite``, a private attribute: a pytest without it rewrites
ds-gate, which changes only the time) before importing ``ds_gate.pytest.plugin``'s hooks and
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
