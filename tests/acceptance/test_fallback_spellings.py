"""Issue 35, break 10: the commit hook's shell fallback (ds-gate's Python gone, no ds-gate on
PATH) blocks every commit that may finalize, in any spelling the Python hook reads as one, and
still lets every ordinary checkpoint DeepScientist main wrote through.

The fallback read each file line by line and matched one spelling, so it missed: a Unicode
space (raw UTF-8) or an escaped ``\\n`` around the action's value, which ``str.strip()``
removes; ``"action"``, ``:`` and the value on separate lines (JSON allows any white space);
a decision outside ``artifacts/decisions`` whose ``kind`` is spelled with an escape; and a
``quest.yaml`` whose ``status`` says completed in another YAML form (``"status"``, ``!!str``,
the next line, ``Completed``, an alias). Each spelling here is first checked to be a
finalization for the Python hook (``finalizing_reason``, ``quest_status``), then committed
through the fallback. The corpus of what main writes is committed through it too, every case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_main_writes as main_writes

from ds_gate.kernel.finalizing import finalizing_reason
from ds_gate.rules.finalization import quest_status

from helpers import git

pytestmark = pytest.mark.slow  # installs the hook and commits through it

corpus = main_writes.corpus  # the corpus of what main writes, unpacked once (a fixture)
PLAIN = {
    "kind": "decision",
    "schema_version": 1,
    "artifact_id": "dec-x",
    "id": "dec-x",
    "quest_id": "001",
    "status": "pending",
    "verdict": "done",
    "action": "continue",
    "reason": "all experiments finished",
    "source": {"kind": "agent"},
}
FINALIZE = json.dumps({**PLAIN, "action": "finalize"}, indent=2, ensure_ascii=False)
SCOPE = json.dumps({**PLAIN, "decision_scope": "quest_completion"}, indent=2, ensure_ascii=False)

# (where, the file's text): each is a finalizing decision for json.loads and the Python hook
DECISIONS = {
    "nbsp": ("artifacts/decisions/dec-x.json", FINALIZE.replace('"finalize"', '"\u00a0finalize"')),
    "ideographic-space": ("artifacts/decisions/dec-x.json", FINALIZE.replace('"finalize"', '"finalize\u3000"')),
    "escaped-newline": ("artifacts/decisions/dec-x.json", FINALIZE.replace('"finalize"', '"\\tfinalize\\n"')),
    "separate-lines": (
        "artifacts/decisions/dec-x.json",
        FINALIZE.replace('"action": "finalize"', '"action"\n:\n"finalize"'),
    ),
    "crlf-lines": (
        "artifacts/decisions/dec-x.json",
        FINALIZE.replace('"action": "finalize"', '"action"\r\n  :\r\n  "FINALIZE"'),
    ),
    "scope-nbsp": ("artifacts/decisions/dec-x.json", SCOPE.replace('"quest_completion"', '"quest_completion\u00a0"')),
    "kind-escaped": (
        "artifacts/reports/dec-x.json",
        FINALIZE.replace('"kind": "decision"', '"kind": "d\\u0065cision"'),
    ),
    # the escaped kind key beside a plain nested one ("source": {"kind": "agent"})
    "kind-key-escaped": (
        "artifacts/reports/dec-x.json",
        FINALIZE.replace('"kind": "decision"', '"k\\u0069nd": "decision"'),
    ),
    "kind-nbsp": ("artifacts/reports/dec-x.json", FINALIZE.replace('"kind": "decision"', '"kind": "decision\u00a0"')),
    "kind-long-s": ("artifacts/reports/dec-x.json", FINALIZE.replace('"kind": "decision"', '"kind": "deci\u017fion"')),
    "kind-separate-lines": ("dec-x.json", FINALIZE.replace('"kind": "decision"', '"kind"\n:\n"decision"')),
}
# quest.yaml lines, each a `status` YAML reads as completed
STATUSES = {
    "quoted-key": '"status": completed',
    "tag": "status: !!str completed",
    "next-line": "status:\n  completed",
    "case": "status: Completed",
    "single-quoted": "status: 'completed'",
    "folded": "status: >-\n  completed",
    "alias": "done: &d completed\nstatus: *d",
    "complex-key": "? status\n: completed",
    "escaped-value": 'status: "\\x63ompleted"',
    "escaped-key": '"st\\x61tus": completed',
    "nbsp": "status: \u00a0completed",
    "comment": "status: completed  # at last",
}


def fallback_quest(corpus: main_writes.Corpus, template: str, where: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A template's quest with the hooks installed, then the Python they name gone and no
    ds-gate on PATH: every commit runs the hook's shell fallback."""
    quest = main_writes.make_quest(corpus, template, where)
    for name in ("pre-commit", "pre-merge-commit"):
        hook = quest / ".git" / "hooks" / name
        text = hook.read_text()
        pinned = text.split("DS_GATE_PYTHON=", 1)[1].split("\n", 1)[0]
        hook.write_text(text.replace(pinned, "'/gone/venv/bin/python'", 1))
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")  # git, sh, grep and tr; no ds-gate
    return quest


