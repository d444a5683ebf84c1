"""Stand-in for main's ``MemoryService.write_card``: a Markdown card with YAML frontmatter."""

import re
import uuid
from pathlib import Path
from typing import Any


class MemoryService:
    def __init__(self, home: Path) -> None:
        self.home = Path(home)

    def write_card(
        self,
        *,
        scope: str,
        kind: str,
        title: str,
        body: str = "",
        markdown: str | None = None,
        quest_root: Path | None = None,
        quest_id: str | None = None,
        tags: Any = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        import yaml

        root = (Path(quest_root) if scope == "quest" else self.home) / "memory" / kind
        root.mkdir(parents=True, exist_ok=True)
        meta = {
            **(metadata or {}),
            "id": f"{kind}-{uuid.uuid4().hex[:8]}",
            "type": kind,
            "title": title,
            "quest_id": quest_id,
            "scope": scope,
            "tags": list(tags or []),
        }
        path = root / f"{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-') or kind}.md"
        path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{markdown or body}\n")
        return {"ok": True, "card_id": meta["id"], "scope": scope, "path": str(path)}
