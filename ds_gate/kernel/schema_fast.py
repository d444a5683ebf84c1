"""The fast accept path: a tiny evaluator for the handful of keywords ds-gate's schemas use.

It is only ever used to *accept*: when it says valid, the document is valid; when it says
invalid, jsonschema runs and produces the errors. A schema using any keyword it does not
implement makes it decline at compile time (``Unsupported``), and everything goes to
jsonschema, so the fast path cannot silently drift from the schemas.
"""

from __future__ import annotations

from ds_gate.kernel.errors import shown
from ds_gate.kernel.schema_files import load, resolve

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    Check = Callable[[Any], bool]


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


def compile_schema(schema: Any, base: str) -> Check:
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):  # JSON's objects
        raise Unsupported(f"schema node {shown(schema)}")
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


def _any(checks: list[Check]) -> Check:
    def check(x: Any) -> bool:
        return any(c(x) for c in checks)

    return check


def _type(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    preds = [_TYPES[name] for name in ([value] if isinstance(value, str) else value)]
    return preds[0] if len(preds) == 1 else _any(preds)


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
    props = {name: compile_schema(sub, base) for name, sub in value.items()}

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
    extra = compile_schema(value, base)

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
    item = compile_schema(value, base)

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
    if value == r"\S":  # "holds a character that is not whitespace" (every text field of the record schemas)
        return _not_blank
    import re  # kernel.lazy.LAZY_PLACES: only for a pattern other than \S

    rx = re.compile(value)

    def check(x: Any) -> bool:
        return not isinstance(x, str) or rx.search(x) is not None

    return check


def _not_blank(x: Any) -> bool:
    """``re.search(r"\\S", x)`` for a string: ``re``'s Unicode whitespace is ``str.strip``'s
    (``Py_UNICODE_ISSPACE``; tests/acceptance/test_schemas.py compares them on every code point)."""
    return not isinstance(x, str) or bool(x.strip())


def _enum(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    options = tuple(value)
    return lambda x: any(_equal(x, option) for option in options)


def _const(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    return lambda x: _equal(x, value)


def _all_of(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    return _all([compile_schema(sub, base) for sub in value])


def _any_of(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    return _any([compile_schema(sub, base) for sub in value])


def _not(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    inner = compile_schema(value, base)
    return lambda x: not inner(x)


def _if(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    cond, then, other = (compile_schema(s, base) for s in (value, schema.get("then", True), schema.get("else", True)))

    def check(x: Any) -> bool:
        return then(x) if cond(x) else other(x)

    return check


def _ref(value: Any, schema: Mapping[str, Any], base: str) -> Check:
    file, target = resolve(value, base)
    compiled: list[Check] = []

    def check(x: Any) -> bool:
        if not compiled:  # compiled on first use: a schema may refer to itself
            compiled.append(compile_schema(target, file))
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


_FAST: dict[str, Check | None] = {}  # compiled once per process, without functools on the hook's path


def fast(name: str) -> Check | None:
    if name not in _FAST:
        try:
            _FAST[name] = compile_schema(load(name), f"{name}.schema.json")
        except Unsupported:
            _FAST[name] = None
    return _FAST[name]


def accepts(name: str, instance: Any) -> bool:
    """True when the fast path says ``instance`` is valid against schema ``name``; False means
    only "ask jsonschema" (``io.schemas.errors`` then words every error)."""
    accept = fast(name)
    return accept is not None and accept(instance)