def commit_all(quest: Path, message: str) -> tuple[int, str]:
    git(quest, "add", "-A")
    done = git(quest, "commit", "-q", "-m", message, check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def quest(corpus: main_writes.Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fallback_quest(corpus, "idea", tmp_path, monkeypatch)


def test_every_spelling_of_a_finalizing_decision_is_refused(quest: Path) -> None:
    """Old: nbsp, ideographic-space, escaped-newline, separate-lines, crlf-lines, scope-nbsp,
    kind-escaped, kind-key-escaped, kind-nbsp and kind-separate-lines passed (exit 0)."""
    missed = []
    for case, (name, text) in DECISIONS.items():
        assert finalizing_reason(name, text.encode()) is not None, case  # the Python hook refuses it
        (quest / name).parent.mkdir(parents=True, exist_ok=True)
        (quest / name).write_text(text + "\n", encoding="utf-8")
        code, out = commit_all(quest, f"artifact: decision {case}")
        if code != 1 or f"may finalize the quest: {name}" not in out:
            missed.append(f"{case}: exit {code}")
            git(quest, "reset", "-q", "--hard", "HEAD~1")
        else:
            git(quest, "reset", "-q", "--hard")
    assert not missed, missed


def test_every_yaml_spelling_of_status_completed_is_refused(quest: Path) -> None:
    """Old: all but single-quoted and comment passed (the fallback read ``^status:`` lines)."""
    original = (quest / "quest.yaml").read_text()
    assert "completed" not in original.lower()
    missed = []
    for case, status in STATUSES.items():
        text = "\n".join(line for line in original.splitlines() if not line.startswith("status:")) + f"\n{status}\n"
        assert quest_status(text.encode()) == "completed", case  # the Python hook refuses it
        (quest / "quest.yaml").write_text(text, encoding="utf-8")
        code, out = commit_all(quest, f"quest: {case}")
        if code != 1 or "may finalize the quest: quest.yaml" not in out:
            missed.append(f"{case}: exit {code}")
            git(quest, "reset", "-q", "--hard", "HEAD~1")
    assert not missed, missed


def test_what_only_looks_like_a_finalization_passes(quest: Path) -> None:
    """Near misses the Python hook lets through are ordinary checkpoints for the fallback too."""
    near = {
        "artifacts/decisions/dec-n.json": {**PLAIN, "action": "continue\n", "reason": "finalize later"},
        "artifacts/decisions/dec-cjk.json": {**PLAIN, "action": "\u7ee7\u7eed", "reason": "finalize later"},
        "artifacts/decisions/dec-words.json": {**PLAIN, "action": "finalize the draft first", "reason": "x"},
        # main's write decision: its guidance names finalize among nested routes (old: refused)
        "artifacts/decisions/dec-route.json": {
            **PLAIN,
            "action": "write",
            "guidance_vm": {
                "alternative_routes": [{"action": "finalize", "label": "Finalize early"}],
                "source_artifact_kind": "decision",
            },
        },
        "artifacts/reports/r.json": {
            "kind": "report",
            "action": "finalize",
            "reason": "x\u0007y",
            "source": {"kind": "agent"},
        },
    }
    for name, record in near.items():
        text = json.dumps(record, indent=2, ensure_ascii=name.endswith("n.json") or "reports" in name)
        assert finalizing_reason(name, text.encode()) is None, name
        (quest / name).parent.mkdir(parents=True, exist_ok=True)
        (quest / name).write_text(text + "\n", encoding="utf-8")
    text = (quest / "quest.yaml").read_text().replace("title:", "title: Uncompleted runs, completedness;", 1)
    assert "title: Uncompleted" in text and quest_status(text.encode()) != "completed"
    (quest / "quest.yaml").write_text(text)
    code, out = commit_all(quest, "checkpoint: near misses")
    assert code == 0 and out.count("ds-gate: warning:") == 1, out


@pytest.mark.parametrize("template", main_writes.TEMPLATES)
def test_every_ordinary_checkpoint_main_wrote_passes_the_fallback(
    corpus: main_writes.Corpus, template: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All 248 accepted non-finalization cases of the corpus, each committed on its template's
    quest through the fallback, as DeepScientist's checkpoint commits them."""
    quest = fallback_quest(corpus, template, tmp_path, monkeypatch)
    cases = corpus.accepted(template, False)
    assert cases
    failures = main_writes.refused(corpus, cases, quest)
    assert not failures, f"{len(failures)} checkpoints refused:\n" + "\n".join(failures)


def test_every_finalization_main_wrote_is_refused_by_the_fallback(
    corpus: main_writes.Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback cannot tell whether runs are pending, so what main wrote to finalize is refused."""
    cases = corpus.accepted("idea", True)
    assert cases
    for case in cases:
        (tmp_path / case["id"][:4]).mkdir()
        quest = fallback_quest(corpus, "idea", tmp_path / case["id"][:4], monkeypatch)
        assert main_writes.refused(corpus, [case], quest), case["id"]


def test_an_escaped_quote_colon_or_backslash_u_in_a_value_or_key_passes(quest: Path) -> None:
    """Break 20. Old: refused, since "an escape in a key" matched from an escaped quote inside
    the reason to the ``":`` after it, and an escaped backslash before ``u`` (``\\\\u``) read as
    a ``\\u`` escape. Keys are now judged from awk's top-level member listing."""
    records = {
        "dec-tex": {**PLAIN, "reason": 'Added "\\usepackage{booktabs}": cleaner tables'},
        "dec-path": {**PLAIN, "reason": 'Read "C:\\users\\me\\x.csv": missing'},
        "dec-key": {**PLAIN, "C:\\users": "a key holding an escaped backslash before u"},
    }
    for stem, record in records.items():
        name = f"artifacts/decisions/{stem}.json"
        text = json.dumps(record, indent=2, ensure_ascii=False)  # main's write_json
        assert "\\\\u" in text and finalizing_reason(name, text.encode()) is None, stem
        (quest / name).parent.mkdir(parents=True, exist_ok=True)
        (quest / name).write_text(text + "\n", encoding="utf-8")
        code, out = commit_all(quest, f"decision: {stem}")
        assert code == 0 and "ds-gate: warning:" in out, (stem, out)


def test_an_escape_in_a_key_still_finalizes(quest: Path) -> None:
    """The anchored key pattern still reads a real ``\\u`` escape in a top-level key, beside a key
    holding an escaped backslash before u and an escaped quote."""
    cases = {
        "escape": FINALIZE.replace('"action"', '"\\u0061ction"'),
        "scope": SCOPE.replace('"decision_scope"', '"decision\\u005fscope"'),
        "after-backslash": FINALIZE.replace('"action"', '"\\u0061ction"').replace(
            '"reason"', '"C:\\\\users\\u0022": "x",\n  "reason"'
        ),
    }
    for case, text in cases.items():
        name = "artifacts/decisions/dec-x.json"
        assert finalizing_reason(name, text.encode()) is not None, case  # the Python hook refuses it
        (quest / name).parent.mkdir(parents=True, exist_ok=True)
        (quest / name).write_text(text + "\n", encoding="utf-8")
        code, out = commit_all(quest, f"decision: {case}")
        assert code == 1 and f"may finalize the quest: {name}" in out, (case, out)
        git(quest, "reset", "-q", "--hard")


def link_checkpoint(quest: Path, setup: str) -> None:
    """An ordinary checkpoint that puts a link where DeepScientist reads quest.yaml or paper/.
    A link on the way to the target (on-the-way) is not followed by the shell: every staged file
    then counts, so that checkpoint is refused too (the fallback's chosen strictness)."""
    yaml = quest / "quest.yaml"
    if setup == "yaml":
        yaml.rename(quest / ".quest-state.yaml")
        yaml.symlink_to(".quest-state.yaml")
    elif setup == "bundle":
        (quest / ".bundle").mkdir()
        (quest / ".bundle" / "README.md").write_text("notes\n")
        (quest / "paper").symlink_to(".bundle")
    elif setup == "manifest":
        (quest / "paper" / "drafts").mkdir(parents=True)
        (quest / "paper" / "notes.md").write_text("notes\n")
        (quest / "paper" / "paper_bundle_manifest.json").symlink_to("drafts/m.json")
    elif setup == "on-the-way":  # quest.yaml -> state/q.yaml, state -> .s
        (quest / ".s").mkdir()
        yaml.rename(quest / ".s" / "q.yaml")
        (quest / "state").symlink_to(".s")
        yaml.symlink_to("state/q.yaml")
    code, out = commit_all(quest, f"checkpoint: {setup}")
    if setup == "on-the-way":
        assert code == 1 and "may finalize the quest:" in out, out
    else:
        assert code == 0 and "ds-gate: warning:" in out, (setup, out)


@pytest.mark.parametrize(
    "setup, staged",
    [
        ("yaml", ".quest-state.yaml"),
        ("bundle", ".bundle/paper_bundle_manifest.json"),
        ("manifest", "paper/drafts/m.json"),
        ("on-the-way", ".s/q.yaml"),
    ],
)
def test_a_finalization_through_a_link_is_refused(quest: Path, setup: str, staged: str) -> None:
    """Break 25. Old: exit 0 for all four: the fallback matched only the literal paths, while the
    Python hook follows the link (kernel/links.py) and refuses."""
    link_checkpoint(quest, setup)
    target = quest / staged
    if staged.endswith(".yaml"):
        target.write_text(target.read_text().replace("status:", "status: completed\nold_status:", 1))
    else:
        target.write_text('{"title": "t", "files": []}\n')
    code, out = commit_all(quest, f"finalize: {setup}")
    assert code == 1 and f"may finalize the quest: {staged}" in out, out


def test_a_staged_link_to_a_completed_yaml_is_refused(quest: Path) -> None:
    """The link itself staged, its target committed earlier (an ordinary file then): the Python
    hook reads quest.yaml through it as completed."""
    done = (quest / "quest.yaml").read_text().replace("status:", "status: completed\nold_status:", 1)
    (quest / ".done.yaml").write_text(done)
    assert commit_all(quest, "checkpoint: a yaml file")[0] == 0
    (quest / "quest.yaml").unlink()
    (quest / "quest.yaml").symlink_to(".done.yaml")
    code, out = commit_all(quest, "quest: link")
    assert code == 1 and "may finalize the quest: quest.yaml" in out, out


def test_a_runtime_state_that_completes_is_refused_and_only_then(quest: Path) -> None:
    """Issue 35, C05: main reads the quest's status from ``.ds/runtime_state.json`` before
    quest.yaml. The fallback refuses the change to completed (any spelling the Python hook reads
    as one, and an escape it cannot read), and lets main's later writes of a completed file and
    every ordinary one through."""
    path = quest / ".ds" / "runtime_state.json"
    original = json.loads(path.read_text())
    assert original["status"] == "active"

    def write(**changes: object) -> str:
        text = json.dumps({**original, **changes}, indent=2, ensure_ascii=False)
        path.write_text(text + "\n")
        return text

    assert write(last_transition_at="x", stop_reason="completed_by_user_approval")
    assert commit_all(quest, "turn")[0] == 0
    for case, changes in {
        "mark_completed": {"status": "completed", "display_status": "completed"},
        "display-only": {"display_status": "completed"},
        "status-only": {"status": "completed"},
        "padded": {"display_status": "\u00a0Completed\n"},
        "escaped": {"status": "\\u0063ompleted"},
    }.items():
        text = write(**changes).replace("\\\\u", "\\u")
        path.write_text(text + "\n")
        code, out = commit_all(quest, f"runtime: {case}")
        assert code == 1 and "may finalize the quest: .ds/runtime_state.json" in out, (case, out)
    write(status="completed", display_status="completed")
    git(quest, "add", "-A")
    git(quest, "commit", "-q", "--no-verify", "-m", "completed")
    write(status="completed", display_status="completed", last_transition_at="y")  # main writes on after completion
    assert commit_all(quest, "after completion")[0] == 0
    write(last_transition_at="z")  # resumed
    assert commit_all(quest, "resumed")[0] == 0


def test_a_paper_bundle_manifest_at_any_depth_is_refused(quest: Path) -> None:
    """Issue 35, C06: main writes the bundle in the workspace ``research_state.json`` names, which
    the shell does not read: a file of the manifest's name anywhere may be it."""
    (quest / "ws" / "paper").mkdir(parents=True)
    (quest / "ws" / "paper" / "paper_bundle_manifest.json").write_text('{"title": "t"}\n')
    code, out = commit_all(quest, "paper bundle in ws")
    assert code == 1 and "may finalize the quest: ws/paper/paper_bundle_manifest.json" in out, out
