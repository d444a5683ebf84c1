"""The rules only a real folder or git repository can produce, driven on the smallest real
one in ``tmp_path``: nothing of git or the filesystem is mocked. Each rule fires on a broken
repository and stays quiet on the same repository made whole, so these rules need not wait
for the acceptance suite to be tested.

- ``git.one-branch`` / ``git.object-missing``: ``sources.gitrefs.ref_readers`` over a repository
  with one branch, then two; with a record's blob deleted from ``.git/objects`` (as a partial
  clone lacks it), and a pushed tip that is not in the clone.
- ``git.object-corrupt``: the same, with a branch's ``artifacts/runs`` tree object replaced by bytes
  that are not a tree (issue 15.10).
- ``git.symlink-in-tree``: the same, with ``artifacts``, ``artifacts/runs`` or a record committed
  as a symbolic link on one branch (issue 15.7).
- ``quest.not-git``: ``sources.location.locate`` on a quest folder without git, then after
  ``git init``.
- ``card.unreadable``: ``sources.memory.read_cards`` on a card file that cannot be opened (a
  dangling link inside the quest; root reads any file, so permissions cannot make one here).
- ``install.failed``: ``ds-gate install --home`` over a home holding a quest whose ``.git`` is a
  left-over empty folder, next to a quest it can install into.
- ``git.alternates-outside-quest``: ``check`` over a repository whose ``objects/info/alternates``
  names a folder outside the quest; quiet once the alternates file is gone.
- ``git.history-too-long``: ``check`` over a repository holding more versions of a card than
  the history bound (lowered for the test); quiet once the bound holds them all.
- ``index.record-outside-quest``: an index line whose run record lies outside the quest and exists
  there (PR #60's gate reads it); quiet once the record is in the quest.
- ``workspace.head-unreadable``: ``sources.workspaces.discover_workspaces`` over a quest whose
  worktree folder on a detached HEAD was removed without a prune, its registration's HEAD then
  made unreadable (garbage, a commit the quest lacks); quiet (``workspace.missing``, its HEAD read
  as ``worktrees/<id>/HEAD``) with the HEAD restored.
- ``baseline.changed-since`` / ``baseline.after-adoption``: a trusted baseline naming a commit of
  the repository, whose run record was rewritten since / in which ``quest.yaml`` turns the toggle
  on; quiet with the record as committed / naming the commit before the toggle.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ds_gate.model.findings import ERROR, WARNING, Finding
from ds_gate.sources import history
from ds_gate.sources.gitrefs import ref_readers
from ds_gate.sources.location import locate
from ds_gate.sources.memory import read_cards
from ds_gate.sources.workspaces import discover_workspaces

from rulecases import fired, raw_of

FAILS = {
    "git.one-branch",
    "git.object-missing",
    "git.object-corrupt",
    "git.symlink-in-tree",
    "quest.not-git",
    "card.unreadable",
    "install.failed",
    "index.record-outside-quest",
    "git.alternates-outside-quest",
    "git.history-too-long",
    "baseline.changed-since",
    "baseline.after-adoption",
    "workspace.head-unreadable",
}
PASSES = set(FAILS)
RUN = {
    "kind": "run",
    "artifact_id": "run-1",
    "run_id": "main-001",
    "run_kind": "main_experiment",
    "status": "completed",
}

GateJson = Callable[..., tuple[int, dict[str, Any]]]


def git(cwd: Path, *args: str) -> str:
    """Real git (isolated from the user's configuration by ``tests/conftest.py``)."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def committed_quest(root: Path) -> Path:
    """A quest repository with one run record committed on ``main``."""
    (root / "artifacts" / "runs").mkdir(parents=True)
    (root / "artifacts" / "runs" / "run-1.json").write_bytes(raw_of(RUN))
    (root / "quest.yaml").write_text("quest_id: '001'\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "record run-1")
    return root


def all_findings(root: Path, extra: list[tuple[str, str]] | None = None) -> tuple[list[Finding], list[str]]:
    """Every finding of the branch-tip source, and the record names its readers hand over."""
    readers, found = ref_readers(root, extra=extra or [])
    names = [f"{r.workspace.ref}:{name}" for r in readers for name in r.record_names(())]
    return found + [f for r in readers for f in r.findings], names


def test_a_clone_with_one_branch_warns_that_other_branches_are_unseen(tmp_path: Path) -> None:
    """A CI clone that fetched one branch cannot see runs recorded on the others."""
    origin = committed_quest(tmp_path / "quest")
    root = tmp_path / "clone"
    git(tmp_path, "clone", "-q", origin.as_uri(), str(root))
    found, names = all_findings(root)
    assert fired(found) == ["git.one-branch"]
    [warning] = found
    assert warning.severity == WARNING and warning.path is None and "fetch-depth: 0" in (warning.hint or "")
    assert names == ["refs/heads/main:runs/run-1.json"]  # what it can see is still read (origin/main is the same)
    git(root, "branch", "idea/001-a")
    assert all_findings(root)[0] == []


def test_the_original_quest_with_only_main_does_not_warn(tmp_path: Path) -> None:
    """Issue 39: a local quest with only ``main`` has no other copy whose branches it could lack;
    a repository that began by fetching one branch (no remote, no reflog of a first commit) may."""
    root = committed_quest(tmp_path / "quest")
    assert all_findings(root)[0] == []
    fetched = tmp_path / "fetched"
    fetched.mkdir()
    git(fetched, "init", "-q", "-b", "main")
    git(fetched, "fetch", "-q", root.as_uri(), "main")
    git(fetched, "checkout", "-q", "-B", "main", "FETCH_HEAD")
    assert fired(all_findings(fetched)[0]) == ["git.one-branch"]


def test_a_record_whose_blob_is_not_in_the_clone_is_missing_not_a_traceback(tmp_path: Path) -> None:
    """A partial clone lacks blobs; the record is reported where it is, and left out."""
    root = committed_quest(tmp_path / "quest")
    git(root, "branch", "idea/001-a")
    assert "git.object-missing" not in fired(all_findings(root)[0])
    blob = git(root, "rev-parse", "main:artifacts/runs/run-1.json")
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    found, names = all_findings(root)
    missing = [f for f in found if f.rule == "git.object-missing"]
    # the blob is shared by both tips, so it is asked for once, through the first ref that carries it
    assert [(f.path, f.severity) for f in missing] == [("refs/heads/idea/001-a:artifacts/runs/run-1.json", WARNING)]
    assert names == [] and "fetch" in (missing[0].hint or "")


def test_a_pushed_tip_that_is_not_in_the_clone_is_missing(tmp_path: Path) -> None:
    """``extra`` tips (a commit being pushed) are checked like refs: an absent commit is named."""
    root = committed_quest(tmp_path / "quest")
    git(root, "branch", "idea/001-a")
    head = git(root, "rev-parse", "HEAD")
    assert all_findings(root, [("refs/heads/run/main-002", head)])[0] == []
    found, _ = all_findings(root, [("refs/heads/run/main-002", "0" * 40)])
    assert [(f.rule, f.path) for f in found] == [("git.object-missing", "refs/heads/run/main-002:")]


def test_a_tree_object_that_is_not_a_tree_is_corrupt_not_a_traceback(tmp_path: Path) -> None:
    """Issue 15.10: git hands out a damaged object's bytes as they are; the walk names the tree
    and reads every other ref. (``test_gittrees`` covers a malformed tree that hashes to its id.)"""
    import zlib

    root = committed_quest(tmp_path / "quest")
    git(root, "checkout", "-q", "-b", "idea/001-a")
    (root / "artifacts" / "runs" / "run-2.json").write_bytes(raw_of({**RUN, "artifact_id": "run-2"}))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "record run-2")
    git(root, "checkout", "-q", "main")
    assert fired(all_findings(root)[0]) == []
    tree = git(root, "rev-parse", "idea/001-a:artifacts/runs")
    loose = root / ".git" / "objects" / tree[:2] / tree[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"tree 20\x00garbage-not-a-tree!"))
    found, names = all_findings(root)
    # its bytes no longer hash to its id (a forged object reads the same way), so git's copy is
    # unreadable: the ref's records are not read, and closure stops on the finding
    [corrupt] = [f for f in found if f.rule == "git.object-missing"]
    assert (corrupt.path, corrupt.severity) == ("refs/heads/idea/001-a:artifacts/runs", WARNING)
    assert "git fsck" in (corrupt.hint or "")
    assert names == ["refs/heads/main:runs/run-1.json"]  # the healthy branch is still read


