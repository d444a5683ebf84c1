"""The JSON (and text) ds-gate prints is an API: byte-identical across refactors.

Golden copies live in ``tests/acceptance/golden``; the large quest's outputs are kept as digests.
Rewrite them only for a deliberate change: ``python tests/acceptance/golden_quests.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from golden_quests import GOLDEN, build_all, commands, digest, outputs


@pytest.fixture(scope="module")
def produced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    base = tmp_path_factory.mktemp("golden").resolve()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GIT_CONFIG_GLOBAL", "/dev/null")  # the demo sets these itself; undo it after
        build_all(base)
        mp.setenv("DEEPSCIENTIST_HOME", str(base / "DeepScientist"))
        yield outputs(base)


def _expected_digests() -> dict[str, str]:
    lines = (GOLDEN / "large.sha256").read_text().splitlines()
    return {name: value for value, name in (line.split("  ") for line in lines if line)}


NAMES = sorted(commands(Path("/nowhere")))


def test_every_output_has_a_golden_copy() -> None:
    kept = {p.name for p in GOLDEN.iterdir()} | set(_expected_digests())
    assert set(NAMES) <= kept


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_output_is_unchanged(produced: dict[str, str], name: str) -> None:
    if name.startswith("large-"):
        assert digest(produced[name]) == _expected_digests()[name]
    else:
        assert produced[name] == (GOLDEN / name).read_text()
