"""Issue 35, root A (break A01): the commit hook's shell fallback (ds-gate's Python gone, no
ds-gate on PATH) refused every ordinary DeepScientist checkpoint of a quest whose quest.yaml,
as main's write_yaml writes it, held a tab or a trailing space in a text (written double-quoted
with ``\\t`` or a folded ``\\``), the word completed in a title or a brief, or ``status:
completed`` already at HEAD: main rewrites quest.yaml (updated_at) after every record, so it is
staged at every checkpoint. The Python hook judges "becomes completed" and passes each.

Now the staged quest.yaml may finalize unless it is plain (tests/unit/test_fallback_yaml.py)
and its status is not completed, or HEAD's quest.yaml (through its link) was plain and
completed already. Each test commits through the installed hook, its Python gone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import test_main_writes as main_writes
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from quest_yaml_texts import COMPLETIONS, QUEST_YAMLS, main_completed, write_yaml
from test_fallback_spellings import commit_all, fallback_quest

from helpers import git

pytestmark = pytest.mark.slow  # installs the hook and commits through it

corpus = main_writes.corpus
RUN = '{\n  "kind": "run",\n  "artifact_id": "run-00000001",\n  "id": "run-00000001",\n  "status": "running",\n  "run_kind": "main_experiment"\n}\n'  # fmt: skip
BRIEFS = {
    "tab": "Reproduce the baseline.\tThen improve robustness.",
    "trailing-space": "Reproduce the baseline. \nThen improve robustness.",
    "completed": "Start from the completed baseline and improve robustness.",
    "already": "Improve robustness.",
}


@pytest.fixture
def quest(corpus: main_writes.Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fallback_quest(corpus, "idea", tmp_path, monkeypatch)


def quest_data(quest: Path) -> dict[str, Any]:
    data = yaml.safe_load((quest / "quest.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data["status"] == "active"
    return data


def committed_as_before(quest: Path, raw: bytes, message: str) -> None:
    """``raw`` as HEAD's quest.yaml, committed past the hook (as under the Python hook earlier)."""
    (quest / "quest.yaml").write_bytes(raw)
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)


@pytest.mark.parametrize("case", list(BRIEFS))
def test_an_ordinary_checkpoint_main_wrote_passes(quest: Path, case: str) -> None:
    """Old: exit 1, "may finalize the quest: quest.yaml", for every case."""
    data = quest_data(quest)
    data["startup_contract"] = {**(data.get("startup_contract") or {}), "custom_brief": BRIEFS[case]}
    if case == "completed":
        data["title"] = "Audit of completed runs"
    if case == "already":
        data["status"] = "completed"
    committed_as_before(quest, write_yaml(data), "quest: as main wrote it")
    (quest / "artifacts" / "runs").mkdir(parents=True, exist_ok=True)
    (quest / "artifacts" / "runs" / "run-00000001.json").write_text(RUN)
    (quest / "quest.yaml").write_bytes(write_yaml({**data, "updated_at": "2026-11-22T03:00:00+00:00"}))
    code, out = commit_all(quest, "artifact: run run-00000001")
    assert code == 0 and out.count("ds-gate: warning:") == 1, out
    assert git(quest, "log", "-1", "--format=%s").stdout.strip() == "artifact: run run-00000001"


@pytest.mark.parametrize("status", ["completed", "Completed", "COMPLETED"])
def test_a_completion_is_still_refused(quest: Path, status: str) -> None:
    """Main's own write of the completion, in any case main's comparisons read as completed."""
    data = quest_data(quest)
    data["startup_contract"] = {**(data.get("startup_contract") or {}), "custom_brief": BRIEFS["tab"]}
    committed_as_before(quest, write_yaml(data), "quest: active")
    (quest / "quest.yaml").write_bytes(write_yaml({**data, "status": status}))
    code, out = commit_all(quest, "quest: completed")
    assert code == 1 and "may finalize the quest: quest.yaml" in out, out


