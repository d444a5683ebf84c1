"""A Hypothesis generator of DeepScientist quests with hostile variations, each behind a flag
of its own so a failure names its class and a run can switch one off (``FLAGS``).

A quest has the root and up to two idea worktrees, one to four runs in each, a distill review
(in the root) covering some of them, every workspace committed as DeepScientist's checkpoint
commits it. The variations:

- ``spelling``: a run's ``status`` written with surrounding whitespace or in another case
  (``" Completed "``, ``"DONE"``), as DeepScientist's ``status.strip().lower()`` accepts;
- ``copies``: a run's second copy in another workspace, the two disagreeing on ``status``,
  either one the newer;
- ``wrong_folder``: a run record kept in ``artifacts/decisions/`` (its index line says ``run``);
- ``link_in``: a run record that is a symbolic link to a file elsewhere inside the quest;
- ``link_out``: a run record that is a symbolic link to a file outside the quest;
- ``toggle``: the toggle spelled ``ON`` (bare string) or dropped from the root's ``quest.yaml``
  by a later commit while the worktrees' branches keep it on;
- ``settings``: a committed ``.ds-gate.yaml`` narrowing what is read (``source: folders``, or
  ``refs: [refs/heads/main]``, which leaves a clone's other branches unread);
- ``waivers``: a committed ``.ds-gate.yaml`` waiving every pending run;
- ``uncommitted``: a completed run left uncommitted in a worktree (the hooks run after it).

Issue 35, root B (the block at the end, ``plant_root_b``):

- ``runner_home``: the surfaces run with ``HOME`` (and ``XDG_*``) as a DeepScientist runner sets
  it for the agent, Kimi's inside the home or OpenCode's inside the quest, where the agent
  planted a trusted configuration turning the gate off and accepting its waivers, and a record
  cache whose rows say every completed run is running (sealed with the cache's own secret);
- ``grafts``: the toggle dropped in the last commit, which ``.git/info/grafts`` makes a root
  (with every other branch tip), hiding the commits that had it on;
- ``home_links``: the user's trusted configuration names a quest since deleted
  (``no_require``, ``accept_quest_waivers``), and the agent plants ``quests/<its name> -> 001``.

Issue 35, root C (the block at the end, ``ROOT_C_FLAGS``):

- ``gone_worktree``: a worktree folder removed (``rm -rf``) without ``git worktree prune``, its
  runs committed on its branch (removed once the reference has read them: they still count);
- ``merges``: the finalization reaches main by a merge commit (``surfaces.finalize_and_push``
  ``by_merge``), its branch already on the remote, so the push sends the merge alone;
- ``not_a_quest``: the root's ``quest.yaml`` removed by a commit, so the repository is no quest:
  ``closure`` must stop (exit 2) whatever the reference counts;
- ``stray_worktree``: a worktree's folder (another than ``gone_worktree``'s) replaced by a
  symbolic link to the quest root (git still finds a ``.git`` through it, so the worktree is not
  even prunable, and its branch stays checked out), once the reference has read it: its runs
  still count.
"""

from __future__ import annotations

import json
import marshal
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from ds_gate.demo.example_quest import ExampleQuest
from ds_gate.kernel.cache_folder import GRANULARITY, SEAL, SECRET_NAME
from ds_gate.kernel.digest import blake2b

ROOT_B_FLAGS = ("runner_home", "grafts", "home_links")  # issue 35, root B: see plant_root_b
ROOT_C_FLAGS = ("gone_worktree", "merges", "not_a_quest", "stray_worktree")  # issue 35, root C: the block at the end
FLAGS = (
    "spelling",
    "copies",
    "wrong_folder",
    "link_in",
    "link_out",
    "toggle",
    "settings",
    "waivers",
    "uncommitted",
    *ROOT_B_FLAGS,
    *ROOT_C_FLAGS,
)
SPELLINGS = ("completed", " completed", "Completed ", "DONE", "success\n", "\tSucceeded")
STATUSES = ("completed", "failed", "running")


