"""A repository that borrows git objects from outside the quest (``objects/info/alternates``,
as ``git clone --shared`` or ``--reference`` writes it): git would read objects from there, a
pointer out of the quest, which ds-gate never follows. Found by the round-4 adversary (issue 35):
closure read through it silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import git


def borrow(quest: ExampleQuest, store: Path) -> None:
    """Every object of the quest moved into ``store``, which the quest then borrows from."""
    git(store.parent, "init", "-q", "--bare", str(store))
    git(quest.root, "push", "-q", "--no-verify", str(store), "--all")
    info = quest.root / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{store / 'objects'}\n")
    git(quest.root, "repack", "-a", "-d", "-l", "-q")  # -l: what the alternate holds is not kept here
    git(quest.root, "prune-packed")


def test_objects_borrowed_from_outside_the_quest_stop_closure_and_warn_check(
    one_run_quest, tmp_path, capsys, gate_json
) -> None:
    borrow(one_run_quest, tmp_path / "store.git")
    assert main(["closure", str(one_run_quest.root)]) == 2
    err = capsys.readouterr().err
    assert f"borrows git objects from {(tmp_path / 'store.git' / 'objects').resolve()}" in err, err
    assert "git repack -a -d && rm .git/objects/info/alternates" in err
    code, out = gate_json("check", str(one_run_quest.root))
    assert [f["rule"] for f in out["findings"]].count("git.alternates-outside-quest") == 1, out["findings"]


def test_objects_borrowed_from_inside_the_quest_are_read(one_run_quest, gate_json) -> None:
    """An alternate inside the quest is the quest's own: nothing to refuse (the run is pending, exit 1)."""
    inner = one_run_quest.root / "tmp" / "objects"
    inner.mkdir(parents=True)
    info = one_run_quest.root / ".git" / "objects" / "info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "alternates").write_text(f"{inner}\n")
    code, out = gate_json("closure", str(one_run_quest.root))
    assert code == 1 and len(out["pending_run_ids"]) == 1, out
    assert "git.alternates-outside-quest" not in [f["rule"] for f in out["findings"]]


@pytest.mark.parametrize("spelling", ["quoted", "comment-looking", "too large"])
def test_every_spelling_git_reads_of_an_outside_alternate_stops_closure(
    one_run_quest, tmp_path, capsys, spelling, monkeypatch
) -> None:
    """The alternates file read as git reads it (round-4 adversary, third round): a C-quoted path,
    a line that only looks like a comment (its first byte is a space), and a file too large to
    read whole, which git reads all of."""
    store = tmp_path / "store.git"
    borrow(one_run_quest, store)
    objects = one_run_quest.root / ".git" / "objects"
    alternates = objects / "info" / "alternates"
    if spelling == "quoted":
        alternates.write_text(f'"{store / "objects"}"\n')
    elif spelling == "comment-looking":
        (objects / " #x").symlink_to(store / "objects")
        alternates.write_text(" #x\n")
    else:
        monkeypatch.setenv("DS_GATE_MAX_FILE_MB", "1")
        alternates.write_text("#" * (2 << 20) + f"\n{store / 'objects'}\n")
    assert git(one_run_quest.root, "cat-file", "-e", "HEAD:quest.yaml").returncode == 0  # git reads through it
    assert main(["closure", str(one_run_quest.root)]) == 2
    err = capsys.readouterr().err
    assert "this repository borrows git objects" in err and "outside the quest" in err, err
