"""Issue 36: a command and an output format are each written in one table, which everything else reads.

The CLI's subcommands, their help, examples and formats are the rows of ``cli.table.COMMANDS``;
every format name, wherever a format is chosen (the CLI, the ``--all-quests`` summary, a
configuration, the docs), comes from ``reporters.registry``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import re
from pathlib import Path

from ds_gate.cli import all_quests
from ds_gate.cli.main import build_parser
from ds_gate.cli.table import COMMANDS
from ds_gate.reporters import health
from ds_gate.reporters.registry import BUILTIN, FORMATS, get, reporter_class

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ds_gate"
# Where "text", "json" or "markdown" name something other than a format: MCP content types,
# recall's ranking modes and record keys, memory.write's fields, SARIF's and the layout's own keys.
OTHER_MEANINGS = ("agent", "integration", "recall", "reporters")


def test_the_cli_has_exactly_the_commands_of_the_table_in_its_order() -> None:
    parser = build_parser()
    assert list(parser.commands) == [command.name for command in COMMANDS]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert [action.help for action in sub._choices_actions] == [command.help for command in COMMANDS]
    for command in COMMANDS:
        assert parser.commands[command.name].epilog == f"example:\n  {command.example}"


def test_each_command_is_parsed_and_run_by_the_module_its_row_names() -> None:
    for command in COMMANDS:
        parser = build_parser(command)
        assert list(parser.commands) == [command.name]  # one command's parser: the commit hook builds only its own
        module = importlib.import_module(f"ds_gate.cli.{command.module}")
        assert parser.commands[command.name].get_default("handler") is module.run


def test_only_the_table_makes_a_subcommand() -> None:
    """A command's parser is made from its row: no module of the CLI adds one of its own."""
    makers = {
        path.name
        for path in (PACKAGE / "cli").glob("*.py")
        if any(
            isinstance(node, ast.Attribute) and node.attr in ("add_parser", "add_subparsers")
            for node in ast.walk(ast.parse(path.read_text()))
        )
    }
    assert makers == {"main.py"}


def test_every_format_offered_anywhere_is_one_of_the_table() -> None:
    assert set(FORMATS) <= set(BUILTIN) and len(set(BUILTIN)) == len(BUILTIN)
    for command in COMMANDS:
        assert command.formats and set(command.formats) <= set(BUILTIN), command.name
    assert set(all_quests.RENDER) <= set(BUILTIN) and set(health.RENDER) <= set(BUILTIN)
    for name in BUILTIN:  # each built-in format has its reporter
        assert reporter_class(name) is not None and callable(get(name).render)


def test_no_module_spells_a_format_name_but_the_format_table() -> None:
    spelt = sorted(
        f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}"
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[0] not in OTHER_MEANINGS
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in BUILTIN
    )
    assert spelt == []
    by_string = re.compile(r"^ds_gate\.reporters\.\w+:[A-Z]")  # "module:Class": a reporter named by a string
    named = sorted(
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and by_string.match(node.value)
    )
    assert named == []


def test_the_docs_and_the_configuration_schema_list_the_formats_of_the_table() -> None:
    listed = "|".join(FORMATS)
    for page in ("README.md", "docs/cli.md"):
        assert f"--format {listed}`" in (ROOT / page).read_text(), page
    assert f"# {', '.join(FORMATS)}, or a plugin's" in (ROOT / "docs" / "configuration.md").read_text()
    schema = json.loads((ROOT / "schemas" / "ds_gate_config.schema.json").read_text())
    assert f"an output format: {', '.join(FORMATS)}, or one a plugin adds" in json.dumps(schema)


def test_cli_md_says_for_every_command_the_formats_of_its_row() -> None:
    """Issue 39: cli.md said "every command takes text|json|github|sarif" and, further down, that
    some take fewer; its one list of each command's formats is the table's, markdown included."""
    page = (ROOT / "docs" / "cli.md").read_text()
    paragraph = page.split("**Formats each command offers**: ", 1)[1].split(". ", 1)[0]
    said: dict[str, tuple[str, ...]] = {}
    for clause in paragraph.split("; "):
        names, formats = clause.split(" take", 1)
        listed = tuple(re.findall(r"`([\w-]+)`", formats))
        for name in re.findall(r"`([\w-]+)`", names):
            said[name] = listed
    assert said == {command.name: command.formats for command in COMMANDS}
    assert "Every command takes `--format" not in page


def test_the_architecture_page_names_one_file_for_a_command_and_one_for_a_format() -> None:
    page = (ROOT / "ARCHITECTURE.md").read_text()
    for bullet, place in (("**A command**", "cli/table.py"), ("**An output format**", "reporters/registry.py")):
        text = page.split(bullet, 1)[1].split("\n- ", 1)[0]
        assert re.findall(r"`([\w/]+\.py)`", text) == [place], bullet
