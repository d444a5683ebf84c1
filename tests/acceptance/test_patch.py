"""Cross-quest patches of a card: the API, the commit hook (staged vs HEAD) and ``--since``.

A quest that does not own a card (its owners are the quests in its lineage) may append
lineage, never change the claim, raise confidence or rewrite earlier entries.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import ds_gate
from ds_gate.cli.main import main
from ds_gate.demo.example_quest import ExampleQuest

from helpers import add_remote, commit, git, head_subject

ORIGIN = {
    "id": "knowledge-04942297",
    "type": "knowledge",
    "kind": "knowledge",
    "title": "Sparse routing needs load balancing",
    "quest_id": "001",
    "scope": "global",
    "claim": "Load-balancing loss prevents expert collapse.",
    "confidence": 0.6,
    "lineage": [{"quest": "001", "run": "run-aaaa0001", "direction": "idea-x", "note": "n"}],
}


def patched(**changes) -> dict:
    after = copy.deepcopy(ORIGIN)
    after.update(changes)
    return after


APPENDED = patched(lineage=[*ORIGIN["lineage"], {"quest": "002", "run": "run-bbbb0002", "note": "confirmed"}])


def test_appending_lineage_from_another_quest_passes() -> None:
    assert ds_gate.validate_cross_quest_patch(ORIGIN, APPENDED, "002") == []
    lower = patched(confidence=0.4, lineage=APPENDED["lineage"])
    assert ds_gate.validate_cross_quest_patch(ORIGIN, lower, "002") == []


@pytest.mark.parametrize(
    ("after", "rule", "pointer"),
    [
        (patched(claim="Load-balancing loss sometimes prevents expert collapse."), "patch.claim-changed", "/claim"),
        (patched(confidence=0.9), "patch.confidence-raised", "/confidence"),
        (
            patched(
                lineage=[
                    {"quest": "001", "run": "run-aaaa0009", "direction": "idea-x", "note": "n"},
                    {"quest": "002", "run": "run-bbbb0002"},
                ]
            ),
            "patch.lineage-rewritten",
            "/lineage/0",
        ),
        (patched(lineage=[{"quest": "002", "run": "run-bbbb0002"}]), "patch.lineage-rewritten", "/lineage/0"),
    ],
    ids=["claim", "confidence", "rewritten entry", "replaced lineage"],
)
def test_each_forbidden_cross_quest_change_fails_with_its_own_rule(after, rule, pointer) -> None:
    found = ds_gate.validate_cross_quest_patch(ORIGIN, after, "002")
    assert [(f.rule, f.pointer, f.severity) for f in found] == [(rule, pointer, "error")]
    assert "quest 002 patches a card owned by quest 001" in found[0].message and found[0].hint


def test_dropping_entries_and_adding_confidence_where_there_was_none() -> None:
    shorter = ds_gate.validate_cross_quest_patch(APPENDED, ORIGIN, "003")
    assert [(f.rule, f.pointer) for f in shorter] == [("patch.lineage-rewritten", "/lineage")]
    no_confidence = {k: v for k, v in ORIGIN.items() if k != "confidence"}
    raised = ds_gate.validate_cross_quest_patch(no_confidence, ORIGIN, "002")  # missing counts as 0, as in PR #60
    assert [f.rule for f in raised] == ["patch.confidence-raised"]


def test_a_sole_owner_may_change_anything_and_new_cards_have_no_before() -> None:
    rewrite = patched(claim="Different claim.", confidence=1.0, lineage=[{"quest": "001", "run": "run-aaaa0003"}])
    assert ds_gate.validate_cross_quest_patch(ORIGIN, rewrite, "001") == []
    assert ds_gate.validate_cross_quest_patch(None, ORIGIN, "009") == []
    # an unknown patching quest is held to the strict rules
    assert [f.rule for f in ds_gate.validate_cross_quest_patch(ORIGIN, patched(claim="x"), None)] == [
        "patch.claim-changed"
    ]


def test_quest_ids_compare_as_text_as_deepscientist_compares_them() -> None:
    """YAML reads ``quest: 001`` as 1; DeepScientist compares text, so quest 1 is not the owner '001' (issue 13)."""
    [finding] = ds_gate.validate_cross_quest_patch(ORIGIN, patched(claim="Different claim."), "1")
    assert finding.rule == "patch.claim-changed" and "compare as text" in finding.message


def test_a_claim_changed_only_in_surrounding_whitespace_is_the_same_claim() -> None:
    assert ds_gate.validate_cross_quest_patch(ORIGIN, patched(claim=f"  {ORIGIN['claim']}\n"), "002") == []


CO_OWNED_CHANGES = {
    "claim edit": ({"claim": "Refined."}, "patch.claim-changed"),
    "lineage shrink": ({"lineage": ORIGIN["lineage"]}, "patch.lineage-rewritten"),
    "confidence raise": ({"confidence": 0.9}, "patch.confidence-raised"),
}


@pytest.mark.parametrize("owner", ["001", "002"])
@pytest.mark.parametrize("change", sorted(CO_OWNED_CHANGES))
def test_once_two_quests_own_a_card_neither_edits_it_freely(owner: str, change: str) -> None:
    """002 appended its evidence, so 001 and 002 both own the card: as in PR #60, neither may
    change the claim, drop lineage entries or raise the confidence (issue 13)."""
    changes, rule = CO_OWNED_CHANGES[change]
    after = dict(copy.deepcopy(APPENDED), **changes)
    found = ds_gate.validate_cross_quest_patch(APPENDED, after, owner)
    assert [f.rule for f in found] == [rule]
    assert "quests 001, 002 (once two quests own it" in found[0].message
    appended_again = dict(
        copy.deepcopy(APPENDED), lineage=[*APPENDED["lineage"], {"quest": owner, "run": "run-cccc0003"}]
    )
    assert ds_gate.validate_cross_quest_patch(APPENDED, appended_again, owner) == []  # more evidence is always fine


def test_the_after_side_is_validated_first() -> None:
    broken = patched(lineage=[*ORIGIN["lineage"], {"quest": "002"}], confidence=3)
    found = ds_gate.validate_cross_quest_patch(ORIGIN, broken, "002")
    assert sorted((f.rule, f.pointer) for f in found) == [
        ("card.experience-schema", "/lineage/1/run"),
        ("card.schema", "/confidence"),
        ("patch.confidence-raised", "/confidence"),
    ]
    unchecked = ds_gate.validate_cross_quest_patch(ORIGIN, broken, "002", validate_after=False)
    assert [f.rule for f in unchecked] == ["patch.confidence-raised"]


# ---------------------------------------------------------------- the commit hook


def write_card(path: Path, meta: dict, body: str = "Body.\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{body}")


@pytest.fixture
def borrowing(make_quest) -> tuple[ExampleQuest, Path]:
    """Quest 002, hook installed, holding in its memory a card that quest 001 owns."""
    quest = make_quest("002")
    assert main(["install", str(quest.root)]) == 0
    card = quest.root / "memory" / "knowledge" / "sparse-routing-needs-load-balancing.md"
    write_card(card, ORIGIN)
    done = commit(quest.root, "memory: copy 001's lesson")
    assert done.returncode == 0, done.stdout + done.stderr
    return quest, card


def refused_when_finalizing(quest: ExampleQuest, rule: str, stage: tuple[str, ...] = (".",)) -> str:
    """``stage`` (everything, by default) committed with a ``finalize`` decision: a
    finalization commit, where a discipline finding is an error, is refused on ``rule`` and
    commits nothing; the decision is then taken back. Returns the hook's output.

    Issue 35: main's ``write_card`` does not run PR #60's patch validator, so an ordinary
    checkpoint only warns of a bad patch (``warned``); the finalization still refuses it."""
    head = head_subject(quest.root)
    record = quest.record(
        quest.root, "decision", {"action": "finalize", "verdict": "good", "reason": "done."}, index=False
    )
    decision = f"artifacts/decisions/{record['artifact_id']}.json"
    git(quest.root, "add", *stage, decision)
    rejected = git(quest.root, "commit", "-q", "-m", "finalize", check=False)
    output = rejected.stdout + rejected.stderr
    assert rejected.returncode != 0 and head_subject(quest.root) == head, output
    assert "finalizes the quest" in output and f"error [{rule}]" in output and "Traceback" not in output, output
    git(quest.root, "rm", "-q", "--cached", decision)
    (quest.root / decision).unlink()
    return output


def warned(workspace: Path, done: subprocess.CompletedProcess[str], rule: str, subject: str) -> str:
    """An ordinary checkpoint committed (as ``subject``) with a warning naming ``rule``:
    DeepScientist main writes such a card, so the checkpoint is never refused for it (issue 35)."""
    output = done.stdout + done.stderr
    assert done.returncode == 0 and head_subject(workspace) == subject, output
    assert f"warning [{rule}]" in output and "ds-gate commit-check: OK" in output and "Traceback" not in output, output
    return output


@pytest.mark.slow
@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"claim": "Something else."}, "patch.claim-changed"),
        ({"confidence": 0.95}, "patch.confidence-raised"),
        ({"lineage": [{"quest": "002", "run": "run-bbbb0002"}]}, "patch.lineage-rewritten"),
    ],
)
def test_the_hook_warns_of_a_bad_cross_quest_patch_and_refuses_it_in_a_finalization(borrowing, change, rule) -> None:
    """Issue 35: main's write_card does not run PR #60's patch validator, so an ordinary
    checkpoint commits the patch with a warning naming the rule; a finalization commit
    staging it is refused."""
    quest, card = borrowing
    write_card(card, patched(**change))
    refused_when_finalizing(quest, rule)
    output = warned(quest.root, commit(quest.root, "memory: patch"), rule, "memory: patch")
    assert "memory/knowledge/sparse-routing-needs-load-balancing.md" in output


@pytest.mark.slow
def test_the_hook_accepts_an_appended_lineage_and_a_same_quest_edit(borrowing, make_quest) -> None:
    quest, card = borrowing
    write_card(card, APPENDED)
    done = commit(quest.root, "memory: confirm in 002")
    assert done.returncode == 0, done.stdout + done.stderr
    # 002 now owns the card too; and its own new card may change at will
    own = quest.root / "memory" / "knowledge" / "own-lesson.md"
    write_card(own, dict(ORIGIN, id="knowledge-00000002", quest_id="002", lineage=[{"quest": "002", "run": "run-1"}]))
    assert commit(quest.root, "memory: own lesson").returncode == 0
    write_card(
        own,
        dict(
            ORIGIN,
            id="knowledge-00000002",
            quest_id="002",
            claim="Rewritten by its owner.",
            confidence=0.99,
            lineage=[{"quest": "002", "run": "run-2"}],
        ),
    )
    done = commit(quest.root, "memory: owner edit")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_hook_judges_the_staged_card_not_the_working_tree(borrowing) -> None:
    quest, card = borrowing
    write_card(card, patched(claim="Something else."))
    git(quest.root, "add", str(card))
    write_card(card, ORIGIN)  # the working tree is clean again; the index is not
    refused_when_finalizing(quest, "patch.claim-changed", stage=())  # the index as it is, and the decision
    done = git(quest.root, "commit", "-q", "-m", "memory: patch", check=False)
    warned(quest.root, done, "patch.claim-changed", "memory: patch")


@pytest.mark.slow
def test_the_hook_validates_a_staged_card(borrowing) -> None:
    """MemoryService writes such a card, so a checkpoint only warns (issue 13); ``check`` fails on it."""
    quest, card = borrowing
    write_card(card.with_name("broken.md"), {"id": "knowledge-1", "claim": "", "lineage": []})
    done = commit(quest.root, "memory: broken")
    output = done.stdout + done.stderr
    assert done.returncode == 0 and head_subject(quest.root) == "memory: broken"
    assert (
        "memory/knowledge/broken.md:3: warning [card.experience-schema] `claim` must not be empty" in output
    )  # line 3
    assert "discipline" in output  # the note says why it is only a warning here
    checked = json.loads(
        subprocess.run(
            [sys.executable, "-m", "ds_gate", "check", str(quest.root), "--format", "json"],
            capture_output=True,
            text=True,
        ).stdout
    )
    assert checked["ok"] is False and "card.experience-schema" in {f["rule"] for f in checked["findings"]}


def _set_quest_id(quest: ExampleQuest, quest_id: str) -> None:
    path = quest.root / "quest.yaml"
    meta = yaml.safe_load(path.read_text())
    meta["quest_id"] = quest_id
    path.write_text(yaml.safe_dump(meta, sort_keys=False))


@pytest.mark.slow
@pytest.mark.parametrize("staged", [False, True], ids=["quest.yaml-unstaged", "quest.yaml-staged"])
def test_a_quest_cannot_pose_as_the_owner_in_the_commit_that_patches(borrowing, staged) -> None:
    """Issue 15.8: quest 002 rewrites ``quest_id`` to 001 (the card's owner) in the same
    commit, or leaves it unstaged, and rewrites 001's claim. The hook names the committing
    quest from what the commit cannot change (its folder, ``HEAD:quest.yaml``)."""
    quest, card = borrowing
    _set_quest_id(quest, "001")
    write_card(card, patched(claim="Something else."))
    stage = (".",) if staged else ("memory",)
    for output in (
        refused_when_finalizing(quest, "patch.claim-changed", stage),
        warned(
            quest.root,
            commit(quest.root, "memory: patch as 001", *stage),
            "patch.claim-changed",
            "memory: patch as 001",
        ),
    ):
        assert "quest 002 patches a card owned by quest 001" in output


@pytest.mark.slow
def test_a_committed_identity_that_disagrees_with_the_folder_gets_the_strict_rules(borrowing) -> None:
    """The pose committed first (an ordinary checkpoint may change quest.yaml): HEAD then
    says 001 but the folder is quests/002, so nobody is named and the claim stays."""
    quest, card = borrowing
    _set_quest_id(quest, "001")
    done = commit(quest.root, "quest: rename")
    assert done.returncode == 0, done.stdout + done.stderr
    write_card(card, patched(claim="Something else."))
    for output in (
        refused_when_finalizing(quest, "patch.claim-changed"),
        warned(quest.root, commit(quest.root, "memory: patch as 001"), "patch.claim-changed", "memory: patch as 001"),
    ):
        assert "a quest that cannot be named" in output and "quests/002" in output  # the note says why
    write_card(card, dict(APPENDED, claim="Something else."))  # adding evidence (to HEAD's card) stays open to anyone
    done = commit(quest.root, "memory: confirm")
    assert done.returncode == 0 and "patch." not in done.stdout + done.stderr


def test_the_owner_in_its_own_folder_still_edits_freely(make_quest) -> None:
    """The rule does not lock the owner out: quest 001 (folder and HEAD agree) rewrites its card."""
    quest = make_quest("001")
    assert main(["install", str(quest.root)]) == 0
    card = quest.root / "memory" / "knowledge" / "sparse-routing-needs-load-balancing.md"
    write_card(card, ORIGIN)
    assert commit(quest.root, "memory: lesson").returncode == 0
    write_card(card, patched(claim="Refined by its owner.", confidence=0.95))
    done = commit(quest.root, "memory: refine")
    assert done.returncode == 0, done.stdout + done.stderr


# ---------------------------------------------------------------- a global memory under git


@pytest.fixture
def versioned_home(home) -> Path:
    memory = home / "memory"
    write_card(memory / "knowledge" / "sparse.md", ORIGIN)
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "memory")):
        assert git(memory, *args).returncode == 0
    return home


def test_lineage_since_checks_every_card_changed_since_a_revision(versioned_home, gate_json) -> None:
    memory = versioned_home / "memory"
    write_card(memory / "knowledge" / "sparse.md", patched(claim="Changed.", lineage=APPENDED["lineage"]))
    write_card(memory / "knowledge" / "new.md", dict(ORIGIN, id="knowledge-2", claim="A new lesson."))
    code, out = gate_json("lineage", "--home", str(versioned_home), "--since", "HEAD")
    assert code == 1
    patch_findings = [(f["rule"], f["path"]) for f in out["findings"] if f["rule"].startswith("patch.")]
    assert patch_findings == [
        ("patch.claim-changed", "memory/knowledge/sparse.md")
    ]  # 002 appended, then changed the claim
    assert any(
        f["message"].startswith("quest 002 patches") for f in out["findings"]
    )  # inferred from the appended entry
    assert out["notes"] == [f"2 cards of {memory} changed since HEAD"]
    # named explicitly: 001 owns it, so the same change is an owner's edit
    code, out = gate_json("lineage", "--home", str(versioned_home), "--since", "HEAD", "--quest", "001")
    assert not [f for f in out["findings"] if f["rule"].startswith("patch.")]


def test_lineage_since_a_revision_that_does_not_exist_is_a_usage_error(versioned_home, capsys) -> None:
    assert main(["lineage", "--home", str(versioned_home), "--since", "no-such-rev"]) == 2
    assert "cannot compare" in capsys.readouterr().err
    assert main(["lineage", "--home", str(versioned_home), "--since", "--output=x"]) == 2


@pytest.mark.slow
def test_the_hook_refuses_a_co_owners_claim_edit(borrowing) -> None:
    """Once 002 appended its evidence the card has two owners: 002 may append, not rewrite (issue 13)."""
    quest, card = borrowing
    write_card(card, APPENDED)
    assert commit(quest.root, "memory: confirm in 002").returncode == 0
    write_card(card, dict(copy.deepcopy(APPENDED), claim="Rewritten by a co-owner."))
    for output in (
        refused_when_finalizing(quest, "patch.claim-changed"),
        warned(quest.root, commit(quest.root, "memory: reword"), "patch.claim-changed", "memory: reword"),
    ):
        assert "quests 001, 002" in output


@pytest.mark.slow
@pytest.mark.parametrize("owner", ["001", "002"])
@pytest.mark.parametrize("change", [*sorted(CO_OWNED_CHANGES), "whitespace around the claim"])
def test_the_hook_holds_each_co_owner_to_appending(make_quest, owner: str, change: str) -> None:
    """In quest 001 or 002, each holding the card both own: a claim edit, a lineage shrink
    or a confidence raise is refused at finalization (a warning at an ordinary checkpoint,
    issue 35); whitespace around the claim is no change (issue 13)."""
    quest = make_quest(owner)
    assert main(["install", str(quest.root)]) == 0
    card = quest.root / "memory" / "knowledge" / "shared.md"
    write_card(card, APPENDED)
    assert commit(quest.root, "memory: the shared lesson").returncode == 0
    if change in CO_OWNED_CHANGES:
        changes, rule = CO_OWNED_CHANGES[change]
    else:
        changes, rule = {"claim": f"  {APPENDED['claim']}  "}, None
    write_card(card, dict(copy.deepcopy(APPENDED), **changes))
    if rule is None:
        done = commit(quest.root, "memory: edit")
        assert done.returncode == 0 and "patch." not in done.stdout + done.stderr, done.stdout + done.stderr
        return
    for output in (
        refused_when_finalizing(quest, rule),
        warned(quest.root, commit(quest.root, "memory: edit"), rule, "memory: edit"),
    ):
        assert f"quest {owner} patches a card owned by quests 001, 002" in output


# ---------------------------------------------------------------- the committed history (issue 35)


def patch_errors(gate_json, command: str, root: Path) -> tuple[int, list[dict]]:
    """``command`` on the quest: its exit code and its patch.* findings."""
    code, out = gate_json(command, str(root))
    return code, [f for f in out["findings"] if f["rule"].startswith("patch.")]


def tip(root: Path, ref: str = "HEAD") -> str:
    return git(root, "rev-parse", ref).stdout.strip()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"claim": "Something else."}, "patch.claim-changed"),
        ({"confidence": 0.95}, "patch.confidence-raised"),
        ({"lineage": [{"quest": "002", "run": "run-bbbb0002"}]}, "patch.lineage-rewritten"),
    ],
)
def test_a_bad_patch_committed_at_a_checkpoint_is_refused_by_check_closure_finalization_and_pre_push(
    borrowing, gate_json, tmp_path, change, rule
) -> None:
    """Issue 35: the checkpoint only warns, so the patch gets committed; the hook's staged-vs-HEAD
    comparison no longer sees it after that. check, closure, a later finalization commit (which
    stages nothing of the card) and the pre-push hook judge the card's committed history."""
    quest, card = borrowing
    path = "memory/knowledge/sparse-routing-needs-load-balancing.md"
    write_card(card, patched(**change))
    warned(quest.root, commit(quest.root, "memory: patch"), rule, "memory: patch")
    bad = tip(quest.root)
    for command in ("check", "closure"):
        code, found = patch_errors(gate_json, command, quest.root)
        assert code == 1 and [(f["rule"], f["path"], f["severity"]) for f in found] == [(rule, path, "error")], found
        assert f"committed in {bad[:12]}" in found[0]["message"] and "refs/heads/main" in found[0]["message"]
        assert f"restored as it was before {bad[:12]}" in found[0]["hint"]
    output = refused_when_finalizing(quest, rule, stage=())  # the decision alone: the card is HEAD's
    assert f"committed in {bad[:12]}" in output
    add_remote(quest.root, tmp_path / "remote.git")
    quest.write_quest_yaml(status="completed")
    git(quest.root, "commit", "-q", "--no-verify", "-am", "quest: completed")
    pushed = git(quest.root, "push", "-q", "origin", "main", check=False)
    assert pushed.returncode != 0 and f"[{rule}]" in pushed.stdout + pushed.stderr, pushed.stdout + pushed.stderr
    assert "Traceback" not in pushed.stderr


def owner_of_the_card(make_quest) -> None:
    """Quest 001 in the home, with the run the card's lineage names: the card's other rules pass,
    so what fails is the patch alone."""
    owner = make_quest("001")
    owner.run(owner.root, "main-001", artifact_id="run-aaaa0001")
    owner.checkpoint(owner.root, "experiment: main-001")


def test_check_fails_on_the_committed_patch_itself(borrowing, make_quest, gate_json) -> None:
    """``check`` exits 1 for the patch finding itself (before issue 35's history scan it exited 1
    here only when an unrelated lineage error came with it, and 0 once the lineage resolved)."""
    quest, card = borrowing
    owner_of_the_card(make_quest)
    code, out = gate_json("check", str(quest.root))
    assert code == 0 and not [f for f in out["findings"] if f["severity"] == "error"], out["findings"]
    write_card(card, patched(claim="Something else."))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "memory: patch")
    code, out = gate_json("check", str(quest.root))
    errors = [(f["rule"], f["path"]) for f in out["findings"] if f["severity"] == "error"]
    assert code == 1 and errors == [("patch.claim-changed", "memory/knowledge/sparse-routing-needs-load-balancing.md")]


