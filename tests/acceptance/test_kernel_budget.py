"""Issue 26: the commit hook's common path is the kernel's alone, standard library only, within
an import budget. Counted from what the kernel itself imports (``sys.modules`` after, minus
before), so whatever a site ``.pth`` file loads at start-up is not charged to it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ds_gate
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.layout import MANIFEST

from helpers import add_remote, commit, git, imported_modules

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

# the kernel modules and standard modules one checkpoint may load, as measured (issue 26)
OWN_BUDGET = {"nothing gated": 13, "a run record": 20}
STDLIB_BUDGET = {"nothing gated": 4, "a run record": 6}
KERNEL = {"kernel", *(f"kernel.{p.stem}" for p in (Path(ds_gate.__file__).parent / "kernel").glob("*.py"))}
NEVER = {"typing", "re", "enum", "json", "subprocess", "dataclasses", "pathlib", "argparse", "inspect", "hashlib"}

PROBE = """
import sys
before = set(sys.modules)
from ds_gate.kernel.checkpoint import checkpoint_passes
passed = checkpoint_passes(".")
loaded = sorted(set(sys.modules) - before)
import json
print(json.dumps({"passed": passed, "loaded": loaded}))
"""


def kernel_imports(workspace: Path) -> tuple[bool, list[str], list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=workspace, capture_output=True, text=True, check=True)
    answer = json.loads(done.stdout)
    own = [m for m in answer["loaded"] if m == "ds_gate" or m.startswith("ds_gate.")]
    return answer["passed"], own, [m for m in answer["loaded"] if m not in own]


@pytest.mark.parametrize("staged", ["nothing gated", "a run record"])
def test_a_checkpoint_is_answered_by_the_kernel_within_its_budget(tmp_path: Path, staged: str) -> None:
    quest = ExampleQuest(tmp_path / "quests" / "001").create()
    (quest.root / "notes.md").write_text("progress\n")
    if staged == "a run record":
        quest.run(quest.root, "main-002", status="running")
    git(quest.root, "add", "-A")
    passed, own, stdlib = kernel_imports(quest.root)
    assert passed  # the kernel answered: this is the path every such checkpoint takes
    assert all(m == "ds_gate" or m.startswith("ds_gate.kernel") for m in own), own
    assert all(m.split(".")[0] in sys.stdlib_module_names for m in stdlib), stdlib  # standard library only
    assert NEVER.isdisjoint(stdlib), stdlib
    assert len(own) <= OWN_BUDGET[staged], own
    assert len(stdlib) <= STDLIB_BUDGET[staged], stdlib
    assert ("ds_gate.kernel.triage" in own) == (staged == "a run record")  # the record was judged, here


def test_the_budget_counts_what_a_heavier_path_would_load(tmp_path: Path) -> None:
    """The probe is not blind: a card staged takes the full path's modules in the same count."""
    quest = ExampleQuest(tmp_path / "quests" / "001").create()
    git(quest.root, "add", "-A")
    probe = PROBE.replace(
        "from ds_gate.kernel.checkpoint import checkpoint_passes",
        "from ds_gate.engine.commit import commit_check as checkpoint_passes",
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=quest.root, capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)["loaded"]
    own = [m for m in loaded if m.startswith("ds_gate.")]
    assert "ds_gate.model.records" in own and len(own) > OWN_BUDGET["a run record"]


def pushed_through_the_hook(workspace: Path, branch: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run(
        ["git", "push", "-q", "origin", branch],
        cwd=workspace,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
    )
    imported = imported_modules(done.stderr)
    return done, imported


def test_a_push_sending_nothing_final_is_answered_by_the_kernel(tmp_path: Path) -> None:
    """The installed pre-push hook, on an ordinary push (new runs and a continue decision): the
    kernel answers, with no command line, model or engine; a push sending the paper bundle
    takes the full path, which gates it (the kernel's answer is not a blanket pass)."""
    quest = ExampleQuest(tmp_path / "quests" / "001").create()
    assert main(["install", str(quest.root)]) == 0
    add_remote(quest.root, tmp_path / "remote.git")
    branch = git(quest.root, "branch", "--show-current").stdout.strip()
    quest.run(quest.root, "main-002", status="running")
    quest.decision(quest.root, "continue")
    assert commit(quest.root, "experiment: main-002").returncode == 0
    done, imported = pushed_through_the_hook(quest.root, branch)
    assert done.returncode == 0, done.stderr
    assert "ds_gate.kernel.push" in imported
    assert {"ds_gate.cli.main", "ds_gate.engine.push", "argparse", "dataclasses", "typing"} & imported == set()
    assert {m for m in imported if m.startswith("ds_gate.")} <= {"ds_gate.__main__", *(f"ds_gate.{m}" for m in KERNEL)}

    quest.run(quest.root, "main-003")  # completed, no review
    (quest.root / "paper").mkdir(exist_ok=True)
    (quest.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    done, imported = pushed_through_the_hook(quest.root, branch)
    assert done.returncode != 0 and "ds_gate.engine.push" in imported  # the full path judged it


def test_pre_commits_push_hook_sending_nothing_final_is_answered_by_the_kernel(tmp_path: Path) -> None:
    """Issue 35 (C): under pre-commit the console script runs the push gate, with no input and
    the tips it judges found in git (every branch the remote lacks): an ordinary push is still
    the kernel's answer, with no command line loaded; a paper bundle on a branch pre-commit
    does not name takes the full path, which gates it."""
    quest = ExampleQuest(tmp_path / "quests" / "001").create()
    add_remote(quest.root, tmp_path / "remote.git")
    git(quest.root, "push", "-q", "origin", "main")
    quest.run(quest.root, "main-002", status="running")
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "experiment: main-002")
    head = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    script = Path(sys.executable).parent / "ds-gate"
    env = {
        **os.environ,
        "PYTHONPROFILEIMPORTTIME": "1",
        "PRE_COMMIT": "1",
        "PRE_COMMIT_REMOTE_NAME": "origin",
        "PRE_COMMIT_TO_REF": head,
    }
    done = subprocess.run(
        [str(script), "pre-push"], cwd=quest.root, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL
    )
    imported = imported_modules(done.stderr)
    assert done.returncode == 0 and "ds_gate.kernel.push" in imported, done.stderr[-2000:]
    assert {"ds_gate.cli.main", "ds_gate.engine.push", "argparse"} & imported == set()

    git(quest.root, "switch", "-q", "-c", "paper/p")
    (quest.root / "paper").mkdir()
    (quest.root / MANIFEST).write_text(json.dumps({"package_type": "paper_draft_checkpoint"}) + "\n")
    quest.run(quest.root, "main-003")  # completed, no review
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    git(quest.root, "switch", "-q", "main")
    done = subprocess.run(
        [str(script), "pre-push"], cwd=quest.root, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 1 and "ds_gate.engine.push" in imported_modules(done.stderr), done.stderr[-2000:]
