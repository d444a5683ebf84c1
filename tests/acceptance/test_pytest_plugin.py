"""``pytest --ds-gate``: four items per quest, clean failures, the same outcomes under xdist.

Every run is a subprocess: an in-process pytester run restores ``sys.modules`` afterwards,
so the next run would mix two copies of ds-gate's modules, which no real session does.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET

import pytest
from junitparser import JUnitXml, Properties

pytestmark = pytest.mark.slow  # starts Python processes (conftest.py)

pytest_plugins = ["pytester"]


@pytest.fixture
def quest(make_quest):
    """Quest 001: a covered run (with its lesson), a pending run, and an invalid decision."""
    quest = make_quest()
    wt = quest.worktree("idea-a", "idea/001-a")
    covered = quest.run(wt, "main-001")
    pending = quest.run(quest.root, "main-002")
    review = quest.review(wt, [covered])
    broken = quest.decision(
        quest.root, "continue", verdict=" "
    )  # main writes it (truthy); a discipline error (issue 35)
    quest.checkpoint(wt, "record")
    return quest, covered, pending, review, broken


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    out = {}
    for line in result.outlines:
        for word in ("PASSED", "FAILED"):
            if line.startswith(word + " "):
                out[line.split()[1]] = word
    return out


def test_each_check_is_an_item_with_its_own_outcome(pytester, quest, home) -> None:
    q, covered, pending, review, broken = quest
    result = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "-rA", "-p", "no:cacheprovider")
    assert outcomes(result) == {
        "quest-001::coverage": "FAILED",  # the pending run
        "quest-001::records": "FAILED",  # the broken decision
        "quest-001::cards": "PASSED",
        "quest-001::status": "PASSED",
    }
    result.assert_outcomes(passed=2, failed=2)
    text = result.stdout.str()
    assert f"1 completed run(s) pending: {pending}" in text and covered not in text.split("short test summary")[0]


def test_failures_read_as_domain_messages_without_a_traceback(pytester, quest) -> None:
    q, covered, pending, review, broken = quest
    result = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "-p", "no:cacheprovider")
    text = result.stdout.str()
    assert f"artifacts/runs/{pending}.json: error [coverage.pending-run]" in text
    assert f"artifacts/decisions/{broken}.json:" in text and "[decision.schema] `verdict` must not be empty" in text
    assert "at /verdict" in text and "hint:" in text
    assert "Traceback" not in text and "ds_gate/pytest/items.py" not in text and "raise CheckFailed" not in text


def test_a_home_collects_every_quest_and_the_lineage_of_its_cards(pytester, make_quest, home) -> None:
    first, second = make_quest("001"), make_quest("002")
    run = first.run(first.root, "main-001")
    first.card("global", "Good lesson", claim="c", lineage=[{"quest": "001", "run": run}])
    first.card("global", "Bad lesson", claim="c", lineage=[{"quest": "001", "run": "run-nothere"}])
    result = pytester.runpytest_subprocess(f"--ds-gate={home}", "-rA", "-p", "no:cacheprovider")
    got = outcomes(result)
    assert {k for k in got if k.endswith("::status")} == {"quest-001::status", "quest-002::status"}
    assert got["home::lineage"] == "FAILED" and "run-nothere" in result.stdout.str()
    assert got["quest-001::coverage"] == "FAILED" and got["quest-002::coverage"] == "PASSED"
    assert f"1 completed run(s) pending: {run}" in result.stdout.str()
    assert second.root.name == "002" and len(got) == 9


def test_ini_options_and_the_gate_left_off(pytester, make_quest) -> None:
    quest = make_quest(experience_distill=None)  # toggle off: pending runs do not fail ...
    run = quest.run(quest.root, "main-001")
    pytester.makeini(f"[pytest]\nds_gate_paths = {quest.root}\n")
    result = pytester.runpytest_subprocess("-rA", "-p", "no:cacheprovider")
    assert outcomes(result)["quest-001::coverage"] == "PASSED"
    assert f"1 pending (the gate is not enforced for this quest): {run}" in result.stdout.str()
    review = quest.review(quest.root, [run])  # names a global card: with a home that does not exist, one warning
    result = pytester.runpytest_subprocess(f"--ds-gate-home={quest.root / 'no-home'}", "-rA", "-p", "no:cacheprovider")
    assert outcomes(result)["quest-001::cards"] == "PASSED" and "[card.home-missing]" in result.stdout.str()
    (quest.root / "artifacts" / "decisions" / f"{review}.json").unlink()  # the run is pending again
    pytester.makeini(f"[pytest]\nds_gate_paths = {quest.root}\nds_gate_require = true\n")  # ... unless required
    assert outcomes(pytester.runpytest_subprocess("-rA", "-p", "no:cacheprovider"))["quest-001::coverage"] == "FAILED"


def test_the_same_outcomes_under_xdist_from_one_read_of_the_quest(pytester, quest) -> None:
    q = quest[0]
    # count how often the quests are read, in every process (xdist workers get -p too)
    pytester.makepyfile(
        countreads=f"""
        import ds_gate.pytest.items as items
        real = items.judge
        def counted(*args, **kwargs):
            with open({str(pytester.path / "reads.log")!r}, "a") as log:
                log.write("read\\n")
            return real(*args, **kwargs)
        items.judge = counted
    """
    )
    pytester.syspathinsert()
    serial = pytester.runpytest_subprocess("-p", "countreads", f"--ds-gate={q.root}", "-rA", "-p", "no:cacheprovider")
    assert (pytester.path / "reads.log").read_text().count("read") == 1
    (pytester.path / "reads.log").unlink()
    parallel = pytester.runpytest_subprocess(
        "-p", "countreads", f"--ds-gate={q.root}", "-rA", "-n", "2", "-p", "no:cacheprovider"
    )
    assert (pytester.path / "reads.log").read_text().count("read") == 1  # by the one worker that ran its items
    # pytester's folder holds files (countreads.py), so xdist distributes
    assert "created: 2/2 workers" in parallel.stdout.str()
    assert outcomes(parallel) == outcomes(serial) and len(outcomes(serial)) == 4
    parallel.assert_outcomes(passed=2, failed=2)


def test_junitxml_names_every_pending_run_in_the_coverage_case(pytester, quest) -> None:
    q, covered, pending, review, broken = quest
    result = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "--junitxml=out.xml", "-p", "no:cacheprovider")
    cases = {
        (c.get("classname"), c.get("name")): c for c in ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    }
    assert set(cases) == {("quest-001", check) for check in ("coverage", "records", "cards", "status")}
    coverage = cases[("quest-001", "coverage")]
    assert [(p.get("name"), p.get("value")) for p in coverage.iter("property")] == [("coverage.pending-run", pending)]
    failure = coverage.find("failure")
    assert failure is not None and f"1 completed run(s) pending: {pending}" in failure.get("message", "")
    records = cases[("quest-001", "records")]
    assert records.find("failure") is not None and ("decision.schema", f"artifacts/decisions/{broken}.json") in {
        (p.get("name"), p.get("value")) for p in records.iter("property")
    }
    assert cases[("quest-001", "status")].find("failure") is None
    result.assert_outcomes(passed=2, failed=2)


def test_junitparser_reads_every_pending_run_of_a_home(pytester, make_quest, home) -> None:
    """junitparser (as a CI dashboard or test-report action reads JUnit) finds each quest's case, its
    verdict, and every pending run in its properties and its failure message."""
    first = make_quest("001")
    make_quest("002")  # no run: its coverage passes
    runs = sorted(first.run(first.root, f"main-00{n}") for n in (1, 2, 3))
    pytester.runpytest_subprocess(f"--ds-gate={home}", "--junitxml=out.xml", "-p", "no:cacheprovider")
    cases = {
        (case.classname, case.name): case
        for suite in JUnitXml.fromfile(str(pytester.path / "out.xml"))
        for case in suite
    }
    assert len(cases) == 9 and cases[("home", "lineage")].is_passed
    coverage = cases[("quest-001", "coverage")]
    assert not coverage.is_passed and cases[("quest-002", "coverage")].is_passed
    named = sorted(
        p.value for props in coverage.iterchildren(Properties) for p in props if p.name == "coverage.pending-run"
    )
    assert named == runs
    message = coverage.result[0].message
    assert message.startswith("3 completed run(s) pending: ") and all(run in message for run in runs)


def test_fixtures_give_a_labs_own_tests_the_parsed_quest(pytester, quest) -> None:
    q, covered, pending, review, broken = quest
    pytester.makepyfile(
        test_lab=f"""
        def test_every_completed_run_has_metrics(ds_gate_quest):
            assert ds_gate_quest.quest_id == "001"
            assert {{"{covered}", "{pending}"}} <= set(ds_gate_quest.runs)

        def test_the_report_is_the_closure(ds_gate_report):
            assert ds_gate_report.pending_run_ids == ["{pending}"]
    """
    )
    result = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "test_lab.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=2)  # the two lab tests pass beside the gate's items


def test_without_the_option_the_plugin_adds_nothing(pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import sys

        def test_the_gate_was_not_loaded():
            assert "ds_gate.pytest.plugin" in sys.modules  # registered by its entry point ...
            heavy = {"ds_gate.pytest.items", "ds_gate.engine.gate", "ds_gate.engine.loader", "ds_gate.model", "jsonschema", "git"}
            assert heavy.isdisjoint(sys.modules)  # ... and nothing else of ds-gate was imported
    """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    help_text = pytester.runpytest_subprocess("--help").stdout.str()
    assert "--ds-gate=PATH" in help_text and "ds_gate_paths" in help_text


