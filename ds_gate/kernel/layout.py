"""Which paths of a quest hold what: the one place that knows DeepScientist's layout (record
folders, the index, card folders, the paper bundle manifest). Imports only ``os``: the commit
hook asks on every commit.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the kernel's economy: typing is not imported on the hook's path
if TYPE_CHECKING:
    from typing import Any

# artifact/schemas.py ARTIFACT_DIRS in DeepScientist: kind -> folder under artifacts/
ARTIFACT_DIRS = {
    "baseline": "baselines",
    "idea": "ideas",
    "decision": "decisions",
    "progress": "progress",
    "answer": "answers",
    "milestone": "milestones",
    "run": "runs",
    "report": "reports",
    "approval": "approvals",
    "graph": "graphs",
}
KIND_OF_DIR = {folder: kind for kind, folder in ARTIFACT_DIRS.items()}
INDEX_NAME = "_index.jsonl"
GATE_KINDS = ("run", "decision", "report")  # the kinds the gate reads (a report only when it is a review)
RECORD_FOLDERS = ("decisions", "reports", "runs")
DECISIONS = "artifacts/decisions/"
REPORTS = "artifacts/reports/"
MANIFEST_NAME = "paper_bundle_manifest.json"
MANIFEST = f"paper/{MANIFEST_NAME}"  # <workspace>/paper/...: artifact/service.py _paper_root
QUEST_YAML = "quest.yaml"
# main's quest status is runtime_state.json's display_status, else its status, else quest.yaml's
# (quest/service.py snapshot); mark_completed writes it there first
RUNTIME_STATE = ".ds/runtime_state.json"
# names the workspace roots main writes records and the paper bundle into (sources.named_roots)
RESEARCH_STATE = ".ds/research_state.json"
# the quest's own ds-gate configuration (config.quest, config.waivers): the hook's fast path
# stands aside where either exists
QUEST_CONFIG = ".ds-gate.yaml"
PYPROJECT = "pyproject.toml"
CONFIG_FILES = (QUEST_CONFIG, PYPROJECT)

# a DeepScientist home's files beside memory/ and quests/: the runtime configuration (config/models.py
# config_filename, read for memory.read_visibility_mode) and the quirks files home.py ensure_home_layout writes
HOME_CONFIG = "config/config.yaml"
QUIRKS_FILES = ("framework_quirks.md", "system_quirks.md")

# MemoryService's card folders: <memory>/<kind>/*.md, plus <memory>/ideas/<idea_id>/*.md
MEMORY_KINDS = ("papers", "ideas", "decisions", "episodes", "knowledge", "templates")
SINGULAR = {
    "papers": "paper",
    "ideas": "idea",
    "decisions": "decision",
    "episodes": "episode",
    "knowledge": "knowledge",
    "templates": "template",
}


def is_home(path: str | os.PathLike[str]) -> bool:
    """A DeepScientist home (``quests/``, no ``quest.yaml``) rather than a quest: the one test
    every surface (``closure``, pytest's ``--ds-gate``) uses. A git work tree (``.git``) is never
    a home, since DeepScientist makes each quest, not the home, a git repository: a quest that
    deleted its ``quest.yaml`` and made a ``quests/`` folder stays a quest, and stops as "not a
    quest" instead of passing as an empty home."""
    return (
        os.path.isdir(os.path.join(path, "quests"))
        and not os.path.lexists(os.path.join(path, QUEST_YAML))
        and not os.path.lexists(os.path.join(path, ".git"))
    )


def homes_below(root: str | os.PathLike[str]) -> list[str]:
    """The homes at or just below ``root`` that hold a quest (``[<dir>/]quests/<id>/quest.yaml``),
    for a message that suggests ``--all-quests``; a home's own ``.git`` does not matter here."""
    found = []
    for home in (os.fspath(root), *sorted(e.path for e in _folders(root))):
        if any(os.path.lexists(os.path.join(e.path, QUEST_YAML)) for e in _folders(os.path.join(home, "quests"))):
            found.append(home)
    return found


def _folders(path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as entries:
            return [e for e in entries if e.is_dir(follow_symlinks=False) and e.name != ".git"]
    except OSError:
        return []


def is_manifest_name(name: str) -> bool:
    """A path whose file is named as the paper bundle manifest, at any depth: main writes it at
    ``<workspace>/paper/``, and a workspace root ``research_state.json`` names may lie anywhere in
    the quest, so the hooks' fast paths leave every such file to the full path."""
    return name.rpartition("/")[2] == MANIFEST_NAME


def branch_of(ref: str) -> str:
    """``refs/heads/idea/x`` and ``refs/remotes/origin/idea/x`` are both branch ``idea/x``."""
    if ref.startswith("refs/remotes/"):
        return ref.split("/", 3)[3] if ref.count("/") >= 3 else ref
    return ref.removeprefix("refs/heads/")


def record_kind(data: dict[str, Any], folder: str) -> str | None:
    """A record's kind; one without (invalid, and its schema says so) is taken from its folder."""
    kind = data.get("kind")
    return kind if isinstance(kind, str) else KIND_OF_DIR.get(folder)


def is_artifact_record(name: str) -> bool:
    """``artifacts/{decisions,reports,runs}/x.json``, at any depth below the folder: main
    writes ``<artifact_id>.json`` as joined, so an id holding ``/`` makes folders."""
    parts = name.split("/")
    return (
        len(parts) >= 3
        and parts[0] == "artifacts"
        and parts[1] in RECORD_FOLDERS
        and parts[-1].endswith(".json")
        and all(parts[2:])
    )


def kind_of(rel: str) -> str | None:
    """The memory kind of a path relative to a memory root (``knowledge/x.md``), or None
    when MemoryService would not read it as a card."""
    parts = rel.split("/")
    if not parts[-1].endswith(".md") or parts[0] not in MEMORY_KINDS:
        return None
    if len(parts) == 2 or (len(parts) == 3 and parts[0] == "ideas"):
        return parts[0]
    return None


def is_card(name: str) -> bool:
    """``memory/<kind>/x.md`` (or ``memory/ideas/<idea>/x.md``): a quest-scope memory card."""
    return name.startswith("memory/") and kind_of(name[len("memory/") :]) is not None


def pre_commit_files_pattern() -> str:
    """The ``files:`` regex of the ``ds-gate-validate`` pre-commit hook: exactly the paths
    ``is_artifact_record`` and ``is_card`` accept, below any folder (a worktree's)."""
    plain = "|".join(k for k in MEMORY_KINDS if k != "ideas")
    return (
        rf"(^|/)artifacts/({'|'.join(RECORD_FOLDERS)})/([^/]+/)*[^/]+\.json$"
        rf"|(^|/)memory/({plain})/[^/]+\.md$"
        r"|(^|/)memory/ideas/([^/]+/)?[^/]+\.md$"
    )
