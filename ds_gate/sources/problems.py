"""Rules about reading the input: what the sources report when a file, a folder or git
cannot be read as DeepScientist wrote it.

Declared here, not in ``sources/``: sources read bytes and know no rules; they make
findings from these objects, so every rule id still has one home.
"""

from __future__ import annotations

from ds_gate.kernel.fs import DEFAULT_MAX_FILE_MB, MAX_FILE_VARIABLE, TooLarge
from ds_gate.model.findings import (
    CONTRACT,
    DISCIPLINE,
    ERROR,
    INFO,
    WARNING,
    Finding,
    Rule,
)

ARTIFACT_INVALID_JSON = Rule(
    "artifact.invalid-json", ERROR, CONTRACT, "a record file is not UTF-8 JSON (truncated, mis-encoded)"
)
ARTIFACT_TOO_DEEP = Rule(
    "artifact.too-deep",
    ERROR,
    DISCIPLINE,  # main's json may read it (how deep depends on the reader's stack): a checkpoint only warns
    "a record file is JSON nested deeper than ds-gate can read; not read",
)
ARTIFACT_NOT_OBJECT = Rule("artifact.not-object", ERROR, CONTRACT, "a record file is JSON but not an object")
ARTIFACT_UNREADABLE = Rule("artifact.unreadable", ERROR, CONTRACT, "a record file or folder cannot be read")
INDEX_INVALID_LINE = Rule(
    "index.invalid-line",
    WARNING,
    DISCIPLINE,
    "an `_index.jsonl` line is not a JSON object; skipped (records are still read)",
)
INDEX_PARTIAL_LINE = Rule(
    "index.partial-line", WARNING, DISCIPLINE, "the last index line is incomplete (a write in progress); skipped"
)
INDEX_MISSING_RECORD = Rule(
    "index.missing-record", WARNING, DISCIPLINE, "an indexed run or decision has no record file"
)
INDEX_RECORD_OUTSIDE_QUEST = Rule(
    "index.record-outside-quest",
    WARNING,
    DISCIPLINE,
    "an index line names a run record outside the quest, and a file is there: PR #60's gate reads it, ds-gate never "
    "follows a pointer out (closure stops, exit 2)",
)
QUEST_NO_QUEST_YAML = Rule("quest.no-quest-yaml", WARNING, DISCIPLINE, "no `quest.yaml` at the root; toggles off")
QUEST_YAML_INVALID = Rule("quest.yaml-invalid", WARNING, DISCIPLINE, "`quest.yaml` cannot be parsed; toggles off")
QUEST_TOGGLE_UNRECOGNISED = Rule(
    "quest.toggle-unrecognised", WARNING, DISCIPLINE, "a toggle value read as off that was probably meant as on"
)
QUEST_NOT_GIT = Rule(
    "quest.not-git",
    WARNING,
    DISCIPLINE,
    "git cannot read the quest; workspaces found from folders only (a repository git refuses, e.g. another "
    "user's: closure stops, exit 2)",
)
QUEST_RESEARCH_STATE_INVALID = Rule(
    "quest.research-state-invalid", INFO, DISCIPLINE, "`.ds/research_state.json` cannot be read"
)
WORKSPACE_OUTSIDE_QUEST = Rule(
    "workspace.outside-quest",
    WARNING,
    DISCIPLINE,
    "a worktree, or a workspace root `.ds/research_state.json` names, outside the quest folder, through a link "
    "or relative; never read (closure stops, exit 2)",
)
WORKSPACE_MISSING = Rule(
    "workspace.missing",
    INFO,
    DISCIPLINE,
    "a registered worktree whose folder is gone or is not that worktree (a link, a file, a .git leading "
    "elsewhere): its HEAD is read from git objects, never through the link",
)
WORKSPACE_HEAD_UNREADABLE = Rule(
    "workspace.head-unreadable",
    WARNING,
    DISCIPLINE,
    "a registered worktree whose folder is gone or is not that worktree, and whose HEAD git cannot read: the "
    "runs committed there are unseen (closure stops, exit 2)",
)
PATH_SYMLINK_OUTSIDE_QUEST = Rule(
    "path.symlink-outside-quest",
    WARNING,
    DISCIPLINE,
    "a symbolic link out of the quest; never followed (artifacts, a record or research_state.json: closure stops, exit 2)",
)
GIT_ONE_BRANCH = Rule(
    "git.one-branch",
    WARNING,
    DISCIPLINE,
    "the clone shows one branch at most, or is shallow: runs on other branches are not visible (closure stops, "
    "exit 2); never on the original quest (no remote), which has no branches to lack",
)
GIT_OBJECT_MISSING = Rule(
    "git.object-missing",
    WARNING,
    DISCIPLINE,
    "a branch tip, tree or record read from git is not in this clone (partial or shallow) or cannot be read "
    "(closure stops, exit 2)",
)
GIT_HISTORY_TOO_LONG = Rule(
    "git.history-too-long",
    WARNING,
    DISCIPLINE,
    "the committed history the gate judges (every version of the cards) is longer than it reads "
    "(closure stops, exit 2)",
)
GIT_OBJECT_CORRUPT = Rule(
    "git.object-corrupt",
    WARNING,
    DISCIPLINE,
    "a tree read from git is damaged, so its records cannot be listed (closure stops, exit 2)",
)
GIT_ALTERNATES_OUTSIDE_QUEST = Rule(
    "git.alternates-outside-quest",
    WARNING,
    DISCIPLINE,
    "the repository borrows git objects from a folder outside the quest (objects/info/alternates): "
    "ds-gate never reads outside the quest (closure stops, exit 2)",
)
GIT_SYMLINK_IN_TREE = Rule(
    "git.symlink-in-tree",
    ERROR,
    DISCIPLINE,
    "a branch's tree (or the staged index) holds a symbolic link or a gitlink (a nested repository) where "
    "DeepScientist keeps the artifacts folder, a record folder, the index or a record: the runs behind it cannot be read",
)
CARD_FRONTMATTER_INVALID = Rule(
    "card.frontmatter-invalid",
    ERROR,
    CONTRACT,
    "a card's YAML frontmatter cannot be read (syntax, not a mapping, never closed, not UTF-8)",
)
CARD_TAGS_OVER_LIMIT = Rule(
    "card.tags-over-limit",
    WARNING,
    DISCIPLINE,
    "a card's tags hold more than ds-gate reads (over 1,000 tags, a tag over 256 characters, a tag that is a list, "
    "a JSON-list string nested deep); the excess is not read",
)
CARD_UNREADABLE = Rule("card.unreadable", ERROR, CONTRACT, "a card file or memory folder cannot be read")
INPUT_UNREADABLE = Rule(
    "input.unreadable",
    ERROR,
    CONTRACT,
    "a file named on the command line cannot be read, or is not a regular file (exit 2)",
)
# Discipline, not contract: DeepScientist would accept a large record, so an ordinary
# checkpoint only warns; check, closure and finalization fail closed on a record unseen.
INPUT_TOO_LARGE = Rule(
    "input.too-large",
    ERROR,
    DISCIPLINE,
    f"a record, card or file named on the command line is larger than the limit ({DEFAULT_MAX_FILE_MB} MB by default, "
    f"`{MAX_FILE_VARIABLE}`); not read",
)
TOO_LARGE_HINT = (
    f"DeepScientist's records and cards are small; if this file is meant to be this large, raise the "
    f"limit, e.g. {MAX_FILE_VARIABLE}=256"
)


