"""Issue 24, root 1: the quest cannot tell the gate how to judge it.

Each example of the issue, on a real git quest and (where CI is the point) a fresh clone:
a quest-written setting that would read less is not applied, a quest-written waiver is a
proposal until a trusted setting accepts it, a rule that fails closed is never waived, and
a branch that drops ``experience_distill`` does not turn the gate off. Trusted settings
(``--accept-quest-waivers``, ``$DS_GATE_CONFIG``, ``--config``) still work, and say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main
from ds_gate.kernel.errors import QuestError

from helpers import commit, git

pytest_plugins = ["pytester"]


def trusted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> Path:
    """The user's own configuration, outside the quest, named by $DS_GATE_CONFIG."""
    path = tmp_path / "user-config" / "config.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    monkeypatch.setenv("DS_GATE_CONFIG", str(path))
    return path


def clone(quest_root: Path, tmp_path: Path, name: str = "clone") -> Path:
    target = tmp_path / name
    git(tmp_path, "clone", "-q", str(quest_root), str(target))
    return target


@pytest.fixture
def branch_run(make_quest):
    """A pending run that lives only on branch idea/001-a (its worktree removed): only a
    reader of every branch sees it."""
    quest = make_quest()
    idea = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(idea, "main-001")
    quest.checkpoint(idea, "record")
    git(quest.root, "worktree", "remove", str(idea))
    return quest, run


