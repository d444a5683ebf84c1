"""The pluggy extension API, exercised by really installing the example plugin of examples/.

``pip install --target`` puts the plugin (module and dist-info with its ``ds_gate`` entry
point) in a folder; processes that have it on PYTHONPATH see it installed, the test
process itself does not, so no other test is affected.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ds_gate.model.review_call import draft_payload

from helpers import REPO

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(REPO / "examples" / "ds-gate-lab-rules"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert list(target.glob("ds_gate_lab_rules-*.dist-info/entry_points.txt"))
    return target


def ds_gate(args: list[str], plugin_path: Path | None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if plugin_path is not None:
        env["PYTHONPATH"] = str(plugin_path)
    return subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True, env=env, cwd=cwd)


@pytest.fixture
def quest(make_quest):
    quest = make_quest()
    ablation = quest.run(quest.root, "abl-001", run_kind="ablation")
    smoke = quest.run(quest.root, "smoke-001")  # a main_experiment the lab does not count
    main = quest.run(quest.root, "main-001")
    review = quest.review(quest.root, [main])  # no notes: the lab's rule fails it
    return quest, ablation, smoke, main, review


@pytest.mark.slow
def test_the_example_plugin_changes_the_completed_run_rule_and_adds_a_rule(quest, plugin_path) -> None:
    q, ablation, smoke, main, review = quest
    without = json.loads(ds_gate(["closure", str(q.root), "--format", "json"], None).stdout)
    assert [r["artifact_id"] for r in without["completed_runs"]] == sorted([smoke, main])
    assert without["pending_run_ids"] == [smoke] and without["findings"][0]["rule"] == "coverage.pending-run"

    done = ds_gate(["closure", str(q.root), "--format", "json"], plugin_path)
    with_plugin = json.loads(done.stdout)
    assert done.returncode == 1
    assert sorted(r["artifact_id"] for r in with_plugin["completed_runs"]) == sorted([ablation, main])  # smoke out
    assert with_plugin["pending_run_ids"] == [ablation]
    assert sorted(f["rule"] for f in with_plugin["findings"]) == ["coverage.pending-run", "lab.review-needs-notes"]
    text = ds_gate(["check", str(q.root)], plugin_path).stdout
    assert f"artifacts/decisions/{review}.json: error [lab.review-needs-notes] {review} has no notes" in text


@pytest.mark.slow
def test_the_example_plugin_fires_on_the_report_encoded_review_ds_gate_drafts(make_quest, plugin_path) -> None:
    """Issue 37.4: on DeepScientist main a review is the ``kind: report, report_type: distill_review``
    that ``draft_payload`` drafts and ``artifact.record`` stores; the lab's rule tested
    ``action == "distill_review"`` only, so it never saw one."""
    q = make_quest()
    main_run = q.run(q.root, "main-001")
    other_run = q.run(q.root, "main-002")
    drafted = {**draft_payload([main_run], "report"), "reason_if_empty": "nothing reusable"}  # completed, no notes
    with_notes = {**draft_payload([other_run], "report"), "reason_if_empty": "nothing reusable", "notes": "a note"}
    bare = q.artifact_record(q.root, drafted)
    noted = q.artifact_record(q.root, with_notes)
    assert bare["ok"] and noted["ok"] and bare["record"]["kind"] == "report"
    done = ds_gate(["check", str(q.root), "--format", "json"], plugin_path)
    found = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "lab.review-needs-notes"]
    assert [(f["path"], f["message"]) for f in found] == [
        (f"artifacts/reports/{bare['artifact_id']}.json", f"{bare['artifact_id']} has no notes")
    ]
    closure = json.loads(ds_gate(["closure", str(q.root), "--format", "json"], plugin_path).stdout)
    assert closure["pending_run_ids"] == [] and [f["rule"] for f in closure["findings"]] == ["lab.review-needs-notes"]


@pytest.mark.slow
def test_the_example_plugin_adds_an_output_format(quest, plugin_path) -> None:
    q = quest[0]
    done = ds_gate(["closure", str(q.root), "--format", "count"], plugin_path)
    assert done.stdout == "closure ok=False failing=2 findings=2\n"
    unknown = ds_gate(["closure", str(q.root), "--format", "count"], None)
    assert unknown.returncode == 2 and "unknown format 'count'" in unknown.stderr and "Traceback" not in unknown.stderr


@pytest.mark.slow
def test_the_example_plugin_is_visible_in_pytest_items(quest, plugin_path, pytester, monkeypatch) -> None:
    q, ablation, smoke, main, review = quest
    monkeypatch.setenv("PYTHONPATH", str(plugin_path))
    result = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "-rA", "-p", "no:cacheprovider")
    text = result.stdout.str()
    assert (
        "FAILED quest-001::coverage" in text and f"1 completed run(s) pending: {ablation}" in text and smoke not in text
    )
    assert (
        "FAILED quest-001::records" in text
        and "[lab.review-needs-notes]" in text
        and f"decisions/{review}.json" in text
    )


def installed(site: Path, module: str, source: str) -> Path:
    """A one-module distribution laid out as pip installs it, with a ``ds_gate`` entry point."""
    info = site / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[ds_gate]\n{module} = {module}\n")
    (site / f"{module}.py").write_text(source)
    return site


@pytest.mark.slow
def test_a_misspelt_hook_is_an_error_not_a_silent_no_op(tmp_path, make_quest) -> None:
    quest = make_quest()
    site = installed(
        tmp_path / "site",
        "typo_plugin",
        "from ds_gate.plugins.hookspecs import hookimpl\n\n@hookimpl\ndef ds_gate_run_is_complete(run):\n    return True\n",
    )
    done = ds_gate(["closure", str(quest.root)], site)
    assert done.returncode == 2
    assert "ds_gate_run_is_complete" in done.stderr and "check the spelling" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_plugin_that_fails_to_import_is_a_clear_error(tmp_path, make_quest) -> None:
    quest = make_quest()
    site = installed(tmp_path / "site", "broken_plugin", "raise RuntimeError('lab config missing')\n")
    done = ds_gate(["check", str(quest.root)], site)
    assert done.returncode == 2 and "a ds_gate plugin failed to load: RuntimeError: lab config missing" in done.stderr


def test_builtin_rules_are_plugins_on_the_same_manager() -> None:
    from ds_gate.plugins.manager import manager

    pm = manager()
    assert pm.get_plugin("builtin") is not None
    names = {impl.plugin_name for impl in pm.hook.ds_gate_run_is_completed.get_hookimpls()}
    assert "builtin" in names
    assert pm.hook.ds_gate_reporters() == []  # the built-in formats are the reporters' own table, not a hook's answer


@pytest.mark.slow
def test_the_example_plugin_adds_a_finalization_file_to_the_commit_hook(quest, plugin_path, monkeypatch) -> None:
    from ds_gate.cli.main import main

    from helpers import commit, head_subject

    q = quest[0]
    assert main(["install", str(q.root)]) == 0
    assert commit(q.root, "record").returncode == 0  # an ordinary checkpoint, with or without the plugin
    (q.root / "submission").mkdir()
    (q.root / "submission" / "final.pdf").write_bytes(b"%PDF-1.7\n")
    monkeypatch.setenv("PYTHONPATH", str(plugin_path))  # git passes it on to the hook
    rejected = commit(q.root, "submission")
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(q.root) == "record"
    assert "submission/final.pdf (a finalization file, by plugin pattern submission/*)" in output
    monkeypatch.delenv("PYTHONPATH")
    assert commit(q.root, "submission").returncode == 0  # without the plugin it is an ordinary file


CARD_RULES = """
from ds_gate import Rule, hookimpl
from ds_gate.model import DISCIPLINE, ERROR

