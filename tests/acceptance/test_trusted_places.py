"""Issue 35, root B: the trusted settings and the cache are never found where the agent can write.

DeepScientist's runners set ``HOME`` for the agent: Kimi's is
``<home>/runtime/runners/kimi/<quest>/<run>`` (inside the DeepScientist home), OpenCode's is
``<workspace>/.ds/opencode-home`` with ``XDG_CONFIG_HOME`` under it (inside the quest). Each
test sets them exactly so, plants a configuration there that would turn the gate off, and
runs the real surfaces: the installed hooks pin the user's own places at install, and a
configuration found inside a quest or a home stops the gate (exit 2), while a cache folder
there is never used (nothing appears in the quest or the home)."""

from __future__ import annotations

import json
import marshal
import os
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from ds_gate.cli.main import main
from ds_gate.config.settings import load
from ds_gate.kernel.cache_folder import GRANULARITY, SEAL
from ds_gate.kernel.places import PIN_CACHE, PIN_CONFIG, agent_writable

from helpers import commit, git

ENV_NAMES = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "DS_GATE_CACHE_DIR", "DS_GATE_CONFIG", PIN_CONFIG, PIN_CACHE)


def files_under(folder: Path) -> set[str]:
    """Every path below ``folder``, ``.git``'s objects and logs aside (commits write those)."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def kimi_home(home: Path, quest_id: str = "001") -> Path:
    return home / "runtime" / "runners" / "kimi" / quest_id / "run-1"


def opencode_home(quest_root: Path) -> Path:
    return quest_root / ".ds" / "opencode-home"


def runner_env(monkeypatch: pytest.MonkeyPatch, runner_home: Path, *, xdg: bool) -> None:
    """The environment a runner gives the agent (and the hooks its commits run)."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(runner_home))
    if xdg:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(runner_home / ".config"))


def plant_config(runner_home: Path, text: str) -> Path:
    path = runner_home / ".config" / "ds-gate" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def closure(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", str(root), *args], capture_output=True, text=True, cwd=root.parent
    )


