"""Issue 15.1, 15.2, 15.4, 15.5: no program named by a quest's git configuration ever runs,
no ``git`` found in the quest runs, and no planted ``.git`` pointer redirects a command.

A hostile quest plants (through ``include.path``, as an attacker would hide it) every
setting git 2.39 knows that makes a command start a program: gpg for signed commits,
fsmonitor, clean/smudge/process filters, diff drivers and textconv, pagers, ssh, askpass,
credential helpers, proxies, hooks. Each program would leave a marker file; after every
command the marker folder must be empty.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.cli.main import main

from helpers import git

pytest_plugins = ["pytester"]

SIGNER = """#!/bin/sh
cat >/dev/null
echo "[GNUPG:] SIG_CREATED D 1 8 00 0 0 0" >&2
printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n'
"""

PROGRAMS = [
    "fsmonitor",
    "ssh",
    "askpass",
    "proxy",
    "altrefs",
    "gpg",
    "gpgssh",
    "gpgx509",
    "clean",
    "smudge",
    "process",
    "textconv",
    "diffcmd",
    "external",
    "pager",
    "pagerlog",
    "pagerdiff",
    "credential",
    "uploadpack",
    "editor",
]
HOOKS = [
    "post-checkout",
    "post-index-change",
    "reference-transaction",
    "pre-commit",
    "post-commit",
    "pre-push",
    "fsmonitor-watchman",
    "post-rewrite",
    "pre-auto-gc",
]


def evil_config(bin_dir: Path) -> str:
    def run(name: str) -> str:  # a program of its own: gpg.program and others are not run through a shell
        return str(bin_dir / name)

    return f"""[core]