NO_SECRETS = Rule("lab.card-secret", ERROR, DISCIPLINE, "a card whose text holds an API key")
KEEP_TITLE = Rule("lab.title-changed", ERROR, DISCIPLINE, "a change that renames a card")


@hookimpl
def ds_gate_check_card(card):
    if "sk-" in card.body:
        return [NO_SECRETS.at(card.display, "the card holds what looks like an API key", subject=card.card_id)]
    return []


@hookimpl
def ds_gate_check_patch(before, after, patching_quest):
    if before is not None and before.title != after.title:
        return [KEEP_TITLE.at(after.display, f"the title changed from {before.title!r}", pointer="/title")]
    return []
"""


@pytest.mark.slow
def test_a_plugin_checks_every_card_and_every_card_change(tmp_path, make_quest, monkeypatch) -> None:
    """Card and patch rules reach every place a card is read: check, validate, the commit hook."""
    from ds_gate.cli.main import main

    from helpers import commit

    site = installed(tmp_path / "site", "card_rules", CARD_RULES)
    quest = make_quest()
    card = quest.card_path("quest", "Key")
    quest.card("quest", "Key", body="Context: the key sk-12345 was used.")
    with_plugin = json.loads(ds_gate(["check", str(quest.root), "--format", "json"], site).stdout)
    assert [f["rule"] for f in with_plugin["findings"]] == ["lab.card-secret"]
    assert json.loads(ds_gate(["check", str(quest.root), "--format", "json"], None).stdout)["findings"] == []
    assert "[lab.card-secret]" in ds_gate(["validate", str(card)], site).stdout

    card.write_text(card.read_text().replace("sk-12345", "a key"))
    quest.card(
        "quest", "Lesson", claim="Lower is steadier.", lineage=[{"quest": "001", "run": quest.run(quest.root, "m")}]
    )
    assert main(["install", str(quest.root)]) == 0
    assert commit(quest.root, "cards").returncode == 0
    lesson = quest.card_path("quest", "Lesson")
    lesson.write_text(lesson.read_text().replace("title: Lesson\n", "title: Lesson, renamed\n"))
    monkeypatch.setenv("PYTHONPATH", str(site))  # git passes it on to the hook
    done = commit(quest.root, "rename")  # a lab's (discipline) rule never blocks an ordinary checkpoint ...
    assert done.returncode == 0 and "warning [lab.title-changed]" in done.stdout + done.stderr  # ... it warns


@pytest.mark.slow
def test_a_plugin_adds_the_decision_actions_of_a_fork(tmp_path, make_quest) -> None:
    """med-deepscientist's actions, from an installed plugin (issue 13)."""
    site = installed(
        tmp_path / "site",
        "fork_actions",
        "from ds_gate import hookimpl\n\n@hookimpl\n"
        "def ds_gate_decision_actions():\n    return ['controller_backoff_pending']\n",
    )
    quest = make_quest()
    quest.decision(quest.root, "controller_backoff_pending")
    without = json.loads(ds_gate(["check", str(quest.root), "--format", "json"], None).stdout)
    assert [f["rule"] for f in without["findings"]] == ["decision.unknown-action"]
    done = ds_gate(["check", str(quest.root), "--format", "json"], site)
    assert done.returncode == 0 and json.loads(done.stdout)["findings"] == []