def bundle(root: Path) -> None:
    (root / "paper").mkdir(exist_ok=True)
    (root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")


RUNNERS = ("kimi", "opencode")


def _runner_home(runner: str, home: Path, root: Path) -> Path:
    return kimi_home(home) if runner == "kimi" else opencode_home(root)


@pytest.mark.slow
@pytest.mark.parametrize("runner", RUNNERS)
def test_a_config_planted_in_the_runners_home_never_turns_the_gate_off(
    one_run_quest, home, monkeypatch, runner
) -> None:
    """The issue's example: ``no_require: [<its quest>]`` in the runner's HOME. The hooks
    installed from the user's shell use the pinned file; closure in the runner's environment stops."""
    quest = one_run_quest
    assert main(["install", str(quest.root)]) == 0  # the user's shell: the user's own places are pinned
    runner_home = _runner_home(runner, home, quest.root)
    runner_env(monkeypatch, runner_home, xdg=runner == "opencode")
    planted = plant_config(runner_home, f"no_require: [{quest.root}]\naccept_quest_waivers: [{quest.root}]\n")
    git(quest.root, "add", "-A")  # DeepScientist's own `git add -A`: the planted file is committed with the rest
    bundle(quest.root)
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode != 0 and "REJECTED" in rejected.stdout + rejected.stderr  # kimi, old: passed
    done = closure(quest.root)
    assert done.returncode == 2 and str(planted) in done.stderr and "Traceback" not in done.stderr  # kimi, old: 0
    assert "lies inside" in done.stderr and "ds-gate install" in done.stderr  # the place and the fix
    hook = (quest.root / ".git" / "hooks" / "pre-commit").read_text()
    assert f"{PIN_CONFIG}=" in hook and f"{PIN_CACHE}=" in hook


@pytest.mark.slow
@pytest.mark.parametrize("runner", RUNNERS)
def test_nothing_is_written_into_the_quest_or_the_home_under_a_runners_home(
    make_quest, home, monkeypatch, runner
) -> None:
    """No cache in the runner's HOME: twice ``closure`` (the second would write the record
    cache), ``check`` and ``recall``; the quest and the home hold exactly what they held."""
    quest = make_quest()
    quest.run(quest.root, "main-001", status="running")
    quest.checkpoint(quest.root, "record")
    runner_home = _runner_home(runner, home, quest.root)
    runner_home.mkdir(parents=True)
    runner_env(monkeypatch, runner_home, xdg=runner == "opencode")
    before = files_under(home)
    for command in (
        ["closure", str(quest.root)],
        ["closure", str(quest.root)],
        ["check", str(quest.root)],
        ["closure", str(quest.root)],
        ["recall", "--query", "anything", "--quest", str(quest.root), "--scope", "visible"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "ds_gate", *command], capture_output=True, text=True, cwd=quest.root
        )
        assert done.returncode in (0, 1), done.stderr
    assert files_under(home) == before  # old: .../.cache/ds-gate/records-*.sqlite3 (and recall's), in the quest
    assert git(quest.root, "status", "--porcelain", "--ignored").stdout == ""


def test_a_place_inside_a_quest_or_a_home_is_recognised(make_quest, home, tmp_path, monkeypatch) -> None:
    """The rule (kernel.places): named homes, folders holding quests/ or memory/, quest.yaml or .ds."""
    quest = make_quest()
    for name in ("DEEPSCIENTIST_HOME", "DS_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert agent_writable(kimi_home(home) / ".config" / "ds-gate" / "config.yaml")  # quests/ above it
    assert agent_writable(opencode_home(quest.root) / ".cache" / "ds-gate")  # quest.yaml above it
    bare = tmp_path / "bare-home"
    (bare / "memory").mkdir(parents=True)
    assert agent_writable(bare / "runtime" / "x")
    (tmp_path / "link").symlink_to(quest.root / ".ds")
    assert agent_writable(tmp_path / "link" / "config.yaml")  # a link into the quest: the resolved path counts
    monkeypatch.setenv("DS_HOME", str(tmp_path / "named"))
    assert "$DS_HOME" in (agent_writable(tmp_path / "named" / "c.yaml") or "")
    assert agent_writable(tmp_path / "user" / ".config" / "ds-gate" / "config.yaml") is None


@pytest.mark.slow
def test_the_integration_pins_the_places_and_passes_them_to_its_judge(tmp_path, monkeypatch) -> None:
    """``install --deepscientist`` records the pins beside ds-gate's interpreter, and the wrapper
    exports them to ds-gate's process whatever HOME the runner gave the MCP server."""
    from ds_gate.integration import installer

    user_config = tmp_path / "user" / "config.yaml"
    monkeypatch.setenv("DS_GATE_CONFIG", str(user_config))
    settings = {"python": sys.executable, "home": str(tmp_path), "pins": installer.pins()}
    assert settings["pins"] == {PIN_CONFIG: str(user_config), PIN_CACHE: installer.pins()[PIN_CACHE]}
    site = tmp_path / "site"
    site.mkdir()
    for name, text in installer.runtime_files(settings).items():
        (site / name).write_text(text)
    probe = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import _ds_gate_ds_wrap as w, subprocess;"
        "seen = {};"
        "real = subprocess.run\n"
        "def fake(cmd, **kw):\n"
        "    seen.update({k: v for k, v in kw['env'].items() if k.startswith('DS_GATE_PINNED_')});"
        " return real([sys.executable, '-c', 'print(1)'], capture_output=True)\n"
        "subprocess.run = fake\n"
        "try:\n    w.judge({'op': 'ping'})\nexcept Exception:\n    pass\n"
        "print(json.dumps(seen))\n"
    )
    env = {**os.environ, "HOME": str(tmp_path / "runner-home")}
    done = subprocess.run([sys.executable, "-c", probe, str(site)], capture_output=True, text=True, env=env)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == settings["pins"], done.stderr


def _forge(cache: Path, *, keep_seal: bool) -> int:
    """Edit every cached run row as an agent would with sqlite3: ``completed`` becomes ``running``."""
    forged = 0
    for file in cache.glob("records-*.sqlite3"):
        db = sqlite3.connect(file)
        with db:
            for folder, value in db.execute("SELECT path, value FROM folders").fetchall():
                seal, (stamp, held) = value[:SEAL], marshal.loads(value[SEAL:])
                if not (isinstance(held, tuple) and len(held) == 2):
                    continue  # quest.yaml's
                items = []
                for item in held[0]:  # a run ready to place: (name, id, run_id, kind, status, ..., done)
                    if "completed" in item:
                        item = tuple("running" if v == "completed" else False if v is True else v for v in item)
                        forged += 1
                    items.append(item)
                value = (seal if keep_seal else b"") + marshal.dumps((stamp, (items, held[1])))
                db.execute("UPDATE folders SET value=? WHERE path=?", (value, folder))
        db.close()
    return forged


@pytest.mark.slow
@pytest.mark.parametrize("keep_seal", [True, False], ids=["seal kept", "no seal"])
def test_a_forged_cache_row_never_lowers_the_verdict(one_run_quest, tmp_path, keep_seal) -> None:
    """A completed run set to running in the record cache's row: closure still counts it pending."""
    quest = one_run_quest
    time.sleep(GRANULARITY / 1e9 + 0.2)  # older than the cache's granularity: its rows are kept
    cache = tmp_path / "cache"
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(cache)}
    runs = []
    for _ in range(3):  # the first notes the quest, the second writes its rows, the third reads them
        done = subprocess.run(
            [sys.executable, "-m", "ds_gate", "closure", str(quest.root), "--format", "json"],
            capture_output=True,
            text=True,
            env=env,
        )
        runs.append((done.returncode, json.loads(done.stdout)["pending_run_ids"]))
    assert runs[0][0] == 1 and runs[0][1] and runs == [runs[0]] * 3
    assert _forge(cache, keep_seal=keep_seal) >= 1
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "closure", str(quest.root), "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert (done.returncode, json.loads(done.stdout)["pending_run_ids"]) == runs[0]  # old: 0, no run pending


