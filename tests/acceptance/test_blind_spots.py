"""Issue 35, root C: the last places where the gate passed on what it did not see.

Each class is built the way it happens on a real quest, and judged by the real CLI, the
kernel's fast answers and the full hooks: a worktree folder removed without ``git worktree
prune``, a merge in a push, a git repository that is no quest, and a paper bundle behind a
folder link inside the quest.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.engine.commit import commit_check
from ds_gate.engine.push import push_check
from ds_gate.kernel.checkpoint import checkpoint_passes
from ds_gate.kernel.errors import NotAQuest
from ds_gate.kernel.push import push_passes

from helpers import add_remote, commit, git

MANIFEST = "paper/paper_bundle_manifest.json"
pytest_plugins = ["pytester"]


def ds(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "ds_gate", *args], cwd=cwd, capture_output=True, text=True)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def tip(cwd: Path, ref: str = "HEAD") -> str:
    return git(cwd, "rev-parse", ref).stdout.strip()


# ---------------------------------------------------------------- 1. a worktree folder removed without a prune


@pytest.fixture(params=["prunable", "locked"])
def removed_worktree(make_quest, request) -> tuple[ExampleQuest, str]:
    """A quest whose one completed run lives on ``idea/001-a``, whose folder was then removed
    by ``rm -rf`` (git still lists the worktree: prunable, or locked and so never prunable)."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "experiment: main-001")
    if request.param == "locked":
        git(quest.root, "worktree", "lock", str(idea))
    shutil.rmtree(idea)
    assert request.param in git(quest.root, "worktree", "list", "--porcelain").stdout
    return quest, run


def test_doctor_names_a_worktree_whose_folder_is_gone(removed_worktree, gate_json) -> None:
    quest, _ = removed_worktree
    _, out = gate_json("doctor", str(quest.root))
    worktrees = {c["name"]: c for c in out["checks"]}["worktrees"]
    assert worktrees["status"] == "fail" and "idea-a" in worktrees["message"] and "prune" in worktrees["fix"]


def test_closure_reads_the_branch_of_a_worktree_whose_folder_is_gone(removed_worktree, gate_json) -> None:
    quest, run = removed_worktree
    code, report = gate_json("closure", "--require", str(quest.root))
    pending = {f["subject"] for f in report["findings"] if f["rule"] == "coverage.pending-run"}
    assert code == 1 and run in pending, report
    git(quest.root, "worktree", "unlock", str(quest.root / ".ds" / "worktrees" / "idea-a"), check=False)
    git(quest.root, "worktree", "prune")  # after a prune the same verdict, from the same branch
    code_after, report_after = gate_json("closure", "--require", str(quest.root))
    assert (
        code_after == 1
        and {f["subject"] for f in report_after["findings"] if f["rule"] == "coverage.pending-run"} == pending
    )


def test_a_finalization_commit_sees_the_runs_of_a_worktree_whose_folder_is_gone(
    removed_worktree, monkeypatch, capsys
) -> None:
    quest, run = removed_worktree
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    git(quest.root, "add", MANIFEST)
    monkeypatch.chdir(quest.root)
    report = commit_check(".", require=True)
    assert report is not None and not report.ok
    assert run in {f.subject for f in report.findings if f.rule == "coverage.pending-run"}


@pytest.mark.slow
def test_pytest_sees_the_runs_of_a_worktree_whose_folder_is_gone(removed_worktree, pytester) -> None:
    quest, run = removed_worktree
    result = pytester.runpytest_subprocess(
        f"--ds-gate={quest.root}", "--ds-gate-require", "-rA", "-p", "no:cacheprovider"
    )
    out = result.stdout.str()
    assert result.ret == 1 and f"completed run {run} " in out, out


# ---------------------------------------------------------------- 2. a merge in a push


@pytest.fixture
def pushed(make_quest, tmp_path) -> ExampleQuest:
    """A quest whose main branch is on its remote, with one completed run pending on main."""
    quest = make_quest()
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "experiment: main-001")
    add_remote(quest.root, tmp_path / "remote.git")
    assert git(quest.root, "push", "-q", "origin", "main").returncode == 0
    return quest


