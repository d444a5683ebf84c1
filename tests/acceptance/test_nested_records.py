"""Issue 35, attack 02: DeepScientist main writes a decision at ``artifacts/decisions/<artifact_id>.json``
whatever the id holds, making folders and following ``..``: ``sub/x`` lands in a subfolder,
``../reports/x`` among the reports, ``../../x`` at the workspace's top. Each is a finalizing
decision when it says so, and the commit and pre-push hooks (fast path, full path, shell fallback)
see it wherever it lies; DeepScientist's own JSON files (state, caches, results) still pass an
ordinary checkpoint, read byte by byte and not parsed unless they could name the words.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from ds_gate.kernel.checkpoint import checkpoint_passes
from ds_gate.kernel.finalizing import finalizing_reason, may_finalize

from helpers import add_remote, git

TARBALL = Path(__file__).parent / "data" / "main-writes.tar.gz"
IDS = ["sub/dec-fin", "../reports/dec-fin", "../../dec-fin"]
ORDINARY = "0195-main-exp-main-experiment-metric-row-value"  # record_main_experiment: run, RESULT.json, .ds/*, paper/*


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("main-writes")
    with tarfile.open(TARBALL) as tar:
        tar.extractall(where, filter="data")
    return where / "main-writes"


def make_quest(corpus: Path, template: str, where: Path) -> Path:
    """A template's workspace committed, the hooks installed, pushed to a bare remote."""
    quest = where / "DeepScientist" / "quests" / "001"
    shutil.copytree(corpus / "templates" / template, quest)
    git(quest, "init", "-q", "-b", "main")
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "-m", f"template {template}")
    done = subprocess.run(
        [sys.executable, "-m", "ds_gate", "install", str(quest)], capture_output=True, text=True, check=False, cwd=where
    )
    assert done.returncode == 0, done.stdout + done.stderr
    add_remote(quest, where / "remote.git")
    pushed = git(quest, "push", "-q", "origin", "main", check=False)  # an ordinary push: nothing final sent
    assert pushed.returncode == 0, pushed.stderr
    return quest


