"""Issue 37.3, "Adopting the gate mid-quest": a baseline in the trusted configuration.

A real git quest records five runs with ``experience_distill`` off, commits them, turns the gate
on and records one more. The trusted configuration names the commit before the gate: every
surface says 5 baselined and 1 pending (text, JSON, GitHub, SARIF, the agent's tools, the
DeepScientist integration's refusal). The ``before`` form; a commit the quest's git cannot read
stops closure (exit 2, the fix named); a baseline the quest writes is a proposal until its owner
accepts the quest's waivers; an ordinary checkpoint is unaffected by any of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ds_gate.agent.tools import call
from ds_gate.cli.main import main
from ds_gate.config.baselines import REASON_PLACEHOLDER
from ds_gate.config.settings import load
from ds_gate.integration.call import answer

from helpers import baseline, commit, git

SARIF_SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())
MISSING = "c0ffee" * 6 + "c0ff"  # 40 hex digits: a full commit id no repository here holds


@pytest.fixture
def adopted(make_quest, trusted):
    """(quest, the commit before the gate, the five old runs, the new run, the trusted file)."""
    quest = make_quest(experience_distill=None)
    old = [quest.run(quest.root, f"main-00{n}") for n in range(1, 6)]
    quest.checkpoint(quest.root, "experiment: five runs")
    before_gate = quest.git(quest.root, "rev-parse", "HEAD")
    quest.write_quest_yaml(
        startup_contract={"schema_version": 3, "launch_mode": "standard", "experience_distill": {"mode": "on"}}
    )
    quest.checkpoint(quest.root, "quest: turn experience_distill on")
    new = quest.run(quest.root, "main-006", created_at="2099-01-01T00:00:00+00:00")
    quest.checkpoint(quest.root, "experiment: a run after the gate")
    return quest, before_gate, sorted(old), new, trusted


def test_a_trusted_commit_baselines_five_runs_and_every_format_says_so(adopted, gate_json, capsys) -> None:
    quest, before_gate, old, new, config = adopted
    baseline(config, quest.root, f"commit: {before_gate}")
    root = str(quest.root)

    code, out = gate_json("closure", root)
    assert code == 1 and out["pending_run_ids"] == [new] and out["baselined_run_ids"] == old
    assert out["baseline"] == [
        {
            "source": "trusted",
            "file": str(config),
            "index": 0,
            "commit": [before_gate],
            "before": None,
            "reason": "finished before we adopted the gate",
            "accepted_by": None,
        }
    ]
    [info] = [f for f in out["findings"] if f["rule"] == "coverage.baselined"]
    assert info["severity"] == "info" and info["message"].startswith("5 completed runs baselined by trusted")
    assert [f["subject"] for f in out["findings"] if f["rule"] == "coverage.pending-run"] == [new]

    assert main(["closure", root]) == 1
    text = capsys.readouterr().out
    verdict = text.rstrip().splitlines()[-1]
    assert verdict.startswith("ds-gate closure: REJECTED - 1 of 6 completed runs pending distill review, 5 baselined")
    assert "baseline: 5 completed runs baselined by trusted baselines[0]" in text and before_gate in text
    assert new in text and not any(run in text for run in old)  # the old runs are not asked for

    assert main(["closure", root, "--format", "github"]) == 1
    github = capsys.readouterr().out
    assert "::notice " in github and "title=coverage.baselined::5 completed runs baselined" in github
    assert github.count("::error ") == 1 and "5 baselined" in github.rstrip().splitlines()[-1]

    assert main(["closure", root, "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    [note] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "coverage.baselined"]
    assert note["level"] == "note" and "5 completed runs baselined" in note["message"]["text"]
    [rule] = [d for d in log["runs"][0]["tool"]["driver"]["rules"] if d["id"] == "coverage.baselined"]
    assert rule["defaultConfiguration"]["level"] == "note"

    assert main(["closure", root, "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert "- baseline: 5 completed runs baselined by trusted baselines\\[0\\]" in markdown

    code, out = gate_json("candidates", root)  # what the agent is asked to review: the new run only
    assert code == 0 and out["pending_run_ids"] == [new] and out["baselined_run_ids"] == old


def test_the_agents_tools_and_the_integrations_refusal_count_the_baselined_runs(adopted) -> None:
    quest, before_gate, old, new, config = adopted
    baseline(config, quest.root, f"commit: {before_gate}")
    root = str(quest.root)
    verdict = call("check_closure", root, {})
    assert verdict["pending_run_ids"] == [new] and verdict["baselined_count"] == 5 and verdict["verdict"] == "rejected"
    listed = call("list_distill_candidates", root, {})
    assert [c["run_id"] for c in listed["candidates"]] == [new] and listed["baselined_count"] == 5

    refused = answer({"op": "finalization", "root": root, "tool": "complete_quest"})
    assert refused["allow"] is False, refused
    refusal = refused["refusal"]
    assert refusal["status"] == "distill_review_required" and refusal["pending_run_ids"] == [new]
    assert refusal["pending_count"] == 1 and refusal["baselined_count"] == 5
    assert "5 earlier completed run(s) are baselined by the user's trusted configuration" in refusal["message"]
    assert not any(run in refusal["message"] for run in old)

    config.write_text("")  # without the baseline: six pending, none baselined
    verdict = call("check_closure", root, {})
    assert verdict["pending_count"] == 6 and verdict["baselined_count"] == 0


def test_the_before_form_baselines_by_created_at(adopted, gate_json) -> None:
    quest, _, old, new, config = adopted
    baseline(config, quest.root, "before: 2098-12-31")  # the new run says it was created in 2099
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and out["pending_run_ids"] == [new] and out["baselined_run_ids"] == old
    assert out["baseline"][0]["before"] == "2098-12-31" and out["baseline"][0]["commit"] is None
    [info] = [f for f in out["findings"] if f["rule"] == "coverage.baselined"]
    assert "(before 2098-12-31)" in info["message"] and "a commit is the stronger form" in info["hint"]


def test_a_commit_the_quest_cannot_read_stops_closure_naming_the_fix(adopted, gate_json, capsys) -> None:
    quest, _, old, new, config = adopted
    baseline(config, quest.root, f"commit: {MISSING}")
    assert main(["closure", str(quest.root)]) == 2
    err = capsys.readouterr().err
    assert f"trusted baselines[0] in {config}: commit {MISSING} cannot be read" in err
    assert f"fetch it into this clone (`git -C {quest.root} fetch origin {MISSING}`" in err
    assert f"correct baselines[0].commit in {config}" in err and "Traceback" not in err
    code, out = gate_json("closure", str(quest.root))
    assert code == 2 and out["exit_code"] == 2 and "cannot tell which runs it baselines" in out["error"]
    assert (
        out["fix"].startswith("fetch it into this clone") and f"correct baselines[0].commit in {config}" in out["fix"]
    )
    code, out = gate_json("check", str(quest.root))  # check warns and goes on, nothing baselined
    assert code == 0 and sorted(out["pending_run_ids"]) == sorted([*old, new]) and out["baselined_run_ids"] == []
    assert [f["rule"] for f in out["findings"] if f["rule"].startswith("baseline.")] == ["baseline.commit-unreadable"]


def test_a_branch_name_is_no_baseline_commit(adopted, capsys) -> None:
    """The agent can move a branch; only a full commit id names what was there before the gate."""
    quest, _, _, _, config = adopted
    baseline(config, quest.root, "commit: main")
    assert main(["closure", str(quest.root)]) == 2
    assert "full commit id" in capsys.readouterr().err


def test_a_quest_written_baseline_is_a_proposal_until_its_waivers_are_accepted(adopted, gate_json, capsys) -> None:
    quest, before_gate, old, new, config = adopted
    (quest.root / ".ds-gate.yaml").write_text(f"baselines:\n  - commit: {before_gate}\n    reason: old runs\n")
    commit(quest.root, "the agent proposes a baseline")
    root = str(quest.root)
    code, out = gate_json("closure", root)
    assert code == 1 and sorted(out["pending_run_ids"]) == sorted([*old, new]) and "baselined_run_ids" not in out
    [proposal] = [f for f in out["findings"] if f["rule"] == "baseline.proposed"]
    assert proposal["severity"] == "warning" and proposal["path"] == ".ds-gate.yaml" and proposal["line"] == 2
    pasted = f'baselines: [{{quest: "{quest.root}", commit: "{before_gate}", reason: "{REASON_PLACEHOLDER}"}}]'
    assert pasted in proposal["hint"] and "old runs" not in proposal["hint"]  # the agent's reason is never offered
    assert "--accept-quest-waivers" in proposal["hint"]
    for surface in (call("check_closure", root, {}), call("list_distill_candidates", root, {})):
        assert surface["baselined_count"] == 0

    code, out = gate_json("closure", root, "--accept-quest-waivers")  # its owner accepts, for one run
    assert code == 1 and out["pending_run_ids"] == [new] and out["baselined_run_ids"] == old
    assert out["baseline"][0]["source"] == "quest" and out["baseline"][0]["accepted_by"] == "--accept-quest-waivers"

    config.write_text(f"accept_quest_waivers: [{root}]\n")  # or for every run, as the quest's waivers
    assert main(["closure", root]) == 1
    assert "1 of 6 completed runs pending distill review, 5 baselined" in capsys.readouterr().out


def test_a_quest_with_no_baseline_reports_as_before(adopted, gate_json) -> None:
    """Additive: no ``baseline`` keys and the verdict line unchanged where no baseline applies."""
    quest, *_ = adopted
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and len(out["pending_run_ids"]) == 6
    assert "baseline" not in out and "baselined_run_ids" not in out


@pytest.mark.slow  # the hook runs ds-gate's Python
def test_an_ordinary_checkpoint_is_unaffected_and_a_finalization_stops_on_a_bad_commit(adopted) -> None:
    quest, before_gate, old, new, config = adopted
    baseline(config, quest.root, f"commit: {MISSING}")  # unreadable: closure would stop on it
    assert main(["install", str(quest.root)]) == 0  # pins this trusted file for the hook
    quest.run(quest.root, "main-007")
    done = commit(quest.root, "experiment: record main main-007")
    assert done.returncode == 0 and done.stderr == "", done.stderr  # never blocked by the baseline
    (quest.root / "paper").mkdir()
    (quest.root / "paper" / "paper_bundle_manifest.json").write_text('{"package_type": "paper_draft_checkpoint"}\n')
    refused = commit(quest.root, "paper: bundle")
    assert refused.returncode != 0 and f"commit {MISSING} cannot be read" in refused.stderr + refused.stdout
    baseline(config, quest.root, f"commit: {before_gate}")  # the right commit: the five are baselined, two pending
    refused = commit(quest.root, "paper: bundle")
    assert refused.returncode != 0 and "5 baselined" in refused.stderr + refused.stdout
    assert git(quest.root, "log", "-1", "--format=%s").stdout.strip() == "experiment: record main main-007"


def test_one_commit_per_branch_tip_baselines_the_runs_of_each(
    make_quest, tmp_path, monkeypatch, gate_json, capsys
) -> None:
    quest = make_quest(experience_distill=None)
    idea = quest.worktree("idea-idea-aaaa0001", "idea/001-idea-aaaa0001")
    on_root, on_idea = quest.run(quest.root, "main-001"), quest.run(idea, "main-002")
    quest.checkpoint(quest.root, "experiment: main-001")
    quest.checkpoint(idea, "experiment: main-002")
    tips = [quest.git(quest.root, "rev-parse", "HEAD"), quest.git(idea, "rev-parse", "HEAD")]
    quest.write_quest_yaml(startup_contract={"schema_version": 3, "experience_distill": {"mode": "on"}})
    quest.checkpoint(quest.root, "quest: turn experience_distill on")
    config = tmp_path / "config.yaml"
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    baseline(config, quest.root, f"commit: {tips[0]}")
    code, out = gate_json("closure", str(quest.root))
    assert code == 1 and out["baselined_run_ids"] == [on_root] and out["pending_run_ids"] == [on_idea]
    baseline(config, quest.root, f"commit: [{tips[0]}, {tips[1]}]")
    code, out = gate_json("closure", str(quest.root))
    assert code == 0 and sorted(out["baselined_run_ids"]) == sorted([on_root, on_idea]) and out["pending_run_ids"] == []
    assert main(["closure", str(quest.root)]) == 0
    assert "PASSED - 0 of 2 completed runs pending distill review, 2 baselined" in capsys.readouterr().out


def test_the_configuration_pages_baselines_are_a_trusted_configuration(tmp_path) -> None:
    """The example of docs/configuration.md, as written, is what the trusted file takes."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    section = page.split("## Baseline: adopting the gate mid-quest", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    config = tmp_path / "config.yaml"
    config.write_text(example)
    trusted = load(str(config))
    assert trusted.problem is None, trusted.problem
    assert [(b.index, len(b.commits), b.before is not None) for b in trusted.baselines] == [
        (0, 1, False),
        (1, 2, False),
        (2, 0, True),
    ]


def test_the_health_report_counts_the_baselined_runs_apart_from_pending(adopted, capsys) -> None:
    """``ds-gate report``: a baselined run is neither reviewed nor pending, and the totals say how many."""
    quest, before_gate, old, new, config = adopted
    baseline(config, quest.root, f"commit: {before_gate}")
    home = quest.root.parent.parent
    assert main(["report", "--home", str(home), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [row] = data["quests"]
    assert (row["runs"], row["reviewed"], row["pending"], row["baselined"]) == (len(old) + 1, 0, 1, len(old))
    assert data["totals"]["baselined"] == len(old)
    assert main(["report", "--home", str(home)]) == 0
    assert f"1 pending, {len(old)} baselined;" in capsys.readouterr().out