def finalize_by_merge(quest: ExampleQuest, what: str) -> str:
    """On ``paper/x``, the finalizing change (already pushed, as a branch may be), then merged
    into main with a merge commit: the merge alone is what the next push of main sends."""
    git(quest.root, "checkout", "-q", "-b", "paper/x")
    if what == "manifest":
        (quest.root / "paper").mkdir()
        (quest.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    else:
        quest.write_quest_yaml(status="completed")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "finalize")
    git(quest.root, "push", "-q", "--no-verify", "origin", "paper/x")
    git(quest.root, "checkout", "-q", "main")
    (quest.root / "notes.md").write_text("notes\n")
    git(quest.root, "add", "notes.md")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "notes")
    git(quest.root, "merge", "-q", "--no-ff", "--no-verify", "-m", "merge paper", "paper/x")
    return tip(quest.root)


@pytest.mark.parametrize("what", ["manifest", "status: completed"])
def test_a_merge_that_finalizes_is_judged_by_both_push_paths(pushed, what, monkeypatch) -> None:
    merge = finalize_by_merge(pushed, what)
    monkeypatch.chdir(pushed.root)
    stdin = f"refs/heads/main {merge} refs/heads/main {'0' * 40}\n"
    assert not push_passes(".", stdin)  # the fast path does not answer it
    report = push_check(".", [("push:refs/heads/main", merge)], require=True)
    assert report is not None and not report.ok, "the full path judged the merge as finalizing nothing"
    assert report.finalization_reasons and [f.rule for f in report.findings if f.fails], report.findings


@pytest.mark.slow
def test_the_installed_pre_push_hook_refuses_a_finalizing_merge(pushed) -> None:
    finalize_by_merge(pushed, "manifest")
    assert main(["install", str(pushed.root)]) == 0
    done = git(pushed.root, "push", "origin", "main", check=False)
    assert done.returncode != 0 and "main-001" in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.mark.slow
def test_the_installed_hooks_refuse_a_local_merge_that_finalizes(pushed) -> None:
    """``git merge`` runs pre-merge-commit, not pre-commit: the same gate is installed there, so a
    merge bringing the paper bundle into main is refused while a run is pending, and an ordinary
    merge goes through."""
    assert main(["install", str(pushed.root)]) == 0
    git(pushed.root, "checkout", "-q", "-b", "notes/x")
    (pushed.root / "notes.md").write_text("notes\n")
    commit(pushed.root, "notes")
    git(pushed.root, "checkout", "-q", "-b", "paper/x", "main")
    (pushed.root / "paper").mkdir()
    (pushed.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    git(pushed.root, "add", "-A")
    git(pushed.root, "commit", "-q", "--no-verify", "-m", "finalize")
    git(pushed.root, "checkout", "-q", "main")
    ordinary = git(pushed.root, "merge", "--no-ff", "-m", "merge notes", "notes/x", check=False)
    assert ordinary.returncode == 0, ordinary.stdout + ordinary.stderr
    before = tip(pushed.root)
    done = git(pushed.root, "merge", "--no-ff", "-m", "merge paper", "paper/x", check=False)
    assert done.returncode != 0 and "main-001" in done.stdout + done.stderr, done.stdout + done.stderr
    assert tip(pushed.root) == before, "the finalizing merge was committed"


# ---------------------------------------------------------------- 3. a repository that is no quest


def lab_repository(tmp_path: Path) -> Path:
    """A lab's git repository holding a DeepScientist home below it (``quests/002``)."""
    lab = tmp_path / "lab"
    lab.mkdir()
    git(lab, "init", "-q")
    ExampleQuest(lab / "quests" / "002", "002").create()
    (lab / "README.md").write_text("lab\n")
    git(lab, "add", "README.md")
    git(lab, "commit", "-q", "-m", "lab")
    return lab


def test_a_git_repository_without_quest_yaml_is_not_a_quest(tmp_path, capsys, gate_json) -> None:
    lab = lab_repository(tmp_path)
    assert main(["closure", "--require", str(lab)]) == 2
    err = capsys.readouterr().err
    assert "not a quest" in err and f"--all-quests --home {lab}" in err, err
    bare = tmp_path / "plain"
    bare.mkdir()
    git(bare, "init", "-q")
    assert main(["closure", str(bare)]) == 2
    err = capsys.readouterr().err
    assert "not a quest" in err and "--all-quests" not in err, err
    code, report = gate_json("check", str(lab))  # check looks around: it warns and goes on
    assert code == 0 and "quest.no-quest-yaml" in [f["rule"] for f in report["findings"]], report


def test_a_quest_that_removed_quest_yaml_finalizes_nothing_but_checkpoints(one_run_quest, monkeypatch) -> None:
    quest = one_run_quest
    git(quest.root, "rm", "-q", "quest.yaml")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "drop quest.yaml")
    monkeypatch.chdir(quest.root)
    quest.run(quest.root, "main-002")  # an ordinary checkpoint: not gated there
    git(quest.root, "add", "-A")
    assert commit_check(".") is None
    git(quest.root, "commit", "-q", "--no-verify", "-m", "experiment: main-002")
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text("{}\n")
    git(quest.root, "add", MANIFEST)
    with pytest.raises(NotAQuest, match=r"not a quest.*this commit finalizes"):
        commit_check(".")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper")
    with pytest.raises(NotAQuest, match="this push finalizes"):
        push_check(".", [("push:refs/heads/main", tip(quest.root))])


