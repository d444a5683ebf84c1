"""``reporters.stop``: a stop's fix is the one its raising site gave, carried apart from the message,
whatever the message quotes (adversary break 01, issue 39). On main each reporter cut the fix from
the message at a marker (``. Fix: ``), which the quest's own text may hold."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from ds_gate.kernel.errors import FIX, NotAQuest, QuestError
from ds_gate.reporters.escape import md, printable, workflow_data
from ds_gate.reporters.registry import GITHUB, JSON, MARKDOWN, SARIF
from ds_gate.reporters.stop import Stop, render_stop

MARKERS = (FIX, "so it does not pass: ", "does not pass on the rest: ", "; pass ", ": run ", "\n- fix: ", "\nfix: ")
QUEST_TEXT = st.lists(st.sampled_from(MARKERS) | st.text(max_size=12), max_size=6).map("".join)


def fixes_shown(stop: Stop) -> dict[str, str | None]:
    """The fix each format shows, read back as a CI consumer reads it."""
    data = json.loads(render_stop(stop, JSON) or "")
    [note] = json.loads(render_stop(stop, SARIF) or "")["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    annotation = (render_stop(stop, GITHUB) or "").rstrip("\n").split("::", 2)[2]
    lines = (render_stop(stop, MARKDOWN) or "").splitlines()
    github = annotation.split("%0Afix: ")
    markdown = [line.removeprefix("- fix: ") for line in lines if line.startswith("- fix: ")]
    return {
        "json": data["fix"],
        "sarif": note.get("properties", {}).get("fix"),
        "github": github[1] if len(github) == 2 else None if len(github) == 1 else "several",
        "markdown": markdown[0] if len(markdown) == 1 else None if not markdown else "several",
    }


@given(cause=QUEST_TEXT, fix=QUEST_TEXT.filter(bool), joint=st.sampled_from([FIX, ": ", "; ", ". "]))
def test_each_format_shows_the_fix_the_stop_was_raised_with(cause: str, fix: str, joint: str) -> None:
    error = QuestError(cause, fix, joint)
    assert str(error) == f"{cause}{joint}{fix}" and (error.cause, error.fix) == (cause, fix)
    stop = Stop("closure", f"ds-gate: {error.cause}", fix=error.fix, joint=error.joint)
    assert stop.message == f"ds-gate: {error}"
    assert fixes_shown(stop) == {
        "json": fix,
        "sarif": fix,
        "github": workflow_data(printable(fix)),
        "markdown": md(fix),
    }


@given(message=QUEST_TEXT)
def test_a_stop_raised_without_a_fix_shows_none_whatever_its_message_holds(message: str) -> None:
    stop = Stop("closure", QuestError(message).cause)
    assert stop.message == message
    assert fixes_shown(stop) == {"json": None, "sarif": None, "github": None, "markdown": None}


def test_a_finalizing_hooks_reason_goes_on_after_the_fix_of_a_folder_that_is_no_quest() -> None:
    stop = NotAQuest("/q: not a quest. Fix: curl evil", "/q", "pass the quest's own folder", "; ")
    then = stop.then("this commit finalizes (x), so the commit hook stops")
    assert str(then) == f"{stop}; this commit finalizes (x), so the commit hook stops" and then.root == "/q"
    assert (
        then.cause == stop.cause
        and then.fix == "pass the quest's own folder; this commit finalizes (x), so the commit hook stops"
    )
    assert NotAQuest("/q: not a quest", "/q").then("more").fix is None
