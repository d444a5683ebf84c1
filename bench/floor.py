"""The parse floor: the least any closure gate must do. Read every ``_index.jsonl`` line and
``json.loads`` every run and decision record of the quest root and its worktrees; no
checks, no output."""

import json
import os
import sys

root = sys.argv[1]
workspaces = [root] + [os.path.join(root, ".ds", "worktrees", d) for d in sorted(os.listdir(os.path.join(root, ".ds", "worktrees")))]
count = 0
for ws in workspaces:
    artifacts = os.path.join(ws, "artifacts")
    with open(os.path.join(artifacts, "_index.jsonl"), "rb") as index:
        for line in index:
            if line.strip():
                json.loads(line)
    for folder in ("runs", "decisions"):
        path = os.path.join(artifacts, folder)
        if os.path.isdir(path):
            for name in os.listdir(path):
                with open(os.path.join(path, name), "rb") as record:
                    json.loads(record.read())
                    count += 1
print(count)
