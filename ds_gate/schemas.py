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

from .jsonpos import pointer as to_pointer
from .resources import data_dir

SCHEMA_NAMES = ("decision", "distill_review", "run")


@functools.cache
def load(name: str) -> dict[str, Any]:
    """A schema by short name (``distill_review``) or file name."""
    file = name if name.endswith(".json") else f"{name}.schema.json"
    return json.loads((data_dir("schemas") / file).read_text(encoding="utf-8"))


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
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


Check = Callable[[Any], bool]


def _compile(schema: Any, base: str) -> Check:
    if schema is True:
        return lambda x: True
    if schema is False:
        return lambda x: False
    if not isinstance(schema, Mapping):
        raise Unsupported(f"schema node {schema!r}")
    checks: list[Check] = []
    add = checks.append
    for key, value in schema.items():
        if key in _ANNOTATIONS or key.startswith("x-") or key in ("then", "else"):
            continue
        if key == "type":
            names = [value] if isinstance(value, str) else list(value)
            preds = [_TYPES[n] for n in names]
            add(preds[0] if len(preds) == 1 else (lambda x, preds=preds: any(p(x) for p in preds)))
        elif key == "required":
            add(_required(tuple(value)))
        elif key == "properties":
            add(_properties({k: _compile(v, base) for k, v in value.items()}))
        elif key == "additionalProperties":
            known = frozenset(schema.get("properties", {}))
            if "patternProperties" in schema:
                raise Unsupported("patternProperties")
            extra = _compile(value, base)
            add(lambda x, known=known, extra=extra: not isinstance(x, dict) or all(extra(v) for k, v in x.items() if k not in known))
        elif key == "items":
            if "prefixItems" in schema:
                raise Unsupported("prefixItems")
            add(_items(_compile(value, base)))
        elif key == "minItems":
            add(lambda x, n=value: not isinstance(x, list) or len(x) >= n)
        elif key == "maxItems":
            add(lambda x, n=value: not isinstance(x, list) or len(x) <= n)
        elif key == "minLength":
            add(lambda x, n=value: not isinstance(x, str) or len(x) >= n)
        elif key == "maxLength":
            add(lambda x, n=value: not isinstance(x, str) or len(x) <= n)
        elif key == "pattern":
            rx = re.compile(value)
            add(lambda x, rx=rx: not isinstance(x, str) or rx.search(x) is not None)
        elif key == "enum":
            add(lambda x, options=tuple(value): any(_equal(x, o) for o in options))
        elif key == "const":
            add(lambda x, c=value: _equal(x, c))
        elif key == "allOf":
            add(_all([_compile(s, base) for s in value]))
        elif key == "anyOf":
            parts = [_compile(s, base) for s in value]
            add(lambda x, parts=parts: any(p(x) for p in parts))
        elif key == "not":
            inner = _compile(value, base)
            add(lambda x, inner=inner: not inner(x))
        elif key == "if":
            cond = _compile(value, base)
            then = _compile(schema.get("then", True), base)
            other = _compile(schema.get("else", True), base)
            add(lambda x, cond=cond, then=then, other=other: then(x) if cond(x) else other(x))
        elif key == "$ref":
            file, target = _resolve(value, base)
            holder: list[Check] = []

            def follow(x: Any, holder: list[Check] = holder, target: Any = target, file: str = file) -> bool:
                if not holder:  # compiled on first use: schemas may refer to themselves
                    holder.append(_compile(target, file))
                return holder[0](x)

            add(follow)
        else:
            raise Unsupported(key)
    return checks[0] if len(checks) == 1 else _all(checks)


# Plain loops, not all(<generator>): a generator per call doubles the cost of small schemas.


def _all(checks: list[Check]) -> Check:
    def check(x: Any) -> bool:
        for c in checks:
            if not c(x):
                return False
        return True

    return check


def _required(names: tuple[str, ...]) -> Check:
    def check(x: Any) -> bool:
        if isinstance(x, dict):
            for name in names:
                if name not in x:
                    return False
        return True

    return check


def _properties(props: dict[str, Check]) -> Check:
    def check(x: Any) -> bool:
        if isinstance(x, dict):
            for name, c in props.items():
                if name in x and not c(x[name]):
                    return False
        return True

    return check


def _items(item: Check) -> Check:
    def check(x: Any) -> bool:
        if isinstance(x, list):
            for v in x:
                if not item(v):
                    return False
        return True

    return check


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


def is_valid(name: str, instance: Any) -> bool:
    fast = _fast(name)
    if fast is not None and fast(instance):
        return True
    return not next(iter(_jsonschema_validator(name).iter_errors(instance)), None)


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
        message = f"{field} must be {'an' if str(value)[0] in 'aeiou' else 'a'} {value}, not {_type_name(instance)}"
    elif keyword == "enum":
        message = f"{field} is {instance!r}; expected one of: {', '.join(map(str, value))}"
    elif keyword == "const":
        message = f"{field} must be {value!r}, not {instance!r}"
    else:
        message = f"{field}: {err.message}"
    hint = _hint(name, list(err.absolute_schema_path), missing)
    full_path = path + (missing,) if missing else path
    return SchemaError(path=full_path, anchor=path, message=message, hint=hint)


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