@pytest.mark.slow
def test_the_history_passes_an_appended_lineage_and_a_same_quest_edit(borrowing, gate_json) -> None:
    quest, card = borrowing
    write_card(card, APPENDED)
    assert commit(quest.root, "memory: confirm in 002").returncode == 0
    own = quest.root / "memory" / "knowledge" / "own-lesson.md"
    write_card(own, dict(ORIGIN, id="knowledge-00000002", quest_id="002", lineage=[{"quest": "002", "run": "run-1"}]))
    assert commit(quest.root, "memory: own lesson").returncode == 0
    write_card(
        own,
        dict(
            ORIGIN,
            id="knowledge-00000002",
            quest_id="002",
            claim="Rewritten by its owner.",
            confidence=0.99,
            lineage=[{"quest": "002", "run": "run-2"}],
        ),
    )
    assert commit(quest.root, "memory: owner edit").returncode == 0
    for command in ("check", "closure"):
        assert patch_errors(gate_json, command, quest.root)[1] == []


def test_a_patch_restored_later_is_no_longer_reported(borrowing, make_quest, gate_json) -> None:
    """Decided (issue 35): a bad patch ends when a later commit brings the card back within the
    rules, judged against the version before the patch (the claim back, confidence not above,
    the old lineage a prefix): the finding's fix must be able to end it. A later edit that
    carries the bad claim along (appending evidence) is still judged against the claim before."""
    quest, card = borrowing
    owner_of_the_card(make_quest)
    quest.run(quest.root, "main-002", artifact_id="run-bbbb0002")  # the evidence APPENDED names
    write_card(card, patched(claim="Something else."))
    git(quest.root, "add", "-A")
    git(quest.root, "commit", "-q", "--no-verify", "-m", "memory: patch")
    bad = tip(quest.root)
    write_card(card, dict(APPENDED, claim="Something else."))
    git(quest.root, "commit", "-q", "--no-verify", "-am", "memory: more evidence")
    code, found = patch_errors(gate_json, "check", quest.root)
    assert code == 1 and [f["rule"] for f in found] == ["patch.claim-changed"]
    assert f"committed in {bad[:12]}" in found[0]["message"]  # the commit that broke the rule, not the later one
    write_card(card, APPENDED)  # the claim restored, the evidence kept
    git(quest.root, "commit", "-q", "--no-verify", "-am", "memory: restore the claim")
    code, found = patch_errors(gate_json, "check", quest.root)
    assert found == [] and code == 0


def test_a_patch_restored_on_one_branch_is_reported_while_another_holds_it(borrowing, make_quest, gate_json) -> None:
    """The finding lasts while any ref's tip still holds the broken version (a worktree's branch
    is read at finalization and in CI like the root's)."""
    quest, card = borrowing
    owner_of_the_card(make_quest)
    git(quest.root, "checkout", "-q", "-b", "idea/x")
    write_card(card, patched(claim="Something else."))
    git(quest.root, "commit", "-q", "--no-verify", "-am", "memory: patch")
    git(quest.root, "checkout", "-q", "main")
    git(quest.root, "merge", "-q", "--ff-only", "idea/x")
    write_card(card, ORIGIN)
    git(quest.root, "commit", "-q", "--no-verify", "-am", "memory: restore")
    code, found = patch_errors(gate_json, "check", quest.root)
    assert code == 1 and [f["rule"] for f in found] == ["patch.claim-changed"]
    assert "refs/heads/idea/x" in found[0]["message"] and "refs/heads/main" not in found[0]["message"]
    git(quest.root, "branch", "-q", "-D", "idea/x")
    assert patch_errors(gate_json, "check", quest.root) == (0, [])
