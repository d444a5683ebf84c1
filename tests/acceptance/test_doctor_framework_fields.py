"""Issue 35, root C: doctor said "guarded" for a framework hook whose fields made pre-commit run
something else. A ``repo: local`` ``ds-gate-closure`` with ``language: python`` and
``additional_dependencies: [<a wheel inside the quest>]`` runs that wheel's ``ds-gate`` (exit 0),
and doctor said ok. Doctor now reads each field as pre-commit does (``doctor_hook_fields``).

Each case is judged twice, by doctor and by the real pre-commit framework (installed, then an
ordinary checkpoint and a finalization commit): where doctor says the hook is ok, the checkpoint
must pass and the finalization must be refused; where it fails, the message names the field.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.version import HOMEPAGE

from helpers import REPO, commit, readme_pre_commit_config

pytestmark = pytest.mark.slow  # pre-commit and ds-gate run as programs

MANIFEST = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
GUARDS = ("ds-gate-validate", "ds-gate-closure", "ds-gate-pre-push")


def fake_wheel(folder: Path) -> Path:
    """A wheel whose console script ``ds-gate`` prints ok and exits 0: the agent's program."""
    files = {
        "dsgatefake/__init__.py": "def main():\n    print('ds-gate: OK')\n    return 0\n",
        "dsgatefake-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: dsgatefake\nVersion: 1.0\n",
        "dsgatefake-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        "dsgatefake-1.0.dist-info/entry_points.txt": "[console_scripts]\nds-gate = dsgatefake:main\n",
    }
    record = [
        f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b'=').decode()},{len(c)}"
        for p, c in files.items()
    ]
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / "dsgatefake-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
        archive.writestr("dsgatefake-1.0.dist-info/RECORD", "\n".join([*record, "dsgatefake-1.0.dist-info/RECORD,,"]))
    return wheel


def local_hooks(closure: dict[str, Any]) -> list[dict[str, Any]]:
    """The manifest's guards as ``repo: local`` ``language: system`` hooks, the closure's fields replaced."""
    hooks = [dict(MANIFEST[i], language="system") for i in GUARDS]
    hooks[1] = {k: v for k, v in {**hooks[1], **closure}.items() if v is not None}  # None: the field left out
    return hooks


