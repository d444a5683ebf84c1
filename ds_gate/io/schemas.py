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
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ds_gate.io.jsondoc import pointer as to_pointer
from ds_gate.io.resources import data_dir

SCHEMA_NAMES = ("decision", "distill_review", "run", "knowledge_card", "experience_card", "ds_gate_config")


@functools.cache
def load(name: str) -> dict[str, Any]:
    """A schema by short name (``distill_review``) or file name."""
    file = name if name.endswith(".json") else f"{name}.schema.json"
    schema: dict[str, Any] = json.loads((data_dir("schemas") / file).read_text(encoding="utf-8"))
    return schema


def _resolve(ref: str, base: str) -> tuple[str, Any]:
    """Resolve a local ``$ref`` (``other.schema.json#/x`` or ``#/x``) to (file, subschema)."""
    target, _, fragment = ref.partition("#")
    file = target or base
    node: Any = load(file)
    for part in [p for p in fragment.split("/") if p]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return file, node


# ---------------------------------------------------------------- fast accept path


class Unsupported(Exception):
    """The schema uses a keyword the fast path does not implement."""


_ANNOTATIONS = {"$schema", "$id", "$comment", "$defs", "title", "description", "examples", "default", "format"}
_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer()),
}


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: unlike Python, ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


Check = Callable[[Any], bool]


def _compile(schema: Any, base: str) -> Check:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, Mapping):
        raise Unsupported(f"schema node {schema!r}")
    checks: list[Check] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS or key.startswith("x-") or key in ("then", "else"):
            continue  # then/else are compiled with their `if`
        build = _KEYWORDS.get(key)
        if build is None:
            raise Unsupported(key)
        checks.append(build(value, schema, base))
    return checks[0] if len(checks) == 1 else _all(checks)


# One factory per keyword: (keyword value, the schema holding it, its file) -> check.
# Plain loops, not all(<generator>): a generator per call doubles the cost of small schemas.


def _always(x: Any) -> bool:
    return True


def _never(x: Any) -> bool:
    return False


def _all(checks: list[Check]) -> Check:
    def check(x: Any) -> bool:
        for c in checks:
            if not c(x):
                return False
        return True

    return check


