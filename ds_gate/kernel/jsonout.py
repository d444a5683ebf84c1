"""JSON as ds-gate writes it: strict JSON (RFC 8259), whatever a quest holds.

A diverged run's metric may be NaN or Infinity, which ``json.dumps`` writes as bare tokens no
strict reader (a browser, ``jq``, a SARIF viewer, an MCP client) accepts. Every output ds-gate
serialises goes through ``dumps``, which writes them as the strings ``"NaN"``, ``"Infinity"``,
``"-Infinity"``: still told, and never confused with ``null``. Not on the hook's fast path.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # the kernel's economy: typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any

INFINITY = float("inf")


def spelled(value: float) -> float | str:
    """A finite float as it is; NaN or an infinity as the word Python's ``json`` writes for it."""
    if value != value:
        return "NaN"
    if value in (INFINITY, -INFINITY):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (a dict's keys included) spelled as text."""
    if isinstance(value, float):
        return spelled(value)
    if isinstance(value, dict):
        return {spelled(key) if isinstance(key, float) else key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` that never writes ``NaN`` or ``Infinity``: tried as given first (nearly
    every answer holds no such value, and is not walked twice), then with them spelled."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # "Out of range float values are not JSON compliant" (a circular one raises again)
        return json.dumps(finite(value), allow_nan=False, **options)