def _graft_away_the_toggle(quest) -> str:
    """The toggle dropped in a commit that ``.git/info/grafts`` makes a root: the history
    before it (where ``experience_distill`` was on) is hidden from a git that reads grafts."""
    meta = yaml.safe_load((quest.root / "quest.yaml").read_text())
    del meta["startup_contract"]["experience_distill"]
    (quest.root / "quest.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "quest: settings")
    assert "experience_distill" not in (quest.root / "quest.yaml").read_text()
    tip = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    (quest.root / ".git" / "info").mkdir(exist_ok=True)
    (quest.root / ".git" / "info" / "grafts").write_text(f"{tip}\n")
    assert git(quest.root, "rev-list", "--count", "HEAD").stdout.strip() == "1"  # git itself reads the graft
    return tip


@pytest.mark.slow
def test_grafts_do_not_hide_the_commit_that_turned_the_toggle_on(one_run_quest) -> None:
    """closure, the commit hook's finalization and pre-push: the gate stays on (old: "(gate off)")."""
    quest = one_run_quest
    assert main(["install", str(quest.root)]) == 0
    _graft_away_the_toggle(quest)
    done = closure(quest.root)
    assert done.returncode == 1 and "REJECTED" in done.stdout, done.stdout + done.stderr  # old: 0, gate off
    bundle(quest.root)
    rejected = commit(quest.root, "paper: bundle")
    assert rejected.returncode != 0 and "REJECTED" in rejected.stdout + rejected.stderr  # old: passed
    git(quest.root, "commit", "-q", "--no-verify", "-m", "paper: bundle")
    tip = git(quest.root, "rev-parse", "HEAD").stdout.strip()
    pushed = subprocess.run(
        [sys.executable, "-m", "ds_gate", "pre-push", "origin", "url"],
        cwd=quest.root,
        input=f"refs/heads/main {tip} refs/heads/main {'0' * 40}\n",
        capture_output=True,
        text=True,
    )
    assert pushed.returncode == 1 and "REJECTED" in pushed.stdout, pushed.stdout + pushed.stderr  # old: 0


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["no_require", "accept_quest_waivers", "waiver quest"])
def test_a_link_planted_in_the_home_does_not_re_point_a_trusted_entry(
    one_run_quest, home, tmp_path, monkeypatch, entry
) -> None:
    """The trusted file names a quest since deleted; the agent plants ``quests/<its name> -> 001``."""
    quest = one_run_quest
    [run] = json.loads(closure(quest.root, "--format", "json").stdout)["pending_run_ids"]
    (quest.root / ".ds-gate.yaml").write_text(
        f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: the agent says so\n"
    )
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "waivers")
    deleted = home / "quests" / "000-deleted"
    config = tmp_path / "user" / "config.yaml"
    config.parent.mkdir()
    config.write_text(
        {
            "no_require": f"no_require: [{deleted}]\n",
            "accept_quest_waivers": f"accept_quest_waivers: [{deleted}]\n",
            "waiver quest": f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: r\n    quest: {deleted}\n",
        }[entry]
    )
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    deleted.symlink_to(quest.root)  # planted by the agent
    for args in ([str(quest.root)], ["--all-quests", str(home)]):
        done = (
            closure(*map(Path, args[:1]), *args[1:])
            if len(args) == 1
            else subprocess.run(
                [sys.executable, "-m", "ds_gate", "closure", *args], capture_output=True, text=True, cwd=tmp_path
            )
        )
        assert done.returncode == 1, done.stdout + done.stderr  # old: 0, the gate off or the waivers accepted
    done = closure(quest.root)
    assert "matches no quest" in done.stdout and "000-deleted" in done.stdout  # reported, with its fix