NARROWING = {
    "source: folders": (".ds-gate.yaml", "source: folders\n", "--from-folders"),
    "source: git, refs: main": (".ds-gate.yaml", "source: git\nrefs: [refs/heads/main]\n", "--refs PATTERN"),
    "[tool.ds-gate] source = folders": ("pyproject.toml", '[tool.ds-gate]\nsource = "folders"\n', "--from-folders"),
    "[tool.ds-gate] source = git, refs = main": (
        "pyproject.toml",
        '[tool.ds-gate]\nsource = "git"\nrefs = ["refs/heads/main"]\n',
        "--refs PATTERN",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(NARROWING), ids=list(NARROWING))
def test_a_committed_setting_that_reads_less_is_not_applied_in_a_fresh_clone(
    branch_run, tmp_path, gate_json, case
) -> None:
    quest, run = branch_run
    name, text, instead = NARROWING[case]
    (quest.root / name).write_text(text)
    quest.checkpoint(quest.root, "ds-gate: read less")
    ci = clone(quest.root, tmp_path)
    for where in (quest.root, ci):
        code, out = gate_json("closure", str(where))
        assert code == 1 and out["pending_run_ids"] == [run], where  # old: 0, the branch was never read
        notes = [n for n in out["notes"] if "is not applied" in n]
        assert notes and all("written inside the quest" in n for n in notes) and any(instead in n for n in notes)
    code, out = gate_json("closure", str(ci), "--from-git")
    assert code == 1 and out["pending_run_ids"] == [run]
    assert gate_json("candidates", str(ci))[1]["pending_run_ids"] == [run]  # lists what closure judges


def test_the_same_setting_from_the_trusted_configuration_applies(branch_run, tmp_path, gate_json, monkeypatch) -> None:
    quest, run = branch_run
    trusted(monkeypatch, tmp_path, "source: git\nrefs: [refs/heads/main]\n")
    code, out = gate_json("closure", str(quest.root))
    assert code == 0 and out["pending_run_ids"] == [] and not [n for n in out["notes"] if "is not applied" in n]
    other = tmp_path / "other.yaml"
    other.write_text("source: auto\n")
    assert gate_json("closure", str(quest.root), "--config", str(other))[0] == 1  # --config wins over the variable


def test_a_quest_written_home_is_not_applied(one_run_quest, gate_json, tmp_path, monkeypatch) -> None:
    """A home the quest names could point global card lookups at a folder its agent fills."""
    quest = one_run_quest
    [run] = gate_json("candidates", str(quest.root))[1]["pending_run_ids"]
    quest.review(
        quest.root,
        [run],
        encoding="report",  # names a global card: the home is read
        cards=[{"card_id": "k-1", "scope": "global", "action": "new", "target_run_id": run}],
    )
    (tmp_path / "agent-home" / "memory").mkdir(parents=True)
    (quest.root / ".ds-gate.yaml").write_text(f"home: {tmp_path / 'agent-home'}\n")
    monkeypatch.delenv("DEEPSCIENTIST_HOME")
    code, out = gate_json("check", str(quest.root))
    assert out["home"] != str(tmp_path / "agent-home")  # old: the home the quest named
    assert any(n.startswith("home: ") and "is not applied" in n for n in out["notes"])
    trusted(monkeypatch, tmp_path, f"home: {tmp_path / 'agent-home'}\n")
    assert gate_json("check", str(quest.root))[1]["home"] == str(tmp_path / "agent-home")


@pytest.fixture
def waiving_quest(make_quest):
    """A pending run in the root and a committed .ds-gate.yaml that waives it."""
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    (quest.root / ".ds-gate.yaml").write_text(
        f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: nothing to learn here\n"
        "    expires: 2999-12-31\n"
    )
    quest.checkpoint(quest.root, "record, and waive it")
    return quest, run


def test_a_committed_waiver_of_the_quests_own_run_is_a_proposal_in_a_fresh_clone(
    waiving_quest, tmp_path, gate_json, capsys
) -> None:
    quest, run = waiving_quest
    ci = clone(quest.root, tmp_path)
    code, out = gate_json("closure", str(ci), "--from-git")
    assert code == 1 and out["ok"] is False  # old: 0
    [pending] = [f for f in out["findings"] if f["rule"] == "coverage.pending-run"]
    assert pending["waived"] is None and "waived_by" not in out
    [proposal] = [f for f in out["findings"] if f["rule"] == "waiver.proposed"]
    assert proposal["severity"] == "warning" and "'nothing to learn here'" in proposal["message"]
    assert "until 2999-12-31" in proposal["message"] and "--accept-quest-waivers" in proposal["hint"]
    assert str(ci) in proposal["hint"] and "an agent cannot accept them" in proposal["hint"]
    assert main(["closure", str(ci), "--from-git"]) == 1
    text = capsys.readouterr().out
    assert "REJECTED" in text and "waiver.proposed" in text and f"ds-gate closure --accept-quest-waivers {ci}" in text


def test_the_owner_accepts_the_quests_waivers_and_the_verdict_says_so(
    waiving_quest, tmp_path, gate_json, capsys, monkeypatch
) -> None:
    quest, run = waiving_quest
    code, out = gate_json("closure", str(quest.root), "--accept-quest-waivers")
    assert code == 0 and out["waived_by"] == ["quest waivers accepted by --accept-quest-waivers"]
    [pending] = [f for f in out["findings"] if f["rule"] == "coverage.pending-run"]
    assert "written in the quest, accepted by --accept-quest-waivers" in pending["waived"]
    assert main(["closure", str(quest.root), "--accept-quest-waivers"]) == 0
    verdict = capsys.readouterr().out.splitlines()[-1]
    assert verdict.startswith("ds-gate closure: PASSED (waived: quest waivers accepted by --accept-quest-waivers)")
    config = trusted(monkeypatch, tmp_path, f"accept_quest_waivers: [{quest.root}]\n")  # lasting, the hooks too
    code, out = gate_json("closure", str(quest.root))
    assert code == 0 and out["waived_by"] == [f"quest waivers accepted by accept_quest_waivers in {config}"]


def test_a_trusted_waiver_works_as_waivers_did_and_says_whose(
    one_run_quest, tmp_path, gate_json, monkeypatch, capsys
) -> None:
    quest = one_run_quest
    [run] = gate_json("closure", str(quest.root))[1]["pending_run_ids"]
    config = trusted(
        monkeypatch,
        tmp_path,
        f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: smoke test\n    quest: {quest.root}\n",
    )
    code, out = gate_json("closure", str(quest.root))
    assert code == 0 and out["waived_by"] == ["trusted waivers"]
    assert out["findings"][0]["waived"] == f"smoke test (trusted waiver {config} waivers[0])"
    assert main(["closure", str(quest.root)]) == 0
    assert "PASSED (waived: trusted waivers)" in capsys.readouterr().out


@pytest.fixture
def linked_runs(make_quest):
    """``artifacts/runs`` committed as a symbolic link: the run behind it is unseen in git,
    and a committed waiver asks the gate to look away."""
    quest = make_quest()
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    os.rename(quest.root / "artifacts" / "runs", quest.root / "kept-runs")
    os.symlink("../kept-runs", quest.root / "artifacts" / "runs")
    (quest.root / ".ds-gate.yaml").write_text(
        "waivers:\n  - rule: git.symlink-in-tree\n    path: artifacts/runs\n    reason: the runs moved\n"
    )
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "runs behind a link, and a waiver")
    return quest


