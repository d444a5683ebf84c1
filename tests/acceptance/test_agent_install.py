"""``ds-gate install --agent``: the distill skill lands in the quest's three skill overlay folders
and nowhere else, a rerun changes nothing, and the MCP entries are printed, never written."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, a dependency there
    import tomli as tomllib

from ds_gate.agent.skill import (
    OVERLAYS,
    SAFE_MAIN,
    SKILL_NAME,
    deepscientist_approvals,
    server_command,
    skill_bytes,
)
from ds_gate.agent.toolspec import BY_NAME as TOOLS
from ds_gate.agent.toolspec import TOOLS as TABLE
from ds_gate.cli.main import main

SKILL_FILES = tuple(f"quests/001/{overlay}/skills/{SKILL_NAME}/SKILL.md" for overlay in OVERLAYS)


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Content hash and mtime of every file below ``root``, ``.git`` included."""
    state = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                state[path.relative_to(root).as_posix()] = (
                    hashlib.sha256(path.read_bytes()).hexdigest(),
                    path.stat().st_mtime_ns,
                )
    return state


def test_writes_exactly_the_three_skill_files_from_a_worktree(make_quest, home, capsys) -> None:
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    run = quest.run(wt, "main-001")
    quest.checkpoint(wt, "record")
    quest.review(wt, [run])
    before = snapshot(home)
    assert main(["install", "--agent", str(wt / "artifacts")]) == 0  # any folder inside the quest
    after = snapshot(home)
    assert {name for name in after if before.get(name) != after[name]} == set(SKILL_FILES)
    assert set(before) <= set(after)  # nothing removed; the hooks folder untouched (no hook installed)
    for name in SKILL_FILES:
        assert (home / name).read_bytes() == skill_bytes()
    out = capsys.readouterr().out
    assert out.count("wrote ") == 3 and "[mcp_servers.ds_gate]" in out and '"mcp": {' in out
    assert not (quest.root / ".git" / "hooks" / "pre-commit").exists()


def test_a_second_run_changes_nothing_and_says_unchanged(make_quest, home, capsys) -> None:
    quest = make_quest()
    assert main(["install", "--agent", str(quest.root)]) == 0
    capsys.readouterr()
    before = snapshot(home)
    assert main(["install", "--agent", str(quest.root)]) == 0
    assert snapshot(home) == before  # same bytes and same mtimes: nothing rewritten
    out = capsys.readouterr().out
    assert out.count("unchanged ") == 3 and "wrote " not in out


def test_an_outdated_skill_is_replaced_and_reported_written(make_quest, gate_json) -> None:
    quest = make_quest()
    target = quest.root / ".opencode" / "skills" / SKILL_NAME / "SKILL.md"
    target.parent.mkdir(parents=True)
    target.write_text("---\nname: ds-gate-distill\ndescription: an old version\n---\n")
    code, out = gate_json("install", "--agent", str(quest.root))
    assert code == 0 and target.read_bytes() == skill_bytes()
    assert out["written"] == [str(quest.root / overlay / "skills" / SKILL_NAME / "SKILL.md") for overlay in OVERLAYS]
    assert out["unchanged"] == []


def test_the_skill_is_a_runner_skill_that_names_every_tool() -> None:
    text = skill_bytes().decode("utf-8")
    front, body = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S).groups()  # type: ignore[union-attr]
    meta = yaml.safe_load(front)
    # the Agent Skills rules OpenCode enforces (Codex and Kimi read the same two keys)
    assert meta["name"] == SKILL_NAME and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta["name"])
    assert 0 < len(meta["description"]) <= 1024
    for tool in TOOLS:
        assert f"ds_gate.{tool}(" in body, tool
    for needed in (
        "artifact.record(payload=",
        'scope="global"',
        "memory.write(",
        "neighbor_but_separate",
        "lineage",
        "claim",
        "artifact.submit_paper_bundle",
        "artifact.complete_quest",
        "--no-verify",
        '"report_type": "distill_review"',
        '"suppress_if_semantically_equivalent": false',
        "ds-gate candidates",
        "ds-gate recall --for-stage",
        "ds-gate closure",
    ):
        assert needed in body, needed