def unreadable(
    display: str, exc: OSError | Exception, rule: Rule = ARTIFACT_UNREADABLE, severity: str | None = None
) -> Finding:
    """A file or folder that exists but cannot be read (permissions): never called missing.
    One larger than the limit is ``input.too-large``, whatever the caller's rule."""
    if isinstance(exc, TooLarge):
        return too_large(display, exc, severity)
    reason = getattr(exc, "strerror", None) or str(exc)
    return rule.at(
        display,
        f"cannot read {display}: {reason}",
        hint="check the file's permissions; ds-gate only reads it",
        severity=severity,
    )


def symlink_outside(
    display: str, target: str, outside: str = "the quest", what: str = "artifacts", kind: str = "file"
) -> Finding:
    """A symbolic link out of what may be read: reported, never followed."""
    return PATH_SYMLINK_OUTSIDE_QUEST.at(
        display,
        f"{display} is a symbolic link to {target}, outside {outside}; not followed",
        hint=f"{what} must live inside {outside}; replace the link with the {kind} itself",
    )


def too_large(display: str, exc: TooLarge, severity: str | None = None) -> Finding:
    """A file or git blob refused for its size: what was not read, and how to allow it."""
    return INPUT_TOO_LARGE.at(display, f"{display} is {exc.strerror}", hint=TOO_LARGE_HINT, severity=severity)