def test_a_malformed_tree_that_hashes_to_its_id_is_corrupt(tmp_path: Path) -> None:
    """A tree written ``--literally`` (its bytes hash to its id, so the read checks pass) that is no
    tree: the walk names it corrupt and reads every other ref."""
    root = committed_quest(tmp_path / "quest")
    bad = (
        subprocess.run(
            ["git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
            cwd=root,
            input=b"garbage-not-a-tree!",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    artifacts = (
        subprocess.run(
            ["git", "mktree"], cwd=root, input=f"040000 tree {bad}\truns\n".encode(), capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )
    top = (
        subprocess.run(
            ["git", "mktree"],
            cwd=root,
            input=f"040000 tree {artifacts}\tartifacts\n".encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    git(root, "update-ref", "refs/heads/idea/001-a", git(root, "commit-tree", top, "-p", "main", "-m", "bad"))
    found, names = all_findings(root)
    [corrupt] = [f for f in found if f.rule == "git.object-corrupt"]
    assert (corrupt.path, corrupt.severity) == ("refs/heads/idea/001-a:artifacts/runs", WARNING)
    assert "git fsck" in (corrupt.hint or "")
    assert names == ["refs/heads/main:runs/run-1.json"]


@pytest.mark.parametrize("link", ["artifacts", "artifacts/runs", "artifacts/runs/run-2.json"])
def test_a_symbolic_link_committed_where_the_layout_has_a_folder_or_record_is_an_error(
    tmp_path: Path, link: str
) -> None:
    """Issue 15.7: git cannot show what a committed link points to, so the runs behind it would
    be skipped silently; the link is an error naming the ref and the path."""
    root = committed_quest(tmp_path / "quest")
    git(root, "checkout", "-q", "-b", "idea/001-a")
    real = root / "elsewhere"
    os.rename(root / link, real) if link != "artifacts/runs/run-2.json" else real.write_bytes(
        raw_of({**RUN, "artifact_id": "run-2"})
    )
    os.symlink(os.path.relpath(real, (root / link).parent), root / link)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "link")
    git(root, "checkout", "-q", "main")
    found, _ = all_findings(root)
    [linked] = [f for f in found if f.rule == "git.symlink-in-tree"]
    assert (linked.path, linked.severity) == (f"refs/heads/idea/001-a:{link}", ERROR)
    assert "symbolic link" in linked.message and "commit" in (linked.hint or "")
    git(root, "branch", "-D", "idea/001-a")
    git(root, "branch", "idea/001-a")
    assert "git.symlink-in-tree" not in fired(all_findings(root)[0])


def test_a_quest_git_cannot_read_is_found_from_its_folders(tmp_path: Path) -> None:
    """A quest copied without ``.git``: its workspaces come from folders, and it says so once."""
    root = tmp_path / "quest"
    (root / ".ds" / "worktrees" / "idea-a").mkdir(parents=True)
    (root / "quest.yaml").write_text("quest_id: '001'\n")
    loc = locate(root / ".ds" / "worktrees" / "idea-a")
    assert fired(loc.findings) == ["quest.not-git"] and not loc.is_git
    assert loc.findings[0].severity == WARNING and loc.findings[0].path is None
    assert (loc.root, loc.top) == (root.resolve(), (root / ".ds" / "worktrees" / "idea-a").resolve())
    git(root, "init", "-q")
    loc = locate(root)
    assert loc.findings == [] and loc.is_git


def test_a_gone_worktree_whose_head_git_cannot_read_is_named_with_the_prune(tmp_path: Path) -> None:
    """A worktree folder removed without a prune leaves its detached HEAD in its registration
    only: read from there, and where git cannot read it, named (closure stops on it)."""
    root = committed_quest(tmp_path / "quest").resolve()
    folder = root / ".ds" / "worktrees" / "d"
    git(root, "worktree", "add", "-q", "--detach", str(folder))
    head, admin_head = git(root, "rev-parse", "HEAD"), root / ".git" / "worktrees" / "d" / "HEAD"
    assert discover_workspaces(locate(root))[1] == [] and locate(root).detached_tips == []
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    for broken in ("garbage\n", "1234567890" * 4 + "\n"):  # not a HEAD; a commit the quest lacks
        admin_head.write_text(broken)
        loc = locate(root)
        [finding] = discover_workspaces(loc)[1]
        assert finding.rule == "workspace.head-unreadable" and finding.severity == WARNING, finding
        assert ".ds/worktrees/d is gone" in finding.message and (finding.hint or "").startswith(f"git -C {root}")
        assert "worktree prune" in (finding.hint or "") and loc.detached_tips == []
    admin_head.write_text(head + "\n")
    loc = locate(root)
    assert fired(discover_workspaces(loc)[1]) == ["workspace.missing"]
    assert loc.detached_tips == [("worktrees/d/HEAD", head)]


def test_an_indexed_run_record_outside_the_quest_is_unseen_and_stops_closure(
    tmp_path: Path, gate_json: GateJson
) -> None:
    """Issue 24: PR #60's candidate list opens an index line's absolute ``path``; a run whose
    record lies only outside the quest was a warning (``index.missing-record``) and closure
    passed over it. Now it is named, and closure stops (exit 2) with the fix; ``check`` goes on."""
    import json

    from ds_gate.engine.loader import load_quest

    root = committed_quest(tmp_path / "quest")
    (root / "quest.yaml").write_text("quest_id: '001'\nstartup_contract:\n  experience_distill: 'on'\n")
    outside = tmp_path / "elsewhere" / "run-2.json"
    outside.parent.mkdir()
    outside.write_bytes(raw_of(dict(RUN, artifact_id="run-2")))
    line = {"artifact_id": "run-2", "kind": "run", "status": "completed", "path": str(outside)}
    (root / "artifacts" / "_index.jsonl").write_text(json.dumps(line) + "\n")
    found = [f for f in load_quest(root, cache=False).findings if f.rule.startswith("index.")]
    assert fired(found) == ["index.record-outside-quest"] and found[0].line == 1
    assert "artifacts/runs/run-2.json" in (found[0].hint or "")
    code, out = gate_json("closure", str(root))
    assert code == 2 and "run-2" in out["error"] and "move the record into the quest" in out["error"], out
    code, out = gate_json("check", str(root))  # check reports it and goes on
    assert code in (0, 1) and "index.record-outside-quest" in [f["rule"] for f in out["findings"]], out
    os.replace(outside, root / "artifacts" / "runs" / "run-2.json")  # in the quest: read, pending, named
    assert [f for f in load_quest(root, cache=False).findings if f.rule.startswith("index.")] == []
    code, out = gate_json("closure", str(root))
    assert code == 1 and "run-2" in out["pending_run_ids"], out


def test_a_card_that_cannot_be_opened_is_unreadable_not_skipped(tmp_path: Path) -> None:
    """A card file MemoryService lists but nobody can open is an error naming the file."""
    root = tmp_path / "quest"
    folder = root / "memory" / "knowledge"
    folder.mkdir(parents=True)
    os.symlink(folder / "moved-away.md", folder / "lesson.md")  # inside the quest, pointing at nothing
    cards, found = read_cards(root / "memory", scope="quest", base=root)
    assert cards == [] and fired(found) == ["card.unreadable"]
    [finding] = found
    assert (finding.path, finding.severity, finding.line) == ("memory/knowledge/lesson.md", ERROR, None)
    assert "No such file or directory" in finding.message
    (folder / "lesson.md").unlink()
    (folder / "lesson.md").write_text("---\nid: knowledge-1\ntitle: t\n---\nbody\n")
    cards, found = read_cards(root / "memory", scope="quest", base=root)
    assert found == [] and [c.card_id for c in cards] == ["knowledge-1"]


@pytest.mark.parametrize("broken", [False, True], ids=["every quest a repository", "one with an empty .git"])
def test_a_quest_of_a_home_that_cannot_take_the_hook_is_an_install_failure(
    tmp_path: Path, gate_json: GateJson, broken: bool
) -> None:
    """One bad quest is a finding; every other quest of the home still gets its hook."""
    home = tmp_path / "home"
    good = home / "quests" / "001"
    good.mkdir(parents=True)
    git(good, "init", "-q")
    if broken:
        bad = home / "quests" / "002"
        (bad / ".git").mkdir(parents=True)  # an interrupted clone leaves this behind
        (bad / "quest.yaml").write_text("quest_id: '002'\n")
    code, out = gate_json("install", "--home", str(home))
    assert (good / ".git" / "hooks" / "pre-commit").is_file()
    found = [(f["rule"], f["severity"], f["path"]) for f in out["findings"]]
    if broken:
        assert code == 1 and out["ok"] is False and found == [("install.failed", ERROR, None)]
        assert "quests/002 is not a git repository" in out["findings"][0]["message"]
        assert not (bad / ".git" / "hooks").exists()
    else:
        assert code == 0 and found == []
    *installed, pinned = out["notes"]
    assert [note.split()[:2] for note in installed] == [
        ["installed", str(good.resolve() / ".git" / "hooks" / hook)]
        for hook in ("pre-commit", "pre-merge-commit", "pre-push")
    ]
    assert pinned.startswith("the hooks trust the configuration"), pinned


def test_objects_borrowed_from_outside_the_quest_are_named_and_quiet_once_dissociated(
    tmp_path: Path, gate_json: GateJson
) -> None:
    root = committed_quest(tmp_path / "quest")
    store = tmp_path / "store.git"
    git(tmp_path, "init", "-q", "--bare", str(store))
    alternates = root / ".git" / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text(f"{store / 'objects'}\n")
    code, out = gate_json("check", str(root))
    borrowed = [f for f in out["findings"] if f["rule"] == "git.alternates-outside-quest"]
    assert len(borrowed) == 1 and str((store / "objects").resolve()) in borrowed[0]["message"], out["findings"]
    assert borrowed[0]["severity"] == WARNING and "git repack -a -d" in borrowed[0]["hint"]
    alternates.unlink()
    code, out = gate_json("check", str(root))
    assert "git.alternates-outside-quest" not in [f["rule"] for f in out["findings"]]


def test_more_card_versions_than_the_history_bound_are_named_and_quiet_within_it(
    tmp_path: Path, gate_json: GateJson, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = committed_quest(tmp_path / "quest")
    card = root / "memory" / "knowledge" / "lesson.md"
    card.parent.mkdir(parents=True)
    for note in range(3):
        card.write_text(f"---\nid: knowledge-1\ntitle: t\nnote: {note}\n---\nbody\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"memory: note {note}")
    monkeypatch.setattr(history, "MAX_VERSIONS", 2)
    code, out = gate_json("check", str(root))
    assert [f["path"] for f in out["findings"] if f["rule"] == "git.history-too-long"] == ["memory"], out["findings"]
    monkeypatch.setattr(history, "MAX_VERSIONS", 3)
    code, out = gate_json("check", str(root))
    assert "git.history-too-long" not in [f["rule"] for f in out["findings"]]


def trusted_baseline(root: Path, config: Path, commit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config.write_text(f"baselines:\n  - quest: {root}\n    commit: {commit}\n    reason: adopted mid-quest\n")
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))


def test_a_baselined_record_rewritten_since_its_commit_is_pending_and_said(
    tmp_path: Path, gate_json: GateJson, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = committed_quest(tmp_path / "quest")
    trusted_baseline(root, tmp_path / "trusted.yaml", git(root, "rev-parse", "HEAD"), monkeypatch)
    code, out = gate_json("check", str(root))
    assert out["baselined_run_ids"] == ["run-1"] and "baseline.changed-since" not in fired_rules(out)
    (root / "artifacts" / "runs" / "run-1.json").write_bytes(raw_of({**RUN, "metrics_summary": {"acc": 0.9}}))
    code, out = gate_json("check", str(root))
    [note] = [f for f in out["findings"] if f["rule"] == "baseline.changed-since"]
    assert out["pending_run_ids"] == ["run-1"] and note["subject"] == "run-1" and note["severity"] == WARNING
    assert note["path"] == "artifacts/runs/run-1.json" and "changed since that commit" in note["message"]


def test_a_baseline_naming_a_commit_where_the_toggle_was_on_is_warned(
    tmp_path: Path, gate_json: GateJson, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = committed_quest(tmp_path / "quest")
    before = git(root, "rev-parse", "HEAD")
    (root / "quest.yaml").write_text("quest_id: '001'\nstartup_contract:\n  experience_distill: 'on'\n")
    git(root, "commit", "-q", "-am", "the gate on")
    trusted_baseline(root, tmp_path / "trusted.yaml", git(root, "rev-parse", "HEAD"), monkeypatch)
    code, out = gate_json("check", str(root))
    [warning] = [f for f in out["findings"] if f["rule"] == "baseline.after-adoption"]
    assert warning["pointer"] == "/baselines/0/commit" and warning["severity"] == WARNING
    assert "experience_distill was already on" in warning["message"] and out["baselined_run_ids"] == ["run-1"]
    trusted_baseline(root, tmp_path / "trusted.yaml", before, monkeypatch)
    code, out = gate_json("check", str(root))
    assert "baseline.after-adoption" not in fired_rules(out) and out["baselined_run_ids"] == ["run-1"]


def fired_rules(out: dict[str, Any]) -> list[str]:
    return [f["rule"] for f in out["findings"]]
