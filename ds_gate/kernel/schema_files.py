"""The JSON Schemas ds-gate ships, by short name, and local ``$ref`` resolution.

The commit hook loads the record schemas here on every commit that stages a record, so
this imports neither ``typing``, ``pathlib`` nor ``json`` (``kernel.jsondoc.loads``)."""

from __future__ import annotations

import os

from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.resources import data_path

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from typing import Any

SCHEMA_NAMES = (
    "decision",
    "distill_review",
    "distill_review_report",
    "run",
    "knowledge_card",
    "experience_card",
    "ds_gate_config",
)


_LOADED: dict[str, dict[str, Any]] = {}  # read once per process (functools would load collections on the hook's path)


def load(name: str) -> dict[str, Any]:
    """A schema by short name (``distill_review``) or file name."""
    if name not in _LOADED:
        file = name if name.endswith(".json") else f"{name}.schema.json"
        with open(os.path.join(data_path("schemas"), file), encoding="utf-8") as f:
            _LOADED[name] = loads(f.read())
    return _LOADED[name]


def resolve(ref: str, base: str) -> tuple[str, Any]:
    """Resolve a local ``$ref`` (``other.schema.json#/x`` or ``#/x``) to (file, subschema)."""
    target, _, fragment = ref.partition("#")
    file = target or base
    node: Any = load(file)
    for part in [p for p in fragment.split("/") if p]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return file, node