def install(quest: ExampleQuest, config: dict[str, Any]) -> None:
    (quest.root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    quest.checkpoint(quest.root, "pre-commit config")
    tool = str(Path(sys.executable).parent / "pre-commit")
    done = subprocess.run([tool, "install", "-t", "pre-commit", "-t", "pre-push"], cwd=quest.root, capture_output=True)
    assert done.returncode == 0, done


def hook_checks(gate_json, quest: ExampleQuest) -> dict[str, dict[str, str]]:
    """doctor's checks by name, those of one name (a warning each) as one: the worst status, every message."""
    _, out = gate_json("doctor", str(quest.root))
    found: dict[str, dict[str, str]] = {}
    for check in out["checks"]:
        seen = found.setdefault(check["name"], {"status": "ok", "message": ""})
        order = ("ok", "warn", "fail")
        seen["status"] = max(seen["status"], check["status"], key=order.index)
        seen["message"] += check["message"] + " | "
    return found


WHEEL = "{wheel}"  # replaced by the quest's wheel
LOCAL_CASES = {
    # name: (the closure's fields, the top level's, the field doctor names or None for ok, what pre-commit does)
    "python with the quest's wheel": (
        {"language": "python", "additional_dependencies": [WHEEL]},
        {},
        "additional_dependencies",
        "finalizes",
    ),
    "system with additional_dependencies": (
        {"additional_dependencies": ["ds-gate"]},
        {},
        "additional_dependencies",
        "stops",
    ),
    "system with a language_version": ({"language_version": "python3"}, {}, "language_version", "stops"),
    "pass_filenames true": ({"pass_filenames": True}, {}, "pass_filenames", "stops"),
    "always_run left out, the top level excludes paper/": (
        {"always_run": None},
        {"exclude": "^paper/"},
        "always_run",
        "finalizes",
    ),
    "language script runs ./ds-gate": ({"language": "script"}, {}, "language", "finalizes"),
    "stages left out, default_stages manual": (
        {"stages": None},
        {"default_stages": ["manual"]},
        "default_stages",
        None,
    ),
    "the documented local config": ({}, {}, None, "guards"),
    "the legacy stage name commit": ({"stages": ["commit"]}, {}, None, "guards"),
    "the entry's last word as args": ({"entry": "ds-gate commit-check", "args": ["--no-validate"]}, {}, None, "guards"),
    "language python, nothing added": ({"language": "python"}, {}, None, "guards"),
}


@pytest.mark.parametrize("case", LOCAL_CASES)
def test_doctor_vouches_for_a_local_hook_only_where_pre_commit_runs_ds_gate(make_quest, gate_json, case) -> None:
    closure, top, field, real = LOCAL_CASES[case]
    quest = make_quest()
    wheel = str(fake_wheel(quest.root / ".ds" / "wheels"))
    (quest.root / "ds-gate").write_text("#!/bin/sh\necho 'ds-gate: OK'\n")  # the quest's own program
    (quest.root / "ds-gate").chmod(0o755)
    closure = {
        k: [wheel if d == WHEEL else d for d in v] if k == "additional_dependencies" else v for k, v in closure.items()
    }
    install(quest, {**top, "repos": [{"repo": "local", "hooks": local_hooks(closure)}]})
    hook = hook_checks(gate_json, quest)["hook"]
    if field is None:
        assert hook["status"] == "ok", hook
    else:
        assert hook["status"] == "fail" and "ds-gate-closure" in hook["message"], hook
        assert f"`{field}" in hook["message"] and "fix:" in hook["message"], hook["message"]

    run = quest.run(quest.root, "main-001")
    checkpoint = commit(quest.root, f"experiment: record {run}")
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text('{"title": "t"}\n')
    finalization = commit(quest.root, "paper: bundle")
    said = checkpoint.stdout + checkpoint.stderr + finalization.stdout + finalization.stderr
    if hook["status"] == "ok":  # what doctor vouches for holds
        assert checkpoint.returncode == 0 and finalization.returncode != 0, said
        assert run in finalization.stdout + finalization.stderr
    if real == "finalizes":  # the break is real: pre-commit let the finalization through
        assert checkpoint.returncode == 0 and finalization.returncode == 0, said
    elif real == "stops":  # pre-commit stops every commit: DeepScientist's checkpoints stop
        assert checkpoint.returncode != 0, said


REMOTE_CASES = {
    # name: (the closure's fields, the top level's, the doctor status of hook, the field doctor names)
    "the docs' snippet": ({}, {}, "ok", None),
    "additional_dependencies": ({"additional_dependencies": ["{wheel}"]}, {}, "fail", "additional_dependencies"),
    "an interpreter inside the quest": (
        {},
        {"default_language_version": {"python": "{python}"}},
        "fail",
        "default_language_version",
    ),
    "an interpreter found on the PATH": ({}, {"default_language_version": {"python": "python3"}}, "ok", None),
    "an interpreter doctor cannot tell (pypy3)": ({"language_version": "pypy3"}, {}, "ok", "language_version"),
    "stages moved to manual": ({"stages": ["manual"]}, {}, "fail", "stages"),
    "an entry of its own": ({"entry": "true"}, {}, "fail", "entry"),
    "args added": ({"args": ["--help"]}, {}, "fail", "args"),
}


@pytest.mark.parametrize("case", REMOTE_CASES)
def test_doctor_reads_the_fields_over_ds_gates_own_hooks(make_quest, gate_json, case) -> None:
    """The snippet's ``repo:`` (ds-gate's address, which doctor cannot fetch: it judges the
    config over ds-gate's own manifest); an interpreter pre-commit cannot vouch for is a warning."""
    closure, top, status, field = REMOTE_CASES[case]
    quest = make_quest()
    python = quest.root / ".ds" / "bin" / "python3"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    values = {"{wheel}": str(fake_wheel(quest.root / ".ds" / "wheels")), "{python}": str(python)}
    config = yaml.safe_load(readme_pre_commit_config())
    [repo] = config["repos"]
    assert repo["repo"] == HOMEPAGE
    repo["hooks"] = [h if h["id"] != "ds-gate-closure" else {**h, **closure} for h in repo["hooks"]]
    text = yaml.safe_dump({**config, **top}, sort_keys=False)
    for name, value in values.items():
        text = text.replace(name, value)
    install(quest, yaml.safe_load(text))
    found = hook_checks(gate_json, quest)
    assert found["hook"]["status"] == status, found["hook"]
    said = found["hook"]["message"] + found.get("pre-commit hooks", {}).get("message", "")
    if field is not None:
        assert f"`{field}" in said and "ds-gate-closure" in said, found
    if status == "ok" and field is not None:  # a doubt: a warning that says why
        assert found["pre-commit hooks"]["status"] == "warn" and "cannot tell" in said, found
    elif status == "ok":
        assert "pre-commit hooks" not in found, found  # nothing to say


def test_a_hook_that_runs_after_the_closure_is_a_warning(make_quest, gate_json) -> None:
    """A hook pre-commit runs after ds-gate-closure can stage what the gate never judged: git
    re-reads the index after the hook, so the paper bundle it adds is committed ungated."""
    tidy = {"id": "tidy", "name": "tidy", "entry": "sh -c 'git add paper 2>/dev/null || true'"}
    tidy |= {"language": "system"}
    tidy |= {"always_run": True, "pass_filenames": False}
    quest = make_quest()
    install(quest, {"repos": [{"repo": "local", "hooks": [*local_hooks({}), tidy]}]})
    found = hook_checks(gate_json, quest)
    assert found["hook"]["status"] == "ok" and found["pre-commit hooks"]["status"] == "warn", found
    assert "'tidy' (local) runs after ds-gate-closure" in found["pre-commit hooks"]["message"], found
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, f"experiment: record {run}")
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text('{"title": "t"}\n')
    (quest.root / "notes.md").write_text("notes\n")
    done = commit(quest.root, "notes", "notes.md")  # the bundle is staged by the later hook: the break is real
    assert done.returncode == 0 and (quest.root / "paper" / "paper_bundle_manifest.json").exists()
    listed = subprocess.run(["git", "show", "--name-only", "--format="], cwd=quest.root, capture_output=True, text=True)
    assert "paper/paper_bundle_manifest.json" in listed.stdout
    tidy["stages"] = ["pre-push"]  # not on a commit: nothing to say
    install(quest, {"repos": [{"repo": "local", "hooks": [*local_hooks({}), tidy]}]})
    assert "pre-commit hooks" not in hook_checks(gate_json, quest)


