"""Build quests the way DeepScientist lays them out, for ``ds-gate demo`` and for tests.

Records are written as main's ``ArtifactService.record`` writes them (``demo.main_records``);
worktrees and checkpoints are real git ones, so installed hooks run. Ids and timestamps come
from counters, so a build is the same every time.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import git
import yaml

from ds_gate.demo.main_records import validate_artifact_payload, write_record
from ds_gate.kernel.layout import SINGULAR

GITIGNORE = ".ds/*.pid\n.ds/*.sock\n.ds/*.tmp\n.ds/worktrees/\ntmp/\n__pycache__/\n.pytest_cache/\n"
_EPOCH = datetime(2026, 11, 22, 2, 2, 0, tzinfo=timezone.utc)
_UNSET: Any = object()


class CheckpointRejected(Exception):
    """The commit hook refused a checkpoint; ``output`` is what it printed."""

    def __init__(self, output: str) -> None:
        super().__init__(output)
        self.output = output


class ExampleQuest:
    def __init__(
        self,
        root: Path,
        quest_id: str = "001",
        *,
        experience_distill: Any = _UNSET,
        quest_yaml: str | None = None,
        git_env: dict[str, str] | None = None,
        home: Path | None = None,
    ) -> None:
        """``experience_distill`` is placed in ``startup_contract`` as given (default: ``{mode: 'on'}``);
        ``quest_yaml`` replaces the whole file with raw text, for spellings YAML dumping cannot make;
        ``home`` holds the global memory (default: the home of ``<home>/quests/<id>``)."""
        self.root = Path(root)
        if home is None and self.root.parent.name == "quests":
            home = self.root.parent.parent
        self.home = home
        self.quest_id = quest_id
        self.toggle = {"mode": "on"} if experience_distill is _UNSET else experience_distill
        self.quest_yaml_text = quest_yaml
        self.git_env = dict(git_env or {})
        self._counter = 0

    # ---------------------------------------------------------------- git

    def git(self, workspace: Path, *args: str) -> str:
        """The folder goes to git as ``-C``, never as GitPython's working dir: GitPython expands
        ``$VARS`` and ``~`` in that and, where the result does not exist, runs in this process's
        folder, so ``demo --dir 'a$HOME'`` committed into whatever repository it was run from."""
        return str(git.Git().execute(["git", "-C", str(workspace), *args], env=self.git_env or None))

    def create(self) -> ExampleQuest:
        self.root.mkdir(parents=True, exist_ok=True)
        self.git(self.root, "init", "-q", "-b", "main")
        for key, value in (
            ("user.name", "DeepScientist"),
            ("user.email", "agent@deepscientist.invalid"),
            ("commit.gpgsign", "false"),
        ):
            self.git(self.root, "config", key, value)
        (self.root / ".gitignore").write_text(GITIGNORE)
        self.write_quest_yaml()
        for name in ("brief.md", "plan.md", "status.md"):
            (self.root / name).write_text(f"# {name[:-3]}\n")
        (self.root / ".ds").mkdir(exist_ok=True)
        (self.root / "artifacts").mkdir(exist_ok=True)
        self.checkpoint(self.root, "quest: create")
        return self

    def write_quest_yaml(self, **changes: Any) -> None:
        if self.quest_yaml_text is not None and not changes:
            (self.root / "quest.yaml").write_text(self.quest_yaml_text)
            return

        path = self.root / "quest.yaml"
        meta: dict[str, Any] = (
            yaml.safe_load(path.read_text())
            if path.exists()
            else {
                "quest_id": self.quest_id,
                "title": "Investigate sparse routing robustness",
                "quest_root": str(self.root),
                "status": "active",
                "active_anchor": "baseline",
                "baseline_gate": "pending",
                "startup_contract": {"schema_version": 3, "need_research_paper": True, "launch_mode": "standard"},
                "default_runner": "codex",
                "created_at": self.now(),
            }
        )
        if not path.exists() and self.toggle is not None:
            meta["startup_contract"]["experience_distill"] = self.toggle
        meta.update(changes)
        meta["updated_at"] = self.now()
        path.write_text(yaml.safe_dump(meta, sort_keys=False))

    def worktree(self, slug: str, branch: str, start: str = "main") -> Path:
        path = self.root / ".ds" / "worktrees" / slug
        self.git(self.root, "worktree", "add", "-q", "-b", branch, str(path), start)
        return path

    def checkpoint(self, workspace: Path, message: str) -> str:
        """``git add -A && git commit`` as DeepScientist's checkpoint_repo does (hooks run)."""
        self.git(workspace, "add", "-A")
        status, out, err = git.Git().execute(
            ["git", "-C", str(workspace), "commit", "-q", "-m", message],
            env=self.git_env or None,
            with_extended_output=True,
            with_exceptions=False,
        )
        if status != 0:
            raise CheckpointRejected(f"{out}\n{err}".strip())
        return str(out)

    # ---------------------------------------------------------------- artifacts

    def now(self) -> str:
        self._counter += 1
        return (_EPOCH + timedelta(seconds=self._counter)).isoformat()

    def new_id(self, kind: str) -> str:
        self._counter += 1
        return f"{kind}-{hashlib.sha256(f'{self.quest_id}:{kind}:{self._counter}'.encode()).hexdigest()[:8]}"

    def record(self, workspace: Path, kind: str, payload: dict[str, Any], *, index: bool = True) -> dict[str, Any]:
        artifact_id = payload.get("artifact_id") or self.new_id(kind)
        return write_record(
            self.root,
            Path(workspace),
            kind,
            payload,
            quest_id=self.quest_id,
            artifact_id=artifact_id,
            stamp=self.now(),
            index=index,
        )

    def run(
        self,
        workspace: Path,
        run_id: str,
        *,
        run_kind: str = "main_experiment",
        status: str = "completed",
        **extra: Any,
    ) -> str:
        payload = {
            "run_id": run_id,
            "run_kind": run_kind,
            "status": status,
            "summary": f"Experiment `{run_id}` recorded.",
            "flow_type": "analysis_slice" if run_kind == "analysis.slice" else "main_experiment",
            "metrics_summary": {"acc": 0.84},
            **extra,
        }
        return str(self.record(workspace, "run", payload)["artifact_id"])

    def decision(self, workspace: Path, action: str, **extra: Any) -> str:
        payload = {"action": action, "verdict": "good", "reason": f"{action} now.", **extra}
        return str(self.record(workspace, "decision", payload)["artifact_id"])

    def artifact_record(self, workspace: Path, payload: dict[str, Any]) -> dict[str, Any]:
        """``artifact.record(payload=...)`` as main answers it, without the checkpoint (callers make one)."""
        errors = validate_artifact_payload(payload)
        if errors:
            return {"ok": False, "errors": errors, "warnings": []}
        body = {k: v for k, v in payload.items() if k != "kind"}
        record = self.record(workspace, str(payload["kind"]), body)
        return {"ok": True, "artifact_id": record["artifact_id"], "record": record}

    def lessons(self, runs: list[str]) -> list[dict[str, Any]]:
        """One new global lesson per run, as the distill skill writes it (into the home's
        memory, when there is a home), and the ``cards_written`` entries that name them."""
        cards = []
        for run in runs:
            card_id = self.new_id("knowledge")
            if self.home is not None:
                self.card(
                    "global",
                    f"Lesson from {run}",
                    card_id=card_id,
                    claim=f"What {run} taught.",
                    lineage=[{"quest": self.quest_id, "run": run}],
                    body=f"Context: {run}.\n\nObservation: ...",
                )
            cards.append({"card_id": card_id, "scope": "global", "action": "new", "target_run_id": run})
        return cards

    def review(
        self,
        workspace: Path,
        reviewed: list[str],
        *,
        cards: list[dict[str, Any]] | None = None,
        encoding: str = "decision",
        **extra: Any,
    ) -> str:
        """A distill_review covering ``reviewed`` (by default with ``lessons``), encoded as the RFC's
        ``decision`` (PR #60) or main's ``report``."""
        if cards is None:
            cards = self.lessons(reviewed)
        head: dict[str, Any] = (
            {
                "report_type": "distill_review",
                "summary": f"{len(reviewed)} run(s) distilled",
                "suppress_if_semantically_equivalent": False,
            }
            if encoding == "report"
            else {"action": "distill_review", "verdict": "covered", "reason": f"{len(reviewed)} run(s) distilled"}
        )
        payload = {
            **head,
            "reviewed_run_ids": list(reviewed),
            "cards_written": cards,
            **({"reason_if_empty": "nothing reusable"} if not cards else {}),
            **extra,
        }
        return str(self.record(workspace, "report" if encoding == "report" else "decision", payload)["artifact_id"])

    # ---------------------------------------------------------------- memory cards

    def memory_root(self, scope: str) -> Path:
        if scope == "quest":
            return self.root / "memory"
        if self.home is None:
            raise ValueError("this example quest has no home for global cards")
        return self.home / "memory"

    def card(
        self,
        scope: str,
        title: str,
        *,
        kind: str = "knowledge",
        card_id: str | None = None,
        tags: list[str] | None = None,
        body: str = "Context: ...\n\nObservation: ...",
        **metadata: Any,
    ) -> str:
        """Write a card as MemoryService.write_card does: caller metadata first, then the
        defaults, file ``<memory>/<kind>/<slug(title)>.md``, one line appended to the index."""

        stamp = self.now()
        meta: dict[str, Any] = dict(metadata)
        meta.setdefault("id", card_id or self.new_id(SINGULAR[kind]))
        meta["type"] = kind
        meta.setdefault("kind", SINGULAR[kind])
        meta.setdefault("title", title)
        meta.setdefault("quest_id", self.quest_id)
        meta.setdefault("tags", list(tags or []))
        meta.setdefault("created_at", stamp)
        meta["updated_at"] = stamp
        meta["scope"] = scope
        path = self.card_path(scope, title, kind)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\n{yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)}---\n{body}\n", encoding="utf-8"
        )
        line = {
            "id": meta["id"],
            "title": title,
            "type": kind,
            "path": str(path),
            "quest_id": self.quest_id,
            "scope": scope,
            "tags": meta["tags"],
            "updated_at": stamp,
            "excerpt": body.splitlines()[0] if body else "",
        }
        with (path.parent / "_index.jsonl").open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
        return str(meta["id"])

    def card_path(self, scope: str, title: str, kind: str = "knowledge") -> Path:
        """MemoryService's file name: the title lowercased, non-alphanumeric runs to ``-``."""
        return self.memory_root(scope) / kind / f"{re.sub(r'[^a-zA-Z0-9]+', '-', title.lower()).strip('-') or kind}.md"