def _type(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    preds = [_TYPES[name] for name in ([value] if isinstance(value, str) else value)]
    if len(preds) == 1:
        return preds[0]

    def check(x: Any) -> bool:
        return any(p(x) for p in preds)

    return check


def _required(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    names = tuple(value)

    def check(x: Any) -> bool:
        if isinstance(x, dict):
            for name in names:
                if name not in x:
                    return False
        return True

    return check


def _properties(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    props = {name: _compile(sub, base) for name, sub in value.items()}

    def check(x: Any) -> bool:
        if isinstance(x, dict):
            for name, c in props.items():
                if name in x and not c(x[name]):
                    return False
        return True

    return check


def _additional(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    if "patternProperties" in schema:
        raise Unsupported("patternProperties")
    known = frozenset(schema.get("properties", {}))
    extra = _compile(value, base)

    def check(x: Any) -> bool:
        if isinstance(x, dict):
            for name, v in x.items():
                if name not in known and not extra(v):
                    return False
        return True

    return check


def _items(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    if "prefixItems" in schema:
        raise Unsupported("prefixItems")
    item = _compile(value, base)

    def check(x: Any) -> bool:
        if isinstance(x, list):
            for v in x:
                if not item(v):
                    return False
        return True

    return check


def _size(of: type[list[Any]] | type[str], at_least: bool) -> Callable[[Any, Mapping[str, Any], str], Check]:
    """minItems / maxItems / minLength / maxLength (code points, as JSON Schema counts)."""

    def build(value: Any, schema: Mapping[str, Any], base: str) -> Check:
        bound = int(value)

        def check(x: Any) -> bool:
            if not isinstance(x, of):
                return True
            size = len(x)
            return size >= bound if at_least else size <= bound

        return check

    return build


def _bound(lower: bool) -> Callable[[Any, Mapping[str, Any], str], Check]:
    """minimum / maximum (inclusive), for numbers only, as JSON Schema applies them."""

    def build(value: Any, schema: Mapping[str, Any], base: str) -> Check:
        limit = float(value)

        def check(x: Any) -> bool:
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                return True
            return x >= limit if lower else x <= limit

        return check

    return build


def _pattern(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    rx = re.compile(value)

    def check(x: Any) -> bool:
        return not isinstance(x, str) or rx.search(x) is not None

    return check


def _enum(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    options = tuple(value)

    def check(x: Any) -> bool:
        return any(_equal(x, option) for option in options)

    return check


def _const(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    def check(x: Any) -> bool:
        return _equal(x, value)

    return check


def _all_of(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    return _all([_compile(sub, base) for sub in value])


def _any_of(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    parts = [_compile(sub, base) for sub in value]

    def check(x: Any) -> bool:
        return any(p(x) for p in parts)

    return check


def _not(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    inner = _compile(value, base)

    def check(x: Any) -> bool:
        return not inner(x)

    return check


def _if(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    cond, then, other = (_compile(s, base) for s in (value, schema.get("then", True), schema.get("else", True)))

    def check(x: Any) -> bool:
        return then(x) if cond(x) else other(x)

    return check


def _ref(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    file, target = _resolve(value, base)
    compiled: list[Check] = []

    def check(x: Any) -> bool:
        if not compiled:  # compiled on first use: a schema may refer to itself
            compiled.append(_compile(target, file))
        return compiled[0](x)

    return check


_KEYWORDS: dict[str, Callable[[Any, Mapping[str, Any], str], Check]] = {
    "type": _type,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional,
    "items": _items,
    "minItems": _size(list, True),
    "maxItems": _size(list, False),
    "minLength": _size(str, True),
    "maxLength": _size(str, False),
    "pattern": _pattern,
    "minimum": _bound(True),
    "maximum": _bound(False),
    "enum": _enum,
    "const": _const,
    "allOf": _all_of,
    "anyOf": _any_of,
    "not": _not,
    "if": _if,
    "$ref": _ref,
}


@functools.cache
def _fast(name: str) -> Check | None:
    file = f"{name}.schema.json"
    try:
        return _compile(load(name), file)
    except Unsupported:
        return None


# ---------------------------------------------------------------- explanations


@dataclass(frozen=True, slots=True)
class SchemaError:
    path: tuple[str | int, ...]  # where the problem is (for a missing field: where it belongs)
    anchor: tuple[str | int, ...]  # an existing value to put a line number on
    message: str
    hint: str | None
    schema_path: tuple[str | int, ...] = ()  # where in the schema the failing keyword sits


@functools.cache
def _jsonschema_validator(name: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry: Registry = Registry().with_resources(
        (f"{other}.schema.json", Resource.from_contents(load(other), default_specification=DRAFT202012))
        for other in SCHEMA_NAMES
    )
    return Draft202012Validator(load(name), registry=registry)


def errors(name: str, instance: Any) -> list[SchemaError]:
    """Every error, each with a place and a hint; [] when valid (usually without jsonschema)."""
    fast = _fast(name)
    if fast is not None and fast(instance):
        return []
    found = [_explain(name, err) for err in _jsonschema_validator(name).iter_errors(instance)]
    return sorted(set(found), key=lambda e: (to_pointer(e.path), e.message))


def label(path: tuple[str | int, ...] | list[str | int]) -> str:
    """``("cards_written", 0, "card_id")`` -> ``cards_written[0].card_id``: how people say it."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "integer", float: "number"}.get(type(value), type(value).__name__)


def _explain(name: str, err: Any) -> SchemaError:
    path = tuple(err.absolute_path)
    keyword = err.validator
    value = err.validator_value
    instance = err.instance
    field = f"`{label(path)}`" if path else "the record"
    missing: str | None = None
    if keyword == "required":
        missing = next((p for p in value if isinstance(instance, dict) and p not in instance and repr(p) in err.message), None)
        missing = missing or next((p for p in value if isinstance(instance, dict) and p not in instance), "?")
        message = f"`{missing}` is required" + (f" in {to_pointer(path)}" if path else "")
    elif keyword in ("pattern", "minLength") and isinstance(instance, str):
        message = f"{field} must not be empty"
    elif keyword == "minItems" and value == 1:
        message = f"{field} must not be an empty list"
    elif keyword == "type":
        wanted = value if isinstance(value, str) else " or ".join(value)
        message = f"{field} must be {'an' if wanted[0] in 'aeiou' else 'a'} {wanted}, not {_type_name(instance)}"
    elif keyword == "enum":
        message = f"{field} is {instance!r}; expected one of: {', '.join(map(str, value))}"
    elif keyword in ("minimum", "maximum"):
        message = f"{field} is {instance!r}, {'below the minimum' if keyword == 'minimum' else 'above the maximum'} {value}"
    elif keyword == "const":
        message = f"{field} must be {value!r}, not {instance!r}"
    else:
        message = f"{field}: {err.message}"
    hint = _hint(name, list(err.absolute_schema_path), missing)
    full_path = path + (missing,) if missing else path
    schema_path = tuple(err.absolute_schema_path)
    return SchemaError(path=full_path, anchor=path, message=message, hint=hint, schema_path=schema_path)


def _deref(node: Any, base: str, hint: str | None) -> tuple[Any, str, str | None]:
    """Follow ``$ref`` chains; a hint beside the ``$ref`` beats the definition's own."""
    while isinstance(node, Mapping) and "$ref" in node:
        referrer_has_hint = "x-hint" in node
        base, node = _resolve(node["$ref"], base)
        if not referrer_has_hint and isinstance(node, Mapping) and "x-hint" in node:
            hint = node["x-hint"]
    return node, base, hint


def _hint(name: str, schema_path: list[Any], missing: str | None) -> str | None:
    """The most specific ``x-hint`` along the failing schema path.

    jsonschema leaves ``$ref`` out of the path (it descends through references), so the
    walk dereferences whenever the next step is not in the current node.
    """
    base = f"{name}.schema.json"
    node: Any = load(name)
    hint = node.get("x-hint") if isinstance(node, Mapping) else None
    for step in schema_path[:-1]:
        if isinstance(node, Mapping) and step not in node:
            node, base, hint = _deref(node, base, hint)
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return hint
        if isinstance(node, Mapping) and "x-hint" in node:
            hint = node["x-hint"]
    node, base, hint = _deref(node, base, hint)
    if missing and isinstance(node, Mapping):
        prop = node.get("properties", {}).get(missing)
        if isinstance(prop, Mapping) and "x-hint" in prop:
            hint = prop["x-hint"]
        elif "x-hint" not in node:
            hint = f"add `{missing}`"
    return hint
