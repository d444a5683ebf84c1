"""``kernel.answers`` on its own (issue 38.8): what a kept answer is asked by, when one may be kept,
and that any change to what it read withdraws it. Real files and a real cache folder, in process
(``started`` in the future stands for files written long before the run); the processes, the
readers that tell the ``Watch`` and every kind of change: tests/acceptance/test_recall_kept.py."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ds_gate.kernel.answers import FOLDER, KEEP, Watch, keep, kept, request
from ds_gate.kernel.cache_folder import GRANULARITY

ARGV = ["recall", "--tags", "topic:a", "--format", "json"]
LATER = 10 * GRANULARITY  # a run started this long after the files were written: they are settled


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DS_GATE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def card(tmp_path: Path, text: str = "claim: warm up first\n") -> tuple[Path, Watch]:
    path = tmp_path / "home" / "memory" / "knowledge" / "k-1.md"  # the cache folder is never inside a home
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    watch = Watch()
    watch.look(path.parent)
    watch.stats.append((str(path), path.stat()))
    return path, watch


def kept_now(watch: Watch, argv: list[str] = ARGV, started: int | None = None) -> bool:
    return keep(argv, watch, 0, [(1, b"the answer\n"), (2, b"a warning\n")], started or time.time_ns() + LATER)


def test_a_kept_answer_is_given_back_byte_for_byte_in_order(tmp_path: Path) -> None:
    _, watch = card(tmp_path)
    assert kept_now(watch)
    assert kept(ARGV) == (0, [(1, b"the answer\n"), (2, b"a warning\n")])
    assert kept([*ARGV, "--limit", "5"]) is None  # another request


def test_an_answer_read_from_files_changed_around_the_run_is_not_kept(tmp_path: Path) -> None:
    _, watch = card(tmp_path)
    assert not kept_now(watch, started=time.time_ns())  # written just now: within the granularity
    assert kept(ARGV) is None


def test_a_card_edited_in_place_with_its_size_and_mtime_put_back_withdraws_it(tmp_path: Path) -> None:
    path, watch = card(tmp_path)
    assert kept_now(watch)
    before = path.stat()
    path.write_text("claim: cool down now\n")  # the same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert kept(ARGV) is None  # ctime (and the stat key with it) differs


def test_a_path_whose_absence_mattered_withdraws_it_when_it_appears(tmp_path: Path) -> None:
    _, watch = card(tmp_path)
    config = tmp_path / "home" / "config" / "config.yaml"
    watch.look(config)
    assert kept_now(watch)
    assert kept(ARGV) is not None
    config.parent.mkdir()
    config.write_text("memory:\n  read_visibility_mode: shared_across_quests\n")
    assert kept(ARGV) is None


def test_a_kind_changed_while_the_answer_was_made_is_not_kept(tmp_path: Path) -> None:
    _, watch = card(tmp_path)
    mark = tmp_path / "home" / "quests" / "001" / "quest.yaml"
    mark.parent.mkdir(parents=True)
    watch.kind(mark)  # absent when looked at
    assert kept_now(watch)  # (so far, it may be kept)
    mark.write_text("quest_id: '001'\n")  # there when the answer is kept
    assert not kept_now(watch)


def test_a_kind_is_all_that_counts_of_a_path_whose_kind_alone_matters(tmp_path: Path) -> None:
    _, watch = card(tmp_path)
    quest_yaml = tmp_path / "home" / "quests" / "001" / "quest.yaml"
    quest_yaml.parent.mkdir(parents=True)
    quest_yaml.write_text("status: running\n")
    watch.kind(quest_yaml)
    assert kept_now(watch)
    quest_yaml.write_text("status: paused, with a longer text\n")  # DeepScientist rewrites it often
    assert kept(ARGV) is not None
    quest_yaml.unlink()
    quest_yaml.mkdir()
    assert kept(ARGV) is None


def test_a_link_re_pointed_withdraws_it(tmp_path: Path) -> None:
    _, watch = card(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    link = tmp_path / "home-link"
    link.symlink_to(tmp_path / "a")
    watch.real(link, tmp_path / "a")
    assert kept_now(watch)
    assert kept(ARGV) is not None
    link.unlink()
    link.symlink_to(tmp_path / "b")
    assert kept(ARGV) is None


@pytest.mark.parametrize(
    ("name", "matters"),
    [
        ("DS_GATE_MAX_FILE_MB", True),
        ("DEEPSCIENTIST_HOME", True),
        ("DS_HOME", True),
        ("HOME", True),
        ("XDG_CONFIG_HOME", True),
        ("COLUMNS", True),
        ("NO_COLOR", True),
        ("PYTHONIOENCODING", True),
        ("SHLVL", False),
        ("OLDPWD", False),
    ],
)
def test_the_request_holds_the_variables_that_matter_and_no_others(monkeypatch, name, matters) -> None:
    before = request(ARGV)
    monkeypatch.setenv(name, "/elsewhere/7")
    assert (request(ARGV) != before) is matters


def test_a_request_holds_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = request(ARGV)
    monkeypatch.chdir(tmp_path)
    assert request(ARGV) != before


def test_at_most_keep_answers_are_kept(tmp_path: Path, cache: Path) -> None:
    _, watch = card(tmp_path)
    for i in range(KEEP + 3):
        assert kept_now(watch, [*ARGV, "--limit", str(i + 1)])
    assert len(list((cache / FOLDER).iterdir())) == KEEP  # the oldest went (by mtime: ties go by name)


def test_a_cache_folder_inside_a_home_keeps_and_gives_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "DeepScientist"
    (home / "quests").mkdir(parents=True)
    (home / "memory").mkdir()
    monkeypatch.setenv("DS_GATE_CACHE_DIR", str(home / "cache"))  # where a runner's HOME may put it
    _, watch = card(tmp_path)
    assert not kept_now(watch)
    assert not (home / "cache").exists()


def test_a_file_swapped_between_its_read_and_the_keep_is_not_kept(tmp_path: Path) -> None:
    """Adversary s6 break 01: the folder holding config.yaml renamed for one holding an old file that
    says otherwise, after the read and before the keep. The old file is settled, so its stat alone
    would have vouched for an answer made from the other: the token taken when looked at must hold."""
    _, watch = card(tmp_path)
    config = tmp_path / "home" / "config" / "config.yaml"
    config.parent.mkdir()
    config.write_text("memory:\n  read_visibility_mode: shared_across_quests\n")
    other = tmp_path / "home" / "config.narrow"
    other.mkdir()
    (other / "config.yaml").write_text("memory:\n  read_visibility_mode: independent\n")
    watch.look(config)  # before the read
    (tmp_path / "home" / "config").rename(tmp_path / "home" / "config.wide")
    other.rename(tmp_path / "home" / "config")
    assert not kept_now(watch)
    assert kept(ARGV) is None


def test_a_fifo_where_an_answer_was_kept_never_blocks(tmp_path: Path, cache: Path) -> None:
    """Adversary s6 break 02: the answer file opened without O_NONBLOCK blocked on a FIFO put there."""
    _, watch = card(tmp_path)
    assert kept_now(watch)
    [answer] = (cache / FOLDER).iterdir()
    answer.unlink()
    os.mkfifo(answer)
    assert kept(ARGV) is None  # at once: a FIFO is no answer
