"""Issue 35: "DeepScientist accepts it => the ordinary checkpoint passes", as a property.

``main_payloads.accepted_payloads`` draws run and decision payloads that main's own acceptance
(``validate_artifact_payload``, written from the reference in ``main_payloads``, independently of
ds-gate) lets through: odd types in ``verdict``, ``action``, ``reason``, ``run_kind``,
``artifact_id`` and ``status``, blank and unicode strings, NaN and Infinity anywhere, nesting.
Each record is written as main writes it (its defaults overlaid by the payload, ``json.dumps``
with NaN allowed, indent 2, named ``str(artifact_id)``) into one quest whose real hook is
installed, then committed as DeepScientist commits; the commit must pass. A refused checkpoint
stays refused at every later one, so one failure is the quest's versioning gone.

A few examples run in the suite; ``DS_GATE_HYPOTHESIS_EXAMPLES=500`` runs many more.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings

from helpers import git
from main_payloads import accepted_payloads, written

pytestmark = pytest.mark.slow  # installs the hook and commits through it (conftest.py)

EXAMPLES = int(os.environ.get("DS_GATE_HYPOTHESIS_EXAMPLES", "10"))
FOLDERS = {"run": "runs", "decision": "decisions"}
_QUEST: list[Path] = []  # one quest for every example: each commit is its own checkpoint


def quest() -> Path:
    if not _QUEST:
        root = Path(tempfile.mkdtemp(prefix="ds-gate-main-accepts-")) / "DeepScientist" / "quests" / "001"
        root.mkdir(parents=True)
        (root / "quest.yaml").write_text(
            "quest_id: '001'\nstatus: active\nstartup_contract:\n  experience_distill:\n    mode: 'on'\n"
        )
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "quest")
        done = subprocess.run(
            [sys.executable, "-m", "ds_gate", "install", str(root)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        _QUEST.append(root)
    return _QUEST[0]


def record(root: Path, payload: dict[str, Any], n: int) -> Path:
    data = written(payload, f"{payload['kind']}-{n:08x}")
    path = root / "artifacts" / FOLDERS[payload["kind"]] / f"{data['artifact_id']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@example(payload={"kind": "run", "run_kind": "main_experiment", "metrics_summary": {"loss": float("nan")}})
@example(payload={"kind": "decision", "action": "continue", "verdict": True, "reason": ["faster", "cheaper"]})
@example(payload={"kind": "decision", "action": "stop", "verdict": {"a": 1}, "reason": " ", "artifact_id": 123})
@example(payload={"kind": "run", "run_kind": ["main_experiment"], "artifact_id": "", "status": float("inf")})
@given(payload=accepted_payloads())
def test_what_deepscientist_accepts_passes_the_ordinary_checkpoint(payload: dict[str, Any]) -> None:
    root = quest()
    path = record(root, payload, len(git(root, "log", "--format=%h").stdout.split()))
    git(root, "add", "-A")
    done = git(root, "commit", "-q", "-m", "checkpoint", check=False)
    if done.returncode != 0:
        git(root, "commit", "-q", "--no-verify", "-m", "forced")  # the next example starts clean
    assert done.returncode == 0, f"{path.name}: {payload!r}\n{done.stdout}{done.stderr}"


@pytest.mark.parametrize("depth", [975, 990])
def test_a_record_nested_as_deep_as_mains_json_writes_passes_and_is_judged(depth: int) -> None:
    """Adversary s7 A02: main accepts a ``run_kind`` list nested ~975 deep (it is truthy) and its
    ``json`` writes and reads it; jsonschema's wording of the error recursed past the limit, so the
    checkpoint was refused and ``check`` ended in exit 3. Written as text here: this process's
    stack is deeper than the hook's."""
    root = quest()
    deep = "[" * depth + '"main_experiment"' + "]" * depth
    path = root / "artifacts" / "runs" / f"run-deep{depth:04d}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'{{"kind": "run", "id": "{path.stem}", "artifact_id": "{path.stem}", "status": "completed", "run_kind": {deep}}}'
    )
    git(root, "add", "-A")
    done = git(root, "commit", "-q", "-m", "checkpoint", check=False)
    if done.returncode != 0:
        git(root, "commit", "-q", "--no-verify", "-m", "forced")
    assert done.returncode == 0, done.stdout + done.stderr  # old: refused
    checked = subprocess.run(
        [sys.executable, "-m", "ds_gate", "check", str(root)], capture_output=True, text=True, cwd=root.parent
    )
    assert checked.returncode in (0, 1) and "Traceback" not in checked.stderr, checked.stdout + checked.stderr