@dataclass
class RunSpec:
    workspace: int  # 0: the root; i: the i-th worktree
    status: str
    reviewed: bool
    folder: str = "runs"
    link: str | None = None  # "in" or "out"
    copy: tuple[int, str, bool] | None = None  # (workspace, status, newer than the first)


@dataclass
class QuestSpec:
    worktrees: int
    runs: list[RunSpec]
    toggle: str = "on"  # on | bare | dropped
    settings: str | None = None  # source-folders | refs-main
    waivers: bool = False
    uncommitted: bool = False
    flags: frozenset[str] = field(default_factory=frozenset)
    runner: str | None = None  # root B's runner_home: kimi | opencode


@st.composite
def quest_specs(draw: Any, flags: frozenset[str] = frozenset(FLAGS), force: bool = False) -> QuestSpec:
    """A quest with some of ``flags``' variations (each drawn on or off), or all of them with ``force``."""
    on = {flag: flag in flags and (force or draw(st.booleans())) for flag in FLAGS}
    worktrees = draw(st.integers(0, 2))
    runs = []
    for _ in range(draw(st.integers(1, 4))):
        status = draw(st.sampled_from(SPELLINGS if on["spelling"] else STATUSES))
        runs.append(RunSpec(draw(st.integers(0, worktrees)), status, draw(st.booleans())))
    pick = st.integers(0, len(runs) - 1)
    if (on["copies"] or on["uncommitted"]) and not worktrees:
        worktrees = 1  # both need a second workspace
        runs = [RunSpec(0, r.status, r.reviewed) for r in runs]
    if on["copies"]:
        run = runs[draw(pick)]
        other = draw(st.integers(0, worktrees).filter(lambda w: w != run.workspace))
        run.copy = (other, draw(st.sampled_from(("completed", "failed"))), draw(st.booleans()))
    if on["wrong_folder"]:
        runs[draw(pick)].folder = "decisions"
    for kind in ("in", "out"):
        if on[f"link_{kind}"]:
            runs[draw(pick)].link = kind
    toggle = draw(st.sampled_from(("bare", "dropped"))) if on["toggle"] else "on"
    settings = draw(st.sampled_from(("source-folders", "refs-main"))) if on["settings"] else None
    runner = draw(st.sampled_from(("kimi", "opencode"))) if on["runner_home"] else None
    return QuestSpec(
        worktrees,
        runs,
        toggle,
        settings,
        on["waivers"],
        on["uncommitted"],
        frozenset(f for f, v in on.items() if v),
        runner,
    )