def write_decision(workspace: Path, artifact_id: str, **fields: object) -> str:
    """The decision as main's ``ArtifactService.record`` writes it (``_artifact_path``: the id
    joined to the folder, ``..`` followed), with its index line; its path, as git names it."""
    record = {
        "kind": "decision",
        "schema_version": 1,
        "artifact_id": artifact_id,
        "id": artifact_id,
        "quest_id": "001",
        "status": "pending",
        "verdict": "done",
        "action": "finalize",
        "reason": "all experiments finished",
        "source": {"kind": "agent"},
        **fields,
    }
    path = Path(os.path.normpath(workspace / "artifacts" / "decisions" / f"{artifact_id}.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    with open(workspace / "artifacts" / "_index.jsonl", "a") as fh:
        fh.write(
            json.dumps(
                {
                    "artifact_id": artifact_id,
                    "kind": "decision",
                    "status": "pending",
                    "quest_id": "001",
                    "path": str(path),
                }
            )
            + "\n"
        )
    return path.relative_to(workspace).as_posix()


def escaped_scope(workspace: Path) -> str:
    """A continue decision at the workspace's top whose ``decision_scope`` is ``quest_completion``
    spelled with a JSON escape, which ``json.loads`` reads as the word."""
    path = write_decision(workspace, "../../wrap-up", action="continue", decision_scope="quest_completion")
    target = workspace / path
    target.write_text(target.read_text().replace('"quest_completion"', '"quest\\u005fcompletion"'))
    return path


def commit_all(workspace: Path, message: str, *extra: str) -> subprocess.CompletedProcess[str]:
    git(workspace, "add", "-A")
    return git(workspace, "commit", "-q", *extra, "-m", message, check=False)


def stage_case(corpus: Path, case_id: str, quest: Path) -> list[str]:
    """The stored files of a corpus case written at their paths; the JSON ones, as git names them."""
    case = next(
        json.loads(line)
        for line in (corpus / "manifest.jsonl").read_text().splitlines()
        if line.strip() and json.loads(line)["id"] == case_id
    )
    written = []
    for entry in case["files"]:
        if entry["ignored"] or not entry["stored"]:
            continue
        target = quest / entry["workspace_path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "ab" if entry["mode"] == "append" else "wb") as fh:
            fh.write((corpus / case_id / entry["stored"]).read_bytes())
        written.append(entry["workspace_path"])
    return [name for name in written if name.endswith(".json")]


# ------------------------------------------------------------------ the one definition


@pytest.mark.parametrize(
    "raw",
    [
        b'{"kind": "decision", "action": "\\u0066inalize"}',
        b'{"kind": "decision", "\\u0061ction": "finalize"}',
        '{"kind": "decision", "action": "\ufb01nalize"}'.encode(),  # U+FB01 casefolds to "fi"
        '{"kind": "decision", "decision_scope": "que\u017ft_completion"}'.encode(),  # U+017F casefolds to "s"
        '{"kind": "decision", "action": " FINALIZE "}'.encode("utf-16"),
        '{"kind": "decision", "decision_scope": "quest_completion"}'.encode("utf-32-be"),
    ],
)
def test_every_json_spelling_of_a_finalization_passes_the_byte_filter(raw: bytes) -> None:
    assert may_finalize(raw)
    assert finalizing_reason("dec-fin.json", raw) is not None
    assert finalizing_reason("artifacts/reports/x/dec-fin.json", raw) is not None


def test_outside_the_decisions_folder_only_a_decision_finalizes() -> None:
    """A file that is no decision (DeepScientist's own state, a run) never finalizes; one under
    ``artifacts/decisions/`` is a decision whatever its kind says, as the collector reads it."""
    raw = b'{"kind": "run", "action": "finalize"}'
    assert finalizing_reason("artifacts/reports/r.json", raw) is None
    assert finalizing_reason(".ds/research_state.json", b'{"action": "finalize"}') is None
    assert finalizing_reason("artifacts/decisions/sub/x.json", raw) is not None
    assert finalizing_reason("artifacts/decisions/sub/x.txt", raw) is None


def test_deepscientists_own_json_is_not_parsed(corpus: Path) -> None:
    """The byte filter spares nearly every JSON file main writes: only a file that could name a
    word is parsed (a paper state that names the finalize skill, a record with an escape)."""
    names = [p for p in corpus.rglob("*.json") if "files" in p.parts or "templates" in p.parts]
    parsed = [p for p in names if may_finalize(p.read_bytes())]
    assert len(names) > 500 and len(parsed) < len(names) // 5, (len(names), len(parsed))
    state = corpus / "templates" / "run" / ".ds" / "research_state.json"
    assert not may_finalize(state.read_bytes())


# ------------------------------------------------------------------ through the installed hooks


@pytest.mark.slow
@pytest.mark.parametrize("artifact_id", IDS)
def test_a_finalize_decision_wherever_main_writes_it_is_refused_at_commit_and_push(
    corpus: Path, tmp_path: Path, artifact_id: str
) -> None:
    """Template ``run``: run-ce0dc3cf is completed and not reviewed. The finalize decision is
    refused at commit (and judged as a record there), then, committed past the hook, at push."""
    quest = make_quest(corpus, "run", tmp_path)
    path = write_decision(quest, artifact_id, reason=["all experiments finished"])  # main accepts a list
    assert git(quest, "status", "--porcelain", "-uall").stdout.count(path) == 1
    git(quest, "add", "-A")
    assert not checkpoint_passes(str(quest))  # the kernel leaves it to the full path
    done = commit_all(quest, f"artifact: decision {artifact_id}")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert f"this commit finalizes the quest: it stages {path} (decision action 'finalize')" in output
    assert f"{path}:" in output and "error [decision.schema]" in output, output  # judged as a decision record
    assert "run-ce0dc3cf" in output and "Traceback" not in output

    assert commit_all(quest, "forced", "--no-verify").returncode == 0
    pushed = git(quest, "push", "-q", "origin", "main", check=False)
    output = pushed.stdout + pushed.stderr
    assert pushed.returncode != 0, output
    assert f"this push finalizes the quest: it sends {path} (decision action 'finalize')" in output


@pytest.mark.slow
def test_a_quest_completion_scope_spelled_with_escapes_at_the_top_is_refused(corpus: Path, tmp_path: Path) -> None:
    quest = make_quest(corpus, "run", tmp_path)
    path = escaped_scope(quest)
    done = commit_all(quest, "artifact: decision wrap-up")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"it stages {path} (decision_scope: quest_completion)" in done.stdout + done.stderr
    assert commit_all(quest, "forced", "--no-verify").returncode == 0
    pushed = git(quest, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and f"it sends {path}" in pushed.stdout + pushed.stderr


@pytest.mark.slow
def test_an_ordinary_checkpoint_of_main_passes_and_a_nested_finalize_after_it_does_not(
    corpus: Path, tmp_path: Path
) -> None:
    """A real ``record_main_experiment`` checkpoint (its run record, RESULT.json, .ds/ state, paper/
    state naming the finalize skill, the git graph) is answered by the kernel and committed; the
    next checkpoint's nested finalize decision is refused, the run it recorded being pending."""
    quest = make_quest(corpus, "idea", tmp_path)
    staged = stage_case(corpus, ORDINARY, quest)
    assert {".ds/research_state.json", "artifacts/graphs/git-graph.json", "paper/paper_line_state.json"} <= set(staged)
    git(quest, "add", "-A")
    git(quest, "reset", "-q", "--", "quest.yaml")  # main rewrites it too, which takes the full path
    assert checkpoint_passes(str(quest))  # the kernel answers: DeepScientist's own JSON read, none parsed to a verdict
    done = commit_all(quest, f"checkpoint {ORDINARY}")
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stdout + done.stderr
    path = write_decision(quest, "sub/dec-fin")
    done = commit_all(quest, "artifact: decision sub/dec-fin")
    assert done.returncode == 1 and f"it stages {path}" in done.stdout + done.stderr


@pytest.mark.slow
def test_the_shell_fallback_refuses_a_nested_finalize_and_lets_main_checkpoint(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ds-gate's Python is gone: the hook's shell reads every staged JSON file through the same
    byte filter; the ordinary checkpoint passes with its one warning, each nested finalize is refused."""
    quest = make_quest(corpus, "idea", tmp_path)
    hook = quest / ".git" / "hooks" / "pre-commit"
    text = hook.read_text()
    hook.write_text(text.replace(text.split("DS_GATE_PYTHON=", 1)[1].split("\n", 1)[0], "'/gone/venv/bin/python'", 1))
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # git, sh, grep and tr; no ds-gate
    stage_case(corpus, ORDINARY, quest)
    done = commit_all(quest, f"checkpoint {ORDINARY}")
    assert done.returncode == 0 and (done.stdout + done.stderr).count("ds-gate: warning:") == 1, done.stderr
    # an escape grep cannot read, in a field that cannot finalize (main writes control characters so)
    path = write_decision(quest, "sub/dec-bell", action="continue", reason="bell \u0007 rang")
    assert "\\u0007" in (quest / path).read_text()
    done = commit_all(quest, "artifact: decision sub/dec-bell")
    assert done.returncode == 0, done.stderr
    for artifact_id in IDS:
        path = write_decision(quest, artifact_id)
        done = commit_all(quest, f"artifact: decision {artifact_id}")
        assert done.returncode == 1 and f"may finalize the quest: {path}" in done.stderr, done.stderr
        git(quest, "reset", "-q")
        (quest / path).unlink()
    escaped_scope(quest)
    done = commit_all(quest, "artifact: decision wrap-up")
    assert done.returncode == 1 and "may finalize the quest: wrap-up.json" in done.stderr, done.stderr
