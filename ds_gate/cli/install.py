"""``install``: the git hooks into one quest or every quest of a home; with ``--agent``, the distill skill."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ds_gate.agent.skill import SKILL_NAME, deepscientist_approvals, install_skill, mcp_entries
from ds_gate.cli._shared import EXIT_OK, PATH_HELP, emit, verdict
from ds_gate.config.settings import pins_note
from ds_gate.integration import installer
from ds_gate.kernel.errors import QuestError
from ds_gate.model import AgentInstallReport, DocumentsReport
from ds_gate.setup.install import INSTALL_FAILED, install, install_home, uninstall
from ds_gate.setup.template import describe, install_template

if TYPE_CHECKING:
    import argparse


def arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("path", nargs="?", default=".", help=PATH_HELP)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--home", metavar="DIR", help="install the hooks into every quest under DIR/quests/")
    what.add_argument(
        "--agent",
        action="store_true",
        help="instead of the hooks, write the ds-gate-distill skill into the quest's .codex/, .opencode/ "
        "and .kimi/ skill folders, and print the MCP server entries to add to the runner configuration",
    )
    what.add_argument(
        "--template",
        action="store_true",
        help="guard quests created from now on: write the hooks into ds-gate's git template folder and "
        "set your global init.templateDir to it (git config --global; printed); existing quests unchanged",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="with --template: replace an init.templateDir you already set to another folder",
    )
    p.add_argument(
        "--deepscientist",
        action="store_true",
        help="instead of the hooks, make DeepScientist's own runtime Python (the home's runtime/python-env; "
        "--home DIR, else $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist) load ds-gate's integration: "
        "complete_quest, submit_paper_bundle and the completion approval refuse while runs are pending, "
        "a review ds-gate would not accept is not recorded (docs/deepscientist-integration.md)",
    )
    p.add_argument(
        "--undo",
        action="store_true",
        help="take out what the install wrote: the quest's hooks (a hook they chained is put back), "
        "or with --deepscientist the integration, byte for byte",
    )
    p.add_argument(
        "--memory-global-scope",
        action="store_true",
        help="with --deepscientist: memory.write without a scope writes a global card (the RFC's default)",
    )
    p.add_argument(
        "--prompts",
        action="store_true",
        help="with --deepscientist: main's prompts also carry the RFC's recall_priors_rule, distill_required_rule "
        "and global-scope rule on stage turns, and name ds-gate's distill companion skill (in DeepScientist's "
        "process; its files are never written)",
    )


def run(args: argparse.Namespace) -> int:
    """A quest of a home that could not take the hook is a finding; the others still get it."""
    if args.deepscientist or args.memory_global_scope or args.prompts:
        return _deepscientist(args)
    if args.undo:
        return _undo_hooks(args)
    if args.agent:
        return _agent(args)
    if args.template or args.force:
        return _template(args)

    done, skipped, failed = install_home(args.home) if args.home is not None else (install(args.path), [], [])
    findings = [INSTALL_FAILED.at(None, line) for line in failed]
    notes = [item.describe() for item in done] + skipped + ([pins_note("the hooks")] if done else [])
    report = DocumentsReport(command="install", ok=not failed, findings=findings, notes=notes)
    emit(report, args)
    return verdict(report)


def _undo_hooks(args: argparse.Namespace) -> int:
    """The plain hooks out of the quest (or of every quest of ``--home``), a chained hook restored."""
    if args.agent or args.template or args.force or args.home is not None:
        raise QuestError(
            "--undo takes out the hooks of one quest (ds-gate install --undo PATH), or with --deepscientist "
            "the integration; not with --agent, --template or --home"
        )
    notes = uninstall(args.path)
    emit(DocumentsReport(command="install", ok=True, findings=[], notes=notes), args)
    return EXIT_OK


def _agent(args: argparse.Namespace) -> int:
    """Only the skill files; the runner configuration is the user's, so its entries are printed, never written."""
    root, files = install_skill(args.path)
    notes = [
        "the MCP server needs the optional extra in that Python: pip install 'ds-gate[mcp]'",
        "DeepScientist's Claude and Kimi runners start only their built-in MCP servers: there the skill's "
        "ds_gate.* calls go through the CLI (ds-gate candidates, recall --for-stage, closure) run with bash_exec; "
        "Claude reads no skill folder (docs/agent-tools.md)",
    ]
    report = AgentInstallReport(
        command="install",
        ok=True,
        notes=notes,
        quest=root,
        skill=SKILL_NAME,
        written=[f.path for f in files if f.state != "unchanged"],
        unchanged=[f.path for f in files if f.state == "unchanged"],
        mcp_servers=mcp_entries(),
    )
    emit(report, args)
    return verdict(report)


def _template(args: argparse.Namespace) -> int:
    if not args.template:
        raise QuestError("--force goes with --template (it replaces an init.templateDir set to another folder)")
    done = install_template(force=args.force)
    emit(
        DocumentsReport(command="install", ok=True, findings=[], notes=[*describe(done), pins_note("the hooks")]), args
    )
    return EXIT_OK


def _deepscientist(args: argparse.Namespace) -> int:
    """Into DeepScientist's environment, never into a quest: the home's runtime Python only."""
    if not args.deepscientist:
        raise QuestError("--memory-global-scope and --prompts go with --deepscientist")
    if args.agent or args.template or args.force or args.path != ".":
        raise QuestError(
            "--deepscientist installs into a DeepScientist home's runtime (--home DIR), not into a quest; "
            "it takes no PATH, --agent, --template or --force"
        )
    if args.undo and (args.memory_global_scope or args.prompts):
        raise QuestError(
            "--undo takes the whole integration out; --memory-global-scope and --prompts are switches of the install"
        )
    done = (
        installer.uninstall(args.home)
        if args.undo
        else installer.install(args.home, memory_global_scope=args.memory_global_scope, prompts=args.prompts)
    )
    lines = [f"removed {path}" for path in done.removed] + [f"wrote {path}" for path in done.written] + done.notes
    entries = {} if args.undo else {"codex": deepscientist_approvals()}  # approval_policy on-request stops the rest
    emit(DocumentsReport(command="install", ok=True, findings=[], notes=lines, mcp_servers=entries), args)
    return EXIT_OK