def test_a_top_level_exclude_is_a_warning_for_the_validate_hook(make_quest, gate_json) -> None:
    """The top-level ``exclude`` filters ds-gate-validate's files (pre-commit's ``Classifier.from_config``):
    doctor cannot tell what a regex leaves out, so it warns."""
    quest = make_quest()
    install(quest, {"exclude": "^artifacts/", "repos": [{"repo": "local", "hooks": local_hooks({})}]})
    found = hook_checks(gate_json, quest)
    assert found["hook"]["status"] == "ok", found
    assert found["pre-commit hooks"]["status"] == "warn", found
    assert (
        "ds-gate-validate" in found["pre-commit hooks"]["message"]
        and "`exclude" in found["pre-commit hooks"]["message"]
    )


def test_skip_naming_a_guard_is_a_warning(make_quest, gate_json, monkeypatch) -> None:
    """``SKIP=<id or alias>`` makes pre-commit skip that hook (``commands/run.py:_get_skips``)."""
    quest = make_quest()
    install(quest, {"repos": [{"repo": "local", "hooks": local_hooks({"alias": "gate"})}]})
    monkeypatch.setenv("SKIP", "flake8, gate")
    found = hook_checks(gate_json, quest)
    assert found["pre-commit hooks"]["status"] == "warn" and "SKIP" in found["pre-commit hooks"]["message"], found
    assert os.environ["SKIP"] in found["pre-commit hooks"]["message"]


