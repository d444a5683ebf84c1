"""The commit hook: what a commit stages decides what is checked.

DeepScientist checkpoints with ``git add -A && git commit`` and no ``--no-verify``; a
failing hook makes the checkpoint silently not happen. So this hook never blocks an
ordinary checkpoint because runs are pending (a run is pending from the moment it is
recorded). It blocks only:

1. staged run or decision records, or memory cards, that are invalid;
2. staged cards that patch another quest's card against the RFC's patch rules (compared
   with the card at ``HEAD``; the quest being committed is the patching quest);
3. *finalization* commits while completed runs are pending: commits that stage the paper
   bundle manifest, a ``quest.yaml`` whose status becomes ``completed``, or a decision
   with action ``write``/``finalize`` or ``decision_scope: quest_completion``.

The committing workspace is read as staged (git's index), the others from their folders,
so a finalization commit passes exactly when it also stages the covering review.

Speed: the common checkpoint stages none of these files and costs one ``git diff``;
a checkpoint that stages a new record reads it and validates it on the schema fast path.
Neither imports jsonschema, yaml or GitPython.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~3 ms per commit

from ds_gate.sources.gitio import cat_file, git, split_z

if TYPE_CHECKING:
    from pathlib import Path

    from ds_gate.model import Finding, Quest, Report

# Imports are deferred below the fast path: this module runs on every commit.
ARTIFACT_DIRS = ("artifacts/decisions/", "artifacts/runs/")
MANIFEST = "paper/paper_bundle_manifest.json"
QUEST_YAML = "quest.yaml"
FINALIZING_ACTIONS = frozenset({"write", "finalize"})
COMPLETION_SCOPE = "quest_completion"
_STATUS_LINE = rb"^status:\s*['\"]?(\w+)['\"]?\s*(?:#.*)?$"


def is_card(name: str) -> bool:
    """``memory/<kind>/x.md`` (or ``memory/ideas/<idea>/x.md``): a quest-scope memory card."""
    if not (name.startswith("memory/") and name.endswith(".md")):
        return False
    from ds_gate.sources.memory import kind_of

    return kind_of(name[len("memory/"):]) is not None


def is_artifact_record(name: str) -> bool:
    """``artifacts/decisions/x.json`` or ``artifacts/runs/x.json``, directly in the folder."""
    return name.endswith(".json") and name.startswith(ARTIFACT_DIRS) and name.count("/") == 2


def staged_paths(cwd: Path | str) -> list[str]:
    """Paths (relative to the workspace top) added, copied, modified or retyped in the index."""
    out = git(["diff", "--cached", "--name-only", "-z", "--no-renames", "--diff-filter=ACMRT"], cwd, staged=True)
    return split_z(out)


def _quest_status(raw: bytes | None) -> str | None:
    if raw is None or b"completed" not in raw:
        return None  # the only status that matters here is `completed`
    from ds_gate.sources.quest import load_yaml, scalar_text

    try:
        data = load_yaml(raw.decode("utf-8-sig", "replace"))
        status = scalar_text(data.get("status")) if isinstance(data, dict) else None
    except Exception:  # noqa: BLE001 - a YAML error of any kind; fall back to the line
        import re

        match = re.search(_STATUS_LINE, raw, re.MULTILINE)
        status = match.group(1).decode() if match else None
    return status.strip().casefold() if status else None


def _finalizing_decision(raw: bytes) -> str | None:
    import json

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None  # validation reports it
    if not isinstance(data, dict) or data.get("kind", "decision") != "decision":
        return None
    action = data.get("action")
    if isinstance(action, str) and action.strip().casefold() in FINALIZING_ACTIONS:
        return f"decision action '{action.strip()}'"
    if data.get("decision_scope") == COMPLETION_SCOPE:
        return f"decision_scope: {COMPLETION_SCOPE}"
    return None


def _plugin_finalizing(names: list[str]) -> list[tuple[str, str]]:
    """Staged files that a plugin's ``ds_gate_finalization_patterns`` names: (file, pattern).

    The plugin manager is built only when some installed distribution declares a
    ``ds_gate`` entry point, so an ordinary checkpoint without plugins never pays for it.
    """
    from ds_gate.plugins import any_installed

    if not names or not any_installed():
        return []
    import fnmatch

    from ds_gate.plugins import hooks

    patterns = [p for offered in hooks().ds_gate_finalization_patterns() for p in offered or [] if p != MANIFEST]
    found = []
    for name in names:
        match = next((p for p in patterns if fnmatch.fnmatchcase(name, p)), None)
        if match is not None:
            found.append((name, match))
    return found


def commit_check(cwd: Path | str = ".", *, validate: bool = True, require: bool = False) -> Report | None:
    """The hook's verdict, or None when the commit stages nothing the gate looks at."""
    names = staged_paths(cwd)
    artifacts = [name for name in names if is_artifact_record(name)]
    cards = [name for name in names if is_card(name)]
    quest_yaml = QUEST_YAML in names
    manifest = MANIFEST in names
    by_plugin = _plugin_finalizing(names)
    if not (artifacts or quest_yaml or manifest or cards or by_plugin):
        return None

    wanted = [f":{name}" for name in artifacts]
    for name in cards:
        wanted += [f":{name}", f"HEAD:{name}"]
    if quest_yaml:
        wanted += [f":{QUEST_YAML}", f"HEAD:{QUEST_YAML}"]
    blobs = cat_file(cwd, wanted, staged=True)

    reasons: list[str] = []
    if manifest:
        reasons.append(f"{MANIFEST} (a paper bundle)")
    reasons.extend(f"{name} (a finalization file, by plugin pattern {pattern})" for name, pattern in by_plugin)
    if quest_yaml:
        becomes = _quest_status(blobs[f":{QUEST_YAML}"]) == "completed"
        already = _quest_status(blobs[f"HEAD:{QUEST_YAML}"]) == "completed"
        if becomes and not already:
            reasons.append(f"{QUEST_YAML} with status: completed")
    for name in artifacts:
        raw = blobs[f":{name}"]
        if raw is not None and name.startswith("artifacts/decisions/"):
            why = _finalizing_decision(raw)
            if why:
                reasons.append(f"{name} ({why})")
    if not reasons and not validate and not cards:
        return None

    from ds_gate.sources.quest import locate

    loc = locate(cwd)
    top_rel = loc.top.relative_to(loc.root).as_posix()
    prefix = "" if top_rel == "." else f"{top_rel}/"
    staged_quest: list[Quest] = []
    card_findings = _card_findings(loc.root, loc.top, prefix, cards, blobs, validate) if cards else []

    def quest() -> Quest:
        if not staged_quest:
            from ds_gate.loader import load_quest

            staged_quest.append(load_quest(cwd, staged=True))
        return staged_quest[0]

    from ds_gate.model import Report
    from ds_gate.waivers import waive

    card_findings = waive(card_findings, loc.root, audit=False)
    if reasons:
        from ds_gate.gate import evaluate

        closure = evaluate(quest(), "closure", require=require)
        if closure.enforced:
            closure.command = "commit-check"
            closure.finalization_reasons = reasons
            known = set(closure.findings)  # the closure already read the quest's cards from its folder
            closure.findings.extend(f for f in card_findings if f not in known)
            closure.ok = closure.ok and not any(f.fails for f in card_findings)
            return closure
        notes = closure.notes
    else:
        notes = []

    findings: list[Finding] = list(card_findings)
    if validate:
        from ds_gate.validate import Document, check_documents

        documents = [
            Document(prefix + name, raw, name.split("/")[1]) for name in artifacts if (raw := blobs[f":{name}"]) is not None
        ]
        doc_findings, _ = check_documents(documents, lambda _doc: quest())
        findings.extend(waive(doc_findings, loc.root, audit=False))
    return Report(
        command="commit-check",
        ok=not any(f.fails for f in findings),
        findings=findings,
        finalization_reasons=reasons,
        notes=notes,
    )


