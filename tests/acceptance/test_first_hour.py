"""Issue 39, "The first hour": a quest with runs pending to practise on (``demo --dir DIR --pending``),
a demo that says its DeepScientist is a stand-in, and a review a person writes by hand, as the
hint prints it, that covers the runs (the hook accepts it, closure passes)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_mcp import connect, drive, payload

from ds_gate.cli.main import main

from helpers import commit, head_subject

pytestmark = pytest.mark.slow  # starts Python processes (the demo's hooks, the MCP server)

STAND_IN = 'the demo\'s "DeepScientist" is a stand-in'
IDEA = ".ds/worktrees/idea-idea-dac323e6"
PAPER = ".ds/worktrees/paper-main-001"


def _demo(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "ds-gate"
    return subprocess.run([str(script), "demo", *args], capture_output=True, text=True)


@pytest.fixture
def kept(tmp_path: Path) -> tuple[Path, str]:
    done = _demo("--dir", str(tmp_path), "--pending")
    assert done.returncode == 0, done.stdout + done.stderr
    return tmp_path, done.stdout


def test_demo_pending_keeps_a_quest_with_runs_pending_and_says_its_deepscientist_is_a_stand_in(kept, capsys) -> None:
    base, out = kept
    root = base / "DeepScientist" / "quests" / "001"
    assert STAND_IN in " ".join(out.split()) and "Traceback" not in out
    assert "ds-gate closure: PASSED" not in out and "kept quest 001 with 2 completed runs pending" in out
    # the printed tries work as printed: closure rejects, the hook refuses the staged paper bundle
    capsys.readouterr()
    assert main(["closure", str(root), "--format", "json"]) == 1
    assert len(json.loads(capsys.readouterr().out)["pending_run_ids"]) == 2
    refused = subprocess.run(
        ["git", "-C", PAPER, "commit", "-m", "paper: bundle"], cwd=root, capture_output=True, text=True
    )
    assert refused.returncode != 0 and "REJECTED - 2 of 2 completed runs pending" in refused.stderr
    # the draft beside the quest (outside it): validate-review names its placeholder
    assert f"ds-gate validate-review {base / 'review.json'} --quest {IDEA}" in out
    assert main(["validate-review", str(base / "review.json"), "--quest", str(root / IDEA), "--format", "json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert not answer["ok"] and "review.placeholder" in {f["rule"] for f in answer["findings"]}
    # the agent's tools, over the real MCP SDK client
    errlog = base / "server.err"

    async def scenario() -> None:
        async with connect(root, errlog) as session:
            verdict = payload(await session.call_tool("check_closure", {}))
            assert verdict["verdict"] == "rejected" and len(verdict["pending_run_ids"]) == 2

    drive(scenario, errlog)


def test_demo_pending_needs_a_folder_to_keep_the_quest_in() -> None:
    done = _demo("--pending")
    assert done.returncode == 2 and "--dir DIR" in done.stdout + done.stderr


def _hand_review(hint: str, ids: list[str], workspace: Path) -> tuple[dict[str, object], dict[str, object]]:
    """The two JSON objects the hint prints, filled in as a person would: only the <...> parts."""
    block = hint.split("or by hand, with no agent:", 1)[1].split("(docs/concepts.md#a-review-written-by-hand)", 1)[0]
    record_text, line_text = re.findall(r"\{[^{}]*\}", block.split("commit both:", 1)[1])
    name = "report-0a1b2c3d"
    path = workspace / "artifacts" / "reports" / f"{name}.json"
    stamp = "2026-11-23T10:00:00+00:00"

    def fill(text: str) -> dict[str, object]:
        text = re.sub(r"\[the \d+ ids above, each as \"run-\.\.\.\"\]", json.dumps(ids), text)
        for placeholder, value in (
            ("report-<8 hex>", name),
            ("<now, ISO 8601>", stamp),
            ("<its updated_at>", stamp),
            ("<the file's absolute path>", str(path)),
            ("<why no lesson is worth a card>", "both runs confirm the baseline; nothing reusable"),
        ):
            text = text.replace(placeholder, value)
        assert "<" not in text, text
        return dict(json.loads(text))

    return fill(record_text), fill(line_text)


def test_a_review_written_by_hand_as_the_hint_prints_it_covers_the_runs(kept, capsys) -> None:
    base, _ = kept
    root = base / "DeepScientist" / "quests" / "001"
    capsys.readouterr()
    assert main(["closure", str(root)]) == 1
    hint = capsys.readouterr().out
    assert "artifacts/reports/report-<8 hex>.json" in hint and '"quest_id": "001"' in hint
    ids = sorted(set(re.findall(r"'(run-[0-9a-f]{8})',", hint)))
    assert len(ids) == 2
    idea = root / IDEA
    record, line = _hand_review(hint, ids, idea)
    assert list(line) == ["artifact_id", "kind", "status", "quest_id", "path", "summary", "updated_at"]  # main's
    path = Path(str(line["path"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2))
    with (idea / "artifacts" / "_index.jsonl").open("a") as index:
        index.write(json.dumps(line) + "\n")
    done = commit(idea, "report: distill review, by hand")  # the hook runs, as on any commit
    assert done.returncode == 0 and head_subject(idea) == "report: distill review, by hand", done.stderr
    assert main(["closure", str(root)]) == 0, capsys.readouterr().out
    assert "PASSED - 0 of 2 completed runs pending" in capsys.readouterr().out
    # and the finalization the hook refused goes through
    assert commit(root / PAPER, "paper: bundle").returncode == 0
    assert head_subject(root / PAPER) == "paper: bundle"
