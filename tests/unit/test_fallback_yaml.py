"""Issue 35, root A: the commit hook's shell fallback (ds-gate's Python gone) reads a staged
quest.yaml's status only when the file is "plain", and then reads the word YAML reads.

It used to refuse every checkpoint whose quest.yaml held the word completed anywhere or any
backslash, so DeepScientist's ordinary checkpoints were refused for a brief with a tab, a title
naming completed runs, or a quest completed earlier (main rewrites quest.yaml at every record).
Now a staged quest.yaml may finalize unless it is plain and its status is not completed, or was
completed at HEAD already. These properties run the hook's own ``plain_status`` (under /bin/sh)
against PyYAML: what main writes is always plain and read right; a plain text never says
anything else than YAML, nor than the Python hook's ``quest_status``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from quest_yaml_texts import (
    ABSENT,
    COMPLETIONS,
    MAIN_WRITES,
    QUEST_YAMLS,
    Unreadable,
    hostile_texts,
    main_completed,
    main_status,
    shell_status,
    write_yaml,
)

from ds_gate.rules.finalization import quest_status

SETTINGS = settings(
    max_examples=int(os.environ.get("FALLBACK_YAML_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def refused(staged: bytes, head: bytes | None) -> bool:
    """The fallback's judgement of a staged quest.yaml (hooks/pre-commit, its quest.yaml case)."""
    word = shell_status(staged)
    return word is None or (word == "completed" and (head is None or shell_status(head) != "completed"))


@SETTINGS
@given(MAIN_WRITES)
def test_what_main_writes_is_plain_and_read_as_yaml_reads_it(raw: bytes) -> None:
    """Old: any backslash (a tab or a trailing space makes safe_dump write "...\\t...") or the
    word completed anywhere made the file "may finalize", so every checkpoint was refused."""
    assert shell_status(raw) == main_status(raw), raw.decode()


@SETTINGS
@given(hostile_texts())
def test_a_plain_text_says_what_yaml_and_the_python_hook_say(raw: bytes) -> None:
    word = shell_status(raw)
    if word is None:
        return  # not plain: may finalize
    python_hook = quest_status(raw) == "completed"
    assert (word == "completed") == python_hook, raw  # HEAD's "already completed" is the Python hook's too
    try:
        status = main_status(raw)
    except Unreadable:
        return  # main cannot read it; the Python hook reads its status line, as the shell did
    assert status is not ABSENT, raw  # the status line is a top-level key
    if isinstance(status, str):
        assert status.lower() == word, raw
    else:  # YAML took the word for a bool or null (`status: yes`, `status: null`)
        assert word != "completed", raw


@SETTINGS
@given(COMPLETIONS, QUEST_YAMLS)
def test_a_status_that_becomes_completed_is_refused(staged: bytes, head: bytes) -> None:
    """Whenever main reads the staged status as completed and HEAD's not, the fallback refuses."""
    becomes = main_completed(staged) and not main_completed(head)
    event(f"becomes completed: {becomes}")
    if becomes:
        assert refused(staged, head), (staged, head)


@pytest.mark.parametrize(
    "case, status",
    [
        ("tab", "active"),  # a double-quoted "\t" in the brief
        ("completed", "active"),  # the word in the brief and the title
        ("already", "completed"),  # completed at HEAD, rewritten (updated_at) since
    ],
)
def test_the_three_checkpoints_of_the_report_pass(case: str, status: str) -> None:
    """Old: each was refused ("may finalize the quest: quest.yaml"); the Python hook passes each."""
    brief = {
        "tab": "Reproduce the baseline.\tThen improve robustness.",
        "completed": "Start from the completed baseline and improve robustness.",
        "already": "Improve robustness.",
    }[case]
    data = {
        "quest_id": "001",
        "title": "Audit of completed runs",
        "status": status,
        "startup_contract": {"schema_version": 3, "custom_brief": brief, "experience_distill": {"mode": "on"}},
        "updated_at": "2026-11-22T02:02:06+00:00",
    }
    head = write_yaml(data)
    staged = write_yaml({**data, "updated_at": "2026-11-22T03:00:00+00:00"})
    assert not refused(staged, head)
    assert refused(write_yaml({**data, "status": "completed"}), write_yaml({**data, "status": "active"}))


@pytest.mark.parametrize(
    "text",
    [
        'title: "a\nstatus: completed\nb: c"\n',  # the status line inside a quoted title
        "title: 'a''\nstatus: completed\nb: c'\n",
        'title: "a\\"\nstatus: completed\nb: c"\n',
        "a: [x,\nstatus: completed]\n",  # inside a flow sequence
        'a:\n- b: x\n  ? "open\nstatus: completed\nfoo: y"\n  : v\n',  # an explicit key's quote
        "status: completed\n  later\n",  # a plain scalar's next line: "completed later"
        "title: x\n\n : \n\u2028status: completed\n",  # after U+2028: no status line for the Python hook
    ],
)
def test_a_status_line_yaml_does_not_read_as_one_is_not_plain(text: str) -> None:
    """Each looks like `status: completed` at column 0 to a line reader; YAML (or, for the last,
    the Python hook's line reader) does not read it so. Taken as plain, it would make HEAD
    "completed already" and let a real completion through."""
    raw = text.encode()
    assert quest_status(raw) != "completed" or main_status(raw) is ABSENT
    assert shell_status(raw) is None
