"""What finalizes a quest: the files whose arrival in a commit (or a push) means the work
is being closed, so the closure gate must hold (the list: docs/hooks.md).

Pure functions of paths and bytes; the commit hook and the pre-push hook read the bytes
(from git's index, or from the pushed commits) and ask here. A ``write`` decision does not
finalize: it is routing guidance (as PR #60 reads it) recorded long before any paper, and since
DeepScientist re-stages an uncommitted record at every checkpoint, gating it blocked every later
checkpoint. A decision finalizes in any ``.json`` file (``kernel.finalizing.finalizing_reason``):
DeepScientist writes ``artifacts/decisions/<artifact_id>.json`` whatever the id holds.
"""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

from ds_gate.io.yamldoc import load_yaml
from ds_gate.kernel.finalizing import (
    finalizing_reason,
    may_say_completed,
    runtime_reason,
)
from ds_gate.kernel.layout import MANIFEST, QUEST_YAML, RUNTIME_STATE, is_manifest_name
from ds_gate.sources.quest_yaml import scalar_text

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping, Sequence

# `status:` as a block key, its value perhaps quoted
_STATUS_LINE = rb"^[\"']?status[\"']?[ \t]*:[ \t]*[\"']?[ \t]*(\w*)"


def quest_status(raw: bytes | OSError | None) -> str | None:
    """A ``quest.yaml``'s status, if it could be ``completed``, read by what the YAML means
    (escapes, tags, flow style, aliases), stripped and casefolded; a broken file is read by
    its ``status:`` line, so a YAML slip elsewhere cannot hide a completion. One over the size
    limit (an ``OSError``, never read) has none: it is reported, and closure stops on it."""
    if not isinstance(raw, bytes) or not may_say_completed(raw):
        return None  # the only status that matters here is `completed`
    try:
        data = load_yaml(raw.decode("utf-8-sig", "replace"))
        status = scalar_text(data.get("status")) if isinstance(data, dict) else None
    except Exception:
        status = _status_line(raw)
    return status.strip().casefold() if status else None


def _status_line(raw: bytes) -> str | None:
    """The status of a ``quest.yaml`` that does not parse, from its ``status:`` lines: each
    line parsed alone (so its escapes mean what they mean), else the word after the key.
    Any line that says ``completed`` wins: which of two keys a reader keeps is the reader's
    choice, and a file that does not parse must not hide a completion behind another line."""
    values = [_line_value(match) for match in re.finditer(_STATUS_LINE + rb".*$", raw, re.MULTILINE | re.IGNORECASE)]
    for value in values:
        if value.strip().casefold() == "completed":
            return value
    return values[0] if values else None


def _line_value(match: re.Match[bytes]) -> str:
    line = match.group(0).decode("utf-8", "replace")
    try:
        value = scalar_text(load_yaml(line[line.index(":") + 1 :]))
    except Exception:
        value = None
    return value if value and value.strip() else match.group(1).decode("utf-8", "replace")


def pattern_matches(names: Iterable[str], patterns: list[str]) -> list[tuple[str, str]]:
    """(file, pattern) for each file a plugin's pattern names."""
    if not patterns:
        return []
    found = []
    for name in names:
        match = next((p for p in patterns if fnmatch.fnmatchcase(name, p)), None)
        if match is not None:
            found.append((name, match))
    return found


def manifest_reason(path: str = MANIFEST) -> str:
    return f"{path} (a paper bundle)"


def unseen_manifest_reason(path: str, roots: Sequence[str]) -> str:
    """A file named as the manifest while a workspace root main writes the bundle into is unseen:
    it may be that bundle (closure then stops, exit 2, naming the root)."""
    return f"{path} (may be the paper bundle main writes into {', '.join(roots)}, which the gate cannot see)"


def manifest_reasons(
    names: Sequence[str], paths: Sequence[str], unseen: Sequence[str], held: Collection[str] | None = None
) -> list[str]:
    """The paper bundle manifests among ``names``: of ``paths`` (the workspace's own and one for
    each workspace root ``research_state.json`` names below it), those ``held`` (at a pushed tip;
    None: all), and, while a root main would use is ``unseen``, any file of the manifest's name."""
    reasons = [manifest_reason(path) for path in paths if path in names and (held is None or path in held)]
    if unseen:
        reasons += [unseen_manifest_reason(n, unseen) for n in names if is_manifest_name(n) and n not in paths]
    return reasons