def test_a_rule_that_fails_closed_is_never_waived(linked_runs, tmp_path, gate_json, monkeypatch) -> None:
    ci = clone(linked_runs.root, tmp_path)
    for accepted in ((), ("--accept-quest-waivers",)):
        code, out = gate_json("closure", str(ci), "--from-git", *accepted)
        assert code == 2 and "[git.symlink-in-tree]" in out["error"], accepted  # old: 0, the waiver hid the link
        code, out = gate_json("check", str(ci), "--from-git", *accepted)  # check shows the waiver refused
        [linked] = [f for f in out["findings"] if f["rule"] == "git.symlink-in-tree"]
        assert linked["waived"] is None and linked["severity"] == "error"
        [refused] = [f for f in out["findings"] if f["rule"] == "waiver.unwaivable"]
        assert "fails closed" in refused["message"] and refused["path"] == ".ds-gate.yaml"
    trusted(
        monkeypatch,
        tmp_path,
        f"waivers:\n  - rule: git.symlink-in-tree\n    path: artifacts/runs\n"
        f"    reason: the user says so\n    quest: {ci}\n",
    )
    code, out = gate_json("closure", str(ci), "--from-git")
    assert code == 2 and "[git.symlink-in-tree]" in out["error"]
    code, out = gate_json("check", str(ci), "--from-git")
    assert len([f for f in out["findings"] if f["rule"] == "waiver.unwaivable"]) == 2


def _branch_without_toggle(quest, drop: str) -> None:
    """Branch ``ci`` from main where quest.yaml loses the toggle (or is deleted)."""
    git(quest.root, "checkout", "-q", "-b", "ci")
    if drop == "toggle":
        _drop_toggle(quest.root / "quest.yaml")
    else:
        (quest.root / "quest.yaml").unlink()
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", f"drop the {drop}")
    git(quest.root, "checkout", "-q", "main")


def test_a_branch_whose_quest_yaml_drops_the_toggle_does_not_turn_the_gate_off(
    one_run_quest, tmp_path, gate_json
) -> None:
    quest = one_run_quest
    _branch_without_toggle(quest, "toggle")
    ci = clone(quest.root, tmp_path)
    git(ci, "checkout", "-q", "ci")
    assert "experience_distill" not in (ci / "quest.yaml").read_text()
    code, out = gate_json("closure", str(ci))
    assert code == 1 and out["enforced"] is True and out["experience_distill"] is False  # old: 0, "gate off"
    assert any("it is on in quest.yaml of commit" in n for n in out["notes"])
    code, out = gate_json("closure", str(ci), "--no-require")  # a trusted caller may still turn it off
    assert code == 0 and out["enforced"] is False and any("--no-require" in n for n in out["notes"])


@pytest.mark.slow
def test_a_branch_without_quest_yaml_stops_closure(one_run_quest, tmp_path) -> None:
    quest = one_run_quest
    _branch_without_toggle(quest, "quest.yaml")
    ci = clone(quest.root, tmp_path)
    git(ci, "checkout", "-q", "ci")
    assert not (ci / "quest.yaml").exists()
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(ci)], capture_output=True, text=True)
    # issue 35: a git repository without quest.yaml is no quest; the fix names the commit that removed it
    assert done.returncode == 2 and "not a quest" in done.stderr, done.stderr  # old: 0
    assert "git log --diff-filter=D -- quest.yaml" in done.stderr
    assert "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", str(ci), "--require"], capture_output=True, text=True
    )
    assert (
        done.returncode == 2 and "not a quest" in done.stderr
    )  # issue 35: --require judges no repository that is no quest


def test_a_worktree_that_turned_the_toggle_on_keeps_the_gate_on(make_quest, gate_json) -> None:
    quest = make_quest(experience_distill="off")
    quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    assert gate_json("closure", str(quest.root))[0] == 0  # off everywhere: off
    idea = quest.worktree("idea-a", "idea/001-a")
    text = (idea / "quest.yaml").read_text().replace("experience_distill: 'off'", "experience_distill: 'on'")
    (idea / "quest.yaml").write_text(text)  # not committed: only the worktree's folder says it
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and any(".ds/worktrees/idea-a/quest.yaml" in n for n in out["notes"])


