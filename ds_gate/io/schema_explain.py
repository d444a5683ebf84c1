"""jsonschema's errors in words a researcher reads: what is wrong, where, and the fix
(the schema's ``x-hint`` nearest to the failing keyword)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ds_gate.kernel.errors import shown
from ds_gate.kernel.jsondoc import pointer as to_pointer
from ds_gate.kernel.schema_files import load, resolve


@dataclass(frozen=True, slots=True)
class SchemaError:
    path: tuple[str | int, ...]  # where the problem is (for a missing field: where it belongs)
    anchor: tuple[str | int, ...]  # an existing value to put a line number on
    message: str
    hint: str | None
    schema_path: tuple[str | int, ...] = ()  # where in the schema the failing keyword sits


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
    return {dict: "object", list: "array", str: "string", int: "integer", float: "number"}.get(
        type(value), type(value).__name__
    )


def explain(name: str, err: Any) -> SchemaError:
    path = tuple(err.absolute_path)
    keyword = err.validator
    value = err.validator_value
    instance = err.instance
    field = f"`{label(path)}`" if path else "the record"
    missing: str | None = None
    if keyword == "required":
        missing = next(
            (p for p in value if isinstance(instance, dict) and p not in instance and repr(p) in err.message), None
        )
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
        message = f"{field} is {shown(instance)}; expected one of: {', '.join(map(str, value))}"
    elif keyword in ("minimum", "maximum"):
        message = f"{field} is {shown(instance)}, {'below the minimum' if keyword == 'minimum' else 'above the maximum'} {value}"
    elif keyword == "anyOf" and (
        instance in ("", 0, None, [], {}) or (isinstance(instance, str) and not instance.strip())
    ):
        message = f"{field} must not be empty"  # every accepted form is some non-empty value
    elif keyword == "const":
        message = f"{field} must be {shown(value)}, not {shown(instance)}"
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
        base, node = resolve(node["$ref"], base)
        if not referrer_has_hint and isinstance(node, Mapping) and "x-hint" in node:
            hint = node["x-hint"]
    return node, base, hint


def _hint(name: str, schema_path: list[Any], missing: str | None) -> str | None:
    """The most specific ``x-hint`` along the failing schema path. jsonschema leaves ``$ref`` out of
    the path, so the walk dereferences whenever the next step is not in the current node."""
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
