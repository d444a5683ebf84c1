"""Issue 37 §3, scope discipline you can act on: the quest-scope lesson warning ends with the exact
``memory.promote_to_global`` call for the owning quest, and that call, made on DeepScientist main's
memory server (the stand-in, in main's shape: ``mcp/server.py`` ``promote_to_global(card_id, path)``,
``MemoryService.promote_to_global`` keeping the card's id), clears the warning."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_integration import call, quest, runtime  # noqa: F401  (runtime: the module's fixture)

from ds_gate.cli.main import main

pytestmark = pytest.mark.slow  # starts DeepScientist's memory server (conftest.py)

CALL = re.compile(r"memory\.promote_to_global\((card_id|path)=('(?:[^'\\]|\\.)*')\)$")


def lessons(home: Path, root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    """``ds-gate check``'s quest-scope lesson warnings, by card path."""
    capsys.readouterr()
    assert main(["check", str(root), "--home", str(home), "--format", "json"]) in (0, 1)
    findings = json.loads(capsys.readouterr().out)["findings"]
    return {f["path"]: f for f in findings if f["rule"] == "card.quest-scope-lesson"}


def test_the_promote_call_the_warning_names_clears_it(runtime, capsys) -> None:  # noqa: F811
    home = runtime["home"]
    q, root, run = quest(home, "q-promote")
    q.card("quest", "Router temperature", claim="Lower is steadier.", lineage=[{"quest": "q-promote", "run": run}])
    spaced = q.card_path("quest", "Spaced id")  # an id main's read_card(card_id=...) would not find as shown
    q.card("quest", "Spaced id", card_id=" knowledge-spaced ", claim="c", lineage=[{"quest": "q-promote", "run": run}])
    q.checkpoint(root, "memory: two quest-scope lessons")
    found = lessons(home, root, capsys)
    assert sorted(found) == ["memory/knowledge/router-temperature.md", "memory/knowledge/spaced-id.md"]
    calls = []
    for finding in found.values():
        assert "promote it from quest q-promote: memory.promote_to_global(" in finding["message"]
        by_message, by_hint = CALL.search(finding["message"]), CALL.search(finding["hint"])
        assert by_message is not None and by_hint is not None and by_message.group(0) == by_hint.group(0)
        calls.append((by_message.group(1), ast.literal_eval(by_message.group(2))))
    assert ("path", str(spaced)) in calls and (
        "card_id",
        found["memory/knowledge/router-temperature.md"]["subject"],
    ) in calls

    answers = call(runtime, root, [("promote_to_global", {key: value}) for key, value in calls], namespace="memory")
    assert "promote_to_global" in answers[0] and all(a["scope"] == "global" for a in answers[1:]), answers
    assert lessons(home, root, capsys) == {}  # main kept each id: the global copies clear both warnings
