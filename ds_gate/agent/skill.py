"""``ds-gate install --agent``: the distill skill, where DeepScientist's runners pick it up.

DeepScientist copies a quest's ``.codex/skills/``, ``.opencode/skills/`` and ``.kimi/skills/``
into each runner's runtime home on every turn, and its skill sync prunes only its own
``deepscientist-*`` entries, so ``<overlay>/skills/ds-gate-distill/SKILL.md`` reaches the
agent and survives DeepScientist's updates. The MCP server the skill calls cannot be
installed that way: runner configuration lives in the user's home, outside any quest, so
its entry is printed for the user to add and never written.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ds_gate.agent.toolspec import TOOLS
from ds_gate.kernel.errors import QuestError
from ds_gate.kernel.fs import is_inside
from ds_gate.sources.location import locate

SKILL_NAME = "ds-gate-distill"
OVERLAYS = (".codex", ".opencode", ".kimi")  # the quest folders DeepScientist's runners read skills from
SERVER_NAME = "ds_gate"


@dataclass(frozen=True, slots=True)
class SkillFile:
    path: Path
    state: str  # "written" (new), "updated" (other bytes were there) or "unchanged"


def skill_bytes() -> bytes:
    """The skill as shipped: one file in the package, so a reinstall writes the same bytes."""
    return (Path(__file__).resolve().parent / SKILL_NAME / "SKILL.md").read_bytes()


def quest_root(path: Path | str) -> Path:
    """The quest root, found as ``install`` finds it (a planted ``.git`` pointer refused),
    and only a quest's: DeepScientist reads overlays from quest roots, which hold quest.yaml."""
    root = locate(path).root
    if not (root / "quest.yaml").is_file():
        raise QuestError(
            f"{root} is not a DeepScientist quest (no quest.yaml at its root); the skill was not installed"
        )
    return root


def _target(root: Path, overlay: str) -> Path:
    """``<root>/<overlay>/skills/ds-gate-distill/SKILL.md``, refused (exit 2) when any part of
    that path is a symbolic link leading out of the quest, or is not the kind of file it should be:
    writing through it would put a file where no one asked for one."""
    real_root = Path(os.path.realpath(root))
    path = root
    for part in (overlay, "skills", SKILL_NAME, "SKILL.md"):
        path = path / part
        if path.is_symlink():
            real = Path(os.path.realpath(path))
            if not is_inside(real_root, real):
                raise QuestError(
                    f"{path} is a symbolic link to {real}, outside the quest; it is not followed and the skill "
                    "was not installed (replace the link with a folder inside the quest)"
                )
        want_file = part == "SKILL.md"
        if os.path.lexists(path) and (path.is_file() if want_file else path.is_dir()) is False:
            what = "a regular file" if want_file else "a folder"
            raise QuestError(f"{path} exists and is not {what}; the skill was not installed")
    return path


def _write(path: Path, data: bytes) -> str:
    """Atomic, and a no-op when the bytes are already there (mtime kept: a rerun changes nothing)."""
    try:
        if path.read_bytes() == data:
            return "unchanged"
        state = "updated"
    except FileNotFoundError:
        state = "written"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)  # readable like the rest of the quest (mkstemp makes 0600)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
    return state


def install_skill(path: Path | str) -> tuple[Path, list[SkillFile]]:
    """Every target is checked before any is written, so a refusal leaves the quest as it was."""
    root = quest_root(path)
    data = skill_bytes()
    targets = [_target(root, overlay) for overlay in OVERLAYS]
    try:
        return root, [SkillFile(target, _write(target, data)) for target in targets]
    except OSError as exc:
        raise QuestError(f"{root}: the skill could not be written: {exc.strerror or exc} ({exc.filename})") from exc


# Run with the quest as the working directory (as a runner starts its servers), ``python -m``
# would put that folder first on sys.path and import a ``ds_gate/`` the quest holds; ``-c``'s
# empty entry is dropped before ds-gate is imported.
SAFE_MAIN = 'import sys; sys.argv[0] = "ds-gate"; sys.path[:] = [p for p in sys.path if p]; import ds_gate.__main__'


