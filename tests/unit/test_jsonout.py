"""``kernel.jsonout.dumps``: strict JSON (RFC 8259) out, whatever non-finite numbers a quest
holds (issue 35); byte for byte ``json.dumps`` where there are none."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ds_gate.kernel.jsonout import dumps

NAN, INF = float("nan"), float("inf")


def strict(output: str) -> Any:
    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON (RFC 8259)")

    return json.loads(output, parse_constant=refuse)


def test_dumps_spells_what_json_cannot_hold_and_leaves_the_rest_as_json_writes_it() -> None:
    value = {"m": [NAN, INF, -INF, 0.5, (1, -INF)], "n": {"deep": [{"x": NAN}]}, NAN: 1, "ok": True, "none": None}
    assert strict(dumps(value)) == {
        "m": ["NaN", "Infinity", "-Infinity", 0.5, [1, "-Infinity"]],
        "n": {"deep": [{"x": "NaN"}]},
        "NaN": 1,
        "ok": True,
        "none": None,
    }
    finite = {"a": [1, 2.5, "NaN"], "b": {"c": None}}
    assert dumps(finite, ensure_ascii=False) == json.dumps(finite, ensure_ascii=False)  # byte for byte
    with pytest.raises(ValueError):
        strict(json.dumps(value))  # what json.dumps alone writes
