"""Issue 35: a diverged run (``NaN``, ``Infinity`` in its record, as DeepScientist main's
``write_json`` writes a ``"nan"`` metric) is a run like any other, and never makes ds-gate's
output invalid JSON: every answer is strict JSON (RFC 8259), a non-finite number written as
the text ``"NaN"`` / ``"Infinity"`` / ``"-Infinity"`` (``kernel.jsonout``).

Each output is read by a strict parser: ``json.loads`` with ``parse_constant`` raising,
through the real surfaces: the ``ds-gate`` command line, the MCP server spoken to by the
``mcp`` SDK's own client, and the integration's answer process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import anyio
import pytest
from test_mcp import _field, connect, is_error, text

from ds_gate.demo.example_quest import ExampleQuest

NAN, INF = float("nan"), float("inf")
pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

SPELLED = {"loss": "NaN", "acc": "Infinity", "drop": "-Infinity"}


def strict(output: str) -> Any:
    """``output`` as a strict JSON reader reads it: a bare NaN or Infinity is an error."""

    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON (RFC 8259)")

    return json.loads(output, parse_constant=refuse)


@pytest.fixture
def diverged(make_quest) -> tuple[ExampleQuest, str]:
    """Quest 001 with one completed run whose metrics diverged, committed as DeepScientist commits it."""
    quest = make_quest()
    run = quest.run(
        quest.root,
        "main-001",
        metrics_summary={"loss": NAN, "acc": INF, "drop": -INF},
        metric_rows=[{"metric_id": "loss", "value": NAN}],
        details={"primary_metric_id": "loss", "primary_value": NAN, "baseline_value": INF},
    )
    assert "NaN" in (quest.root / "artifacts" / "runs" / f"{run}.json").read_text()
    quest.checkpoint(quest.root, "experiment: record main main-001")
    return quest, run


def ds(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ds_gate", *args], capture_output=True, text=True)


def test_every_json_format_of_the_command_line_is_strict_and_counts_the_diverged_run(diverged) -> None:
    quest, run = diverged
    for command in ("closure", "check", "candidates"):
        done = ds(command, str(quest.root), "--format", "json")
        assert strict(done.stdout)["pending_run_ids"] == [run], (command, done.stdout, done.stderr)
    sarif = ds("closure", str(quest.root), "--format", "sarif")
    results = strict(sarif.stdout)["runs"][0]["results"]
    assert sarif.returncode == 1 and [r["ruleId"] for r in results] == ["coverage.pending-run"]
    quest.review(quest.root, [run])  # covered like any other run
    quest.checkpoint(quest.root, "artifact: decision review")
    closed = ds("closure", str(quest.root), "--format", "json")
    assert closed.returncode == 0 and strict(closed.stdout)["pending_run_ids"] == [], closed.stdout + closed.stderr


def test_the_mcp_tools_answer_strict_json_about_a_diverged_run(diverged, home, tmp_path) -> None:
    quest, run = diverged
    errlog = tmp_path / "server.err"

    async def scenario() -> None:
        async with connect(quest.root, errlog) as session:
            answers = {}
            for tool, args in (
                ("list_distill_candidates", {}),
                ("check_closure", {}),
                ("list_recent", {"kind": "run"}),
                ("draft_distill_review", {"run_ids": [run]}),
            ):
                result = await session.call_tool(tool, args)
                assert not is_error(result), text(result)
                answers[tool] = strict(text(result))  # the text every client reads
                assert _field(result, "structured_content", "structuredContent") == answers[tool]
            [candidate] = answers["list_distill_candidates"]["candidates"]
            assert candidate["run_id"] == run and candidate["metrics_summary"] == SPELLED
            assert candidate["metric_rows"] == [{"metric_id": "loss", "value": "NaN"}]
            assert candidate["primary_metric"] == {"id": "loss", "value": "NaN", "baseline_value": "Infinity"}
            assert answers["check_closure"]["pending_run_ids"] == [run]
            assert answers["draft_distill_review"]["payload"]["reviewed_run_ids"] == [run]

    anyio.run(scenario)
    assert "Traceback" not in (errlog.read_text() if errlog.exists() else "")


def test_the_integrations_answer_is_strict_json(diverged) -> None:
    """``integration.call`` answers DeepScientist's wrapper on stdout: a tool's result and a
    refused finalization, each about the diverged run."""
    quest, run = diverged
    for request in (
        {"op": "tool", "tool": "list_distill_candidates", "root": str(quest.root)},
        {"op": "finalization", "tool": "submit_paper_bundle", "root": str(quest.root)},
    ):
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from ds_gate.integration.call import main; sys.exit(main())"],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            env={**os.environ},
        )
        answer = strict(done.stdout)
        assert "error" not in answer, answer
        if request["op"] == "tool":
            assert answer["result"]["candidates"][0]["metrics_summary"] == SPELLED
        else:
            assert answer["allow"] is False and answer["refusal"]["pending_run_ids"] == [run]
