"""The bad-input corpus: every way a quest, a home or git can be broken, as a table.

Each case breaks a fresh, real quest (a git repository built by ``ExampleQuest`` with one
completed run in the root) and names the command to run, the rule id the output must
contain and the exit code. Large inputs (the 50 MB index) are generated, not checked in.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ds_gate.demo.example_quest import ExampleQuest


@dataclass(frozen=True)
class Case:
    name: str
    breaks: Callable[[ExampleQuest], None]
    rule: str | None  # a rule id the findings must contain (None: only the exit code matters)
    exit: int
    command: tuple[str, ...] = ("check",)


def index(quest: ExampleQuest) -> Path:
    return quest.root / "artifacts" / "_index.jsonl"


def run_record(quest: ExampleQuest) -> Path:
    return next((quest.root / "artifacts" / "runs").glob("*.json"))


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as out:
        out.write(data)


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    lines = ["a0: &a0 [" + ", ".join(["x"] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines)


def card(quest: ExampleQuest, text: str, name: str = "bad.md") -> None:
    path = quest.root / "memory" / "knowledge" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def quest_yaml(quest: ExampleQuest, text: str) -> None:
    (quest.root / "quest.yaml").write_text(text)


def link_out(quest: ExampleQuest, name: str, text: str) -> None:
    """``name`` in the quest replaced by a symbolic link to a file outside it."""
    outside = quest.root.parent / f"outside-{name.replace('/', '-')}"
    outside.write_text(text)
    target = quest.root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    os.symlink(outside, target)


def symlink_artifacts_out(quest: ExampleQuest) -> None:
    outside = quest.root.parent / "elsewhere-artifacts"
    os.rename(quest.root / "artifacts", outside)
    os.symlink(outside, quest.root / "artifacts")


def symlink_record_out(quest: ExampleQuest) -> None:
    target = quest.root.parent / "outside-run.json"
    target.write_text(
        json.dumps({"kind": "run", "artifact_id": "run-out", "run_kind": "main_experiment", "status": "completed"})
    )
    os.symlink(target, quest.root / "artifacts" / "runs" / "run-out.json")


def worktree_outside(quest: ExampleQuest) -> None:
    quest.git(quest.root, "worktree", "add", "-q", "-b", "idea/out", str(quest.root.parent / "outside-wt"))


def deleted_worktree(quest: ExampleQuest) -> None:
    import shutil

    path = quest.worktree("gone", "idea/gone")
    shutil.rmtree(path)


def renamed_record(quest: ExampleQuest, name: bytes) -> None:
    """A copy of the run record under a name DeepScientist never writes (issue 15.11)."""
    record = run_record(quest)
    (record.parent / os.fsdecode(name)).write_bytes(record.read_bytes())


def hostile_values(quest: ExampleQuest) -> None:
    """ANSI and CR in the values a report quotes: run_id, summary, status, kind (issue 15)."""
    data = json.loads(run_record(quest).read_text())
    data.update(run_id="main-\x1b[31m001\r", summary="\x1b[2J\rwiped")
    run_record(quest).write_text(json.dumps(data))
    other = dict(data, artifact_id="run-esc", status="completed\x1b[31m\r", kind="run\x1b[31m")
    (run_record(quest).parent / "run-esc.json").write_text(json.dumps(other))


def research_state(quest: ExampleQuest, state: dict) -> None:
    (quest.root / ".ds").mkdir(exist_ok=True)
    (quest.root / ".ds" / "research_state.json").write_text(json.dumps(state))


def corrupt_branch_tree(quest: ExampleQuest) -> None:
    """A branch no folder has checked out whose ``artifacts/runs`` tree object holds bytes
    that are not a tree (git hands them out as they are). ``main`` shares the tree, but is
    read from its folder."""
    import zlib

    quest.git(quest.root, "branch", "idea/damaged")
    tree = quest.git(quest.root, "rev-parse", "idea/damaged:artifacts/runs")
    loose = quest.root / ".git" / "objects" / tree[:2] / tree[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"tree 20\x00garbage-not-a-tree!"))


GB = 1 << 30


def sparse(path: Path, size: int = GB, prefix: bytes = b"{") -> None:
    """``path`` replaced by ``size`` bytes that cost no disk: ``prefix``, then a hole of zeros.
    Read whole, a 1 GB sparse record once cost 2.1 GB of memory (issue 15, class 12)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.write(prefix)
        out.truncate(size)