def completed_reason() -> str:
    return f"{QUEST_YAML} with status: completed"


def hidden_reason(path: str, mode: str) -> str:
    what = "a gitlink (a nested repository committed)" if mode == "160000" else "a symbolic link"
    return f"{path} ({what}: what it hides may finalize; the gate cannot read it)"


def plugin_reason(name: str, pattern: str) -> str:
    return f"{name} (a finalization file, by plugin pattern {pattern})"


def _decision_reasons(names: Iterable[str], blobs: Mapping[str, bytes | OSError | None], rev: str) -> list[str]:
    """The finalizing decisions among ``names`` (any ``.json`` file), read as ``<rev><name>`` from ``blobs``."""
    reasons = []
    for name in names:
        raw = blobs.get(f"{rev}{name}")
        why = (
            finalizing_reason(name, raw) if isinstance(raw, bytes) else None
        )  # over the size limit: reported, not read
        if why:
            reasons.append(f"{name} ({why})")
    return reasons


def commit_reasons(
    names: list[str],
    blobs: Mapping[str, bytes | OSError | None],
    decisions: list[str],
    patterns: list[str],
    nested: Sequence[str] = (),
    unseen: Sequence[str] = (),
) -> list[str]:
    """Why a commit finalizes the quest ([] when it does not). ``blobs`` holds the staged
    (``:<path>``) and ``HEAD:<path>`` bytes of ``quest.yaml`` and ``.ds/runtime_state.json``
    and the staged ``.json`` files named in ``decisions`` (each asked whether it is a
    finalizing decision); ``nested`` and ``unseen``: as ``manifest_reasons`` takes them."""
    reasons = manifest_reasons(names, (MANIFEST, *nested), unseen)
    reasons.extend(plugin_reason(name, pattern) for name, pattern in pattern_matches(names, patterns))
    if QUEST_YAML in names:
        becomes = quest_status(blobs.get(f":{QUEST_YAML}")) == "completed"
        already = quest_status(blobs.get(f"HEAD:{QUEST_YAML}")) == "completed"
        if becomes and not already:
            reasons.append(completed_reason())
    if RUNTIME_STATE in names:  # main's status, read before quest.yaml's
        why = runtime_reason(blobs.get(f":{RUNTIME_STATE}"), blobs.get(f"HEAD:{RUNTIME_STATE}"))
        if why:
            reasons.append(why)
    reasons.extend(_decision_reasons(decisions, blobs, ":"))
    return reasons


def push_reasons(
    names: list[str],
    tip: str,
    blobs: Mapping[str, bytes | OSError | None],
    held: Collection[str],
    patterns: list[str],
    unseen: Sequence[tuple[str, str]] = (),
    nested: Sequence[str] = (),
    blind: Sequence[str] = (),
) -> list[str]:
    """Why the commits a push sends finalize the quest, judged at the pushed ``tip``. ``unseen``:
    (path, mode) of each link or gitlink where a record or a finalization file would be
    (``kernel.push.hidden``); what it hides may finalize, so the push is gated as if it did
    (a record's place also stops ``closure --from-git``, and so the gate: ``git.symlink-in-tree``).
    ``held``: the manifests the tip holds, of the workspace's own and of ``nested`` (one for each
    workspace root ``research_state.json`` names); ``blind``: the roots main would use that the
    gate cannot see (``manifest_reasons``)."""
    reasons = [hidden_reason(path, mode) for path, mode in unseen]
    reasons += manifest_reasons(names, (MANIFEST, *nested), blind, held)
    if QUEST_YAML in names and quest_status(blobs.get(f"{tip}:{QUEST_YAML}")) == "completed":
        reasons.append(completed_reason())
    completed = runtime_reason(blobs.get(f"{tip}:{RUNTIME_STATE}"), None) if RUNTIME_STATE in names else None
    if completed:
        reasons.append(completed)
    reasons.extend(_decision_reasons(names, blobs, f"{tip}:"))
    reasons.extend(plugin_reason(name, pattern) for name, pattern in pattern_matches(names, patterns))
    return reasons
