"""Issue 17: the record cache also keeps a clean ``quest.yaml`` parse, so a repeated run
never imports PyYAML; each way ``quest.yaml`` can change gives, byte for byte, the report
``--no-cache`` gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_record_cache import gate, same_as_uncached, settle

from ds_gate.demo.example_quest import ExampleQuest


@pytest.fixture
def quest(make_quest: object) -> ExampleQuest:
    """Experience distill on, one run pending: the toggle decides the verdict."""
    q: ExampleQuest = make_quest()  # type: ignore[operator]
    q.run(q.root, "main-001")
    q.checkpoint(q.root, "runs")
    assert "mode: 'on'" in (q.root / "quest.yaml").read_text()
    return q


def imported(root: Path, cache: Path) -> str:
    env = {**os.environ, "DS_GATE_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ds_gate", "closure", str(root), "--format", "json"],
        capture_output=True,
        env=env,
        check=False,
        text=True,
    )
    return done.stderr


@pytest.mark.slow
def test_a_repeated_run_takes_quest_yaml_from_the_cache(quest: ExampleQuest, tmp_path: Path) -> None:
    settle()
    cache = tmp_path / "cache"
    for _ in range(2):  # a quest is cached from its second run
        code, _ = gate(quest.root, cache)
        assert code == 1  # the pending run
    assert " yaml\n" not in imported(quest.root, cache)
    assert " yaml\n" in imported(quest.root, tmp_path / "other")  # control: a first run parses it


@pytest.mark.slow
def test_quest_yaml_edited_in_place_in_the_same_second(quest: ExampleQuest, tmp_path: Path) -> None:
    """The toggle turned off by a same-size edit with the old mtime put back: only ctime tells."""
    settle()
    cache = tmp_path / "cache"
    before = same_as_uncached(quest.root, cache)
    path = quest.root / "quest.yaml"
    st = os.stat(path)
    path.write_text(path.read_text().replace("mode: 'on'", "mode: 'no'"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size
    after = same_as_uncached(quest.root, cache)
    assert after != before
    code, out = gate(quest.root, cache)
    report = json.loads(out)
    assert report["experience_distill"] is False  # the edit is seen through the cache
    assert code == 1 and report["enforced"] is True  # but quest.yaml's history had it on: it stays on (issue 24)


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        "quest_id: '001'\nstatus: [unclosed\n",  # not YAML: a finding each time, never cached
        "quest_id: '001'\ncreated_at: 2026-11-01\nstartup_contract:\n  experience_distill: {mode: 'on'}\n",  # a date
        "- a list\n",
    ],
    ids=["invalid", "date", "not-a-mapping"],
)
def test_quest_yaml_the_cache_cannot_hold(quest: ExampleQuest, tmp_path: Path, text: str) -> None:
    (quest.root / "quest.yaml").write_text(text)
    settle()
    same_as_uncached(quest.root, tmp_path / "cache")
    assert gate(quest.root, tmp_path / "cache") == gate(quest.root, tmp_path / "cache", "--no-cache")


@pytest.mark.slow
def test_quest_yaml_replaced_by_a_link_out_of_the_quest(quest: ExampleQuest, tmp_path: Path) -> None:
    """Moved out and linked back: the same file (inode, times), now refused, as without the cache."""
    settle()
    cache = tmp_path / "cache"
    same_as_uncached(quest.root, cache)
    outside = tmp_path / "elsewhere.yaml"
    os.rename(quest.root / "quest.yaml", outside)
    (quest.root / "quest.yaml").symlink_to(outside)
    report = same_as_uncached(quest.root, cache)
    assert b"outside the quest" in report


def test_an_entry_from_another_pyyaml_is_not_used(tmp_path: Path) -> None:
    from ds_gate.engine.loader import _pyyaml_entry
    from ds_gate.kernel.cache_folder import file_key

    parser = tmp_path / "yaml" / "__init__.py"
    parser.parent.mkdir()
    parser.write_text("# one PyYAML\n")
    key = file_key(str(parser))
    entry = (str(parser), key, {"status": "active"})
    assert _pyyaml_entry(entry)
    parser.write_text("# another PyYAML\n")
    assert not _pyyaml_entry(entry)
    assert not _pyyaml_entry((str(parser), file_key(str(parser)), ["not", "a", "dict"]))
