"""The parse floor: the least any closure gate must do. ``json.loads`` every ``_index.jsonl``
line of the quest root and its worktrees, and every distinct run and decision record once
(the files the index lines name, each path once: a worktree's inherited lines name its
parent's files); no checks, no output."""

import json
import os
import sys

root = sys.argv[1]
worktrees = os.path.join(root, ".ds", "worktrees")
workspaces = [root] + (
    [os.path.join(worktrees, d) for d in sorted(os.listdir(worktrees))] if os.path.isdir(worktrees) else []
)
seen = set()
for ws in workspaces:
    index_path = os.path.join(ws, "artifacts", "_index.jsonl")
    if not os.path.isfile(index_path):
        continue
    with open(index_path, "rb") as index:
        for line in index:
            if line.strip():
                entry = json.loads(line)
                path = entry.get("path")
                if entry.get("kind") in ("run", "decision") and path and path not in seen:
                    seen.add(path)
                    with open(path, "rb") as record:
                        json.loads(record.read())
print(len(seen))
