"""Who makes a commit, for the patch rules: only what that commit cannot change counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from ds_gate.sources.quest_yaml import committing_quest

HOME = Path("/home/r/DeepScientist/quests")


@pytest.mark.parametrize(
    ("root", "head_yaml", "expected"),
    [
        (HOME / "002", b"quest_id: '002'\n", "002"),  # folder and HEAD agree
        (HOME / "002", None, "002"),  # no HEAD yet: the folder names it
        (HOME / "002", b"title: t\n", "002"),  # HEAD names nobody
        (HOME / "001", b"quest_id: 001\n", "001"),  # YAML reads 001 as 1; the folder keeps the padding
        (Path("/ci/clone"), b"quest_id: '002'\n", "002"),  # a clone outside a home: HEAD alone
        (Path("/ci/clone"), None, None),  # nothing that cannot be edited: nobody
        (HOME / "002", b"quest_id: '001'\n", None),  # they disagree: the strict rules
        (HOME / "002", b"quest_id: [\n", "002"),  # a broken HEAD quest.yaml names nobody
    ],
)
def test_committing_quest(root: Path, head_yaml: bytes | None, expected: str | None) -> None:
    named, why = committing_quest(root, head_yaml)
    assert named == expected
    assert (why is not None) == (expected is None and head_yaml is not None)
