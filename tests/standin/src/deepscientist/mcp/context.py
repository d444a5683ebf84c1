"""The MCP context, from the environment a runner gives the built-in servers (as main's)."""

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class McpContext:
    home: Path
    quest_id: str | None
    quest_root: Path | None
    worktree_root: Path | None

    @classmethod
    def from_env(cls) -> "McpContext":
        def _path(name: str) -> Path | None:
            value = os.environ.get(name, "").strip()
            return Path(value).expanduser() if value else None

        home = _path("DEEPSCIENTIST_HOME") or _path("DS_HOME") or Path.home() / "DeepScientist"
        return cls(
            home=home,
            quest_id=os.environ.get("DS_QUEST_ID") or None,
            quest_root=_path("DS_QUEST_ROOT"),
            worktree_root=_path("DS_WORKTREE_ROOT"),
        )

    def require_quest_root(self) -> Path:
        if self.quest_root is None:
            raise ValueError("Quest-local MCP call requires DS_QUEST_ROOT in the environment.")
        return self.quest_root
