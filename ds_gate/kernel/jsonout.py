"""JSON as ds-gate writes it: strict JSON (RFC 8259), whatever a quest holds.

ds-gate reads records as DeepScientist reads them (``jsondoc.loads``): a diverged run's
metric is a float NaN or Infinity, and a card's YAML may say ``.nan``. Python's ``json.dumps``
would write those as the bare tokens ``NaN`` / ``Infinity``, which no strict reader (a
browser, ``jq``, a SARIF viewer, an MCP client in another language) accepts, so one such run
would break every answer that shows it. Every output ds-gate serialises (``--format
json``/``sarif``, the MCP tools, the integration's answers) goes through ``dumps``: a
non-finite float is written as the text Python's ``json`` would have written for it,
``"NaN"``, ``"Infinity"`` or ``"-Infinity"``, so the value is still told, in words, and never
confused with a missing one (``null``). Not on the commit hook's fast path.
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