# ---------------------------------------------------------------- 7. a paper bundle behind a folder link


@pytest.fixture(
    params=[
        "folder link, manifest staged",
        "folder link made",
        "file link, its file staged",
        "folder link made out of the quest",
    ]
)
def linked_paper(one_run_quest, monkeypatch, request) -> ExampleQuest:
    """What DeepScientist reads as ``<workspace>/paper/paper_bundle_manifest.json`` changes through
    a link inside the quest: ``paper -> .bundle`` committed and ``.bundle/paper_bundle_manifest.json``
    staged; ``paper -> .bundle`` staged where ``.bundle`` already holds the manifest; or the
    manifest a committed link to ``.bundle/m.json``, which is staged."""
    quest = one_run_quest
    bundle = quest.root / ".bundle"
    bundle.mkdir()
    (bundle / "README.md").write_text("bundle\n")
    manifest = json.dumps({"package_type": "x"}) + "\n"
    if request.param == "folder link, manifest staged":
        os.symlink(".bundle", quest.root / "paper")
    elif request.param.startswith("folder link made"):
        (bundle / "paper_bundle_manifest.json").write_text(manifest)
    else:
        (quest.root / "paper").mkdir()
        os.symlink("../.bundle/m.json", quest.root / MANIFEST)
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper folder")
    if request.param == "folder link, manifest staged":
        (bundle / "paper_bundle_manifest.json").write_text(manifest)
    elif request.param == "folder link made":
        os.symlink(".bundle", quest.root / "paper")
    elif request.param == "folder link made out of the quest":  # never read: the gate cannot see it, so it judges
        os.symlink(str(bundle), quest.root / "paper")
    else:
        (bundle / "m.json").write_text(manifest)
    git(quest.root, "add", "-A")
    monkeypatch.chdir(quest.root)
    return quest


def test_a_manifest_behind_a_folder_link_finalizes_the_commit(linked_paper) -> None:
    assert not checkpoint_passes(".")
    report = commit_check(".", require=True)
    assert report is not None and not report.ok and report.finalization_reasons, report
    assert any(f.rule == "coverage.pending-run" for f in report.findings)


def test_a_manifest_behind_a_folder_link_finalizes_the_push(linked_paper, tmp_path) -> None:
    add_remote(linked_paper.root, tmp_path / "remote.git")
    git(linked_paper.root, "reset", "-q")
    git(linked_paper.root, "push", "-q", "--no-verify", "origin", "main")
    git(linked_paper.root, "add", "-A")
    git(linked_paper.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    head = tip(linked_paper.root)
    assert not push_passes(".", f"refs/heads/main {head} refs/heads/main {'0' * 40}\n")
    report = push_check(".", [("push:refs/heads/main", head)], require=True)
    assert report is not None and not report.ok, "the push of a manifest behind a link finalized nothing"


@pytest.mark.slow
def test_the_installed_hooks_refuse_a_manifest_behind_a_folder_link(linked_paper) -> None:
    assert main(["install", str(linked_paper.root)]) == 0
    done = commit(linked_paper.root, "paper: bundle")
    assert done.returncode != 0 and "main-001" in done.stdout + done.stderr, done.stdout + done.stderr


# ---------------------------------------------------------------- 4. pytest locates as closure does


@pytest.mark.slow
def test_pytest_and_closure_agree_on_a_quest_that_poses_as_a_home(one_run_quest, pytester) -> None:
    """A quest that deletes quest.yaml and commits ``quests/README.md`` is no empty home: both
    routes stop on it with the same words."""
    quest = one_run_quest
    git(quest.root, "rm", "-q", "quest.yaml")
    (quest.root / "quests").mkdir()
    (quest.root / "quests" / "README.md").write_text("nothing here\n")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "a home?")
    closure = ds("closure", "--require", str(quest.root))
    assert closure.returncode == 2 and "not a quest" in closure.stderr, closure.stderr
    result = pytester.runpytest_subprocess(
        f"--ds-gate={quest.root}", "--ds-gate-require", "-rA", "-p", "no:cacheprovider"
    )
    out = result.stdout.str()
    assert result.ret != 0 and "1 passed" not in out, out
    assert "not a quest" in out and str(quest.root) in out, out