class Builder:
    """Writes records as DeepScientist's ``ArtifactService.record`` does (the file, then its
    index line with the absolute path), with the spec's variations."""

    def __init__(self, base: Path, spec: QuestSpec) -> None:
        self.base = base
        self.spec = spec
        (base / "DeepScientist" / "memory").mkdir(parents=True)
        toggle: Any = "ON" if spec.toggle == "bare" else {"mode": "on"}
        self.quest = ExampleQuest(base / "DeepScientist" / "quests" / "001", experience_distill=toggle).create()
        self.root = self.quest.root
        self.spaces = [self.root] + [
            self.quest.worktree(f"idea-{i}", f"idea/001-{i}") for i in range(1, spec.worktrees + 1)
        ]
        self.stamp = 0
        self.env: dict[str, str] = {}  # what the surfaces run with (root B: the runner's HOME, the user's config)

    def write(
        self, workspace: Path, record: dict[str, Any], folder: str, link: str | None = None, index_kind: str = "run"
    ) -> None:
        path = workspace / "artifacts" / folder / f"{record['artifact_id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(record, indent=2)
        if link is None:
            path.write_text(text)
        else:
            target = (self.root / "stash" if link == "in" else self.base / "outside") / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            os.symlink(os.path.relpath(target, path.parent) if link == "in" else target, path)
        line = {
            "artifact_id": record["artifact_id"],
            "kind": index_kind,
            "status": record.get("status"),
            "quest_id": "001",
            "path": str(path),
            "summary": None,
            "updated_at": record["updated_at"],
        }
        with (workspace / "artifacts" / "_index.jsonl").open("a") as out:
            out.write(json.dumps(line) + "\n")

    def commit(self, workspace: Path, message: str) -> None:
        """DeepScientist's checkpoint (``git add -A && git commit``); no hook is installed yet."""
        self.quest.git(workspace, "add", "-A")
        self.quest.git(workspace, "commit", "-q", "--allow-empty", "-m", message)

    def run_record(self, number: int, status: str, workspace: Path, newer: int = 0) -> dict[str, Any]:
        self.stamp += 1
        when = f"2026-11-22T03:{self.stamp + newer:02d}:00+00:00"
        return {
            "kind": "run",
            "schema_version": 1,
            "artifact_id": f"run-{number:08x}",
            "id": f"run-{number:08x}",
            "quest_id": "001",
            "created_at": "2026-11-22T02:00:00+00:00",
            "updated_at": when,
            "source": {"kind": "agent"},
            "status": status,
            "branch": "main",
            "workspace_root": str(workspace),
            "run_id": f"main-{number:03d}",
            "run_kind": "main_experiment",
            "summary": f"run {number}",
        }

    def build(self) -> set[str]:
        """The quest on disk; returns the ids of the runs left uncommitted."""
        spec, reviewed = self.spec, []
        for number, run in enumerate(spec.runs, start=1):
            workspace = self.spaces[run.workspace]
            self.write(workspace, self.run_record(number, run.status, workspace), run.folder, run.link)
            if run.copy is not None:
                other, status, newer = run.copy
                copy = self.run_record(number, status, self.spaces[other], newer=30 if newer else -30)
                self.write(self.spaces[other], copy, "runs")
            if run.reviewed:
                reviewed.append(f"run-{number:08x}")
        if reviewed:
            self.quest.review(self.root, reviewed, cards=[])
        for workspace in reversed(self.spaces):
            self.commit(workspace, "artifact: records")
        if spec.toggle == "dropped":
            meta = yaml.safe_load((self.root / "quest.yaml").read_text())
            meta["startup_contract"].pop("experience_distill", None)
            (self.root / "quest.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
        if spec.settings or spec.waivers:
            config: dict[str, Any] = {
                "source-folders": {"source": "folders"},
                "refs-main": {"refs": ["refs/heads/main"]},
                None: {},
            }[spec.settings]
            if spec.waivers:
                config["waivers"] = [
                    {"rule": "coverage.pending-run", "id": f"run-{n:08x}", "reason": "smoke run"}
                    for n in range(1, len(spec.runs) + 1)
                ]
            (self.root / ".ds-gate.yaml").write_text(yaml.safe_dump(config))
        self.commit(self.root, "quest: settings")
        self.env = plant_root_b(self)
        if spec.uncommitted:
            number = len(spec.runs) + 1
            workspace = self.spaces[-1]
            self.write(workspace, self.run_record(number, "completed", workspace), "runs")
            return {f"run-{number:08x}"}
        return set()


# ---------------------------------------------------------------- issue 35, root B


def plant_root_b(builder: Builder) -> dict[str, str]:
    """Root B's variations, planted once the quest is committed; the environment the surfaces run with."""
    spec, root, env = builder.spec, builder.root, {}
    home = root.parent.parent
    if "grafts" in spec.flags:
        meta = yaml.safe_load((root / "quest.yaml").read_text())
        meta["startup_contract"].pop("experience_distill", None)
        (root / "quest.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
        builder.commit(root, "quest: settings")
        tips = builder.quest.git(root, "for-each-ref", "--format=%(objectname)", "refs/heads").split()
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "grafts").write_text("".join(f"{tip}\n" for tip in tips))
    if "home_links" in spec.flags:
        deleted = home / "quests" / "000-deleted"
        config = builder.base / "user" / "config.yaml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(yaml.safe_dump({"no_require": [str(deleted)], "accept_quest_waivers": [str(deleted)]}))
        deleted.symlink_to(root)
        env["DS_GATE_CONFIG"] = str(config)
    if spec.runner is not None:
        runner_home = (
            home / "runtime" / "runners" / "kimi" / "001" / "run-1"
            if spec.runner == "kimi"
            else root / ".ds" / "opencode-home"
        )
        planted = runner_home / ".config" / "ds-gate" / "config.yaml"
        planted.parent.mkdir(parents=True, exist_ok=True)
        planted.write_text(yaml.safe_dump({"no_require": [str(root)], "accept_quest_waivers": [str(root)]}))
        forged_cache(root, runner_home / ".cache" / "ds-gate", builder.base / "cache")
        env.update(HOME=str(runner_home), XDG_CACHE_HOME=str(runner_home / ".cache"))
        if spec.runner == "opencode":
            env["XDG_CONFIG_HOME"] = str(runner_home / ".config")
    return env


def forged_cache(root: Path, where: Path, scratch: Path) -> None:
    """A record cache of the quest at ``where`` whose rows say every completed run is running,
    sealed with the cache folder's own secret (the agent wrote the folder, secret included)."""
    time.sleep(GRANULARITY / 1e9 + 0.2)  # the records settle: the cache keeps their rows
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(scratch)}
    for _ in range(3):
        subprocess.run(
            [sys.executable, "-m", "ds_gate", "closure", str(root)], capture_output=True, env=env, check=False
        )
    key = (scratch / SECRET_NAME).read_bytes()
    for file in scratch.glob("records-*.sqlite3"):
        db = sqlite3.connect(file)
        with db:
            (version,) = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
            for folder, value in db.execute("SELECT path, value FROM folders").fetchall():
                stamp, held = marshal.loads(value[SEAL:])
                if isinstance(held, tuple) and len(held) == 2:  # a folder's (items, index lines)
                    held = (
                        [
                            tuple("running" if v == "completed" else False if v is True else v for v in item)
                            for item in held[0]
                        ],
                        held[1],
                    )
                blob = marshal.dumps((stamp, held))
                mac = blake2b(version, key=key, digest_size=SEAL, person=b"ds-gate-cache")
                for part in (folder, blob):
                    mac.update(len(part).to_bytes(8, "little") + part)
                db.execute("UPDATE folders SET value=? WHERE path=?", (mac.digest() + blob, folder))
        db.close()
    where.parent.mkdir(parents=True, exist_ok=True)
    os.rename(scratch, where)


