"""Schema errors as findings: the one conversion for records, cards and waivers.

The explainer (``io.schemas``) says what is wrong in words and where; this places it in
a file under a rule, so every schema-backed rule reads the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ds_gate.io import schemas
from ds_gate.kernel.jsondoc import pointer
from ds_gate.model.findings import Finding, Rule

if TYPE_CHECKING:
    from ds_gate.io.schema_explain import SchemaError


def schema_findings(
    name: str,
    instance: Any,
    display: str | None,
    line: Callable[[tuple[str | int, ...]], int | None] | None,
    rule: Rule | Callable[[SchemaError], Rule],
    *,
    subject: str | None = None,
    document: str = "the record",
) -> list[Finding]:
    """Every error of schema ``name`` as a finding: placed, with the schema's fix hint.

    The one conversion for records, cards and waivers; ``rule`` may depend on the error
    (a card's base rules and its experience rules), ``document`` names the whole document.
    """
    return [
        (rule if isinstance(rule, Rule) else rule(err)).at(
            display,
            err.message.replace("the record", document),
            hint=err.hint,
            pointer=pointer(err.path),
            line=line(err.anchor) if line is not None else None,
            subject=subject,
        )
        for err in schemas.errors(name, instance)
    ]