# ---------------------------------------------------------------- 5. doctor: a framework hook that runs nothing


def test_the_guards_doctor_asks_for_are_the_manifests_hooks() -> None:
    import yaml

    from ds_gate.setup.doctor_hook_fields import DEFAULTS, MANIFEST, STAGE
    from ds_gate.setup.doctor_pre_commit import GUARDS

    from helpers import REPO

    manifest = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert set(GUARDS) == set(MANIFEST) == set(STAGE) and set(GUARDS) <= set(manifest)
    for hook_id, fields in MANIFEST.items():  # every field that decides what runs, as the file has it
        hook = manifest[hook_id]
        assert fields == {k: hook[k] for k in ("entry", "language", *DEFAULTS) if k in hook}, hook_id
        assert STAGE[hook_id] in hook["stages"]
    assert manifest["ds-gate-closure-full"]["stages"] == ["manual"]  # doctor_pre_commit._at_commit


def pre_commit_install(quest: ExampleQuest, config: str, *args: str) -> None:
    (quest.root / ".pre-commit-config.yaml").write_text(config)
    quest.checkpoint(quest.root, "pre-commit config")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "install", *args],
        cwd=quest.root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "config",
    [
        "repos: []\n",
        "repos:\n- repo: local\n  hooks:\n  - id: ds-gate-closure\n    name: x\n    entry: 'true'\n    language: system\n",
        "repos:\n- repo: https://github.com/ds-gate/ds-gate\n  rev: abc\n  hooks:\n  - id: ds-gate-closure\n"
        "    stages: [manual]\n",
        "repos: !!python/object/apply:os.system ['true']\n",
    ],
    ids=["no repos", "a local hook that runs true", "stages moved to manual", "an unsafe tag"],
)
def test_doctor_fails_a_framework_hook_whose_config_runs_no_ds_gate(make_quest, gate_json, config) -> None:
    quest = make_quest()
    pre_commit_install(quest, config)
    code, out = gate_json("doctor", str(quest.root))
    hook = {c["name"]: c for c in out["checks"]}["hook"]
    assert code == 1 and hook["status"] == "fail", hook
    assert "ds-gate-closure" in hook["message"] or "YAML" in hook["message"], hook
    assert "docs/hooks.md" in hook["fix"]


@pytest.mark.slow
def test_doctor_passes_the_documented_local_config(make_quest, gate_json) -> None:
    import yaml

    from helpers import REPO

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    quest = make_quest()
    pre_commit_install(
        quest,
        yaml.safe_dump(
            {
                "default_install_hook_types": ["pre-commit", "pre-push"],
                "repos": [{"repo": "local", "hooks": [dict(h, language="system") for h in hooks]}],
            },
            sort_keys=False,
        ),
    )
    code, out = gate_json("doctor", str(quest.root))
    checks = {c["name"]: c for c in out["checks"]}
    assert checks["hook"]["status"] == "ok" and "pre-commit hooks" not in checks, checks


@pytest.mark.slow
def test_doctor_reads_the_config_the_framework_hook_reads(make_quest, gate_json) -> None:
    """``pre-commit install -c empty.yaml`` beside a complete ``.pre-commit-config.yaml``: the hook
    runs the empty one, and doctor judges that one."""
    import yaml

    from helpers import REPO

    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    quest = make_quest()
    (quest.root / "empty.yaml").write_text("repos: []\n")
    pre_commit_install(
        quest,
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [dict(h, language="system") for h in hooks]}]}),
        "-c",
        "empty.yaml",
    )
    code, out = gate_json("doctor", str(quest.root))
    hook = {c["name"]: c for c in out["checks"]}["hook"]
    assert code == 1 and hook["status"] == "fail" and "empty.yaml" in hook["message"], hook
