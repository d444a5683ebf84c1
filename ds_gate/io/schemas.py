"""JSON Schemas shipped with ds-gate, and a validator that is fast where it matters.

jsonschema is the authority: every rejection is explained by it. But importing it costs
~90 ms, and DeepScientist checkpoints stage a new run or decision record almost every
time, so the commit hook would pay that on every commit. So documents first go through
``Subset``, a tiny evaluator for the handful of keywords these schemas use. It is only
ever used to *accept*: when it says valid, the document is valid; when it says invalid,
jsonschema runs and produces the errors. A schema using any keyword ``Subset`` does not
implement makes it decline at compile time, and everything goes to jsonschema, so the
fast path cannot silently drift from the schemas. ``tests/test_schemas.py`` checks the
two agree on every single-point mutation of valid documents.
"""

from __future__ import annotations

import functools

from ds_gate.kernel.jsondoc import pointer as to_pointer
from ds_gate.kernel.schema_fast import Unsupported, compile_schema, fast

TYPE_CHECKING = False  # the commit hook accepts staged records here: no typing import
if TYPE_CHECKING:
    from typing import Any

    from ds_gate.io.schema_explain import SchemaError
from ds_gate.kernel.schema_files import SCHEMA_NAMES, load

__all__ = ["SCHEMA_NAMES", "Unsupported", "accepts", "compile_schema", "errors", "fast", "label", "load", "validator"]


@functools.cache
def validator(name: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry = Registry().with_resources(
        (f"{other}.schema.json", Resource.from_contents(load(other), default_specification=DRAFT202012))
        for other in SCHEMA_NAMES
    )
    return Draft202012Validator(load(name), registry=registry)


def accepts(name: str, instance: Any) -> bool:
    """True when the fast path says ``instance`` is valid, so ``errors`` is [] without
    jsonschema; False means only "ask jsonschema" (the commit hook then takes its full path)."""
    accept = fast(name)
    return accept is not None and accept(instance)


def errors(name: str, instance: Any) -> list[SchemaError]:
    """Every error, each with a place and a hint; [] when valid (usually without jsonschema)."""
    if accepts(name, instance):
        return []
    from ds_gate.io.schema_explain import (
        explain,  # only a rejected document needs words
    )
    found = [explain(name, err) for err in validator(name).iter_errors(instance)]
    return sorted(set(found), key=lambda e: (to_pointer(e.path), e.message))


def label(path: tuple[str | int, ...] | list[str | int]) -> str:
    """``("cards_written", 0, "card_id")`` -> ``cards_written[0].card_id``: how people say it."""
    from ds_gate.io.schema_explain import label as say

    return say(path)