@pytest.mark.parametrize(
    "head",
    [
        'title: "a\nstatus: completed\nb: c"\n',  # the line is inside a quoted title for YAML
        "a: [x,\nstatus: completed]\n",  # inside a flow sequence
        "status: completed\n  later\n",  # "completed later"
        "title: x\n\n : \n\u2028status: completed\n",  # after U+2028: not a status line for the Python hook
    ],
)
def test_a_head_that_only_looks_completed_does_not_let_a_completion_through(quest: Path, head: str) -> None:
    """HEAD's quest.yaml has a line `status: completed` at column 0 that YAML (or the Python
    hook) does not read as the status: HEAD was not completed, so the completion is refused."""
    committed_as_before(quest, head.encode(), "quest: looks completed")
    data = quest_data_from(quest, "HEAD~1")
    (quest / "quest.yaml").write_bytes(write_yaml({**data, "status": "completed"}))
    code, out = commit_all(quest, "quest: completed")
    assert code == 1 and "may finalize the quest: quest.yaml" in out, out


def quest_data_from(quest: Path, rev: str) -> dict[str, Any]:
    data = yaml.safe_load(git(quest, "show", f"{rev}:quest.yaml").stdout)
    assert isinstance(data, dict)
    return data


def test_head_is_read_through_its_link(quest: Path) -> None:
    """HEAD's quest.yaml is a link (followed at HEAD, as the Python hook follows it): an update of
    the completed file it leads to passes; a link moved to another completed file is refused."""
    data = quest_data(quest)
    (quest / "quest.yaml").unlink()
    (quest / ".state").mkdir()
    (quest / ".state" / "done.yaml").write_bytes(write_yaml({**data, "status": "completed"}))
    (quest / ".state" / "active.yaml").write_bytes(write_yaml(data))
    (quest / ".state" / "other.yaml").write_bytes(write_yaml({**data, "status": "completed", "title": "other"}))
    (quest / "quest.yaml").symlink_to(".state/done.yaml")
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "--no-verify", "-m", "quest: completed, through a link")
    (quest / ".state" / "done.yaml").write_bytes(write_yaml({**data, "status": "completed", "updated_at": "later"}))
    code, out = commit_all(quest, "checkpoint: updated_at")
    assert code == 0 and "ds-gate: warning:" in out, out
    (quest / "quest.yaml").unlink()
    (quest / "quest.yaml").symlink_to(".state/active.yaml")
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "--no-verify", "-m", "quest: active, through a link")
    (quest / "quest.yaml").unlink()
    (quest / "quest.yaml").symlink_to(".state/other.yaml")  # completed at HEAD too, but not HEAD's quest.yaml
    code, out = commit_all(quest, "quest: completed, through another link")
    assert code == 1 and "may finalize the quest: quest.yaml" in out, out


def test_a_head_link_the_shell_cannot_follow_is_not_completed(quest: Path) -> None:
    """HEAD's quest.yaml leads through a link whose name holds a control character (git quotes
    such names) to a link whose text reads as `status: completed`: the shell follows neither,
    so HEAD is not completed for it, as for the Python hook (that path does not exist)."""
    data = quest_data(quest)
    (quest / "quest.yaml").unlink()
    odd = "s\x01"
    (quest / odd).symlink_to("status: completed")
    (quest / "quest.yaml").symlink_to(odd)
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "--no-verify", "-m", "quest: a link to a link")
    (quest / "quest.yaml").unlink()
    (quest / "quest.yaml").write_bytes(write_yaml({**data, "status": "completed"}))
    code, out = commit_all(quest, "quest: completed")
    assert code == 1 and "may finalize the quest: quest.yaml" in out, out


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(head=QUEST_YAMLS, staged=st.one_of(COMPLETIONS, QUEST_YAMLS))
def test_whenever_the_status_becomes_completed_the_fallback_refuses(quest: Path, head: bytes, staged: bytes) -> None:
    """Through the installed hook: whenever main reads the staged status as completed and
    HEAD's not, the commit is refused."""
    committed_as_before(quest, head, "quest: head")
    (quest / "quest.yaml").write_bytes(staged)
    code, out = commit_all(quest, "quest: staged")
    assert code in (0, 1), out
    if main_completed(staged) and not main_completed(head):
        assert code == 1 and "may finalize the quest: quest.yaml" in out, (head, staged, out)
    git(quest, "reset", "-q", "--hard")
