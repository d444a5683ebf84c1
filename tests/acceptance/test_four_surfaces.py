"""Issue 24 acceptance: ``closure``, ``closure --from-git`` in a fresh clone, the commit hook on
a finalization commit and the pre-push hook agree on every quest of the test corpus (the
bad-input table of ``corpus.py`` and the golden quests): the same verdict class (pass,
or refuse: reject or stop) and, where they reject naming runs, the same pending run ids.

Each corpus case breaks a fresh one-run quest, and the broken state is committed (no hook
installed yet), so the four surfaces look at the same quest. The cases that plant a 1-2 GB
sparse file or a 100 MB line are left to ``test_input_size.py``: committing them would have
git compress gigabytes four times over, and a clone of them proves nothing more.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from corpus import CASES, Case
from golden_quests import build_broken
from helpers import git

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference reader

import reference_reader
from surfaces import Verdict, all_four

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

LARGE = ("sparse", "100 MB")
CORPUS = [case for case in CASES if not any(word in case.name for word in LARGE)]


def agree(verdicts: list[Verdict]) -> list[str]:
    """What differs between the four: each surface's class (pass, refuse, crash) and, among
    those that reject naming pending runs (exit 1), the ids. Exit 1 and 2 are both refusals;
    which one a surface gives depends on what it can see: a worktree folder outside the quest
    is unseen by the folders (a stop, exit 2) while a clone reads its branch and rejects its
    pending run (exit 1). A pass beside a refusal, or a crash, is a disagreement."""
    classes = {"pass" if v.exit == 0 else "refuse" if v.exit in (1, 2) else "crash" for v in verdicts}
    problems = []
    if len(classes) != 1 or "crash" in classes:
        problems.append("verdicts differ: " + "; ".join(f"{v.surface} -> exit {v.exit}" for v in verdicts))
    rejecting = [v for v in verdicts if v.exit == 1 and v.named]
    if len({frozenset(v.named) for v in rejecting}) > 1:
        problems.append("pending ids differ: " + "; ".join(f"{v.surface} -> {sorted(v.named)}" for v in rejecting))
    return problems


def surfaces_of(root: Path, where: Path) -> list[Verdict]:
    """Commit every workspace (as DeepScientist's checkpoints would), then the four verdicts."""
    listed = git(root, "worktree", "list", "--porcelain").stdout.splitlines()
    for line in listed:
        folder = Path(line.removeprefix("worktree "))
        if line.startswith("worktree ") and folder.is_dir():
            git(folder, "add", "-A")
            git(folder, "commit", "-q", "--no-verify", "--allow-empty", "-m", "the corpus case")
    candidates = reference_reader.read(root).runs
    return all_four(root, where, candidates)


@pytest.mark.parametrize("case", CORPUS, ids=[c.name for c in CORPUS])
def test_the_four_surfaces_agree_on_the_corpus(case: Case, one_run_quest, tmp_path: Path) -> None:
    case.breaks(one_run_quest)
    verdicts = surfaces_of(one_run_quest.root, tmp_path / "surfaces")
    problems = agree(verdicts)
    assert not problems, (
        "\n".join(problems) + "\n\n" + "\n---\n".join(f"{v.surface}:\n{v.output[-1200:]}" for v in verdicts)
    )


def test_the_four_surfaces_agree_on_the_golden_quests(home: Path, tmp_path: Path) -> None:
    root = build_broken(home)
    verdicts = surfaces_of(root, tmp_path / "broken")
    assert not agree(verdicts), agree(verdicts)
    assert verdicts[0].exit == 1 and verdicts[0].named  # the broken quest holds pending runs: a rejection to agree on
