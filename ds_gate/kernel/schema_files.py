"""The JSON Schemas ds-gate ships, by short name, and local ``$ref`` resolution.

The commit hook loads the record schemas here on every commit that stages a record, so
this imports neither ``typing``, ``pathlib`` nor ``json`` (``kernel.jsondoc.loads``)."""

from __future__ import annotations

import functools
import os

from ds_gate.kernel.jsondoc import loads
from ds_gate.kernel.resources import data_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_NAMES = ("decision", "distill_review", "distill_review_report", "run", "knowledge_card", "experience_card", "ds_gate_config")


@functools.cache
def load(name: str) -> dict[str, Any]:
    """A schema by short name (``distill_review``) or file name."""
    file = name if name.endswith(".json") else f"{name}.schema.json"
    with open(os.path.join(data_path("schemas"), file), encoding="utf-8") as f:
        schema: dict[str, Any] = loads(f.read())
    return schema


def resolve(ref: str, base: str) -> tuple[str, Any]:
    """Resolve a local ``$ref`` (``other.schema.json#/x`` or ``#/x``) to (file, subschema)."""
    target, _, fragment = ref.partition("#")
    file = target or base
    node: Any = load(file)
    for part in [p for p in fragment.split("/") if p]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return file, node