# ---------------------------------------------------------------- issue 35, root C: merges, gone folders, no quest


def after_build(builder: Builder) -> None:
    """``not_a_quest``: the root's ``quest.yaml`` removed by a commit of its own (what is left
    uncommitted stays so)."""
    if "not_a_quest" in builder.spec.flags:
        builder.quest.git(builder.root, "rm", "-q", "quest.yaml")
        builder.quest.git(builder.root, "commit", "-q", "-m", "quest: drop quest.yaml")


def after_reading(builder: Builder) -> None:
    """``gone_worktree``: once the reference has read it, the first worktree's folder is removed
    without a prune (not the one holding the uncommitted run: that run would go with it); then
    ``stray_worktree``."""
    spaces = builder.spaces
    stray_worktree(builder)
    if "gone_worktree" not in builder.spec.flags or len(spaces) < 2:
        return
    if builder.spec.uncommitted and len(spaces) == 2:
        return
    shutil.rmtree(spaces[1])


def stray_worktree(builder: Builder) -> None:
    """``stray_worktree``: once the reference has read it, the folder of a worktree (not
    ``gone_worktree``'s, nor the one holding the uncommitted run) becomes a link to the quest root."""
    spaces = builder.spaces
    chosen = 2 if "gone_worktree" in builder.spec.flags else 1
    if "stray_worktree" not in builder.spec.flags or len(spaces) <= chosen:
        return
    if builder.spec.uncommitted and chosen == len(spaces) - 1:
        return
    shutil.rmtree(spaces[chosen])
    os.symlink("../..", spaces[chosen])


def must_stop(spec: QuestSpec, surface: str) -> bool:
    """A surface that must stop (exit 2) on this quest whatever is pending: ``closure`` on a
    repository with no ``quest.yaml`` (the hooks' finalization writes one back)."""
    return "not_a_quest" in spec.flags and surface.startswith("closure")