def _forge_commit_graph(root: Path) -> None:
    """``git commit-graph write``, then the tip's first parent set to none in the file's CDAT
    chunk, as an agent could: a git that reads the file sees the tip as a root."""
    git(root, "commit-graph", "write", "--reachable")
    path = root / ".git" / "objects" / "info" / "commit-graph"
    data = bytearray(path.read_bytes())
    chunks = {
        bytes(data[8 + 12 * i : 12 + 12 * i]): struct.unpack(">Q", data[12 + 12 * i : 20 + 12 * i])[0]
        for i in range(data[6] + 1)
    }
    oids, cdat = chunks[b"OIDL"], chunks[b"CDAT"]
    ids = [bytes(data[oids + 20 * i : oids + 20 * i + 20]).hex() for i in range((cdat - oids) // 20)]
    record = cdat + 36 * ids.index(git(root, "rev-parse", "HEAD").stdout.strip())
    data[record + 20 : record + 24] = struct.pack(">I", 0x70000000)
    path.chmod(0o644)
    path.write_bytes(bytes(data))
    assert git(root, "rev-list", "--count", "HEAD").stdout.strip() == "1"  # git itself reads the forged file


@pytest.mark.slow
def test_a_forged_commit_graph_does_not_hide_the_commit_that_turned_the_toggle_on(one_run_quest) -> None:
    """Found attacking the grafts fix: the commit-graph file rewrites parents as a graft does."""
    quest = one_run_quest
    _graft_away_the_toggle(quest)
    (quest.root / ".git" / "info" / "grafts").unlink()
    _forge_commit_graph(quest.root)
    done = closure(quest.root)
    assert done.returncode == 1 and "REJECTED" in done.stdout, done.stdout + done.stderr  # old: 0, gate off


@pytest.mark.parametrize("entry", ["no_require", "accept_quest_waivers", "waiver quest", "baseline"])
def test_a_quest_reached_through_a_link_planted_in_the_home_matches_no_entry(home, tmp_path, entry) -> None:
    """Adversary s7 B01: the entry names the switched-off quest's real folder, and the agent moves
    its own quest there, leaving ``quests/002 -> legacy``: the quest judged as 002 must not match
    (the entry side was already checked for planted links; now the judged side is too)."""
    legacy = home / "quests" / "legacy"
    legacy.mkdir()
    alias = home / "quests" / "002"
    alias.symlink_to("legacy")  # planted by the agent
    config = tmp_path / "user" / "config.yaml"
    config.parent.mkdir()
    config.write_text(
        {
            "no_require": f"no_require: [{legacy}]\n",
            "accept_quest_waivers": f"accept_quest_waivers: [{legacy}]\n",
            "waiver quest": f"waivers:\n  - rule: coverage.pending-run\n    id: run-x\n    reason: r\n    quest: {legacy}\n",
            "baseline": f"baselines:\n  - quest: {legacy}\n    commit: {'a' * 40}\n    reason: adopted\n",
        }[entry]
    )
    trusted = load(str(config))
    assert trusted.problem is None, trusted.problem
    matched = (trusted.turns_off, trusted.accepts, trusted.waivers_for, trusted.baselines_for)
    assert any(ask(legacy) for ask in matched)  # the real folder, named by the user: matched
    assert not any(ask(alias) for ask in matched)  # old: matched through the agent's link


def test_a_forged_object_file_is_unreadable_never_the_content_it_holds(one_run_quest) -> None:
    """Adversary s7 B04: git never re-hashes what it reads, so copying the toggle-off quest.yaml's
    loose object over the toggle-on one made git (and ds-gate) read "off" in every version: closure
    passed with the gate off. An object whose bytes do not hash to its id is now unreadable, and the
    toggle scan stops (exit 2) with the fix, as for a missing object."""
    quest = one_run_quest
    on = git(quest.root, "rev-parse", "HEAD:quest.yaml").stdout.strip()
    meta = yaml.safe_load((quest.root / "quest.yaml").read_text())
    del meta["startup_contract"]["experience_distill"]
    (quest.root / "quest.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "quest: settings")
    off = git(quest.root, "rev-parse", "HEAD:quest.yaml").stdout.strip()
    objects = quest.root / ".git" / "objects"
    victim = objects / on[:2] / on[2:]
    victim.chmod(0o644)
    victim.write_bytes((objects / off[:2] / off[2:]).read_bytes())
    assert "experience_distill" not in git(quest.root, "cat-file", "-p", on).stdout  # git itself reads the forgery
    code = main(["closure", str(quest.root)])
    assert code == 2  # old: 0, "(gate off)"


@pytest.mark.slow
def test_closure_of_a_quest_given_through_a_planted_link_matches_no_entry(one_run_quest, home, tmp_path, monkeypatch):
    """Adversary s7 B01 end to end: ``closure quests/002`` where 002 is the agent's link to the
    switched-off quest's folder: the gate stays on (old: "PASSED (gate off)")."""
    config = tmp_path / "user" / "config.yaml"
    config.parent.mkdir()
    config.write_text(f"no_require: [{one_run_quest.root}]\n")
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    alias = home / "quests" / "002"
    alias.symlink_to(one_run_quest.root.name)  # planted by the agent
    assert closure(one_run_quest.root).returncode == 0  # the folder the user named: gate off, as asked
    done = closure(alias)
    assert done.returncode == 1 and "REJECTED" in done.stdout, done.stdout + done.stderr
