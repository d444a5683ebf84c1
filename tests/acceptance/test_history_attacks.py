"""Issue 35, "attack your own work": the committed-history readers (``sources.history``, the
toggle scan, the patch scan) must not pass on what they did not judge.

A patch laundered by deleting and re-adding the card, renaming it, or committing it on an
orphan branch is judged against the same card's (by ``id``) last lawful version; one laundered
through a new id (or none, or no frontmatter) against the last lawful version at its path. Padding the
history with other files does not push what matters out of the bound; a history longer than
the bound, or a version git cannot read, stops closure (exit 2), never passes. The bound is
lowered through ``sources.history.MAX_VERSIONS`` (``MAX_CHANGES``, the bound before this
change, too, so each test fails on that code) rather than building 20,000 versions.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.sources import history

from helpers import git

CARD = "memory/knowledge/sparse-routing.md"
ORIGIN = {
    "id": "knowledge-04942297",
    "type": "knowledge",
    "kind": "knowledge",
    "title": "Sparse routing",
    "quest_id": "001",
    "scope": "quest",
    "claim": "Load-balancing loss prevents expert collapse.",
    "confidence": 0.6,
    "lineage": [{"quest": "001", "run": "run-aaaa0001", "direction": "idea-x", "note": "n"}],
}
PATCHED = dict(ORIGIN, claim="Something else.")


def write_card(root: Path, rel: str, meta: dict) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\nBody.\n")


def commit_all(root: Path, message: str, when: str | None = None, paths: tuple[str, ...] = ("-A",)) -> None:
    """Commit past the hooks, dated ``when`` (author and committer) if given: the agent writes the dates."""
    git(root, "add", *paths)
    dated = {**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when} if when else None
    subprocess.run(
        ["git", "commit", "-q", "--no-verify", "--allow-empty", "-m", message],
        cwd=root,
        env=dated,
        check=True,
        capture_output=True,
    )


def lower_bound(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    monkeypatch.setattr(history, "MAX_VERSIONS", limit, raising=False)
    monkeypatch.setattr(history, "MAX_CHANGES", limit, raising=False)  # the bound before issue 35's fix


def drop_object(root: Path, oid: str) -> None:
    """The agent deletes one loose object (``.git/objects`` is the quest's)."""
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()


def stopped(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["closure", str(root), *args])
    return code, capsys.readouterr().err


@pytest.fixture
def borrowing(make_quest) -> ExampleQuest:
    """Quest 002 holding, committed, a card quest 001 owns (001 has the run its lineage names)."""
    owner = make_quest("001")
    owner.run(owner.root, "main-001", artifact_id="run-aaaa0001")
    owner.checkpoint(owner.root, "experiment: main-001")
    quest = make_quest("002")
    write_card(quest.root, CARD, ORIGIN)
    commit_all(quest.root, "memory: copy 001's lesson")
    return quest


def patch_findings(gate_json, command: str, root: Path) -> tuple[int, list[tuple[str, str]]]:
    code, out = gate_json(command, str(root))
    return code, [(f["rule"], f["path"]) for f in out["findings"] if f["rule"].startswith(("patch.", "git."))]


# ---------------------------------------------------------------- 12: laundering a patch


@pytest.mark.parametrize("how", ["delete-readd", "rename", "orphan"])
def test_a_patch_laundered_through_a_deletion_a_rename_or_an_orphan_branch_is_judged(borrowing, gate_json, how) -> None:
    quest = borrowing
    path = CARD
    if how == "delete-readd":  # two checkpoints: the card gone, then back at the same path with a new claim
        git(quest.root, "rm", "-q", CARD)
        commit_all(quest.root, "memory: drop")
        write_card(quest.root, CARD, PATCHED)
    elif how == "rename":  # one checkpoint: moved and patched (git log --no-renames: a deletion and an addition)
        git(quest.root, "rm", "-q", CARD)
        path = "memory/knowledge/sparse-routing-2.md"
        write_card(quest.root, path, PATCHED)
    else:  # the patched card on a fresh root made main; the lawful version stays on a ref
        git(quest.root, "branch", "lawful")
        git(quest.root, "checkout", "-q", "--orphan", "fresh")
        write_card(quest.root, CARD, PATCHED)
    commit_all(quest.root, "memory: re-add")
    if how == "orphan":
        git(quest.root, "branch", "-M", "fresh", "main")
    for command in ("check", "closure"):
        code, found = patch_findings(gate_json, command, quest.root)
        assert code == 1 and found == [("patch.claim-changed", path)], (command, found)  # old: 0, []


@pytest.mark.parametrize("how", ["id-swap", "no-id", "garbage", "in-place"])
def test_a_patch_laundered_through_a_new_id_is_judged(borrowing, gate_json, how) -> None:
    """Three ordinary checkpoints at the same path (break 21): the card deleted, added back with
    the new claim and the owner's lineage as a "new" card (a fresh id, no id, or no frontmatter),
    then the id set back. An added version with no earlier version of its id is judged against
    the last lawful version held at its path, and a modification that changes the id is judged as
    an add of the new id; "in-place" changes the id and the claim in one modification."""
    quest = borrowing
    if how != "in-place":
        git(quest.root, "rm", "-q", CARD)
        commit_all(quest.root, "memory: drop")
    if how in ("id-swap", "in-place"):
        write_card(quest.root, CARD, dict(PATCHED, id="knowledge-00000001"))
    elif how == "no-id":
        write_card(quest.root, CARD, {k: v for k, v in PATCHED.items() if k != "id"})
    else:
        (quest.root / CARD).parent.mkdir(parents=True, exist_ok=True)
        (quest.root / CARD).write_text("notes, no frontmatter yet\n")
    commit_all(quest.root, "memory: a new card")
    if how != "in-place":
        write_card(quest.root, CARD, PATCHED)
        commit_all(quest.root, "memory: fix the id")
    for command in ("check", "closure"):
        code, found = patch_findings(gate_json, command, quest.root)
        assert code == 1 and found == [("patch.claim-changed", CARD)], (command, found)  # old: 0, []


def test_a_new_card_with_its_own_id_at_a_new_path_patches_nothing(borrowing, gate_json) -> None:
    """A card with an id of its own, at a path no card held, is new: nothing to judge it against
    (the borrowed card stays, unchanged)."""
    quest = borrowing
    write_card(quest.root, "memory/knowledge/load-balancing.md", dict(PATCHED, id="knowledge-00000009"))
    commit_all(quest.root, "memory: a new lesson")
    assert patch_findings(gate_json, "check", quest.root) == (0, [])


def test_a_new_card_where_a_deleted_one_was_is_judged_against_it(borrowing, gate_json) -> None:
    """Identity is the card's id, but an added card whose id has no history is judged against the
    last lawful version held at its path: a different claim under the owner's lineage there is a
    patch (write the new lesson at a new path)."""
    quest = borrowing
    git(quest.root, "rm", "-q", CARD)
    commit_all(quest.root, "memory: drop")
    write_card(quest.root, CARD, dict(PATCHED, id="knowledge-00000009"))
    commit_all(quest.root, "memory: a new lesson")
    assert patch_findings(gate_json, "check", quest.root)[1] == [("patch.claim-changed", CARD)]


# ---------------------------------------------------------------- 16, 17: padding and the bound


def test_padding_memory_with_other_files_does_not_push_the_patch_out_of_the_bound(
    borrowing, gate_json, monkeypatch
) -> None:
    quest = borrowing
    write_card(quest.root, CARD, PATCHED)
    commit_all(quest.root, "memory: patch")
    git(quest.root, "checkout", "-q", "--orphan", "pad")
    git(quest.root, "rm", "-rq", "--cached", ".")
    for i in range(6):  # old-dated padding (topo order: oldest), then newer padding on main
        (quest.root / "memory" / "pad-old").mkdir(parents=True, exist_ok=True)
        (quest.root / "memory" / "pad-old" / f"{i}.txt").write_text(f"{i}\n")
        commit_all(quest.root, f"pad {i}", when="2000-01-01T00:00:00", paths=("memory/pad-old",))
    git(quest.root, "checkout", "-q", "-f", "main")
    git(quest.root, "clean", "-qfd")
    for i in range(6):
        (quest.root / "memory" / "notes").mkdir(parents=True, exist_ok=True)
        (quest.root / "memory" / "notes" / f"{i}.txt").write_text(f"{i}\n")
        commit_all(quest.root, f"notes {i}")
    lower_bound(monkeypatch, 4)
    code, found = patch_findings(gate_json, "closure", quest.root)
    assert code == 1 and found == [("patch.claim-changed", CARD)], found  # old: 0, []


def test_more_card_versions_than_the_bound_stop_closure(borrowing, gate_json, capsys, monkeypatch) -> None:
    quest = borrowing
    for i in range(4):  # lawful edits by the lineage's rules: evidence appended
        lineage = [*ORIGIN["lineage"], *({"quest": "002", "run": f"run-{j}"} for j in range(i + 1))]
        write_card(quest.root, CARD, dict(ORIGIN, lineage=lineage))
        commit_all(quest.root, f"memory: evidence {i}")
    lower_bound(monkeypatch, 3)
    code, err = stopped(quest.root, capsys)
    assert code == 2 and "[git.history-too-long]" in err and "5 distinct versions, more than the 3" in err, err
    assert "Fix: delete the branches that pad it" in err and "Traceback" not in err
    code, found = patch_findings(gate_json, "check", quest.root)  # check warns and goes on
    assert ("git.history-too-long", "memory") in found
    lower_bound(monkeypatch, 5)
    code, found = patch_findings(gate_json, "closure", quest.root)
    assert code != 2 and found == []  # every version read: lawful


def set_toggle(quest: ExampleQuest, mode: str, note: int = 0) -> None:
    path = quest.root / "quest.yaml"
    meta = yaml.safe_load(path.read_text())
    meta["startup_contract"]["experience_distill"] = {"mode": mode}
    meta["note"] = note  # each version distinct
    path.write_text(yaml.safe_dump(meta, sort_keys=False))


def test_more_quest_yaml_versions_than_the_bound_stop_closure(make_quest, capsys, monkeypatch) -> None:
    """The toggle was never seen on, but the scan did not read every version: it may be on in
    one it did not read. A trusted --require or --no-require decides instead."""
    quest = make_quest(experience_distill={"mode": "off"})
    quest.run(quest.root, "main-001")
    commit_all(quest.root, "record")
    for i in range(4):
        set_toggle(quest, "off", i)
        commit_all(quest.root, f"quest {i}")
    lower_bound(monkeypatch, 3)
    code, err = stopped(quest.root, capsys)
    assert code == 2 and "5 distinct versions of quest.yaml, more than the 3 the gate reads" in err, err  # old: 0
    assert "--require" in err and "Traceback" not in err
    assert stopped(quest.root, capsys, "--require")[0] == 1
    assert stopped(quest.root, capsys, "--no-require")[0] == 0
    lower_bound(monkeypatch, 5)
    assert stopped(quest.root, capsys)[0] == 0  # every version read: off everywhere


def test_padding_quest_yaml_does_not_turn_the_gate_off(one_run_quest, capsys, monkeypatch) -> None:
    """Created with the toggle on, turned off, then padded with versions on an old-dated
    orphan branch: the gate reads the oldest versions first and stops rather than drop any."""
    quest = one_run_quest
    set_toggle(quest, "off")
    commit_all(quest.root, "quest: distill off")
    git(quest.root, "checkout", "-q", "--orphan", "pad")
    for i in range(4):
        set_toggle(quest, "off", 100 + i)
        commit_all(quest.root, f"pad {i}", when="2000-01-01T00:00:00")
    git(quest.root, "checkout", "-q", "-f", "main")
    for i in range(4):
        set_toggle(quest, "off", 200 + i)
        commit_all(quest.root, f"quest {i}")
    lower_bound(monkeypatch, 4)
    code, err = stopped(quest.root, capsys)
    assert code in (1, 2) and "Traceback" not in err, err  # old: 0 ("gate off")
    assert code == 1 or "distinct versions of quest.yaml" in err
    lower_bound(monkeypatch, 20)
    assert stopped(quest.root, capsys)[0] == 1  # every version read: on at creation, so enforced


# ---------------------------------------------------------------- 18: a version git cannot read


def test_a_deleted_object_in_the_cards_history_stops_closure(borrowing, gate_json, capsys) -> None:
    quest = borrowing
    lawful = git(quest.root, "rev-parse", f"HEAD:{CARD}").stdout.strip()
    write_card(quest.root, CARD, PATCHED)
    commit_all(quest.root, "memory: patch")
    drop_object(quest.root, lawful)
    code, err = stopped(quest.root, capsys)
    assert code == 2 and "missing or damaged" in err and CARD in err, err  # old: 0
    code, found = patch_findings(gate_json, "check", quest.root)
    assert [rule for rule, path in found if path.endswith(f":{CARD}")] == ["git.object-missing"], found


def test_a_deleted_object_in_the_quest_yaml_history_stops_closure(one_run_quest, capsys) -> None:
    quest = one_run_quest
    created = git(quest.root, "rev-parse", "HEAD:quest.yaml").stdout.strip()
    set_toggle(quest, "off")
    commit_all(quest.root, "quest: distill off")
    assert stopped(quest.root, capsys)[0] == 1  # the history says on
    drop_object(quest.root, created)
    code, err = stopped(quest.root, capsys)
    assert code == 2 and f"blob {created[:12]}" in err and "git fsck" in err and "--require" in err, err  # old: 0
    assert stopped(quest.root, capsys, "--require")[0] == 1
