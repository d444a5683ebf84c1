"""Issue 37.2's home: quests A and B (real git quests, each a quest-scope card), a global card, a
folder without quest.yaml (C), a sibling that is a symbolic link out of the home (D), the quirks
files as main writes them with one entry appended, and the home's config.yaml in each spelling
the tests try. Shared by the in-process tests and the server tests (``ds-gate mcp``, main's memory
server through the integration)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.recall.quirks import PREAMBLES

TAG = "topic:routing"
QUIRK = "## validator rejects relative artifact paths\nSurface: artifact.record. Symptom: a relative path is refused.\n"
# config.yaml text -> what main shows quest A of quest B's cards (each name a case of the tests)
HIDDEN = {
    "no config file": None,
    "independent": "memory:\n  read_visibility_mode: independent\n",
    "garbage value": "memory:\n  read_visibility_mode: sharedacrossquests\n",
    "unparseable YAML": "memory:\n  read_visibility_mode: [shared_across_quests\n",
    "not UTF-8": b"memory:\n  read_visibility_mode: shared_across_quests # \xff\n",
}
SHARED = {
    "shared_across_quests": "memory:\n  read_visibility_mode: shared_across_quests\n",
    "spaced and capitalised": 'memory:\n  read_visibility_mode: " Shared_Across_Quests "\n',
}


def preamble(part: str) -> str:
    """The file ``home.py`` ``ensure_home_layout`` writes: title and paragraphs, a blank line apart."""
    return "\n\n".join(PREAMBLES[part]) + "\n"


def plant(home: Path, outside: Path) -> dict[str, Path]:
    """The home; returns the quests' roots by name."""
    a = ExampleQuest(home / "quests" / "A", "A").create()
    b = ExampleQuest(home / "quests" / "B", "B").create()
    a.card("global", "Global routing lesson", card_id="k-global", tags=[TAG], body="Routers drift after warmup.")
    a.card("quest", "A routing lesson", card_id="k-a", tags=[TAG], body="A found routers drift.")
    b.card("quest", "B private routing", card_id="k-b", tags=[TAG], body="B's private finding on routers.")
    loose = ExampleQuest(home / "quests" / "C", "C")  # a folder holding cards but no quest.yaml: no quest
    loose.card("quest", "C loose routing", card_id="k-c", tags=[TAG], body="Not a quest's.")
    linked = ExampleQuest(outside / "D", "D").create()
    linked.card("quest", "D linked routing", card_id="k-d", tags=[TAG], body="A quest out of the home.")
    (home / "quests" / "D").symlink_to(outside / "D", target_is_directory=True)
    (home / "framework_quirks.md").write_text(preamble("framework") + "\n" + QUIRK)
    (home / "system_quirks.md").write_text(preamble("system"))
    return {"A": a.root, "B": b.root}


def configure(home: Path, text: str | bytes | None) -> None:
    path = home / "config" / "config.yaml"
    if path.is_symlink() or path.exists():
        path.unlink()
    if text is None:
        return
    path.parent.mkdir(exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


def ids(rows: list[dict[str, Any]]) -> set[str]:
    return {str(r["card_id"]) for r in rows}


def assert_hidden(result: Any, where: str) -> None:
    """Nothing of B's (nor C's or D's) in anything the surface answered, notes included."""
    text = json.dumps(result)
    for leak in ("k-b", "k-c", "k-d", "private finding", "/quests/B", "/quests/C", "/quests/D"):
        assert leak not in text, (where, leak, result)
