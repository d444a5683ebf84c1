"""``ds-gate``: parse options, call the core, pick a reporter, return an exit code.

Exit codes: 0 ok, 1 gate failed, 2 usage error or unreadable input, 3 internal error.
Bad input never shows a traceback; an internal error shows one line and asks for
``--debug``, which shows the traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__

TYPE_CHECKING = False  # typing costs ~3 ms on the commit hook's path
if TYPE_CHECKING:
    from .model import Report

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
FORMATS = ("text", "json", "github")
HOME_HELP = "the DeepScientist home (default: $DEEPSCIENTIST_HOME, $DS_HOME, ~/DeepScientist)"


def _emit(report: Report, fmt: str) -> None:
    from . import reporters

    sys.stdout.write(reporters.get(fmt).render(report))
    sys.stdout.flush()


def _verdict(report: Report) -> int:
    return EXIT_OK if report.ok else EXIT_FAILED


def cmd_gate(args: argparse.Namespace) -> int:
    from .engine.gate import evaluate

    report = evaluate(args.path, args.command, require=getattr(args, "require", False), home=getattr(args, "home", None),
                      source=args.source, refs=args.refs)
    _emit(report, args.format)
    return _verdict(report)


def cmd_lineage(args: argparse.Namespace) -> int:
    from .engine.lineage import evaluate_lineage

    report = evaluate_lineage(args.home, args.paths, since=args.since, patching_quest=args.quest)
    _emit(report, args.format)
    return _verdict(report)


def cmd_validate(args: argparse.Namespace) -> int:
    from .engine.documents import validate_files

    report, readable = validate_files(args.files)
    _emit(report, args.format)
    return _verdict(report) if readable else EXIT_USAGE


def cmd_commit_check(args: argparse.Namespace) -> int:
    from .engine.commit import commit_check

    report = commit_check(".", validate=not args.no_validate, require=args.require)
    if report is None:
        return EXIT_OK
    if report.findings or report.notes or not report.ok:
        _emit(report, args.format)
    return _verdict(report)


def cmd_pre_push(args: argparse.Namespace) -> int:
    import os

    from .engine.push import push_check, pushes_from, read_stdin

    report = push_check(".", pushes_from(os.environ, read_stdin()), require=args.require, refs=args.refs)
    if report is None:
        return EXIT_OK
    _emit(report, args.format)
    return _verdict(report)


def cmd_recall(args: argparse.Namespace) -> int:
    from .model import RecallReport
    from .recall import list_knowledge_summaries, tags_for_stage

    tags = [t for t in (args.tags or "").split(",") if t.strip()]
    notes: list[str] = []
    if args.for_stage:
        stage_tags, on = tags_for_stage(args.quest or ".", args.for_stage)
        if not on:
            notes.append("recall_priors is off for this quest, so stage entry recalls nothing (turn it on in quest.yaml "
                         "startup_contract); use --tags to recall anyway")
            report = RecallReport(command="recall", ok=True, findings=[], notes=notes, results=[],
                            request={"domain_tags": tags, "for_stage": args.for_stage})
            _emit(report, args.format)
            return EXIT_OK
        tags = stage_tags + tags
        notes.append(f"domain tags for stage {args.for_stage}: {', '.join(tags)}")
    quest = args.quest if args.quest or args.scope == "quest" or args.for_stage else None
    results = list_knowledge_summaries(tags, args.kind, args.limit, home=args.home, quest=quest or None,
                                       scope=args.scope, query=args.query, jsonl=args.jsonl or (), refresh=args.refresh)
    request = {"domain_tags": tags, "kind": args.kind, "limit": args.limit, "scope": args.scope, "query": args.query}
    _emit(RecallReport(command="recall", ok=True, findings=[], notes=notes, results=results, request=request), args.format)
    return EXIT_OK


def cmd_recent(args: argparse.Namespace) -> int:
    from .model import RecentReport
    from .engine.recent import list_recent

    results = list_recent(args.path, args.kind, args.limit, source=args.source, refs=args.refs)
    request = {"kind": args.kind, "limit": args.limit, "source": args.source}
    _emit(RecentReport(command="recent", ok=True, findings=[], results=results, request=request), args.format)
    return EXIT_OK


def cmd_install(args: argparse.Namespace) -> int:
    from .install import install, install_home
    from .install import INSTALL_FAILED
    from .model import DocumentsReport

    if args.home is not None:
        done, skipped, failed = install_home(args.home)
    else:
        done, skipped, failed = install(args.path), [], []
    findings = [INSTALL_FAILED.at(None, line) for line in failed]
    notes = [item.describe() for item in done] + skipped
    report = DocumentsReport(command="install", ok=not failed, findings=findings, notes=notes)
    _emit(report, args.format)
    return _verdict(report)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(args.dir, fmt=args.format)


def source_options(p: argparse.ArgumentParser) -> None:
    """Where artifacts are read: worktree folders (default), branch tips, or both."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--from-git", dest="source", action="store_const", const="git", default="folders",
                       help="read artifacts from the tips of git branches instead of the worktree folders (CI clones)")
    where.add_argument("--also-git", dest="source", action="store_const", const="both",
                       help="read artifacts from the worktree folders and from the tips of git branches")
    p.add_argument("--refs", action="append", metavar="PATTERN",
                   help="with --from-git/--also-git: the refs to read (repeatable; default: refs/heads and refs/remotes)")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--format", default="text", metavar="FORMAT", help=f"output format: {', '.join(FORMATS)}, or one a plugin adds (default: text)"
    )
    common.add_argument("--debug", action="store_true", help="show the Python traceback of an internal error")

    parser = argparse.ArgumentParser(
        prog="ds-gate",
        description="Experience-distillation closure discipline for DeepScientist quests.",
    )
    parser.add_argument("--version", action="version", version=f"ds-gate {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def gate_command(name: str, help_text: str, require: bool) -> None:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.add_argument("path", nargs="?", default=".", help="any path inside the quest (default: .)")
        source_options(p)
        if require:
            p.add_argument("--require", action="store_true", help="enforce the gate even where experience_distill is off")
            p.add_argument("--home", metavar="DIR", help=HOME_HELP)
        p.set_defaults(handler=cmd_gate)

    gate_command("check", "validate every decision and report distill coverage (fails on invalid artifacts only)", True)
    gate_command("closure", "the finalization gate: fails while any completed run lacks a distill_review", True)
    gate_command("candidates", "list the completed runs no distill_review covers yet", False)

    p = sub.add_parser(
        "lineage",
        parents=[common],
        help="check the lineage chains of the experience cards of a home and of the given quests",
        description="Check every experience card of the home's global memory and of the given quests: schema, "
        "lineage back to the origin quest, every entry a real run. With --since, also check every card changed "
        "since a git revision of the global memory against the cross-quest patch rules.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="quests whose own (quest-scope) cards to check too")
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)
    p.add_argument("--since", metavar="REV", help="check cards of <home>/memory changed since REV (a git revision)")
    p.add_argument("--quest", metavar="QUEST_ID", help="with --since: the quest that made the changes (else inferred)")
    p.set_defaults(handler=cmd_lineage)

    p = sub.add_parser(
        "recall",
        parents=[common],
        help="recall lessons: memory cards ranked by tag overlap, then recency (the RFC's list_knowledge_summaries)",
    )
    p.add_argument("--tags", default="", help="domain tags, comma-separated (normalised like the cards' tags)")
    p.add_argument("--kind", help="only this memory kind (knowledge, papers, ...); applied before --limit")
    p.add_argument("--limit", type=int, default=20, help="how many (1..200; default 20)")
    p.add_argument("--scope", choices=("global", "quest", "visible"), default="visible",
                   help="global memory, the quest's, or both plus other quests' (default: visible)")
    p.add_argument("--query", help="free text: cards with no shared tag are ranked after the rest by a text match (bm25)")
    p.add_argument("--quest", metavar="PATH", help="the quest whose memory is in scope (default: none, or . with --for-stage)")
    p.add_argument("--home", metavar="DIR", help=HOME_HELP)
    p.add_argument("--jsonl", action="append", metavar="PATH", help="also recall from a ScienceClaw findings.jsonl")
    p.add_argument("--for-stage", metavar="STAGE", help="tags from the quest (its domains and stage:STAGE), when "
                   "recall_priors is on")
    p.add_argument("--refresh", action="store_true", help="re-check every card file against the cache")
    p.set_defaults(handler=cmd_recall)

    p = sub.add_parser("recent", parents=[common], help="the quest's artifacts from every workspace, newest first")
    p.add_argument("path", nargs="?", default=".", help="any path inside the quest (default: .)")
    p.add_argument("--kind", help="only this artifact kind (run, decision, ...)")
    p.add_argument("--limit", type=int, default=20, help="how many (1..200; default 20)")
    source_options(p)
    p.set_defaults(handler=cmd_recent)

    p = sub.add_parser("validate", parents=[common], help="validate the given run/decision artifact files and memory cards")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(handler=cmd_validate)

    p = sub.add_parser(
        "commit-check",
        parents=[common],
        help="the commit hook: validate staged artifacts; gate finalization commits (run by hooks)",
    )
    p.add_argument("--no-validate", action="store_true", help="only gate finalization commits (pre-commit runs ds-gate-validate)")
    p.add_argument("--require", action="store_true", help="enforce the gate even where experience_distill is off")
    p.set_defaults(handler=cmd_commit_check)

    p = sub.add_parser(
        "pre-push",
        parents=[common],
        help="the pre-push hook: gate a push that sends a finalization commit (run by hooks)",
        description="Reads the pushed refs from git's pre-push input or pre-commit's PRE_COMMIT_TO_REF; when the push "
        "finalizes the quest, runs the closure gate over every branch tip plus the pushed commits.",
    )
    p.add_argument("remote", nargs="?", help="the remote's name (git passes it; unused)")
    p.add_argument("url", nargs="?", help="the remote's URL (git passes it; unused)")
    p.add_argument("--require", action="store_true", help="enforce the gate even where experience_distill is off")
    p.add_argument("--refs", action="append", metavar="PATTERN", help="the refs to read besides the pushed commits")
    p.set_defaults(handler=cmd_pre_push)

    p = sub.add_parser("install", parents=[common], help="install the git pre-commit hook into a quest (or every quest of a home)")
    p.add_argument("path", nargs="?", default=".", help="any path inside the quest (default: .)")
    p.add_argument("--home", metavar="DIR", help="install into every quest under DIR/quests/")
    p.set_defaults(handler=cmd_install)

    p = sub.add_parser("demo", parents=[common], help="build an example quest and show the gate reject, then pass")
    p.add_argument("--dir", metavar="DIR", help="build the example here and keep it (default: a temporary folder)")
    p.set_defaults(handler=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    from .errors import QuestError
    from .io.git import GitError

    try:
        if args.format not in FORMATS:
            from . import reporters

            try:
                reporters.get(args.format)
            except ValueError as exc:
                print(f"ds-gate {args.command}: error: {exc}", file=sys.stderr)
                return EXIT_USAGE
        return int(args.handler(args))
    except (QuestError, GitError) as exc:
        print(f"ds-gate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if args.debug:
            import traceback

            traceback.print_exc()
            return EXIT_INTERNAL
        print(
            f"ds-gate: internal error: {type(exc).__name__}: {exc} (rerun with --debug to see the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
