"""JSON Schemas shipped with ds-gate, and a validator that is fast where it matters.

jsonschema is the authority: every rejection is explained by it, imported (``kernel.lazy``)
only when a document is not plainly valid. Documents first go through the kernel's
accept-only check (``kernel.schema_fast``), which the commit hook uses too: when it says
valid, the document is valid; otherwise jsonschema runs and words the errors. A schema using a
keyword the fast check does not implement makes it decline, so it cannot drift from the
schemas; ``tests/acceptance/test_schemas.py`` checks the two agree on every single-point
mutation of valid documents.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ds_gate.io.schema_explain import SchemaError, explain
from ds_gate.kernel.jsondoc import pointer as to_pointer
from ds_gate.kernel.schema_fast import accepts
from ds_gate.kernel.schema_files import SCHEMA_NAMES, load

if TYPE_CHECKING:
    from typing import Any

    from jsonschema import Draft202012Validator

DEEP = SchemaError(
    (),
    (),
    "the record is nested too deeply for its schema to be checked",
    "DeepScientist's own tools write no record this deep: re-record the artifact with flat values",
)


@functools.cache
def validator(name: str) -> Draft202012Validator:
    """jsonschema's validator of schema ``name``, every shipped schema resolvable by its file name."""
    import jsonschema  # kernel.lazy.LAZY_PLACES
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry().with_resources(
        (f"{other}.schema.json", Resource.from_contents(load(other), default_specification=DRAFT202012))
        for other in SCHEMA_NAMES
    )
    return jsonschema.Draft202012Validator(load(name), registry=registry)


def errors(name: str, instance: Any) -> list[SchemaError]:
    """Every error, each with a place and a hint; [] when valid (usually without jsonschema)."""
    if accepts(name, instance):
        return []
    try:
        found = [explain(name, err) for err in validator(name).iter_errors(instance)]
    except RecursionError:  # jsonschema walks and words a value with recursion: main's json writes ~990 levels
        return [DEEP]
    return sorted(set(found), key=lambda e: (to_pointer(e.path), e.message))
