"""The peer the speed goals are measured against: DeepScientist's real PR #60 gate.

    python bench/peer.py QUEST [--deepscientist DIR]   # both gates on QUEST: do they agree?

Issue 26 measures ds-gate against ``evaluate_distill_gate_for_quest`` as PR #60 wrote it
(DeepScientist ``e619730``, ``src/deepscientist/artifact/experience_distill.py``), not
against a re-implementation. That code is never copied into this project: it is read at
run time with ``git show COMMIT:PATH`` from, in order,

1. ``--deepscientist DIR`` (a DeepScientist checkout or a bare git folder),
2. ``$DS_GATE_BENCH_DEEPSCIENTIST``,
3. the local mirror ``/work/.mirror/ResearAI+DeepScientist/repo`` if it exists,

and written to a temporary folder that is removed when the benchmark exits. A source named
by 1 or 2 that cannot give the file is an error (the user asked for it); when none is
named and the mirror is absent, the benchmarks fall back to ``bench/pr60.py`` and every
figure is labelled "re-implementation (bench/pr60.py)" instead of "PR #60".

Why a stand-in ``shared`` module: ``read_distill_mode`` reads ``quest.yaml`` inside a
``try`` that first runs ``from ..shared import require_yaml``. Loaded outside its package
that import fails, the ``except Exception`` answers ``{"mode": "off"}``, and the gate
returns ``None`` for every quest without reading a record. So the file is loaded by path
as ``_ds_pr60.artifact.experience_distill`` with two empty stand-in packages and a
``_ds_pr60/shared.py`` whose ``require_yaml`` fails only when PyYAML is missing, as
DeepScientist's does. The stand-in imports PyYAML and nothing else (DeepScientist's
``shared`` imports ``hashlib``, ``re``, ``subprocess``, ``uuid``, ... as well), so PR #60's
process is, if anything, a little faster here than in DeepScientist: the goals are not
made easier by it.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PY = sys.executable
COMMIT = "e61973069c5ebb6bbc8bf616eef75fa151293b3b"
GATE = "src/deepscientist/artifact/experience_distill.py"
MIRROR = Path("/work/.mirror/ResearAI+DeepScientist/repo")
ENV = "DS_GATE_BENCH_DEEPSCIENTIST"
PACKAGE = "_ds_pr60"  # not `deepscientist`: an installed DeepScientist is never shadowed
FALLBACK_LABEL = "re-implementation (bench/pr60.py)"
REAL_LABEL = "PR #60"

STAND_IN_SHARED = '''"""Stand-in for deepscientist.shared: only what experience_distill imports from it."""
try:
    import yaml
except ModuleNotFoundError as exc:
    yaml = None
    _MISSING = exc


def require_yaml() -> None:
    if yaml is None:
        raise RuntimeError("PyYAML is required") from _MISSING
'''

# what the peer's own process runs: the stand-in packages registered, the gate loaded by path,
# its payload printed. Nothing else is imported (importlib.util is the one addition).
RUNNER = f'''import importlib.util, json, sys
from pathlib import Path
folder = Path(sys.argv[1])
for name, where in (("{PACKAGE}", folder / "{PACKAGE}"), ("{PACKAGE}.artifact", folder / "{PACKAGE}" / "artifact")):
    spec = importlib.util.spec_from_file_location(name, where / "__init__.py", submodule_search_locations=[str(where)])
    module = importlib.util.module_from_spec(spec); sys.modules[name] = module; spec.loader.exec_module(module)
spec = importlib.util.spec_from_file_location("{PACKAGE}.artifact.experience_distill",
                                              folder / "{PACKAGE}" / "artifact" / "experience_distill.py")
gate = importlib.util.module_from_spec(spec); sys.modules[spec.name] = gate; spec.loader.exec_module(gate)
print(json.dumps(gate.evaluate_distill_gate_for_quest(Path(sys.argv[2]))))
'''


@dataclass(frozen=True, slots=True)
class Peer:
    """The gate to compare with: where it came from, how to run it as a process and in process."""

    label: str  # "PR #60" or the fallback's label: every figure carries it
    source: str  # where the code came from, for the report
    folder: Path | None  # the temporary folder holding the real gate (None: the fallback)
    flags: tuple[str, ...] = ()  # the options that choose this peer again (for a child benchmark process)

    @property
    def real(self) -> bool:
        return self.folder is not None

    def argv(self, quest: Path) -> list[str]:
        """A process that runs the gate on ``quest`` and prints its payload (JSON)."""
        if self.folder is None:
            return [PY, str(HERE / "pr60.py"), str(quest)]
        return [PY, "-c", RUNNER, str(self.folder), str(quest)]

    def module(self) -> Any:
        """The gate's module, loaded in this process (once)."""
        if self.folder is None:
            sys.path.insert(0, str(HERE))
            import pr60

            return pr60
        return _load(self.folder)

    def evaluate(self) -> Callable[[Path], dict[str, Any] | None]:
        """The in-process callable: ``evaluate_distill_gate_for_quest``."""
        return self.module().evaluate_distill_gate_for_quest  # type: ignore[no-any-return]


