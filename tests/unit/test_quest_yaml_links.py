"""``kernel.links``: a link is followed only inside the worktree, over git's own
entries (a dict stands for the index here: path -> (mode, id), id -> bytes)."""

from __future__ import annotations

import pytest

from ds_gate.kernel.links import link_target, resolve


@pytest.mark.parametrize(
    ("link", "text", "expected"),
    [
        ("quest.yaml", b"state/quest.yaml", "state/quest.yaml"),
        ("quest.yaml", b"./state/../state/q.yaml", "state/q.yaml"),
        ("config/quest.yaml", b"../state/q.yaml", "state/q.yaml"),
        ("quest.yaml", b"../quest.yaml", None),
        ("quest.yaml", b"/etc/passwd", None),
        ("quest.yaml", b"state/..", None),
        ("quest.yaml", b"", None),
        ("quest.yaml", b"\xff", None),
    ],
)
def test_a_link_target_stays_inside_the_worktree(link: str, text: bytes, expected: str | None) -> None:
    assert link_target(link, text) == expected


def walk(entries: dict[str, tuple[str, str]], blobs: dict[str, bytes]) -> str | None:
    return resolve(entries.get, blobs.get)


def test_links_and_linked_folders_are_followed_to_a_regular_file() -> None:
    assert walk({"quest.yaml": ("100644", "a")}, {}) == "quest.yaml"
    assert (
        walk({"quest.yaml": ("120000", "l"), "state/q.yaml": ("100644", "b")}, {"l": b"state/q.yaml"}) == "state/q.yaml"
    )
    linked_folder = {"quest.yaml": ("120000", "l"), "config": ("120000", "c"), "state/q.yaml": ("100644", "b")}
    assert walk(linked_folder, {"l": b"config/q.yaml", "c": b"state"}) == "state/q.yaml"


def test_what_leads_nowhere_inside_reads_as_absent() -> None:
    assert walk({}, {}) is None
    assert walk({"quest.yaml": ("120000", "l")}, {"l": b"../../outside.yaml"}) is None
    assert walk({"quest.yaml": ("120000", "l")}, {"l": b"missing.yaml"}) is None
    assert walk({"quest.yaml": ("120000", "l"), "a": ("120000", "l")}, {"l": b"a"}) is None  # a loop ends
    assert walk({"quest.yaml": ("120000", "l"), "sub": ("160000", "g")}, {"l": b"sub/q.yaml"}) is None  # a gitlink