def _card_findings(root: Path, top: Path, prefix: str, names: list[str], blobs: dict[str, bytes | None],
                   validate: bool) -> list[Finding]:
    """Each staged card on its own (with ``validate``) and as a patch of its ``HEAD`` version."""
    from ds_gate.checks.cards import card_findings
    from ds_gate.checks.patch import validate_cross_quest_patch
    from ds_gate.sources.memory import kind_of, parse_card
    from ds_gate.sources.quest import quest_id_of, read_quest_yaml

    meta, _ = read_quest_yaml(root)
    patching_quest = quest_id_of(meta, root)
    found: list[Finding] = []
    for name in names:
        after_raw = blobs.get(f":{name}")
        if after_raw is None:
            continue
        kind, display = kind_of(name[len("memory/"):]) or "", prefix + name
        after = parse_card(after_raw, path=top / name, display=display, scope="quest", kind=kind)
        if after is None:
            continue  # no frontmatter: a note, not a card
        if validate:
            found.extend(card_findings(after))
        if after.broken:
            continue
        before_raw = blobs.get(f"HEAD:{name}")
        before = parse_card(before_raw, path=top / name, display=display, scope="quest", kind=kind) if before_raw else None
        if before is not None and not before.broken:
            found.extend(validate_cross_quest_patch(before, after, patching_quest, validate_after=False))
    return found