def test_a_path_that_is_not_a_quest_fails_one_clean_item(pytester, tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    result = pytester.runpytest_subprocess(f"--ds-gate={tmp_path / 'empty'}", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=4)  # nothing of it could be checked: every item fails closed
    assert "not a readable quest" in result.stdout.str() and "Traceback" not in result.stdout.str()


def test_the_header_counts_the_items_it_runs(pytester, quest) -> None:
    """Issue 39: the header said "collected 0 items", then ran 4."""
    q = quest[0]
    result = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["collected 4 items"])
    result.assert_outcomes(passed=2, failed=2)
    chosen = pytester.runpytest_subprocess(f"--ds-gate={q.root}", "-p", "no:cacheprovider", "-k", "cards")
    chosen.stdout.fnmatch_lines(["collected 4 items / 3 deselected / 1 selected"])


def test_a_separate_path_is_refused_with_the_command_spelt_with_equals(pytester, quest) -> None:
    """Issue 39: ``--ds-gate PATH`` moved pytest's rootdir (node ids ``../quest-001``) and its
    config file search to the quest's side; it is refused, and the printed command, run as
    printed, gives the node ids ``--ds-gate=PATH`` gives."""
    q = quest[0]
    pytester.makeini("[pytest]\naddopts = -rA\n")  # the lab's own config, which the separate path lost
    spaced = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ds-gate", str(q.root))
    assert spaced.ret == 2 and "../quest-001" not in spaced.stdout.str() + spaced.stderr.str()
    command = (spaced.stdout.str() + spaced.stderr.str()).split("Run: ", 1)[1].splitlines()[0]
    words = shlex.split(command)
    assert words[0] == "pytest" and f"--ds-gate={q.root}" in words
    followed = pytester.runpytest_subprocess(*words[1:])
    joined = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--ds-gate={q.root}")
    assert outcomes(followed) == outcomes(joined) and set(outcomes(followed)) == {
        f"quest-001::{check}" for check in ("coverage", "records", "cards", "status")
    }
