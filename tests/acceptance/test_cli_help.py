"""Issue 27: ``--help`` fits the terminal and each command advertises exactly the formats it accepts."""

from __future__ import annotations

import re
import shlex

import pytest

from ds_gate.cli.main import _refused_format, build_parser, main
from ds_gate.cli.table import BY_NAME
from ds_gate.reporters.registry import FORMATS

COMMANDS = sorted(build_parser().commands)


def help_text(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return capsys.readouterr().out


def example_args(command: str) -> list[str]:
    """The command's own example from its ``--help``, as a shell would split it (no redirection)."""
    words = shlex.split(BY_NAME[command].example, comments=True)
    return words[2 : words.index("<")] if "<" in words else words[2:]


def advertised(text: str) -> tuple[set[str], bool]:
    """The formats ``--format``'s help names, and whether it says a plugin's are taken too."""
    flat = " ".join(text.split())
    found = re.search(r"--format FORMAT output format: (.*?) \(default: text\)", flat)
    assert found, flat
    names, plugins = found.group(1), False
    if names.endswith(", or one a plugin adds"):
        names, plugins = names.removesuffix(", or one a plugin adds"), True
    return set(names.split(", ")), plugins


@pytest.mark.parametrize("columns", ["80", "100"])
@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_no_help_line_is_wider_than_the_terminal(command: str, columns: str, capsys, monkeypatch) -> None:
    """A 269-column line (lineage's description) and 186 (pre-push's) ran past an 80-column terminal."""
    monkeypatch.setenv("COLUMNS", columns)
    lines = help_text(capsys, *([command] if command else [])).splitlines()
    assert [line for line in lines if len(line) > int(columns)] == []
    assert [line for line in lines if line != line.rstrip()] == []


def test_a_long_example_keeps_its_command_whole_and_its_comment_a_comment(capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = help_text(capsys, "validate")
    assert "  ds-gate validate artifacts/decisions/decision-1.json\n  # or a folder: ds-gate validate .\n" in text


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_exactly_the_formats_the_command_accepts(command: str, capsys) -> None:
    """recall, recent, install and demo listed github and sarif, then refused them (exit 2)."""
    offered, plugins = advertised(help_text(capsys, command))
    parser = build_parser()
    for fmt in FORMATS:
        args = parser.parse_args([command, *example_args(command), "--format", fmt])
        assert (_refused_format(args) is None) == (fmt in offered), (command, fmt)
    plugin = parser.parse_args([command, *example_args(command), "--format", "no-such-plugin-format"])
    refusal = str(_refused_format(plugin) or "")
    assert ("unknown format" in refusal) == plugins and ("is not offered" in refusal) == (not plugins)


@pytest.mark.parametrize(
    "command", ["check", "closure", "candidates", "doctor", "lineage", "recall", "recent", "validate"]
)
def test_every_advertised_format_runs(command: str, one_run_quest, capsys) -> None:
    """Not only past the refusal: each format the help names renders the command's report."""
    offered, _ = advertised(help_text(capsys, command))
    path = [] if command in ("recall", "lineage") else [str(one_run_quest.root)]
    for fmt in sorted(offered):
        code = main([command, *path, "--format", fmt])
        captured = capsys.readouterr()
        assert code in (0, 1) and captured.out.strip(), (command, fmt, captured.err)


def test_closure_help_names_markdown_and_the_top_help_says_what_a_quest_may_set(capsys) -> None:
    """Issue 39: markdown was taken but not listed; the top help said the quest's .ds-gate.yaml
    may set home, source and refs, which only trusted configuration may (config.quest.from_quest)."""
    offered, _ = advertised(help_text(capsys, "closure"))
    assert "markdown" in offered
    flat = " ".join(help_text(capsys).split())
    defaults = flat.split("defaults: ", 1)[1]
    assert "may set home, require, format, source and refs" in defaults.split(".ds-gate.yaml")[0]
    quest_part = defaults.split(".ds-gate.yaml", 1)[1].split("; a flag wins")[0]
    assert "only what makes the gate stricter" in quest_part and "home" not in quest_part
