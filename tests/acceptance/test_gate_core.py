"""Issue 26.7: the gate and ``validate`` as small cores run step by step, the quest located
once and its configuration read once per run. Real git quests; the counts come from
pass-through spies on the real functions (git and the files are the real ones)."""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ds_gate.cli.check import GateCommand
from ds_gate.cli.main import main
from ds_gate.config.quest import read_quest_config
from ds_gate.engine.documents import validate_files
from ds_gate.engine.gate import Gate, evaluate
from ds_gate.engine.options import GateOptions
from ds_gate.kernel import fs
from ds_gate.model.reports import SCOPES
from ds_gate.reporters import registry as reporters
from ds_gate.sources import location

WAIVING = (
    "decision_actions: [controller_backoff_pending]\n"
    "waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: a smoke run\n"
)
# files -> (the defaults that apply, the decision actions, the waived ids, how many problems: defaults', waivers')
CONFIGURATIONS: dict[str, tuple[dict[str, str], tuple[dict[str, Any], tuple[str, ...], list[str], int]]] = {
    "none": ({}, ({}, (), [], 0)),
    "yaml": (
        {".ds-gate.yaml": WAIVING.format(run="run-1") + "require: true\nsource: folders\n"},
        ({"require": True, "source": "folders"}, ("controller_backoff_pending",), ["run-1"], 0),
    ),
    "pyproject": (
        {"pyproject.toml": '[tool.ds-gate]\nrequire = true\ndecision_actions = ["fork_action"]\n'},
        ({"require": True}, ("fork_action",), [], 0),
    ),
    "both, disagreeing": (
        {".ds-gate.yaml": "format: json\n", "pyproject.toml": '[tool.ds-gate]\nformat = "text"\n'},
        ({"format": "json"}, (), [], 1),
    ),
    "broken yaml": ({".ds-gate.yaml": "waivers: [unclosed\n"}, ({}, (), [], 2)),
    "unknown key": ({".ds-gate.yaml": "requre: true\n"}, ({}, (), [], 2)),
    "broken toml": ({"pyproject.toml": "[tool.ds-gate\n"}, ({}, (), [], 1)),
}


def spy(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, counts: Counter[str], key: Callable[..., str | None]
) -> None:
    """Wrap ``owner.name`` so each call is counted under ``key(*args)`` (None: not counted), then runs as before."""
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        what = key(*args, **kwargs)
        if what is not None:
            counts[what] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def config_name(path: Any, *_: Any, **__: Any) -> str | None:
    name = os.path.basename(str(path))
    return name if name in (".ds-gate.yaml", "pyproject.toml") else None


@pytest.mark.parametrize(("files", "expected"), CONFIGURATIONS.values(), ids=CONFIGURATIONS.keys())
def test_the_configuration_read_once_says_what_each_reader_needs(make_quest, files, expected) -> None:
    """A broken file sets no default, adds no action and no waiver, each a problem in its own words."""
    quest = make_quest()
    for name, text in files.items():
        (quest.root / name).write_text(text)
    config = read_quest_config(quest.root)
    values, actions, waived, problems = expected
    assert (config.configured is None) == (not files) and config.defaults.values == values
    assert config.actions == actions and [w.id for w in config.waivers[0]] == waived
    defaults = config.defaults
    assert len(defaults.problems) + bool(defaults.yaml_problem) + len(config.waivers[1]) == problems


def test_a_configuration_linked_out_of_the_quest_is_not_followed_by_the_single_read(make_quest, tmp_path) -> None:
    quest = make_quest()
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(WAIVING.format(run="run-1"))
    (quest.root / ".ds-gate.yaml").symlink_to(outside)
    config = read_quest_config(quest.root)
    assert config.actions == ()
    assert config.waivers[0] == [] and "outside the quest" in config.waivers[1][0].message
    assert config.defaults.yaml_problem is not None and "not followed" in config.defaults.yaml_problem


def test_one_closure_locates_the_quest_once_and_reads_its_configuration_once(make_quest, monkeypatch, capsys) -> None:
    quest = make_quest()
    ws = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(ws, "main-001")
    quest.checkpoint(ws, "record")
    (quest.root / ".ds-gate.yaml").write_text(WAIVING.format(run=run))
    (quest.root / "pyproject.toml").write_text('[tool.ds-gate]\ndecision_actions = ["fork_action"]\n')
    counts: Counter[str] = Counter()
    spy(monkeypatch, location, "worktree_list", counts, lambda *_: "git worktree list")
    spy(monkeypatch, fs, "read_file", counts, config_name)
    assert main(["closure", str(ws / "artifacts"), "--no-cache", "--accept-quest-waivers"]) == 0
    assert "waived" in capsys.readouterr().out
    assert counts == {"git worktree list": 1, ".ds-gate.yaml": 1, "pyproject.toml": 1}


def test_the_gate_core_is_what_evaluate_runs_and_the_command_core_returns_the_exit_code(make_quest, tmp_path) -> None:
    quest = make_quest()
    run = quest.run(quest.root, "main-001")
    quest.checkpoint(quest.root, "record")
    where, config = location.locate(quest.root), read_quest_config(quest.root)
    json_of = reporters.get("json").render
    core = Gate(where, SCOPES["closure"], config=config).run()
    assert json_of(core) == json_of(evaluate(quest.root, "closure")) and core.ok is False
    out = tmp_path / "report.json"
    command = GateCommand("closure", where, config, GateOptions(), argparse.Namespace(format="json", output=str(out)))
    assert command.run() == 1
    assert json.loads(out.read_text())["pending_run_ids"] == [run]
    (quest.root / ".ds-gate.yaml").write_text(WAIVING.format(run=run))
    accepting = GateOptions(accept_quest_waivers=True)
    assert (
        GateCommand(
            "closure",
            where,
            read_quest_config(quest.root),
            accepting,
            argparse.Namespace(format="json", output=str(out)),
        ).run()
        == 0
    )


def test_validate_locates_each_folder_once_and_never_the_quest_again(make_quest, monkeypatch) -> None:
    quest = make_quest()
    ws = quest.worktree("idea-a", "idea/001-a")
    runs = [quest.run(ws, f"main-00{i}") for i in range(2)]
    first = quest.review(ws, runs[:1], cards=[])
    second = quest.review(ws, runs[1:] + ["run-nowhere"], cards=[])
    root_review = quest.review(quest.root, ["run-elsewhere"], cards=[])
    decisions = [
        ws / "artifacts" / "decisions" / f"{first}.json",
        ws / "artifacts" / "decisions" / f"{second}.json",
        quest.root / "artifacts" / "decisions" / f"{root_review}.json",
    ]
    counts: Counter[str] = Counter()
    spy(monkeypatch, location, "worktree_list", counts, lambda *_: "git worktree list")
    report, readable = validate_files(decisions)
    assert readable and counts == {"git worktree list": 2}  # two folders, one quest: never located a third time
    unknown = sorted(f.message for f in report.findings if f.rule == "review.unknown-run")
    assert len(unknown) == 2 and "run-nowhere" in unknown[0] + unknown[1] and "run-elsewhere" in unknown[0] + unknown[1]


def test_validate_core_keeps_a_file_that_cannot_be_read_a_usage_error(tmp_path: Path) -> None:
    report, readable = validate_files([tmp_path / "missing.json", tmp_path])
    assert not readable and [f.rule for f in report.findings] == ["input.unreadable"]
    assert report.notes[0] == f"0 record or card files found under {tmp_path}"