def _load(folder: Path) -> Any:
    import importlib.util

    name = f"{PACKAGE}.artifact.experience_distill"
    if name in sys.modules:
        return sys.modules[name]
    for package, where in ((PACKAGE, folder / PACKAGE), (f"{PACKAGE}.artifact", folder / PACKAGE / "artifact")):
        spec = importlib.util.spec_from_file_location(
            package, where / "__init__.py", submodule_search_locations=[str(where)]
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        spec.loader.exec_module(module)
    spec = importlib.util.spec_from_file_location(name, folder / PACKAGE / "artifact" / "experience_distill.py")
    assert spec is not None and spec.loader is not None
    gate = importlib.util.module_from_spec(spec)
    sys.modules[name] = gate
    spec.loader.exec_module(gate)
    return gate


def _show(gitdir: Path) -> bytes | None:
    done = subprocess.run(["git", "-C", str(gitdir), "show", f"{COMMIT}:{GATE}"], capture_output=True)
    return done.stdout if done.returncode == 0 and done.stdout else None


def _materialize(code: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="ds-gate-peer-"))
    atexit.register(shutil.rmtree, folder, True)
    artifact = folder / PACKAGE / "artifact"
    artifact.mkdir(parents=True)
    (folder / PACKAGE / "__init__.py").write_text("")
    (artifact / "__init__.py").write_text("")
    (folder / PACKAGE / "shared.py").write_text(STAND_IN_SHARED)
    (artifact / "experience_distill.py").write_bytes(code)
    return folder


def find(deepscientist: str | Path | None = None, *, reimplementation: bool = False) -> Peer:
    """The real PR #60 gate from the first source that names one, else the labelled fallback."""
    if reimplementation:
        return Peer(FALLBACK_LABEL, "bench/pr60.py (asked for)", None, ("--reimplementation",))
    named = deepscientist or os.environ.get(ENV)
    if named:
        code = _show(Path(named))
        if code is None:
            raise SystemExit(
                f"{named}: no {GATE} at {COMMIT[:7]} (a DeepScientist checkout or git folder holding PR #60?)"
            )
        return Peer(REAL_LABEL, f"{named} @ {COMMIT[:7]}", _materialize(code), ("--deepscientist", str(named)))
    if MIRROR.exists() and (code := _show(MIRROR)) is not None:
        return Peer(REAL_LABEL, f"{MIRROR} @ {COMMIT[:7]}", _materialize(code))
    return Peer(FALLBACK_LABEL, "bench/pr60.py (no DeepScientist source found)", None, ("--reimplementation",))


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--deepscientist",
        metavar="DIR",
        help=f"a DeepScientist checkout or git folder holding PR #60 (else ${ENV}, else {MIRROR})",
    )
    parser.add_argument(
        "--reimplementation", action="store_true", help="measure against bench/pr60.py instead (labelled so)"
    )


def pending_real(gate: Any, quest: Path) -> list[str]:
    """Every pending run id, in PR #60's order, from PR #60's own functions (its payload names five)."""
    if not gate.is_distill_on(quest):
        return []
    dirs = gate._quest_workspace_artifact_dirs(quest)
    reviewed: set[str] = set()
    for artifacts in dirs:
        reviewed |= gate.collect_reviewed_run_ids(gate.read_distill_reviews(artifacts))[0]
    pending: dict[str, None] = {}
    for artifacts in dirs:
        for record in gate.iter_distill_candidate_records(artifacts):
            rid = str(record.get("artifact_id") or "")
            if rid and rid not in reviewed:
                pending.setdefault(rid)
    return list(pending)


def pending_pr60(quest: Path) -> list[str]:
    """Every pending run id from ``bench/pr60.py``'s passes."""
    sys.path.insert(0, str(HERE))
    import pr60

    if not pr60._distill_on(quest):
        return []
    dirs = pr60._artifact_dirs(quest)
    reviewed = {
        str(r)
        for a in dirs
        for rec in pr60._indexed_records(a, "decision")
        if rec.get("action") == "distill_review"
        for r in rec.get("reviewed_run_ids") or []
    }
    pending: dict[str, None] = {}
    for artifacts in dirs:
        for rec in pr60._indexed_records(artifacts, "run"):
            if (
                str(rec.get("kind") or "") == "run"
                and str(rec.get("run_kind") or "") in pr60.CANDIDATE_KINDS
                and str(rec.get("status") or "").strip().lower() in pr60.DONE
            ):
                rid = str(rec.get("artifact_id") or "")
                if rid and rid not in reviewed:
                    pending.setdefault(rid)
    return list(pending)


def agreement(peer: Peer, quest: Path) -> str:
    """One line: the real gate and ``bench/pr60.py`` on ``quest``, pending counts and whether they agree."""
    if not peer.real:
        return f"peer: {peer.label}; no real gate to compare it with"
    gate = peer.module()
    real, ours = pending_real(gate, quest), pending_pr60(quest)
    sys.path.insert(0, str(HERE))
    import pr60

    payload_real, payload_ours = (
        gate.evaluate_distill_gate_for_quest(quest),
        pr60.evaluate_distill_gate_for_quest(quest),
    )
    same = real == ours and payload_real == payload_ours
    return (
        f"PR #60: {len(real):,} pending, bench/pr60.py: {len(ours):,} pending; the ids (and order) "
        f"{'agree' if real == ours else 'DIFFER'}; payloads {'equal' if payload_real == payload_ours else 'DIFFER'}"
        f"{'' if same else ' (MISMATCH)'}; PR #60's count {payload_real and payload_real['pending_distill_count']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("quest", type=Path)
    add_argument(parser)
    parser.add_argument("--process", action="store_true", help="run the peer's process once and print its output")
    args = parser.parse_args()
    peer = find(args.deepscientist, reimplementation=args.reimplementation)
    print(f"peer: {peer.label} ({peer.source})")
    if args.process:
        done = subprocess.run(peer.argv(args.quest), capture_output=True, text=True, check=True)
        print(done.stdout, end="")
        return 0
    print(agreement(peer, args.quest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