def exit_0_added(quest: ExampleQuest) -> None:
    script = quest.root / ".git" / "hooks" / "pre-commit"
    script.write_text(script.read_text().replace("# end templated\n", "# end templated\nexit 0\n"))


def python_in_the_quest(quest: ExampleQuest) -> None:
    fake = quest.root / ".git" / "info" / "python3"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    script = quest.root / ".git" / "hooks" / "pre-commit"
    lines = script.read_text().splitlines(keepends=True)
    script.write_text("".join(f"INSTALL_PYTHON={fake}\n" if x.startswith("INSTALL_PYTHON=") else x for x in lines))


def pre_commit_at_the_top(quest: ExampleQuest) -> None:
    (quest.root / "pre_commit").mkdir()
    (quest.root / "pre_commit" / "__init__.py").write_text("")
    (quest.root / "pre_commit" / "__main__.py").write_text("print('pre-commit: all hooks passed')\n")


def stdlib_module_at_the_top(quest: ExampleQuest) -> None:
    (quest.root / "shlex.py").write_text("raise SystemExit(0)\n")


def another_stage(quest: ExampleQuest) -> None:
    script = quest.root / ".git" / "hooks" / "pre-commit"
    script.write_text(script.read_text().replace("--hook-type=pre-commit", "--hook-type=post-checkout"))


def framework_kept_as_chained(quest: ExampleQuest) -> None:
    hooks = quest.root / ".git" / "hooks"
    (hooks / "pre-commit").rename(hooks / "pre-commit.ds-gate-chained")
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (hooks / "pre-commit").chmod(0o755)


SCRIPT_CASES = {
    "exit 0 added": (exit_0_added, "not the script"),
    "INSTALL_PYTHON inside the quest": (python_in_the_quest, "INSTALL_PYTHON"),
    "a pre_commit package at the quest's top": (pre_commit_at_the_top, "module pre_commit"),
    "a standard module at the quest's top": (stdlib_module_at_the_top, "module shlex"),
    "another stage": (another_stage, "post-checkout"),
    "the framework's script kept as chained, an exit 0 hook": (framework_kept_as_chained, "no commit hook"),
}


@pytest.mark.parametrize("case", SCRIPT_CASES)
def test_doctor_vouches_for_the_frameworks_script_only_as_pre_commit_writes_it(make_quest, gate_json, case) -> None:
    """The framework's hook script is the agent's to write, as ``install``'s own are: doctor
    compares it with pre-commit's template, judges its INSTALL_PYTHON, and looks at each
    worktree's top, which ``python -m pre_commit`` puts first on ``sys.path``."""
    change, named = SCRIPT_CASES[case]
    quest = make_quest()
    install(quest, {"repos": [{"repo": "local", "hooks": local_hooks({})}]})
    assert hook_checks(gate_json, quest)["hook"]["status"] == "ok"
    change(quest)
    hook = hook_checks(gate_json, quest)["hook"]
    assert hook["status"] == "fail" and named in hook["message"], hook
    run = quest.run(quest.root, "main-001")
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text('{"title": "t"}\n')
    finalization = commit(quest.root, f"paper: bundle beside {run}")
    if case != "another stage":  # the break is real: the finalization went through
        assert finalization.returncode == 0, finalization.stdout + finalization.stderr