def lineage_of(quest: ExampleQuest, entries: list, promoted: str | None = None) -> None:
    import yaml

    meta = {"id": "knowledge-cycle", "title": "t", "quest_id": "001", "claim": "c", "lineage": entries}
    if promoted:
        meta["promoted_from"] = {"quest_root": promoted, "path": "memory/knowledge/bad.md"}
    card(quest, f"---\n{yaml.safe_dump(meta)}---\nbody\n")


CASES = [
    # _index.jsonl
    Case("index malformed line", lambda q: append(index(q), b"{not json\n"), "index.invalid-line", 0),
    Case(
        "index partial last line", lambda q: append(index(q), b'{"artifact_id": "run-1", "ki'), "index.partial-line", 0
    ),
    Case("index utf-8 bom", lambda q: index(q).write_bytes(b"\xef\xbb\xbf" + index(q).read_bytes()), None, 0),
    Case("index invalid utf-8", lambda q: append(index(q), b'{"artifact_id": "\xff\xfe"}\n'), "index.invalid-line", 0),
    Case(
        "index crlf line ends", lambda q: index(q).write_bytes(index(q).read_bytes().replace(b"\n", b"\r\n")), None, 0
    ),
    Case("index empty file", lambda q: index(q).write_bytes(b""), None, 0),
    Case("index line is an array", lambda q: append(index(q), b"[1, 2]\n"), "index.invalid-line", 0),
    Case("index line is a number", lambda q: append(index(q), b"42\n"), "index.invalid-line", 0),
    Case(
        "index duplicate keys",
        lambda q: append(index(q), b'{"kind": "run", "kind": "decision", "artifact_id": "x"}\n'),
        None,
        0,
    ),
    # issue 35: NaN is read as DeepScientist reads it, so the line is read and names a run with no file
    Case(
        "index NaN",
        lambda q: append(index(q), b'{"artifact_id": "run-nan", "kind": "run", "score": NaN}\n'),
        "index.missing-record",
        0,
    ),
    Case(
        "index nested 10000 deep",
        lambda q: append(index(q), b"[" * 10000 + b"]" * 10000 + b"\n"),
        "index.invalid-line",
        0,
    ),
    Case(
        "index path outside the quest",
        lambda q: append(index(q), b'{"artifact_id": "run-etc", "kind": "run", "path": "/etc/passwd"}\n'),
        "index.record-outside-quest",
        0,
    ),  # a file is there (never read): closure stops on it
    # record files
    Case(
        "record truncated",
        lambda q: run_record(q).write_bytes(run_record(q).read_bytes()[:40]),
        "artifact.invalid-json",
        1,
    ),
    Case("record wrong top-level type", lambda q: run_record(q).write_text("[1, 2, 3]"), "artifact.not-object", 1),
    Case(
        "record kind missing",
        lambda q: run_record(q).write_text(
            json.dumps({"artifact_id": run_record(q).stem, "run_kind": "main_experiment"})
        ),
        "artifact.refused-by-main",
        1,
    ),  # main: "Unknown artifact kind: None"
    Case(
        "record kind not a string",
        lambda q: run_record(q).write_text(json.dumps({"kind": 7, "run_kind": "x"})),
        "artifact.refused-by-main",
        1,
    ),
    Case(
        "record id differs from file name",
        lambda q: run_record(q).write_text(
            json.dumps(
                {"kind": "run", "artifact_id": "run-other", "run_kind": "main_experiment", "status": "completed"}
            )
        ),
        "artifact.id-mismatch",
        0,
    ),
    Case(
        "record huge string",
        lambda q: run_record(q).write_text(
            json.dumps(
                {
                    "kind": "run",
                    "artifact_id": run_record(q).stem,
                    "run_kind": "main_experiment",
                    "summary": "x" * 20_000_000,
                }
            )
        ),
        None,
        0,
    ),
    Case(
        "record NaN",
        lambda q: run_record(q).write_text(  # a diverged run: still a run, pending in closure (issue 35)
            f'{{"kind": "run", "artifact_id": "{run_record(q).stem}", "run_kind": "main_experiment", "status": "completed", '
            '"metrics_summary": {"acc": NaN, "loss": Infinity}}'
        ),
        "coverage.pending-run",
        1,
        ("closure",),
    ),
    Case(
        "record nested 10000 deep",
        lambda q: run_record(q).write_text('{"a": ' + "[" * 10000 + "]" * 10000 + "}"),
        "artifact.too-deep",  # discipline: main's json may read what ds-gate cannot (adversary s7 A02)
        1,
    ),
    Case(
        "record ids with ..",
        lambda q: append(index(q), b'{"artifact_id": "../../../etc/passwd", "kind": "run"}\n'),
        "index.missing-record",
        0,
    ),
    # YAML
    Case(
        "quest.yaml alias bomb",
        lambda q: quest_yaml(q, alias_bomb() + "\nstartup_contract:\n  experience_distill: *a8\n"),
        "quest.toggle-unrecognised",
        0,
    ),
    Case(
        "quest.yaml python object",
        lambda q: quest_yaml(q, "status: !!python/object/apply:os.system ['touch pwned']\n"),
        "quest.yaml-invalid",
        0,
    ),
    Case(
        "quest.yaml tabs",
        lambda q: quest_yaml(q, "startup_contract:\n\texperience_distill: on\n"),
        "quest.yaml-invalid",
        0,
    ),
    Case("quest.yaml mapping where a list is expected", lambda q: quest_yaml(q, "- a\n- b\n"), "quest.yaml-invalid", 0),
    Case(
        "card alias bomb",
        lambda q: card(q, "---\nid: k\nclaim: c\n" + alias_bomb() + "\n---\nbody\n"),
        "card.frontmatter-invalid",
        1,
    ),
    Case(
        "card python object",
        lambda q: card(q, "---\nid: !!python/object:os.system k\n---\nbody\n"),
        "card.frontmatter-invalid",
        1,
    ),
    Case("card frontmatter never closes", lambda q: card(q, "---\nid: k\ntitle: t\n"), "card.frontmatter-invalid", 1),
    Case("card tabs", lambda q: card(q, "---\nid: k\n\ttitle: t\n---\n"), "card.frontmatter-invalid", 1),
    Case(
        "card mapping where a list is expected",
        lambda q: card(q, "---\nid: k\nclaim: c\nlineage: {quest: '001'}\n---\n"),
        "card.schema",
        1,
    ),
    # paths
    Case("artifacts is a symlink out", symlink_artifacts_out, "path.symlink-outside-quest", 0),
    Case("record is a symlink out", symlink_record_out, "path.symlink-outside-quest", 0),
    Case("worktree outside the quest", worktree_outside, "workspace.outside-quest", 0),
    # git
    Case("worktree folder deleted", deleted_worktree, "workspace.missing", 0),
    Case("detached HEAD", lambda q: q.git(q.root, "checkout", "-q", "--detach"), None, 0),
    # lineage
    Case(
        "lineage cycle through promoted copies",
        lambda q: lineage_of(q, [{"quest": "001", "run": "main-001"}], promoted=str(q.root)),
        None,
        0,
    ),
    Case(
        "lineage 10000 entries",
        lambda q: lineage_of(q, [{"quest": "001", "run": f"run-{i}"} for i in range(10000)]),
        "lineage.unknown-run",
        1,
    ),
    Case("lineage entry not a mapping", lambda q: lineage_of(q, ["001/run-1"]), "card.experience-schema", 1),
    # nesting the C YAML parser would recurse through until the process dies (issue 15)
    Case(
        "card nested 30000 deep",
        lambda q: card(q, "---\nid: k\ntags: " + "[" * 30000 + "]" * 30000 + "\n---\n"),
        "card.frontmatter-invalid",
        1,
    ),
    Case(
        "card compact sequences 30000 deep",
        lambda q: card(q, "---\nid: k\ntags:\n  " + "- " * 30000 + "x\n---\n"),
        "card.frontmatter-invalid",
        1,
    ),
    Case(
        "quest.yaml nested 30000 deep",
        lambda q: quest_yaml(q, "status: " + "{a: " * 30000 + "1" + "}" * 30000 + "\n"),
        "quest.yaml-invalid",
        0,
    ),
    # files that are read whole, linked out of the quest: never followed (issue 15)
    Case(
        "quest.yaml linked out",
        lambda q: link_out(q, "quest.yaml", "startup_contract: {experience_distill: off}\n"),
        "quest.yaml-invalid",
        0,
    ),
    Case(
        "research_state.json linked out",
        lambda q: link_out(q, ".ds/research_state.json", '{"research_head_worktree_root": "/"}'),
        "path.symlink-outside-quest",
        0,
    ),
    Case(".ds-gate.yaml linked out", lambda q: link_out(q, ".ds-gate.yaml", "waivers: []\n"), "waiver.invalid", 1),
    Case(
        ".ds-gate.yaml nested 30000 deep",
        lambda q: (q.root / ".ds-gate.yaml").write_text("waivers: " + "[" * 30000),
        "waiver.invalid",
        1,
    ),
    # issue 15.10: values that once ended in exit 3
    Case(
        "lineage quest is a superscript digit",
        lambda q: lineage_of(q, [{"quest": "\u00b2", "run": "run-1"}]),
        "lineage.unknown-quest",
        1,
        ("lineage",),
    ),
    Case(
        "lineage quest 300 characters",
        lambda q: lineage_of(q, [{"quest": "q" * 300, "run": "run-1"}]),
        "lineage.unknown-quest",
        1,
        ("lineage",),
    ),
    Case(
        "research_head_worktree_root 300 characters",
        lambda q: research_state(q, {"research_head_worktree_root": "/" + "w" * 300}),
        None,
        0,
    ),
    Case(
        "index path 300 characters",
        lambda q: append(
            index(q),
            json.dumps({"artifact_id": "run-long", "kind": "run", "path": "a/" + "p" * 300 + ".json"}).encode() + b"\n",
        ),
        None,
        0,
    ),
    Case(
        "index updated_at is a number (recent)",
        lambda q: append(index(q), b'{"artifact_id": "run-n", "kind": "run", "updated_at": 5}\n'),
        None,
        0,
        ("recent",),
    ),
    Case(
        "index kind is a list (recent)",
        lambda q: append(index(q), b'{"artifact_id": "run-k", "kind": ["run"]}\n'),
        None,
        0,
        ("recent",),
    ),
    Case(
        "record 5000-digit integer",
        lambda q: run_record(q).write_text(
            run_record(q).read_text().rstrip().rstrip("}") + ', "n": ' + "9" * 5000 + "}"
        ),
        "artifact.invalid-json",
        1,
    ),
    Case(
        "card 5000-digit integer",
        lambda q: card(q, "---\nid: k\ntitle: t\nclaim: c\nn: " + "9" * 5000 + "\n---\nb\n"),
        None,
        1,
    ),
    Case(
        "card tags a string of 30000 brackets",
        lambda q: card(q, '---\nid: k\ntitle: t\ntags: "' + "[" * 30000 + '"\n---\nb\n'),
        None,
        0,
    ),
    Case(
        "card tags a string of 30000 brackets (recall)",
        lambda q: card(q, '---\nid: k\ntitle: t\ntags: "' + "[" * 30000 + '"\n---\nb\n'),
        None,
        0,
        ("recall", "--quest"),
    ),
    # its bytes no longer hash to its id, so it is unreadable (s7 B04); a malformed tree that does hash is
    # git.object-corrupt (tests/unit/test_repository_rules.py)
    Case("a branch's runs tree object is corrupt", corrupt_branch_tree, "git.object-missing", 0),
    # files larger than the limit (64 MB): refused from their size, never read (issue 15, class 12)
    Case(
        "record sparse 1 GB",
        lambda q: sparse(run_record(q), prefix=b'{"kind": "run", "summary": "'),
        "input.too-large",
        1,
    ),
    Case(
        "card sparse 1 GB",
        lambda q: sparse(q.root / "memory" / "knowledge" / "big.md", prefix=b"---\nid: k\n"),
        "input.too-large",
        1,
    ),
    Case(
        "quest.yaml sparse 1 GB",
        lambda q: sparse(q.root / "quest.yaml", prefix=b"quest_id: '001'\n"),
        "quest.yaml-invalid",
        0,
    ),
    Case(
        "research_state.json sparse 1 GB",
        lambda q: sparse(q.root / ".ds" / "research_state.json"),
        "quest.research-state-invalid",
        0,
    ),
    Case(
        ".ds-gate.yaml sparse 1 GB",
        lambda q: sparse(q.root / ".ds-gate.yaml", prefix=b"waivers: []\n"),
        "waiver.invalid",
        1,
    ),
    Case(
        "index sparse 2 GB, past its 1 GB cap",
        lambda q: sparse(index(q), 2 * GB, index(q).read_bytes()),
        "input.too-large",
        0,
    ),
    Case("index line of 100 MB", lambda q: sparse(index(q), 100 << 20, index(q).read_bytes()), "index.invalid-line", 0),
    # file names and values an agent chose (issue 15.11, 15): read, judged, shown escaped
    Case("record name with a newline", lambda q: renamed_record(q, b"run-a\nb.json"), "artifact.id-mismatch", 0),
    Case("record name not utf-8", lambda q: renamed_record(q, b"run-\xff\xfe.json"), "artifact.id-mismatch", 0),
    Case("record name with ESC and CR", lambda q: renamed_record(q, b"run-\x1b[31m\r.json"), "artifact.id-mismatch", 0),
    Case(
        "card name with a newline",
        lambda q: card(q, "---\nid: k\ntitle: [\n---\n", "a\nb.md"),
        "card.frontmatter-invalid",
        1,
    ),
    Case(
        "card name not utf-8",
        lambda q: card(q, "---\nid: k\ntitle: [\n---\n", os.fsdecode(b"\xff.md")),
        "card.frontmatter-invalid",
        1,
    ),
    Case("record values with ANSI and CR", hostile_values, "artifact.unknown-kind", 1, ("closure",)),
    Case(
        "index line with ANSI, CR and a lone surrogate",
        lambda q: append(
            index(q),
            json.dumps(
                {"artifact_id": "run-\x1b[2J\r", "kind": "run", "summary": "\x1b[31mred", "path": "/q/\udcff\n.json"}
            ).encode()
            + b"\n",
        ),
        None,
        0,
        ("recent",),
    ),
    Case(
        "waiver expires on an impossible date",
        lambda q: (q.root / ".ds-gate.yaml").write_text(
            "waivers:\n  - rule: coverage.pending\n    reason: r\n    expires: 2026-02-30\n"
        ),
        "waiver.invalid",
        1,
    ),
]