@pytest.mark.slow
def test_the_commit_hook_takes_quest_waivers_only_from_a_trusted_acceptance(
    waiving_quest, tmp_path, monkeypatch
) -> None:
    quest, run = waiving_quest
    assert main(["install", str(quest.root)]) == 0
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode != 0 and "waiver.proposed" in rejected.stdout + rejected.stderr  # old: passed
    trusted(monkeypatch, tmp_path, f"accept_quest_waivers: [{quest.root}]\n")
    assert main(["install", str(quest.root)]) == 0  # the hooks use the file pinned when installed (issue 35)
    accepted = commit(quest.root, "paper: bundle")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "PASSED (waived: quest waivers accepted by accept_quest_waivers in" in accepted.stdout + accepted.stderr


@pytest.mark.slow
def test_a_trusted_configuration_inside_the_quest_or_broken_stops_the_gate(
    one_run_quest, tmp_path, monkeypatch
) -> None:
    quest = one_run_quest
    inside = quest.root / "trusted.yaml"
    inside.write_text(f"accept_quest_waivers: [{quest.root}]\n")
    monkeypatch.setenv("DS_GATE_CONFIG", str(inside))
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(quest.root)], capture_output=True, text=True)
    assert done.returncode == 2 and "lies inside the quest" in done.stderr
    trusted(monkeypatch, tmp_path, "acept_quest_waivers: []\n")
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(quest.root)], capture_output=True, text=True)
    assert done.returncode == 2 and "acept_quest_waivers" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"], capture_output=True, text=True
    )
    assert done.returncode == 0 and any(
        "acept_quest_waivers" in n and "not applied" in n for n in json.loads(done.stdout)["notes"]
    )  # check goes on, and says so
    monkeypatch.setenv("DS_GATE_CONFIG", str(tmp_path / "absent.yaml"))
    done = subprocess.run([sys.executable, "-m", "ds_gate", "closure", str(quest.root)], capture_output=True, text=True)
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_doctor_shows_where_each_setting_came_from_and_what_was_ignored(
    branch_run, tmp_path, gate_json, monkeypatch
) -> None:
    quest, _ = branch_run
    (quest.root / ".ds-gate.yaml").write_text(
        "require: true\nsource: folders\nwaivers:\n  - rule: coverage.pending-run\n    id: x\n    reason: r\n"
    )
    config = trusted(monkeypatch, tmp_path, "format: json\nrefs: [refs/heads]\n")
    code, out = gate_json("doctor", str(quest.root))
    checks = {c["name"]: c for c in out["checks"]}
    assert checks["trusted config"]["status"] == "ok"
    assert checks["trusted config"]["message"].startswith(
        f"{config} ($DS_GATE_CONFIG) (trusted): format=json, refs=refs/heads"
    )
    quest_config = checks["config"]
    assert quest_config["status"] == "warn"  # old: "ok", the narrowing config was called fine
    assert "untrusted" in quest_config["message"] and "applied: require=true (.ds-gate.yaml)" in quest_config["message"]
    assert "ignored" in quest_config["message"] and "source=folders (.ds-gate.yaml)" in quest_config["message"]
    assert "--from-folders" in quest_config["fix"]
    assert checks["quest waivers"]["status"] == "warn" and "is a proposal" in checks["quest waivers"]["message"]
    assert "--accept-quest-waivers" in checks["quest waivers"]["fix"]


@pytest.mark.slow
def test_the_hooks_keep_the_gate_on_where_a_branch_dropped_the_toggle(one_run_quest, tmp_path, monkeypatch) -> None:
    """The commit hook on a finalization commit and the pre-push gate agree with closure."""
    quest = one_run_quest
    assert main(["install", str(quest.root)]) == 0
    git(quest.root, "checkout", "-q", "-b", "final")
    _drop_toggle(quest.root / "quest.yaml")
    quest.checkpoint(quest.root, "quest: settings")  # an ordinary checkpoint: never blocked
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode != 0 and "REJECTED" in rejected.stdout + rejected.stderr  # old: passed, gate off
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    tip = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "pre-push", "origin", "url"],
        cwd=quest.root,
        input=f"refs/heads/final {tip} refs/heads/final {'0' * 40}\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "REJECTED" in done.stdout, done.stdout + done.stderr  # old: 0
    config = trusted(monkeypatch, tmp_path, f"no_require: [{quest.root}]\n")  # the owner turns it off, for good
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "pre-push", "origin", "url"],
        cwd=quest.root,
        input=f"refs/heads/final {tip} refs/heads/final {'0' * 40}\n",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "not enforced: no_require in" in done.stdout, done.stdout + done.stderr
    assert str(config) in " ".join(done.stdout.split())


