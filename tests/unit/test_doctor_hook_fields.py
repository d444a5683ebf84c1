"""doctor_hook_fields: a framework hook's fields, read as pre-commit reads them (issue 35, root C).

The config is the quest's: any value of any field is judged without an error, and a hook doctor
vouches for runs exactly ds-gate's command at its stage. The real framework's side of each field
is in tests/acceptance/test_doctor_framework_fields.py."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ds_gate.setup.doctor_hook_fields import DEFAULTS, MANIFEST, RENAMED_STAGES, STAGE, hook_findings

FIELDS = (*DEFAULTS, "entry", "language", "name", "alias", "verbose", "log_file", "require_serial", "fail_fast")
TOP = ("default_language_version", "default_stages", "files", "exclude", "fail_fast", "minimum_pre_commit_version")
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
words = st.sampled_from(
    ["python", "system", "script", "pygrep", "default", "python3", "ds-gate", "pre-commit", "pre-push", "commit"]
)


def local(hook_id: str, **fields: object) -> dict[str, object]:
    return {"id": hook_id, **MANIFEST[hook_id], "language": "system", **fields}


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(MANIFEST)),
    st.dictionaries(st.sampled_from(FIELDS), values | words, max_size=5),
    st.dictionaries(st.sampled_from(TOP), values | words | st.dictionaries(words, words), max_size=3),
    st.booleans(),
)
def test_any_value_is_judged_and_a_vouched_hook_runs_ds_gates_command(hook_id, fields, top, is_local) -> None:
    hook = {"id": hook_id, **fields}
    found = hook_findings(hook_id, hook, top, is_local)
    assert all(isinstance(fails, bool) and isinstance(why, str) and why for fails, why in found)
    if any(fails for fails, _ in found):
        return
    ran = {**DEFAULTS, **({} if is_local else MANIFEST[hook_id]), **hook}
    assert [*shlex.split(ran["entry"]), *ran["args"]] == shlex.split(MANIFEST[hook_id]["entry"])
    assert ran["additional_dependencies"] == [] and ran["language"] in ("python", "system", "unsupported")
    stages = ran["stages"] or top.get("default_stages") or [STAGE[hook_id]]
    assert STAGE[hook_id] in {RENAMED_STAGES.get(s, s) for s in stages}
    assert ran["always_run"] is MANIFEST[hook_id].get("always_run", False)
    assert ran["pass_filenames"] is MANIFEST[hook_id].get("pass_filenames", True)


@pytest.mark.parametrize("hook_id", sorted(MANIFEST))
@pytest.mark.parametrize(
    "hook, top, is_local",
    [
        ({}, {}, False),  # the docs' snippet: the id alone, from ds-gate's repository
        ({"language": "system"}, {}, True),  # its repo: local copy, run from the PATH
        ({"language": "python"}, {}, True),
        ({}, {"default_language_version": {"python": "python3"}, "fail_fast": True}, False),
        ({"name": "gate", "verbose": False, "alias": "g", "require_serial": False}, {}, False),
    ],
)
def test_the_documented_configurations_have_nothing_to_say(hook_id, hook, top, is_local) -> None:
    full = local(hook_id, **hook) if is_local else {"id": hook_id, **hook}
    assert hook_findings(hook_id, full, top, is_local) == []


@pytest.mark.parametrize(
    "fields, top, named",
    [
        ({"additional_dependencies": ["dsgatefake"]}, {}, "`additional_dependencies"),
        ({"language": "python", "additional_dependencies": ["./w.whl"]}, {}, "`additional_dependencies"),
        ({"language_version": "python3"}, {}, "`language_version"),
        ({"language": "docker_image"}, {}, "`language"),
        ({"language": "fail"}, {}, "`language"),
        ({"entry": "ds-gate commit-check --no-validate --require; true"}, {}, "`entry"),
        ({"args": ["--format", "json"]}, {}, "`args"),
        ({"stages": ["pre-push"]}, {}, "`stages"),
        ({"stages": []}, {"default_stages": ["manual"]}, "`default_stages"),
        ({"always_run": False}, {}, "`always_run"),
        ({"pass_filenames": True}, {}, "`pass_filenames"),
        ({"always_run": "yes"}, {}, "`always_run"),
        (
            {"language": "python"},
            {"default_language_version": {"python": "/nonexistent/python"}},
            "`default_language_version",
        ),
        ({"language": "python"}, {"default_language_version": "python3"}, "`default_language_version"),
        ({"language": "python", "language_version": "/bin/true"}, {}, "`language_version"),
        ({"language": "python", "language_version": "~\0"}, {}, "`language_version"),
    ],
)
def test_a_field_that_changes_what_runs_fails_the_closure_naming_it(fields, top, named) -> None:
    found = hook_findings("ds-gate-closure", local("ds-gate-closure", **fields), top, True)
    assert any(fails and named in why and ("fix" in why or "refuses" in why) for fails, why in found), found


def test_an_interpreter_inside_the_quest_fails_and_a_python_outside_passes(tmp_path: Path) -> None:
    quest = tmp_path / "quest"
    (quest / ".ds").mkdir(parents=True)
    (quest / "quest.yaml").write_text("quest_id: q\n")
    inside = quest / ".ds" / "python3"
    inside.symlink_to(sys.executable)
    hook = local("ds-gate-closure", language="python")
    [(fails, why)] = hook_findings("ds-gate-closure", {**hook, "language_version": str(inside)}, {}, True)
    assert fails and "agent can write" in why, why
    assert hook_findings("ds-gate-closure", {**hook, "language_version": sys.executable}, {}, True) == []


def test_filters_matter_only_where_the_hook_is_not_always_run() -> None:
    top = {"exclude": "^artifacts/"}
    [(fails, why)] = hook_findings("ds-gate-validate", local("ds-gate-validate"), top, True)
    assert not fails and "`exclude" in why and "cannot tell" in why
    assert hook_findings("ds-gate-closure", local("ds-gate-closure", files="^x$", types=["symlink"]), top, True) == []
    [(fails, why)] = hook_findings("ds-gate-validate", local("ds-gate-validate", types=["symlink"]), {}, True)
    assert fails and "`types" in why