def server_command() -> list[str]:
    """The installation that printed it (where the ``mcp`` extra must be), whatever
    ``ds-gate`` another PATH finds first: its ``ds-gate`` script beside this interpreter
    (a script's sys.path starts at its own folder, never the quest), else this interpreter
    running ``SAFE_MAIN``. Not resolved: a virtual environment's python is a link, and
    resolving it would leave the environment."""
    python = sys.executable or "python3"
    script = os.path.join(os.path.dirname(python), "ds-gate")
    if os.path.isabs(script) and os.path.isfile(script) and os.access(script, os.X_OK):
        return [script, "mcp"]
    return [python, "-c", SAFE_MAIN, "mcp"]


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, except DEL and characters past the BMP."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


CODEX_FILE = "~/.codex/config.toml (or config.toml in the codex runner's config_dir, or in $CODEX_HOME)"
APPROVE = {"approval_mode": "approve"}
EVERY_SESSION = ("artifact",)  # main's servers in every Codex session (builtin_mcp_server_names_for_custom_profile)


def deepscientist_approvals() -> dict[str, Any]:
    """Codex's approval of each tool ``install --deepscientist`` adds to main's own servers
    (the table's ``deepscientist`` column), as the user's ``config.toml`` must say it: main
    approves only its own tools (``_BUILTIN_MCP_TOOL_APPROVALS``), and under ``approval_policy:
    on-request`` ``codex exec`` stops an unapproved call. These ``[mcp_servers.<server>.tools.<name>]``
    tables come before the block main appends for the same server, which TOML allows (a table
    defined before its super-table); the tools only read."""
    servers: dict[str, list[str]] = {}
    for tool in TOOLS:
        if tool.deepscientist:
            servers.setdefault(tool.deepscientist, []).append(tool.name)
    lines: list[str] = []
    for server, names in servers.items():
        if server not in EVERY_SESSION:  # the table would be a server without a command there
            lines += ["", f"# DeepScientist starts no {server} server in its settings-issue and start-setup sessions,"]
            lines += [f"# where Codex refuses [mcp_servers.{server}] without a command: omit this if you use them"]
        for name in names:
            lines += ["", f"[mcp_servers.{server}.tools.{name}]", 'approval_mode = "approve"']
    return {
        "file": CODEX_FILE,
        "entry": {server: {"tools": {name: dict(APPROVE) for name in names}} for server, names in servers.items()},
        "snippet": "\n".join(lines[1:]) + "\n",
    }


def mcp_entries(command: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """What to add to each runner's configuration that DeepScientist carries over.

    Codex: DeepScientist copies the user's ``config.toml`` and appends its built-in servers
    after it, so a ``[mcp_servers.ds_gate]`` table there survives; each tool is marked
    ``approval_mode = "approve"`` as DeepScientist marks its own, since ``codex exec`` runs
    unattended (the tools only read). OpenCode: DeepScientist merges the user's ``mcp`` block
    of ``opencode.json`` under its own entries. With ``install --deepscientist``, Codex also
    needs ``deepscientist_snippet`` (``deepscientist_approvals``)."""
    command = command or server_command()
    codex_lines = [
        f"[mcp_servers.{SERVER_NAME}]",
        f"command = {_toml_string(command[0])}",
        f"args = [{', '.join(_toml_string(arg) for arg in command[1:])}]",
    ]
    for tool in TOOLS:
        codex_lines += ["", f"[mcp_servers.{SERVER_NAME}.tools.{tool.name}]", 'approval_mode = "approve"']
    opencode_entry = {"type": "local", "command": list(command), "enabled": True}
    return {
        "codex": {
            "file": CODEX_FILE,
            "entry": {
                "command": command[0],
                "args": command[1:],
                "tools": {tool.name: dict(APPROVE) for tool in TOOLS},
            },
            "snippet": "\n".join(codex_lines) + "\n",
            "deepscientist_snippet": deepscientist_approvals()["snippet"],
        },
        "opencode": {
            "file": "~/.config/opencode/opencode.json (or the opencode runner's config_dir)",
            "entry": opencode_entry,
            "snippet": f'{{\n  "mcp": {{\n    "{SERVER_NAME}": {json.dumps(opencode_entry, ensure_ascii=False)}\n  }}\n}}\n',
        },
    }