@pytest.mark.slow
def test_the_pytest_plugin_takes_acceptance_and_no_require_from_its_trusted_options(pytester, waiving_quest) -> None:
    quest, run = waiving_quest
    item = "quest-001::coverage"  # fails while the run is pending

    def outcome(*args: str) -> str:
        result = pytester.runpytest_subprocess(*args, "-rA", "-p", "no:cacheprovider")
        return next(line.split()[0] for line in result.outlines if line.split()[1:2] == [item])

    assert outcome(f"--ds-gate={quest.root}") == "FAILED"  # the quest's own waiver is a proposal
    assert outcome(f"--ds-gate={quest.root}", "--ds-gate-accept-quest-waivers") == "PASSED"
    assert outcome(f"--ds-gate={quest.root}", "--ds-gate-no-require") == "PASSED"  # the gate off, trusted
    pytester.makeini(f"[pytest]\nds_gate_paths = {quest.root}\nds_gate_accept_quest_waivers = true\n")
    assert outcome() == "PASSED"  # the CI repository's ini is trusted


def _drop_toggle(path: Path) -> None:
    text = path.read_text()
    path.write_text(
        "\n".join(
            line
            for line in text.splitlines()
            if "experience_distill" not in line and "mode: 'on'" not in line and "mode: on" not in line
        )
        + "\n"
    )


def test_a_toggle_spelt_with_a_yaml_escape_in_an_earlier_commit_keeps_the_gate_on(make_quest, gate_json) -> None:
    """The history's versions are read by what they mean: an escape cannot hide the word."""
    quest = make_quest(quest_yaml='quest_id: \'001\'\nstartup_contract:\n  "experience\\u005fdistill": "on"\n')
    run = quest.run(quest.root, "main-001")
    assert "experience_distill" not in (quest.root / "quest.yaml").read_text()
    assert gate_json("closure", str(quest.root))[1]["enforced"] is True  # read at the root: on
    (quest.root / "quest.yaml").write_text("quest_id: '001'\nstartup_contract: {}\n")
    quest.checkpoint(quest.root, "quest: drop the toggle")
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and out["experience_distill"] is False and out["pending_run_ids"] == [run]  # old: 0


def test_a_forks_action_named_by_the_quest_passes_checkpoints_but_closure_wants_a_trusted_list(
    make_quest, tmp_path, monkeypatch
) -> None:
    """Issue 24, root 1: ``decision_actions`` in the quest's own ``.ds-gate.yaml`` silenced a
    contract error everywhere. A fork's checkpoints still go through on it (DeepScientist accepted
    the decision), but closure takes the list only from the user's configuration or a plugin."""
    from ds_gate.engine.gate import evaluate

    quest = make_quest()
    quest.decision(quest.root, "controller_backoff_pending")
    (quest.root / ".ds-gate.yaml").write_text("decision_actions: [controller_backoff_pending]\n")

    def unknown(command: str) -> list[str]:
        return [
            f.hint or ""
            for f in evaluate(quest.root, command).findings
            if f.rule == "decision.unknown-action" and f.severity == "error" and not f.waived
        ]

    assert unknown("check") == []
    assert main(["install", str(quest.root)]) == 0
    done = commit(quest.root, "artifact: decision")  # an ordinary checkpoint of the fork: never blocked
    assert done.returncode == 0, done.stdout + done.stderr
    [hint] = unknown("closure")  # old: [] (the quest's own list lowered the verdict)
    assert "decision_actions: [controller_backoff_pending]" in hint and "config.yaml" in hint
    trusted(monkeypatch, tmp_path, "decision_actions: [controller_backoff_pending]\n")
    assert unknown("closure") == []
    trusted(monkeypatch, tmp_path, "decision_actions: controller_backoff_pending\n")  # not a list: the gate stops
    with pytest.raises(QuestError, match="decision_actions must be a list"):
        evaluate(quest.root, "closure")