def test_json_lists_the_files_and_the_mcp_entries(make_quest, gate_json) -> None:
    quest = make_quest()
    code, out = gate_json("install", "--agent", str(quest.root))
    assert code == 0 and out["ok"] and out["schema_version"] == 1 and out["command"] == "install"
    assert out["quest_root"] == str(quest.root.resolve()) and out["skill"] == SKILL_NAME
    assert len(out["written"]) == 3 and out["unchanged"] == []
    command = server_command()
    codex, opencode = out["mcp_servers"]["codex"], out["mcp_servers"]["opencode"]
    assert codex["entry"]["command"] == command[0] and codex["entry"]["args"] == command[1:]
    assert opencode["entry"] == {"type": "local", "command": command, "enabled": True}
    assert json.loads(opencode["snippet"]) == {"mcp": {"ds_gate": opencode["entry"]}}
    table = tomllib.loads(codex["snippet"])["mcp_servers"]["ds_gate"]
    assert table["command"] == command[0] and table["args"] == command[1:]
    assert set(table["tools"]) == set(TOOLS)
    _, again = gate_json("install", "--agent", str(quest.root))
    assert again["written"] == [] and len(again["unchanged"]) == 3


@pytest.mark.slow
def test_the_printed_command_runs_this_installation_never_the_quests_code(make_quest, tmp_path, monkeypatch) -> None:
    """A runner starts the server in the quest's folder. ``python -m ds_gate`` would put that
    folder first on sys.path and run a ``ds_gate/`` package the quest holds; the printed
    command (this installation's ``ds-gate`` script, else this interpreter with ``-c``) cannot."""
    quest = make_quest()
    marker = tmp_path / "quest-code-ran"
    (quest.root / "ds_gate" / "cli").mkdir(parents=True)
    for name in (
        "ds_gate/__init__.py",
        "ds_gate/__main__.py",
        "ds_gate/cli/__init__.py",
        "ds_gate/cli/main.py",
        "json.py",
        "argparse.py",
    ):
        (quest.root / name).write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    script = server_command()
    assert script[0] == str(Path(sys.executable).parent / "ds-gate") and script[1:] == ["mcp"]
    monkeypatch.setattr(sys, "executable", str(tmp_path / "elsewhere" / "python3"))  # no script beside it
    fallback = server_command()
    monkeypatch.undo()
    assert fallback[1:] == ["-c", SAFE_MAIN, "mcp"]
    for command in (script[:-1], [sys.executable, *fallback[1:-1]]):
        done = subprocess.run([*command, "--version"], cwd=quest.root, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and done.stdout.startswith("ds-gate "), done.stderr
        assert not marker.exists(), command
    subprocess.run([sys.executable, "-m", "ds_gate", "--version"], cwd=quest.root, capture_output=True, check=False)
    assert marker.exists()  # the control: -m runs the quest's package


@pytest.mark.parametrize("link", [".codex", ".opencode/skills", f".kimi/skills/{SKILL_NAME}/SKILL.md"])
def test_a_link_out_of_the_quest_is_refused_and_nothing_is_written(make_quest, home, tmp_path, link, capsys) -> None:
    quest = make_quest()
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "SKILL.md" if link.endswith(".md") else outside
    path = quest.root / link
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    before = snapshot(home)
    assert main(["install", "--agent", str(quest.root)]) == 2
    err = capsys.readouterr().err
    assert "outside the quest" in err and "Traceback" not in err
    assert snapshot(home) == before  # checked before anything is written: no overlay got the skill
    assert list(outside.iterdir()) == []


def test_a_link_inside_the_quest_is_followed(make_quest) -> None:
    quest = make_quest()
    (quest.root / ".codex" / "skills").mkdir(parents=True)
    (quest.root / ".opencode").mkdir()
    (quest.root / ".opencode" / "skills").symlink_to(quest.root / ".codex" / "skills")  # shared skills
    assert main(["install", "--agent", str(quest.root)]) == 0
    assert (quest.root / ".codex" / "skills" / SKILL_NAME / "SKILL.md").read_bytes() == skill_bytes()
    assert (quest.root / ".opencode" / "skills").is_symlink()


def test_other_skills_in_the_overlays_are_left_alone(make_quest, home) -> None:
    quest = make_quest()
    kept = {}
    for overlay, name in ((".codex", "other-skill"), (".codex", "deepscientist-experiment"), (".kimi", "mine")):
        folder = quest.root / overlay / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: someone else's\n---\n")
        (folder / "notes.txt").write_text("keep me\n")
        kept[folder] = snapshot(folder)
    assert main(["install", "--agent", str(quest.root)]) == 0
    assert all(snapshot(folder) == state for folder, state in kept.items())


def test_a_file_where_the_skill_folder_should_be_is_refused(make_quest, capsys) -> None:
    quest = make_quest()
    (quest.root / ".codex").write_text("not a folder\n")
    assert main(["install", "--agent", str(quest.root)]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert not (quest.root / ".opencode").exists()


def test_usage_errors_exit_2_without_a_traceback(tmp_path, home, capsys) -> None:
    assert main(["install", "--agent", "--home", str(home)]) == 2  # one quest's skill, or a home's hooks
    plain = tmp_path / "plain"
    plain.mkdir()
    subprocess.run(["git", "init", "-q", str(plain)], check=True)
    assert main(["install", "--agent", str(plain)]) == 2  # a git repository that is not a quest
    assert main(["install", "--agent", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert "no quest.yaml" in err and "Traceback" not in err
    assert not (plain / ".codex").exists()


@pytest.mark.slow
def test_the_printed_snippets_parse_as_they_must_be_pasted(make_quest) -> None:
    """Issue 27: on a terminal the runner entries are printed line by line, so the text between
    each heading and the next parses as the runner's own file format (they had literal \\n)."""
    quest = make_quest()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from ds_gate.cli.main import main; raise SystemExit(main())",
            "install",
            "--agent",
            str(quest.root),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    codex, also = (
        text.split("Codex: add to ", 1)[1]
        .split(":\n\n", 1)[1]
        .split("\n\nOpenCode: add to ", 1)[0]
        .split("\n\nCodex, with ds-gate install --deepscientist: also add (")
    )
    opencode = text.split("OpenCode: add to ", 1)[1].split(":\n\n", 1)[1].split("\n\n", 1)[0]
    table = tomllib.loads(codex)["mcp_servers"]["ds_gate"]
    assert table["args"] == server_command()[1:] and set(table["tools"]) == set(TOOLS)
    approvals = tomllib.loads(also.split("):\n\n", 1)[1])["mcp_servers"]
    assert approvals["memory"]["tools"] == {"list_knowledge_summaries": {"approval_mode": "approve"}}
    assert json.loads(opencode)["mcp"]["ds_gate"]["command"] == server_command()


# DeepScientist main (b366244) src/deepscientist/runners/codex.py: the tools it approves on its own servers
# (_BUILTIN_MCP_TOOL_APPROVALS), the servers of its helper sessions (runners/base.py), and _mcp_block's text
MAIN_APPROVALS = {
    "memory": ("write", "read", "search", "list_recent", "promote_to_global"),
    "artifact": (
        *("record", "science", "checkpoint", "prepare_branch", "activate_branch", "submit_idea"),
        *("list_research_branches", "resolve_runtime_refs", "get_paper_contract_health"),
        *("validate_manuscript_coverage", "validate_academic_outline", "validate_manuscript_language"),
        *("compile_outline_to_writing_plan", "get_quest_state", "get_global_status", "get_method_scoreboard"),
        *("get_optimization_frontier", "read_quest_documents", "get_conversation_context", "get_analysis_campaign"),
        *("record_main_experiment", "create_analysis_campaign", "submit_paper_outline", "list_paper_outlines"),
        *("submit_paper_bundle", "record_analysis_slice", "publish_baseline", "attach_baseline", "confirm_baseline"),
        *("overwrite_baseline", "waive_baseline", "arxiv", "refresh_summary", "render_git_graph", "interact"),
        "complete_quest",
    ),
    "bash_exec": ("bash_exec",),
}
HELPER_SESSION_SERVERS = ("artifact", "bash_exec")  # settings_issue, start_setup_prepare


def mains_block(servers: tuple[str, ...] = ("memory", "artifact", "bash_exec")) -> str:
    """The block main appends to the run's config.toml, rendered as ``_inject_built_in_mcp`` and
    ``_mcp_block`` render it (codex.py:1540-1623), with a typical env and a tool timeout."""
    env = {"DEEPSCIENTIST_HOME": "/home/u/DeepScientist", "DS_QUEST_ID": "001", "DS_QUEST_ROOT": "/q/001"}
    blocks = []
    for name in servers:
        lines = [
            f"[mcp_servers.{name}]",
            'transport = "stdio"',
            'command = "/home/u/DeepScientist/runtime/python-env/bin/python"',
            f"args = [{', '.join(json.dumps(a) for a in ['-m', 'deepscientist.mcp.server', '--namespace', name])}]",
            "tool_timeout_sec = 180",
            "",
            f"[mcp_servers.{name}.env]",
            *(f"{key} = {json.dumps(value)}" for key, value in env.items()),
        ]
        for tool in MAIN_APPROVALS[name]:
            lines += ["", f"[mcp_servers.{name}.tools.{tool}]", 'approval_mode = "approve"']
        blocks.append("\n".join(lines))
    return "\n".join(["# BEGIN DEEPSCIENTIST BUILTINS", "\n\n".join(blocks), "# END DEEPSCIENTIST BUILTINS"])


def runtime_config(users: str, servers: tuple[str, ...] = ("memory", "artifact", "bash_exec")) -> dict[str, Any]:
    """The run's config.toml as main writes it: the user's file, then its block (``f"{prefix}\\n\\n{block}\\n"``)."""
    return tomllib.loads(f"{users.rstrip()}\n\n{mains_block(servers)}\n")


def test_the_deepscientist_approvals_parse_ahead_of_mains_block_and_approve_each_new_tool(
    make_quest, gate_json
) -> None:
    """Issue 37.4: the tools ``install --deepscientist`` puts on main's servers are not in main's
    approval list, so ``approval_policy: on-request`` stopped them; the printed tables, pasted into
    the user's config.toml ahead of main's block, approve each, and main's own entries stand."""
    code, out = gate_json("install", "--agent", str(make_quest().root))
    codex = out["mcp_servers"]["codex"]
    assert code == 0 and codex["deepscientist_snippet"] == deepscientist_approvals()["snippet"]
    users = f'model = "gpt-5"\napproval_policy = "on-request"\n\n{codex["snippet"]}\n{codex["deepscientist_snippet"]}'
    config = runtime_config(users)["mcp_servers"]
    ours = {(spec.deepscientist, spec.name) for spec in TABLE if spec.deepscientist}
    assert ours == {
        ("artifact", "list_distill_candidates"),
        ("artifact", "list_recent"),
        ("artifact", "validate_distill_review"),
        ("memory", "list_knowledge_summaries"),
    }
    for server, name in ours:
        assert config[server]["tools"][name] == {"approval_mode": "approve"}, (server, name)
        assert name not in MAIN_APPROVALS[server]  # disjoint: main's own approval is never restated
        assert config[server]["args"][-1] == server and config[server]["command"].endswith("python")
    for server, names in MAIN_APPROVALS.items():  # main's own block is whole
        assert {n for n in names} <= set(config[server]["tools"]), server
    assert set(config["ds_gate"]["tools"]) == set(TOOLS)
    entry = deepscientist_approvals()["entry"]
    assert {(server, name) for server, table in entry.items() for name in table["tools"]} == ours


def test_a_server_main_leaves_out_of_a_session_is_the_one_table_marked_to_omit() -> None:
    """In main's settings-issue and start-setup sessions there is no memory server: the memory
    table alone would be a server without a command, which Codex refuses; the snippet says so
    above it, and without it the rest parses with main's block of those sessions."""
    snippet = deepscientist_approvals()["snippet"]
    artifact, memory = snippet.split("# DeepScientist starts no memory server", 1)
    assert "[mcp_servers.memory" not in artifact and "[mcp_servers.artifact" not in memory
    helper = runtime_config(artifact, HELPER_SESSION_SERVERS)["mcp_servers"]
    assert "memory" not in helper and helper["artifact"]["tools"]["list_recent"] == {"approval_mode": "approve"}
    assert "command" not in runtime_config(snippet, HELPER_SESSION_SERVERS)["mcp_servers"]["memory"]
