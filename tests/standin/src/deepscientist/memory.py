"""Stand-in for main's ``MemoryService`` (``memory/service.py``): ``write_card`` writes a Markdown card
with YAML frontmatter, keeping the caller's metadata (its ``id`` too) as main's ``_normalize_metadata``
does; ``read_card`` finds a card by path or by ``id``; ``promote_to_global`` copies a quest card into
the global memory under the same id, with ``promoted_from``."""

import re
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any


def _load(path: Path) -> tuple[dict[str, Any], str]:
    import yaml

    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}, text
    head, _, body = text[4:].partition("\n---\n")
    return dict(yaml.safe_load(head) or {}), body


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
        now = datetime.now(timezone.utc).isoformat()
        meta = dict(metadata or {})
        meta.setdefault("id", f"{kind}-{uuid.uuid4().hex[:8]}")
        meta["type"] = kind
        meta.setdefault("title", title)
        meta.setdefault("quest_id", quest_id)
        meta.setdefault("tags", list(tags or []))
        meta.setdefault("created_at", now)
        meta["updated_at"] = now
        meta["scope"] = scope
        path = root / f"{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-') or kind}.md"
        path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{markdown or body}\n")
        return {"ok": True, "card_id": meta["id"], "scope": scope, "path": str(path)}

    def read_card(
        self,
        *,
        card_id: str | None = None,
        path: str | None = None,
        scope: str = "global",
        quest_root: Path | None = None,
    ) -> dict[str, Any]:
        found = Path(path) if path and Path(path).exists() else None
        root = (Path(quest_root) if scope == "quest" else self.home) / "memory"
        if found is None and card_id:
            found = next((p for p in sorted(root.glob("**/*.md")) if _load(p)[0].get("id") == card_id), None)
        if found is None:
            raise FileNotFoundError("Memory card not found")
        metadata, body = _load(found)
        return {"id": metadata.get("id"), "path": str(found), "metadata": metadata, "body": body}

    def promote_to_global(
        self, *, card_id: str | None = None, path: str | None = None, quest_root: Path
    ) -> dict[str, Any]:
        current = self.read_card(card_id=card_id, path=path, scope="quest", quest_root=quest_root)
        metadata = dict(current["metadata"])
        metadata["scope"] = "global"
        metadata["promoted_from"] = {"quest_root": str(quest_root), "path": current["path"]}
        return self.write_card(
            scope="global",
            kind=str(metadata.get("type") or "knowledge"),
            title=str(metadata.get("title") or "Promoted memory"),
            body=current["body"],
            metadata=metadata,
        )