\tfsmonitor = {run("fsmonitor")}
\tpager = {run("pager")}
\tsshCommand = {run("ssh")}
\taskPass = {run("askpass")}
\tgitProxy = {run("proxy")}
\talternateRefsCommand = {run("altrefs")}
\teditor = {run("editor")}
\thooksPath = {bin_dir / "hooks"}
[log]
\tshowSignature = true
[gpg]
\tprogram = {run("gpg")}
[gpg "ssh"]
\tprogram = {run("gpgssh")}
[gpg "x509"]
\tprogram = {run("gpgx509")}
[filter "evil"]
\tclean = {run("clean")}
\tsmudge = {run("smudge")}
\tprocess = {run("process")}
[diff "evil"]
\ttextconv = {run("textconv")}
\tcommand = {run("diffcmd")}
[diff]
\texternal = {run("external")}
[pager]
\tlog = {run("pagerlog")}
\tdiff = {run("pagerdiff")}
[credential]
\thelper = {run("credential")}
[remote "origin"]
\tuploadpack = {run("uploadpack")}
[protocol "file"]
\tallow = always
"""


def plant(repo: Path, bin_dir: Path) -> None:
    """Hide the settings in a file ``.git/config`` includes, the way an attacker would."""
    gitdir = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").stdout.strip())
    (gitdir / "evil.config").write_text(evil_config(bin_dir))
    with (gitdir / "config").open("a") as out:
        out.write("[include]\n\tpath = evil.config\n")


@pytest.fixture
def arsenal(tmp_path: Path) -> tuple[Path, Path]:
    """(bin folder with the marker-leaving programs, marker folder)."""
    bin_dir, markers = tmp_path / "evil-bin", tmp_path / "markers"
    (bin_dir / "hooks").mkdir(parents=True)
    markers.mkdir()
    for name in PROGRAMS:
        (bin_dir / name).write_text(f'#!/bin/sh\ntouch "{markers}/{name}"\ncat\n')
        (bin_dir / name).chmod(0o755)
    for hook in HOOKS:
        (bin_dir / "hooks" / hook).write_text(f'#!/bin/sh\ntouch "{markers}/hook-{hook}"\n')
        (bin_dir / "hooks" / hook).chmod(0o755)
    signer = bin_dir / "signer"
    signer.write_text(SIGNER)
    signer.chmod(0o755)
    return bin_dir, markers


@pytest.fixture
def hostile(make_quest, home, arsenal):
    """A quest (worktree, signed commits, filtered files) and a home memory repository, both
    configured to start a marker program for everything git can start."""
    bin_dir, markers = arsenal
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    (quest.root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (wt / ".gitattributes").write_text("* filter=evil diff=evil\n")
    run = quest.run(wt, "main-001")
    git(wt, "add", "-A")
    git(wt, "-c", f"gpg.program={bin_dir / 'signer'}", "commit", "-q", "-S", "-m", "record (signed)")
    review = quest.review(wt, [run])  # writes a global card into the home
    git(wt, "add", "-A")
    git(wt, "-c", f"gpg.program={bin_dir / 'signer'}", "commit", "-q", "-S", "-m", "review (signed)")
    git(quest.root, "add", "-A")
    git(quest.root, "-c", f"gpg.program={bin_dir / 'signer'}", "commit", "-q", "-S", "-m", "attributes (signed)")
    memory = home / "memory"
    (memory / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(memory, "init", "-q")
    git(memory, "add", "-A")
    git(memory, "-c", f"gpg.program={bin_dir / 'signer'}", "commit", "-q", "-S", "-m", "memory (signed)")
    card = next((memory / "knowledge").glob("*.md"))
    card.write_text(card.read_text().replace("Observation", "Observed"))  # changed since HEAD: lineage --since reads it
    (wt / "notes.md").write_text("staged, for the commit hook\n")
    git(wt, "add", "notes.md")
    plant(quest.root, bin_dir)
    plant(memory, bin_dir)
    assert not list(markers.iterdir())  # nothing ran while building
    return quest, wt, review


def gitdir_state(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


COMMANDS = {
    "check": ["check", "{wt}"],
    "closure": ["closure", "{wt}"],
    "from-git": ["closure", "{wt}", "--from-git"],
    "also-git": ["check", "{wt}", "--also-git"],
    "candidates": ["candidates", "{wt}", "--also-git"],
    "recent": ["recent", "{wt}"],
    "validate": ["validate", "{wt}/artifacts/decisions/{review}.json"],
    "commit-check": ["commit-check"],
    "pre-push": ["pre-push", "origin", "ssh://example.invalid/quest"],
    "lineage": ["lineage", "--home", "{home}", "{root}"],
    "lineage-since": ["lineage", "--home", "{home}", "--since", "HEAD"],
    "recall": ["recall", "--tags", "topic:a", "--query", "lesson", "--quest", "{wt}"],
    "install": ["install", "{root}"],
    "report": ["report", "--home", "{home}"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_program_the_quest_configures_ever_runs(command, hostile, home, arsenal, monkeypatch, capsys) -> None:
    quest, wt, review = hostile
    _, markers = arsenal
    args = [a.format(wt=wt, root=quest.root, home=home, review=review) for a in COMMANDS[command]]
    monkeypatch.chdir(wt)
    if command == "pre-push":
        head = (quest.root / ".git" / "refs" / "heads" / "idea" / "001-a").read_text().strip()
        monkeypatch.setattr(
            "sys.stdin", io.StringIO(f"refs/heads/idea/001-a {head} refs/heads/idea/001-a {'0' * 40}\n")
        )
    memory_git = gitdir_state(home / "memory" / ".git")
    code = main([*args, "--format", "json"])
    capsys.readouterr()
    assert code == (2 if command == "install" else code) and code in (0, 1, 2)  # install: hooksPath leads out, refused
    assert sorted(p.name for p in markers.iterdir()) == []
    assert gitdir_state(home / "memory" / ".git") == memory_git  # lineage --since refreshes no index


@pytest.mark.slow
def test_the_pytest_plugin_starts_no_program_either(hostile, arsenal, pytester) -> None:
    quest, wt, _ = hostile
    result = pytester.runpytest_subprocess(f"--ds-gate={wt}", "-p", "no:cacheprovider")
    assert result.ret in (0, 1)
    assert sorted(p.name for p in arsenal[1].iterdir()) == []


def test_lineage_since_still_finds_exactly_the_changed_cards(hostile, home, gate_json) -> None:
    code, out = gate_json("lineage", "--home", str(home), "--since", "HEAD")
    assert code in (0, 1)
    assert "1 card of" in " ".join(out.get("notes", []))


@pytest.mark.slow
def test_a_git_planted_in_the_quest_is_never_run(make_quest, tmp_path, monkeypatch) -> None:
    """An empty PATH entry means "the current folder": the hook runs in the quest, so a
    ``git`` there would run with the user's secrets. Only absolute PATH entries are searched."""
    quest = make_quest()
    quest.run(quest.root, "main-001")
    marker = tmp_path / "planted-git-ran"
    planted = quest.root / "git"
    planted.write_text(f'#!/bin/sh\ntouch "{marker}"\nexit 1\n')
    planted.chmod(0o755)
    real = Path(shutil.which("git") or "/usr/bin/git").parent
    env = {**os.environ, "PATH": f"{os.pathsep}{real}{os.pathsep}{Path(sys.executable).parent}"}
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", "."], cwd=quest.root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


@pytest.mark.parametrize("pointer", ["gitdir-file", "commondir"])
def test_a_planted_git_pointer_to_another_quest_is_refused(pointer, make_quest, home, capsys) -> None:
    """``closure A`` must never judge B (and ``install A`` never write B's hooks)."""
    a, b = make_quest("001"), make_quest("002")
    b.run(b.root, "main-002")
    a.run(a.root, "main-001")
    if pointer == "gitdir-file":
        shutil.rmtree(a.root / ".git")
        (a.root / ".git").write_text(f"gitdir: {b.root / '.git'}\n")
        named = a.root / ".git"
    else:
        (a.root / ".git" / "commondir").write_text(f"{b.root / '.git'}\n")
        named = a.root / ".git" / "commondir"
    hooks_before = sorted(p.name for p in (b.root / ".git" / "hooks").iterdir())
    for args in (["closure", str(a.root)], ["check", str(a.root)], ["install", str(a.root)]):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert str(named) in err and "Traceback" not in err
    assert sorted(p.name for p in (b.root / ".git" / "hooks").iterdir()) == hooks_before


def test_a_missing_folder_is_not_reported_as_git_missing(tmp_path) -> None:
    """Issue 15.15: the message names what is wrong (the folder), not git."""
    from ds_gate.kernel.git import GitError
    from ds_gate.kernel.git import git as run_git

    with pytest.raises(GitError) as caught:
        run_git(["rev-parse", "--git-dir"], tmp_path / "no-such-folder")
    assert "does not exist" in str(caught.value) and "not installed" not in str(caught.value)
