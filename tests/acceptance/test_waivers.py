"""Waivers in .ds-gate.yaml: never silent, never without a reason, never forever. The quest's
own waivers lower a verdict only once a trusted setting accepts them (test_trust.py has the
proposals): here the user's configuration accepts this quest's, as its owner would."""

from __future__ import annotations

import pytest

from ds_gate.cli.main import main


@pytest.fixture
def quest(make_quest, tmp_path, monkeypatch):
    quest = make_quest()
    config = tmp_path / "user-config.yaml"  # outside the quest: trusted
    config.write_text(f"accept_quest_waivers: [{quest.root}]\n")
    monkeypatch.setenv("DS_GATE_CONFIG", str(config))
    run = quest.run(quest.root, "smoke-001")
    quest.checkpoint(quest.root, "record")
    return quest, run


def waivers(quest, text: str) -> None:
    (quest.root / ".ds-gate.yaml").write_text(text)


def test_a_waived_pending_run_passes_the_closure_gate_and_shows_its_reason(quest, gate_json, capsys) -> None:
    q, run = quest
    waivers(
        q,
        f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: a smoke test of the loader; nothing to learn\n"
        "    expires: 2999-12-31\n",
    )
    code, out = gate_json("closure", str(q.root))
    assert code == 0 and out["ok"] is True
    [finding] = out["findings"]
    assert finding["rule"] == "coverage.pending-run" and finding["severity"] == "error"  # kept, not dropped
    assert finding["waived"].startswith("a smoke test of the loader; nothing to learn (waiver .ds-gate.yaml waivers[0]")
    assert out["pending_run_ids"] == [run]  # still pending, honestly

    assert main(["closure", str(q.root)]) == 0
    text = capsys.readouterr().out
    assert f"{run}  smoke-001" in text and "(waived: a smoke test of the loader; nothing to learn" in text
    assert "1 waived" in text and "next: run the distill skill" not in text  # nothing left to do
    assert "PASSED (waived: quest waivers accepted by accept_quest_waivers in" in text  # the verdict says whose
    assert main(["closure", str(q.root), "--format", "github"]) == 0
    github = capsys.readouterr().out
    assert "::notice " in github and "title=coverage.pending-run (waived)" in github and "::error" not in github


def test_a_waiver_can_name_a_path(quest, gate_json) -> None:
    q, run = quest
    waivers(q, f"waivers:\n  - rule: coverage.pending-run\n    path: artifacts/runs/{run}.json\n    reason: smoke\n")
    code, out = gate_json("closure", str(q.root))
    assert code == 0 and out["findings"][0]["waived"]


def test_an_expired_waiver_fails(quest, gate_json) -> None:
    q, run = quest
    waivers(q, f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: smoke\n    expires: 2001-01-01\n")
    code, out = gate_json("closure", str(q.root))
    assert code == 1
    got = sorted((f["rule"], f["waived"], f["path"], f["pointer"]) for f in out["findings"])
    assert got == [
        ("coverage.pending-run", None, f"artifacts/runs/{run}.json", ""),
        ("waiver.expired", None, ".ds-gate.yaml", "/waivers/0/expires"),
    ]
    expired = next(f for f in out["findings"] if f["rule"] == "waiver.expired")
    assert "expired on 2001-01-01" in expired["message"] and expired["line"] == 2


@pytest.mark.parametrize(
    ("entry", "line"),
    [
        ("  - rule: coverage.pending-run\n    id: {run}\n", 2),
        ("  - rule: coverage.pending-run\n    id: {run}\n    reason: '  '\n", 4),
        ("  - rule: coverage.pending-run\n    reason: no target\n", 2),
    ],
    ids=["no reason", "blank reason", "nothing named"],
)
def test_a_waiver_without_a_reason_or_target_is_rejected_and_waives_nothing(quest, gate_json, entry, line) -> None:
    q, run = quest
    waivers(q, "waivers:\n" + entry.format(run=run))
    code, out = gate_json("closure", str(q.root))
    assert code == 1
    rules = sorted(f["rule"] for f in out["findings"])
    assert rules == ["coverage.pending-run", "waiver.invalid"]
    assert all(f["waived"] is None for f in out["findings"])
    invalid = next(f for f in out["findings"] if f["rule"] == "waiver.invalid")
    assert (
        invalid["path"] == ".ds-gate.yaml" and invalid["pointer"].startswith("/waivers/0") and invalid["line"] == line
    )


def test_an_unused_waiver_is_a_warning_and_a_broken_file_an_error(quest, gate_json) -> None:
    q, run = quest
    waivers(q, "waivers:\n  - rule: coverage.pending-run\n    id: run-gone\n    reason: old\n")
    code, out = gate_json("check", str(q.root))
    assert code == 0 and [(f["rule"], f["severity"]) for f in out["findings"]] == [("waiver.unused", "warning")]
    waivers(q, "waivers: [\n")
    code, out = gate_json("check", str(q.root))
    assert code == 1 and [f["rule"] for f in out["findings"]] == ["waiver.invalid"]
    waivers(q, "waiver:\n  - rule: x\n")  # a misspelt key would silently waive nothing: it is an error
    code, out = gate_json("check", str(q.root))
    assert code == 1 and [f["rule"] for f in out["findings"]] == ["waiver.invalid"]


@pytest.mark.slow
def test_the_commit_hook_honours_waivers_for_finalization(quest) -> None:
    from helpers import commit, head_subject

    q, run = quest
    assert main(["install", str(q.root)]) == 0
    (q.root / "paper").mkdir()
    (q.root / "paper" / "paper_bundle_manifest.json").write_text("{}\n")
    rejected = commit(q.root, "paper: bundle")
    assert rejected.returncode != 0
    waivers(q, f"waivers:\n  - rule: coverage.pending-run\n    id: {run}\n    reason: smoke test only\n")
    accepted = commit(q.root, "paper: bundle")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert head_subject(q.root) == "paper: bundle" and "waived: smoke test only" in accepted.stdout + accepted.stderr
