"""Issue 18.1: the pre-commit snippet (docs/hooks.md, once the README's) works as written, with the real ``pre-commit``
and its own ``language: python`` environment (not ``repo: local``): its repository URL is a
``file://`` repository of this project's current files, ``pre-commit autoupdate --freeze``
pins ``rev`` to that repository's HEAD sha as the page says, and the hooks gate a
finalization commit. pip is kept offline: it sees only the local package index configured
for this machine (the test is skipped where none is)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import REPO, commit, git, head_subject, readme_pre_commit_config

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

README_URL = "https://github.com/ds-gate/ds-gate"  # the project's address, as docs/hooks.md writes it


def local_pip_env() -> dict[str, str]:
    """pip's configured package sources that are on this machine (the real user's pip
    configuration: the tests run with a HOME of their own), as extra indexes beside pip's own
    index: a local mirror may lack a package another Python needs (hatchling's ``tomli`` on
    3.10, as ``.ci/package`` runs it); empty when no local index is configured."""
    real_home = pwd.getpwuid(os.getuid()).pw_dir
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": real_home},
    )
    values: dict[str, list[str]] = {}
    for line in listed.stdout.splitlines():
        key, _, value = line.partition("=")
        values.setdefault(key.rsplit(".", 1)[-1], []).extend(value.strip("'\"").split())
    for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        key = name.removeprefix("PIP_").lower().replace("_", "-")
        values.setdefault(key, []).extend(os.environ.get(name, "").split())
    indexes = [u for key in ("index-url", "extra-index-url") for u in values.get(key, []) if u.startswith("file:")]
    links = [u for u in values.get("find-links", []) if not u.startswith(("http:", "https:"))]
    if not indexes:
        return {}
    return {
        "PIP_EXTRA_INDEX_URL": " ".join(indexes),
        "PIP_FIND_LINKS": " ".join(links),
        "VIRTUALENV_NO_PERIODIC_UPDATE": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }


def snapshot(tmp_path: Path) -> tuple[Path, str]:
    """A git repository of this project's files as they are now (committed or not), and its HEAD.
    From an unpacked sdist (no git, ``.ci/package``), every file it holds but caches."""
    if (REPO / ".git").exists():
        files = subprocess.run(
            ["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=REPO, capture_output=True, check=True
        ).stdout.split(b"\0")
        names = [os.fsdecode(f) for f in files if f]
    else:
        names = [
            str(p.relative_to(REPO))
            for p in REPO.rglob("*")
            if not {"__pycache__", ".pytest_cache", ".hypothesis"} & set(p.relative_to(REPO).parts)
        ]
    repo = tmp_path / "ds-gate"
    for name in names:
        if (REPO / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, repo / name)
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "ds-gate as tested")
    return repo, git(repo, "rev-parse", "HEAD").stdout.strip()


def test_the_readme_pre_commit_snippet_installs_and_gates(make_quest, tmp_path, monkeypatch) -> None:
    pip_env = local_pip_env()
    if not pip_env:
        pytest.skip("no local package index is configured for pip: building pre-commit's environment needs one")
    for name, value in pip_env.items():
        monkeypatch.setenv(name, value)
    snippet = readme_pre_commit_config()
    assert f"repo: {README_URL}\n" in snippet and "rev: COMMIT-SHA" in snippet and "v0.1.0" not in snippet
    [entry] = yaml.safe_load(snippet)["repos"]
    assert "language" not in str(entry) and entry["repo"] != "local"  # the manifest's own language: python
    repo, sha = snapshot(tmp_path)

    quest = make_quest()
    config = quest.root / ".pre-commit-config.yaml"
    config.write_text(snippet.replace(README_URL, repo.as_uri()))
    tool = str(Path(sys.executable).parent / "pre-commit")

    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([tool, *args], cwd=quest.root, capture_output=True, text=True)

    frozen = pre_commit("autoupdate", "--freeze")  # as docs/hooks.md says: it writes the sha over COMMIT-SHA
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert yaml.safe_load(config.read_text())["repos"][0]["rev"] == sha
    quest.checkpoint(quest.root, "pre-commit config")
    for step in (("install",), ("install-hooks",)):
        done = pre_commit(*step)
        assert done.returncode == 0, done.stdout + done.stderr
    hooks = quest.root / ".git" / "hooks"
    assert "pre-commit" in (hooks / "pre-push").read_text()  # issue 27: the page's one `install` brings pre-push too

    run = quest.run(quest.root, "main-001")
    checkpoint = commit(quest.root, "experiment: record main-001")
    assert checkpoint.returncode == 0, checkpoint.stdout + checkpoint.stderr
    assert "ds-gate validate" in checkpoint.stdout + checkpoint.stderr
    (quest.root / "paper").mkdir()
    (quest.root / "paper/paper_bundle_manifest.json").write_text('{"package_type": "paper_draft_checkpoint"}\n')
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode != 0 and head_subject(quest.root) == "experiment: record main-001"
    assert "ds-gate-closure" in rejected.stdout + rejected.stderr and run in rejected.stdout + rejected.stderr
    quest.review(quest.root, [run])
    accepted = commit(quest.root, "paper: bundle")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    envs = list(Path(os.environ["PRE_COMMIT_HOME"]).glob("repo*/py_env-*/bin/ds-gate"))
    assert envs, "pre-commit built its own python environment with ds-gate in it"
